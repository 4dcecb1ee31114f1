""" "This" asked to be one of two things: "Is this a truck or a bus?" is a choice of the name of `this`.

A picture's place is the scene's: "Is this a beach or a park?" asks the scene's `place`, and that
is how template fill and the model read every "is this a ... or a ...?". When neither choice is a
place but both name things, the question asks what the thing in view is, and GQA's programs say so
with `select(this)` and a choice of `name` (each of the 3 such questions of the val sample and the
test-dev development half; none selects the scene). The theory reads `select(this)` as the objects
one of the two names fits (`theory/lp/operations.lp`), so the answer is the one the scene holds.

A place is a value of the ontology's `place` or `room`, or, where WordNet is installed, a word it
files under a building, an establishment, a facility, a location, a room or a landform ("church",
"shop", "zoo"): those the ontology lists as classes are places too when a picture is of them.

Example:
    >>> from theory.nested import format_nested, parse_nested
    >>> from translators.wording.ontology import bundled_ontology
    >>> program = parse_nested("choose_attr(unique(select(scene(), scene)), place, truck, bus)")
    >>> fixed, _ = with_this_named(program, "Is this a truck or a bus?", bundled_ontology())
    >>> format_nested(fixed)
    'choose_attr(unique(select(scene(), this)), name, truck, bus)'
"""

from __future__ import annotations

import re

from theory.operations import THIS_CLASS
from theory.program import Program, Step
from translators.wording.grounded_words import singular
from translators.wording.ontology import Ontology
from translators.wording.schema import SchemaFix
from translators.wording.word_senses import WordSenses

RULE = "this named"
_THIS_SAID = re.compile(r"\b(?:this|that|it)\b")
_SCENE_CATEGORIES = ("place", "room")
# WordNet's kinds of place: "structure" is left out, as one of its senses takes in a bus.
_PLACE_KINDS = ("building", "establishment", "facility", "location", "geological_formation", "room")


def _a_place(value: str, ontology: Ontology, senses: WordSenses | None) -> bool:
    if any(value in ontology.categories.get(category, ()) for category in _SCENE_CATEGORIES):
        return True
    return senses is not None and any(senses.related(kind, value) for kind in _PLACE_KINDS)


def _a_thing(value: str, ontology: Ontology) -> bool:
    return value in ontology.classes or singular(value) in ontology.classes


def with_this_named(
    program: Program, asked: str, ontology: Ontology, senses: WordSenses | None = None
) -> tuple[Program, list[SchemaFix]]:
    """`program` with a choice between two things asked of the scene asked of `this` instead (see the
    module docstring); `senses` tells a place by WordNet where it is given."""
    if not _THIS_SAID.search(asked.lower()):
        return program, []
    steps = list(program.steps)
    fixes: list[SchemaFix] = []
    for step in program.steps:
        if step.operation != "choose_attr":
            continue
        chain = program.step(step.dependencies[0])
        while chain.operation == "unique":
            chain = program.step(chain.dependencies[0])
        if chain.operation != "select" or chain.arguments[0] != "scene":
            continue
        values = step.arguments[1:]
        if not all(_a_thing(v, ontology) and not _a_place(v, ontology, senses) for v in values):
            continue
        steps[chain.id] = Step(chain.id, "select", chain.dependencies, (THIS_CLASS,))
        steps[step.id] = Step(step.id, "choose_attr", step.dependencies, ("name", *values))
        fixes.append(SchemaFix(RULE, step.id, f"{step.arguments[0]} of the scene", f"name of {THIS_CLASS}"))
    if not fixes:
        return program, []
    return Program(tuple(steps), program.answer), fixes
