"""A yes/no question about "the X" and a relation asks whether that object is so related: ``verify_rel``.

"Is the rug behind the sofa?" names one rug; GQA's programs check it with
``verify_rel(unique(select(rug)), sofa, behind, object)`` (every such question of the tuning
part without "or" ends in ``verify_rel`` or ``verify_attr``, none in ``exist``). A small model
often writes "is there a rug behind a sofa" instead: ``exist(relate(select(sofa), rug,
behind, subject))``, which answers yes for any rug. `as_relation_check` rewrites that shape
where the question asks yes or no (no "or"), opens with "is/are the (that, this) ..." and says X,
the relation and Y in that order (`relation_direction.word_order_direction`'s subject pattern).

Example:
    >>> from theory.nested import format_nested, parse_nested
    >>> program = parse_nested("exist(relate(select(scene(), sofa), rug, behind, subject))")
    >>> format_nested(as_relation_check(program, "Is the rug behind the sofa?")[0])
    'verify_rel(unique(select(scene(), rug)), sofa, behind, object)'
"""

from __future__ import annotations

import re

from theory.program import Program, Step
from translators.rules.relation_direction import word_order_direction
from translators.wording.question_frame import Frame, frame_of
from translators.wording.schema import SchemaFix

_DEFINITE = re.compile(r"(?:is|are)\s+(?:the|that|this|these|those)\s")


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
    if (
        frame_of(question) != Frame.YES_NO
        or not _DEFINITE.match(question.strip().lower())
        or word_order_direction(question, cls, relation, other.arguments[0]) != "subject"
    ):
        return program, []
    steps = (
        Step(0, "scene"),
        Step(1, "select", (0,), (cls,)),
        Step(2, "unique", (1,)),
        Step(3, "verify_rel", (2,), (other.arguments[0], relation, "object")),
    )
    fix = SchemaFix("relation check", last.id, "exist(relate)", "verify_rel")
    return Program(steps, 3), [fix]
