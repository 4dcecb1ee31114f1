"""GQA's question types read off a program: structural (what the answer is) and semantic (what it is about).

GQA labels every question with a structural type (verify, query, choose, logical, compare) and a
semantic type (obj, attr, cat, rel, global). Both follow from the program: the answer step's
operation gives the structure; the words it asks about give the semantics. The rules were
written against GQA's own labels on the tuning part of the split (`evaluation.splits`), where
they agree on the structural type for every question and on the semantic type for most.

Example:
    >>> from theory.nested import parse_nested
    >>> program_types(parse_nested("choose_rel(unique(select(scene(), cup)), table, on, under, object)"))
    QuestionType(structural='choose', semantic='rel')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from theory.operations import (
    OPERATIONS,
    RELATING_OPERATIONS,
    RELATION_OPERATIONS,
    SAMENESS_OPERATIONS,
    Kind,
    operations_where,
)
from theory.program import Program, Step
from theory.validate import ancestors

Structural = Literal["verify", "query", "choose", "logical", "compare"]
Semantic = Literal["obj", "attr", "cat", "rel", "global"]
STRUCTURAL_TYPES: tuple[str, ...] = get_args(Structural)
SEMANTIC_TYPES: tuple[str, ...] = get_args(Semantic)

# The answer step's operation -> structural type, for every operation that answers (not a set of
# objects); GQA's labels, so a list rather than a rule (tests/theory/test_operation_sets.py).
ANSWER_STRUCTURE: dict[str, Structural] = {
    "exist": "verify",
    "verify_attr": "verify",
    "verify_rel": "verify",
    "query": "query",
    "choose_attr": "choose",
    "choose_rel": "choose",
    "and": "logical",
    "or": "logical",
    "compare": "compare",
    "common": "compare",
    "two_same": "compare",
    "two_different": "compare",
    "all_same": "compare",
    "all_different": "compare",
    # GQA has no counting questions; a count asks for a value, a comparison of counts compares.
    "count": "query",
    "compare_count": "compare",
}
# Categories that describe the whole picture (GQA's "global" questions: place, room, weather ...).
GLOBAL_CATEGORIES = frozenset({"place", "room", "weather", "location", "scene"})
_IDENTITY = frozenset({"name", "class"})
# Answer steps by what they ask about (no step that reads another answers: only sets of objects,
# counts and yes/no answers are read, so `_ATTRIBUTE_ANSWERS` among the inputs of an and/or is a
# verify_attr).
_ATTRIBUTE_ANSWERS = operations_where(lambda spec: spec.family == "attribute" and spec.output is not Kind.STATE)
_RELATION_ANSWERS = frozenset(name for name in RELATION_OPERATIONS if OPERATIONS[name].output is not Kind.STATE)
_JOINING = operations_where(lambda spec: spec.family == "logic")
_SAMENESS_ANSWERS = frozenset(name for name in SAMENESS_OPERATIONS if OPERATIONS[name].output is not Kind.STATE)


@dataclass(frozen=True)
class QuestionType:
    """GQA's two labels of one question."""

    structural: Structural
    semantic: Semantic


def _semantic(program: Program, answer: Step) -> Semantic:
    inputs = [program.step(i) for i in ancestors(program, answer.id)]
    related = any(s.operation in RELATING_OPERATIONS for s in inputs)
    selects_scene = any(s.operation == "select" and s.arguments[0] == "scene" for s in inputs)
    op, args = answer.operation, answer.arguments
    if op in _JOINING:
        return "attr" if any(s.operation in _ATTRIBUTE_ANSWERS for s in inputs) else "obj"
    if op == "exist":
        return "rel" if related else "obj"
    if op in _RELATION_ANSWERS:
        return "rel"
    if op == "verify_attr":
        return "attr"
    category = args[0] if args else ""
    if op == "choose_attr":
        if category in GLOBAL_CATEGORIES or selects_scene:
            return "global"
        if category in _IDENTITY:
            return "rel" if related else "cat"
        return "attr"
    if op == "query":
        if category in GLOBAL_CATEGORIES or selects_scene:
            return "global"
        if category in _IDENTITY:
            return "rel" if related else "cat"
        return "attr"
    return "attr" if op in _SAMENESS_ANSWERS else "obj"


def program_types(program: Program) -> QuestionType:
    """The structural and semantic type of the question `program` answers."""
    answer = program.step(program.answer)
    return QuestionType(ANSWER_STRUCTURE.get(answer.operation, "query"), _semantic(program, answer))
