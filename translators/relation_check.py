"""A yes/no question about "the X" and a relation asks whether that object is so related: ``verify_rel``.

"Is the floor behind the chair?" names one floor; GQA's programs check it with
``verify_rel(unique(select(floor)), chair, behind, object)`` (every such question of the tuning
part without "or" ends in ``verify_rel`` or ``verify_attr``, none in ``exist``). A small model
often writes "is there a floor behind a chair" instead: ``exist(relate(select(chair), floor,
behind, subject))``, which answers yes for any floor. `as_relation_check` rewrites that shape
where the question opens with "is/are the (that, this) X" and X is the related class.

Example:
    >>> from theory.nested import format_nested, parse_nested
    >>> program = parse_nested("exist(relate(select(scene(), chair), floor, behind, subject))")
    >>> format_nested(as_relation_check(program, "Is the floor behind the chair?")[0])
    'verify_rel(unique(select(scene(), floor)), chair, behind, object)'
"""

from __future__ import annotations

import re

from theory.program import Program, Step
from translators.grounded_words import stem
from translators.schema import SchemaFix

_DEFINITE = re.compile(r"(?:is|are)\s+(?:the|that|this|these|those)\s+(.*)")


def _names_first(question: str, cls: str, relation: str) -> bool:
    """Whether the question opens with "is/are the ..." and names `cls` before the relation's first word."""
    match = _DEFINITE.match(question.strip().lower())
    if match is None or re.search(r"\bor\b", question.lower()):
        return False
    stems = [stem(w) for w in re.findall(r"[a-z]+", match[1])]
    first = stem(relation.split("_")[0])
    before = stems[: stems.index(first)] if first in stems else []
    return stem(cls.split("_")[-1]) in before


def as_relation_check(program: Program, question: str) -> tuple[Program, list[SchemaFix]]:
    """The program as a ``verify_rel`` of the named object where it asks whether any such object exists."""
    last = program.step(program.answer)
    if last.operation != "exist":
        return program, []
    related = program.step(last.dependencies[0])
    if related.operation != "relate" or related.arguments[2] != "subject":
        return program, []
    other = program.step(related.dependencies[0])
    if other.operation != "select" or other.dependencies != (0,):
        return program, []
    cls, relation, _ = related.arguments
    if not _names_first(question, cls, relation):
        return program, []
    steps = (
        Step(0, "scene"),
        Step(1, "select", (0,), (cls,)),
        Step(2, "unique", (1,)),
        Step(3, "verify_rel", (2,), (other.arguments[0], relation, "object")),
    )
    fix = SchemaFix("relation check", last.id, "exist(relate)", "verify_rel")
    return Program(steps, 3), [fix]
