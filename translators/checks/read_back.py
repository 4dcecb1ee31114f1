"""A program read back into words, and checked against the question it was written for.

`invented` (grounded_words) already refuses a class, value or relation the question does not say,
and `misfit` (question_frame) an answer of the wrong kind. Read back, a program shows two more
ways of answering another question:

- it asks the *name* of an object it picks by a specific class ("What brand is the sauce?" as the
  name of the sauce, "Who is the man?" as the name of the man): the answer is a word the question
  already says; a group word ("What animal ...", "Which vehicle ...") or a relation ("What is the
  skier holding?") leaves the name open;
- it asks for a category the question never names, nor any of its values or its frame words
  ("How expensive is the sofa?" as the sofa's weight).

`reading` gives the program in words for the response, so a user sees what was asked.

Example:
    >>> from theory.flat import parse_flat
    >>> from translators.wording.ontology import bundled_ontology
    >>> program = parse_flat("scene(0). select(1, 0, sauce). unique(2, 1). query(3, 2, name). end(3).")
    >>> mismatch(program, "What brand is the sauce?", bundled_ontology())
    'the program asks for the name of the sauce, a word the question already says'
    >>> reading(program)
    'what is the name of the sauce?'
"""

from __future__ import annotations

import re

from theory.operations import OPERATIONS, STRUCTURAL_CATEGORIES, Kind, operations_where
from theory.program import Program, Step
from translators.checks.meaning import WordKinship
from translators.wording.ontology import OTHER_CATEGORY, Ontology

_TOKEN = re.compile(r"[a-z]+")
# Words that ask for a category without naming it or one of its values.
CATEGORY_CUES: dict[str, frozenset[str]] = {
    "material": frozenset({"made", "make", "used", "material"}),
    "color": frozenset({"colour", "colored", "coloured", "shade", "hue"}),
    "activity": frozenset({"doing"}),
    "pose": frozenset({"doing", "pose", "posture"}),
    "place": frozenset({"where", "place", "location", "venue", "setting", "area", "spot"}),
    "room": frozenset({"where", "room", "place", "venue", "location"}),
    "size": frozenset({"big", "large", "small"}),
}
# Steps whose objects are some of their first input's, chosen without naming a class.
_PASS_THROUGH = operations_where(
    lambda spec: spec.output is Kind.STATE and spec.family in ("one", "attribute", "difference", "comparison")
)
_OPEN_CLASSES = frozenset({"_", "thing", "things", "object", "scene"})


def _origin(program: Program, step: Step) -> Step:
    """The step that decides which objects `step` works on (through unique, filters and negation)."""
    while step.operation in _PASS_THROUGH and step.dependencies:
        step = program.step(step.dependencies[0])
    return step


def _is_scene(step: Step) -> bool:
    return step.operation == "scene" or (step.operation == "select" and step.arguments[0] == "scene")


def _asks_kind(cls: str, words: list[str]) -> bool:
    """Whether the question asks which kind of `cls` ("What pastry is ...", "Which kind of vegetable ..."):
    the name is then the open answer, not the word said."""
    last = cls.split("_")[-1]
    forms = {last, last + "s", last + "es", last[:-1] if last.endswith("s") else last}
    for i, word in enumerate(words):
        if word in ("what", "which"):
            following = words[i + 1 : i + 4]
            if following[:1] and following[0] in forms:
                return True
            if (
                following[:2]
                and following[0] in ("kind", "type", "sort")
                and following[1] == "of"
                and following[2:3]
                and following[2] in forms
            ):
                return True
    return False


def _class_of(step: Step) -> str | None:
    if step.operation in ("select", "relate"):
        return step.arguments[0]
    return None


def mismatch(program: Program, question: str, ontology: Ontology, kinship: WordKinship | None = None) -> str | None:
    """Why `program`, read back, asks another question than `question` (None: it does not); `kinship`
    lets a kind of a category ask for it."""
    said = _TOKEN.findall(question.lower())
    words = set(said)
    for step in program:
        if step.operation == "query" and step.arguments[0] == "name" and step.dependencies:
            asked = program.step(step.dependencies[0])
            if len(asked.dependencies) > 1:
                continue  # one of two objects, by a comparison ("Who is taller, the man or the woman?")
            origin = _origin(program, asked)
            if origin.operation == "relate_any" and origin.arguments[0] == "of" and origin.dependencies:
                # "What is the dog's name?": the name *of* the dog is the dog's own name.
                origin = _origin(program, program.step(origin.dependencies[0]))
            cls = _class_of(origin)
            if (
                cls is not None
                and cls not in _OPEN_CLASSES
                and cls not in ontology.groups
                and not _asks_kind(cls, said)
            ):
                shown = cls.replace("_", " ")
                return f"the program asks for the name of the {shown}, a word the question already says"
        if step.operation in ("query", "choose_attr"):
            category = step.arguments[0]
            if category in STRUCTURAL_CATEGORIES or category == OTHER_CATEGORY:
                continue
            if step.dependencies and _is_scene(_origin(program, program.step(step.dependencies[0]))):
                continue  # of the whole picture ("what does the photo show"), a place or the weather is what is asked
            if not _says_category(category, words, ontology, kinship):
                return f"the program asks for the {category.replace('_', ' ')}, which the question does not ask about"
    return None


def _says_category(category: str, words: set[str], ontology: Ontology, kinship: WordKinship | None) -> bool:
    if set(category.split("_")) & words or CATEGORY_CUES.get(category, frozenset()) & words:
        return True
    # A kind of the category ("venue" is a place) asks for it too.
    if kinship is not None and any(kinship.related(category, w) for w in words if len(w) > 2):
        return True
    values = {part for value in ontology.categories.get(category, ()) for part in value.split("_")}
    return bool(values & words)


def _noun(program: Program, step: Step) -> str:
    """The objects a step gives, in words."""
    op, args = step.operation, step.arguments
    inner = _noun(program, program.step(step.dependencies[0])) if step.dependencies else "the scene"
    if op == "scene":
        return "the scene"
    if op == "select":
        return f"the {args[0].replace('_', ' ')}"
    if op in ("filter", "filter_any"):
        value = args[-1].replace("_", " ")
        return f"{inner} that is {value}"
    if op == "relate":
        cls, relation, position = args
        relation = relation.replace("_", " ")
        if position == "subject":
            return f"the {cls.replace('_', ' ')} that is {relation} {inner}"
        return f"the {cls.replace('_', ' ')} that {inner} is {relation}"
    if op == "relate_any":
        relation, position = args
        relation = relation.replace("_", " ")
        return f"what is {relation} {inner}" if position == "subject" else f"what {inner} is {relation}"
    if op == "negate":
        return f"not {inner}"
    return inner


def reading(program: Program) -> str:
    """The question the program asks, in plain words (for the user to check)."""
    last = program.step(program.answer)
    op, args = last.operation, last.arguments
    deps = [program.step(d) for d in last.dependencies]
    first = _noun(program, deps[0]) if deps else "the scene"
    if op == "query":
        return f"what is the {args[0].replace('_', ' ')} of {first}?"
    if op == "exist":
        return f"is there {first}?"
    if op == "count":
        return f"how many of {first} are there?"
    if op == "verify_attr":
        return f"is {first} {args[-1].replace('_', ' ')}?"
    if op == "choose_attr":
        return f"is {first} {args[1].replace('_', ' ')} or {args[2].replace('_', ' ')}?"
    if op in ("and", "or"):
        parts = [reading(Program(program.steps, d)) for d in last.dependencies]
        return f" {op} ".join(p.rstrip("?") for p in parts) + "?"
    spec = OPERATIONS[op]
    shown = ", ".join(a.replace("_", " ") for a in args)
    return f"{op.replace('_', ' ')}({shown}) of {first}?" if spec.arguments else f"{op.replace('_', ' ')} of {first}?"
