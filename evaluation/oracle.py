"""Oracle concepts: what to look for in an image, read from a question's GQA semantic program.

Lives in `evaluation` (not `scene`) because it needs the GQA converter from `translators`, and
`scene` depends on `theory` alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from evaluation.gqa_json import SemanticStep
from scene.concepts import Concepts, Taxonomy, concepts_from_program
from translators.gqa.gqa_program import gqa_to_program


def concepts_from_gqa(
    semantic: Sequence[SemanticStep],
    taxonomy: Taxonomy | None = None,
    attributes: Mapping[str, Iterable[str]] | None = None,
    max_members: int = 40,
    fallback_classes: Iterable[str] = (),
) -> Concepts:
    """Oracle concepts: from a question's GQA semantic program (its `semantic` list)."""
    value_category = {v: c for c, vs in sorted((attributes or {}).items(), reverse=True) for v in vs}
    program = gqa_to_program(semantic, value_category)
    return concepts_from_program(program, taxonomy, attributes, max_members, fallback_classes)
