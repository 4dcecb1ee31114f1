"""A program said the way its question says it: the class (or kind) a wh-question names for its
answer, each class in the number the question says it, each value in the form it says it, the way
each relation runs, a relation check of "the X", and "this" asked to be one of two things, where the
question's words say them plainly (`translators.wording.asked_class`, `translators.wording.said_number`,
`translators.wording.said_value`, `translators.wording.said_this`, `relation_direction`,
`relation_check`).

Both a filled program and the model's go through it, so a form's examples and the model agree on
these readings.
"""

from __future__ import annotations

from theory.program import Program
from translators.rules.relation_check import as_relation_check
from translators.rules.relation_direction import direct_relations
from translators.wording.asked_class import with_asked_class, with_asked_kind
from translators.wording.ontology import Ontology
from translators.wording.said_number import with_said_number
from translators.wording.said_this import with_this_named
from translators.wording.said_value import with_said_values
from translators.wording.schema import SchemaFix
from translators.wording.word_senses import WordSenses


def said_as_asked(
    program: Program, asked: str, ontology: Ontology | None, senses: WordSenses | None = None
) -> tuple[Program, list[SchemaFix]]:
    """`program` with the readings the question's words say plainly, and the fixes that made them;
    `senses` (WordNet's, where installed) tell a place from a thing."""
    fixes: list[SchemaFix] = []
    if ontology is not None:
        program, named = with_asked_class(program, asked, ontology)
        program, kind = with_asked_kind(program, asked, ontology)
        program, number = with_said_number(program, asked, ontology)
        program, values = with_said_values(program, asked, ontology)
        program, this = with_this_named(program, asked, ontology, senses)
        fixes += [*named, *kind, *number, *values, *this]
    program, turned = direct_relations(program, asked)
    program, checked = as_relation_check(program, asked)
    return program, [*fixes, *turned, *checked]
