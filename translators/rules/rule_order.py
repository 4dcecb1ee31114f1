"""The rules that write a program without a model, in the order a translator tries them."""

from __future__ import annotations

from typing import Literal

from translators.rules.compositional_fill import CompositionalFiller
from translators.rules.coordination import CoordinatedFiller, Filler
from translators.rules.quantified import QuantifiedFiller
from translators.rules.template_fill import TemplateFiller
from translators.wording.ontology import Ontology

# The `source` a translation reports (`translators.records.Source`) for a program each rule writes.
RuleSource = Literal["template", "composed"]


def rule_order(
    filler: TemplateFiller, composer: CompositionalFiller, ontology: Ontology
) -> tuple[tuple[RuleSource, Filler], ...]:
    """Template fill, then the rules for forms the bank lacks, each with the source it reports."""
    parts = (filler, composer)
    return (
        ("template", filler),
        # Before composition, which would read "every" in "Is every plate round?" as a value.
        ("composed", QuantifiedFiller(parts, ontology)),
        ("composed", composer),
        ("composed", CoordinatedFiller(parts)),
    )
