"""Which way a relation runs, read from the question's word order where it is plain.

``relate(D, C, R, subject)`` asks for objects of class C that stand in relation R to an object of
D (C is the relation's subject); ``object`` the other way round. A small model often writes the
wrong one. The question's word order says it in three plain patterns, with C the class word of
the step (or a wh-word), R the relation's words and D the class of the step it reads from:

- C ... R ... D: "What animals are on the roof?"    -> subject
- D ... R ... C: "The ice is on what animal?"        -> object
- C ... D ... R: "What is the skier holding?"        -> object (the wh-word asks for R's object)

A part or possession is the subject of `of` ("the baby's hair", "her hair"), and what has something
with a relation to "it" is that relation's object, whichever is said first ("What does the table
have on it?", "Which animal has a hat on it?"). On the 548 relation
steps of GQA's own programs for the tuning part's questions, these rules decide 506 and agree
with GQA on every one; the other 42 are left as written.

Example:
    >>> from theory.nested import parse_nested, format_nested
    >>> program = parse_nested("query(unique(relate(select(scene(), roof), animal, on, object)), name)")
    >>> fixed, fixes = direct_relations(program, "What animals are on the roof?")
    >>> format_nested(fixed)
    'query(unique(relate(select(scene(), roof), animal, on, subject)), name)'
"""

from __future__ import annotations

import re
from dataclasses import replace

from theory.operations import OPERATIONS, RELATION_OPERATIONS
from theory.program import Program, Step
from translators.wording.grounded_words import RELATION_GLUE, stem
from translators.wording.schema import SchemaFix

_TOKEN = re.compile(r"[a-z0-9]+")
_WH = frozenset({"what", "which", "who", "whom"})
_HAVE = frozenset({"have", "has", "had"})
# A pronoun just after the relation's words refers back to what has the thing related to it.
_BACK = frozenset({"it", "them", "him", "her"})
# (position of the class, of the relation, of the direction) among each operation's arguments;
# None: the operation names no class (its objects are asked by the wh-word).
_ARGUMENTS: dict[str, tuple[int | None, int, int]] = {
    name: (
        OPERATIONS[name].arguments.index("class") if "class" in OPERATIONS[name].arguments else None,
        OPERATIONS[name].arguments.index("relation"),
        OPERATIONS[name].arguments.index("position"),
    )
    for name in RELATION_OPERATIONS
}
# Operations whose objects keep the class of their input (followed down to a class).
_CLASS_OF = {"select": 0, "relate": 0}


def _positions(stems: list[str], word: str) -> list[int]:
    """Where the words of `word` (joined by "_") occur in a row, by stem."""
    parts = [stem(p) for p in word.split("_") if p]
    if not parts:
        return []
    return [i for i in range(len(stems) - len(parts) + 1) if stems[i : i + len(parts)] == parts]


def _relation_positions(stems: list[str], relation: str) -> list[int]:
    words = [w for w in relation.split("_") if w]
    content = [w for w in words if w not in RELATION_GLUE] or words
    return _positions(stems, "_".join(content)) or _positions(stems, content[0])


def _input_class(program: Program, step: Step) -> str | None:
    """The class word of the objects a step reads: the nearest select or relate below it."""
    current = program.step(step.dependencies[0])
    while current.operation not in _CLASS_OF:
        if not current.dependencies or current.operation == "scene":
            return None
        current = program.step(current.dependencies[0])
    return current.arguments[_CLASS_OF[current.operation]]


def _haver(tokens: list[str], said: tuple[int, int], relation_at: int) -> int | None:
    """Of the two positions `said`, the one that has something related to "it" ("the table has a
    plate on it"): the nearer before "have", when a pronoun follows the relation's words closely."""
    if not _BACK & set(tokens[relation_at + 1 : relation_at + 4]):
        return None
    have = [i for i, t in enumerate(tokens[:relation_at]) if t in _HAVE]
    before = [i for i in said if have and i < have[-1]]
    return max(before) if before else None


def word_order_direction(question: str, asked_class: str | None, relation: str, input_class: str) -> str | None:
    """``subject`` or ``object`` where the question's word order is one of the plain patterns, else None."""
    if relation == "of":
        # "The baby's hair", "her hair", "the hair of the baby": a part or possession is the
        # subject of `of` in GQA's programs, however the question writes it.
        return "subject"
    tokens = _TOKEN.findall(question.lower())
    stems = [stem(t) for t in tokens]
    asked = _positions(stems, asked_class) if asked_class else []
    asked = asked or [i for i, t in enumerate(tokens) if t in _WH]
    related, given = _relation_positions(stems, relation), _positions(stems, input_class)
    if not (asked and related and given):
        return None
    c, r, d = asked[0], related[0], given[0]
    haver = _haver(tokens, (c, d), r)
    if haver is not None:
        return "subject" if haver == d else "object"
    if c < r < d:
        return "subject"
    if d < r < c or c < d < r:
        return "object"
    return None


def direct_relations(program: Program, question: str) -> tuple[Program, list[SchemaFix]]:
    """The program with each relation step's direction as the question's word order plainly says."""
    fixes: list[SchemaFix] = []
    steps = []
    for step in program.steps:
        spec = _ARGUMENTS.get(step.operation)
        if spec is not None:
            asked_at, relation_at, direction_at = spec
            input_class = _input_class(program, step)
            asked = step.arguments[asked_at] if asked_at is not None else None
            found = (
                word_order_direction(question, asked, step.arguments[relation_at], input_class) if input_class else None
            )
            written = step.arguments[direction_at]
            if found is not None and found != written:
                fixes.append(SchemaFix("relation direction", step.id, written, found))
                arguments = list(step.arguments)
                arguments[direction_at] = found
                step = replace(step, arguments=tuple(arguments))
        steps.append(step)
    return (Program(tuple(steps), program.answer), fixes) if fixes else (program, [])
