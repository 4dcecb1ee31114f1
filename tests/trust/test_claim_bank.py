"""The claim pool: yes/no programs only, its fixed examples cover what claims use."""

from __future__ import annotations

from theory.operations import OPERATIONS, Kind
from translators.examples.synthetic import generate_examples
from translators.model.prompts import covering_examples
from translators.wording.ontology import bundled_ontology
from trust.claim_bank import CLAIM_TEMPLATES, hand_written_claims


def answers_yes_or_no(example) -> bool:
    return OPERATIONS[example.program.step(example.program.answer).operation].output is Kind.BOOL


def test_hand_written_claims_cover_the_claim_operations():
    fixed = covering_examples(hand_written_claims())
    used = set().union(*(e.operations for e in fixed))
    assert {"exist", "verify_attr", "verify_rel", "negate", "unique", "and", "or", "two_same", "relate"} <= used
    assert all(answers_yes_or_no(e) for e in hand_written_claims())


def test_generated_claims_are_yes_no_programs_of_every_template():
    examples = generate_examples(bundled_ontology(), per_template=3, templates=CLAIM_TEMPLATES)
    assert all(answers_yes_or_no(e) for e in examples)
    families = {e.id.rsplit("-", 1)[0].removeprefix("gen-") for e in examples}
    assert families == {t.family for t in CLAIM_TEMPLATES}
