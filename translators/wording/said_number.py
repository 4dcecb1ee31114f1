"""A class in the number the question says it: "the zebras" is `zebras`, "the window" is `window`.

GQA's programs keep an object's name as its question writes it (`zebras`, `shelves`, `curtains`),
and template fill does the same; a written program sometimes names the other number (`zebra` for
"the zebras"), and a scene that names the object as asked then holds no such object. On the val
sample and the test-dev development half, GQA's programs name a class said with a plural ending as
said 146 times and in the singular 51 times; 29 of those 51 are group words and 16 are asked whether
they are there. Three kinds are left as written:

- group words (`animal`, `vehicle`): GQA reads "the animals" as the group;
- objects asked whether they are there ("Are there any peppers on the pizza?": `pepper`), which GQA's
  programs name in the singular (16 of 16 whose number a rule would change), objects counted ("How
  many cars are there?": `car`), as the bank's counts name them, and objects compared as a group
  ("Are the dogs different in color?"): each of them is an object of the singular class in a scene;
- plurals that change the word rather than add an ending ("men", "people"): GQA's programs name
  these either way (`man` for "men" 4 times of 4, `person` or `people` for "people").

Example:
    >>> from theory.nested import format_nested, parse_nested
    >>> from translators.wording.ontology import bundled_ontology
    >>> program = parse_nested("query(unique(select(scene(), zebra)), color)")
    >>> fixed, _ = with_said_number(program, "What color are the zebras?", bundled_ontology())
    >>> format_nested(fixed)
    'query(unique(select(scene(), zebras)), color)'
"""

from __future__ import annotations

import re
from dataclasses import replace

from theory.operations import COUNTING_OPERATIONS, OPERATIONS, SAMENESS_OPERATIONS
from theory.program import Program, Step
from translators.wording.grounded_words import singular
from translators.wording.ontology import Ontology
from translators.wording.schema import SchemaFix

RULE = "said number"
# What reads a group of objects, each named in the singular in a scene: its objects keep the program's number.
_GROUP_READERS = COUNTING_OPERATIONS | {"all_same", "all_different"}
_WORD = re.compile(r"[a-z]+")


def _ending_plural(one: str, other: str) -> bool:
    """Whether one of the two is the other with a plural ending ("zebras", "shelves"), not a changed word."""
    plural, single = (one, other) if singular(one) != one else (other, one)
    return plural.endswith("s") and singular(plural) == single


def said_as(name: str, said: tuple[str, ...]) -> str | None:
    """The other number of `name` the question's words `said` hold, when they hold it and not `name`."""
    words = name.split("_")
    runs = {"_".join(said[i : i + len(words)]) for i in range(len(said) - len(words) + 1)}
    if name in runs:
        return None
    found = [run for run in runs if singular(run) == singular(name) and _ending_plural(run.split("_")[-1], words[-1])]
    return found[0] if len(found) == 1 else None


def _read_as_many(program: Program) -> set[int]:
    """The steps whose objects are read as many: counted or compared as a group (`all_same`, or a
    sameness of one step with itself) through any steps, or asked whether they are there (`exist`)
    until a `unique`."""
    seen: set[tuple[int, bool]] = set()
    waiting = [(d, True) for step in program if _of_a_group(step) for d in step.dependencies]
    waiting += [(d, False) for step in program if step.operation == "exist" for d in step.dependencies]
    while waiting:
        step_id, through_unique = waiting.pop()
        step = program.step(step_id)
        if (step_id, through_unique) not in seen and (through_unique or step.operation != "unique"):
            seen.add((step_id, through_unique))
            waiting.extend((d, through_unique) for d in step.dependencies)
    return {step_id for step_id, _ in seen}


def _of_a_group(step: Step) -> bool:
    """Whether `step` counts objects or compares a group's values ("Are the dogs different in color?")."""
    if step.operation in _GROUP_READERS:
        return True
    return step.operation in SAMENESS_OPERATIONS and len(step.dependencies) > 1 and len(set(step.dependencies)) == 1


def with_said_number(program: Program, asked: str, ontology: Ontology) -> tuple[Program, list[SchemaFix]]:
    """`program` with each class named in the number `asked` says it (see the module docstring)."""
    said = tuple(_WORD.findall(asked.lower()))
    many = _read_as_many(program)
    steps, fixes = list(program.steps), []
    for index, step in enumerate(steps):
        arguments = list(step.arguments)
        for position, role in enumerate(OPERATIONS[step.operation].arguments):
            name = arguments[position] if position < len(arguments) else None
            if role != "class" or name is None or step.id in many:
                continue
            if name in ontology.groups or singular(name) in ontology.groups:
                continue
            if (form := said_as(name, said)) is not None:
                arguments[position] = form
                fixes.append(SchemaFix(RULE, step.id, name, form))
        steps[index] = replace(step, arguments=tuple(arguments))
    return (replace(program, steps=tuple(steps)), fixes) if fixes else (program, [])
