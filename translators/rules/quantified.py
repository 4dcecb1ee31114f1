"""Fill a yes/no question about every one of several objects as a count.

"Are all the cows brown?" has no example of its form and no single object to verify: it asks
whether the brown cows are as many as the cows. With the quantifier left out, the question
("Are the cows brown?") is one the rules fill, as a verification of one object; that object's
steps, less `unique`, are the cows, and the program compares two counts of them:

    and(exist(COWS), compare_count(count(filter(COWS, color, brown)), count(COWS), same))

`exist` keeps a scene without cows from answering yes. "All", "both", "each" and "every" are read
so, before the object ("Are both of the cups white?", "Is every plate round?") or after it ("Are
the cows all brown?"); a relation is verified of every object the same way, the related objects
filtered as the object is ("Are all the cows on the grass?"), and a class of a group word as the
group's members of that class ("Are all the animals sheep?"). A question that compares the objects
("Are all the cups the same color?") or joins two predicates ("both red and white") is left to
the rules that read those.

Example:
    >>> quantified_plain("Are all of the cows brown?"), quantified_plain("Is every plate round?")
    ('Are the cows brown?', 'Is the plate round?')
    >>> quantified_plain("Are the cows all brown?"), quantified_plain("Are all the cups the same color?")
    ('Are the cows brown?', None)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from theory.nested import format_call, nested_step, parse_nested
from theory.program import Program, ProgramError, Step
from translators.rules.coordination import QUESTION_TOKEN, YES_NO_OPENERS, Filler
from translators.rules.template_fill import FilledProgram
from translators.wording.grounded_words import FUNCTION_WORDS, QUANTIFIERS, singular
from translators.wording.ontology import Ontology

# Words of a comparison among the objects or of two joined predicates, which other rules read.
_OTHER_READINGS = frozenset({"same", "different", "and", "or", "there"})
_FILTERS = frozenset({"filter", "filter_any"})


def quantified_plain(question: str) -> str | None:
    """The question with its quantifier left out, or None when it has none to leave out."""
    words = QUESTION_TOKEN.findall(question)
    lowered = [word.lower() for word in words]
    if len(words) < 4 or lowered[0] not in YES_NO_OPENERS or _OTHER_READINGS & set(lowered):
        return None
    at = next((i for i, word in enumerate(lowered) if word in QUANTIFIERS), None)
    if at is None or at < 1 or at == len(words) - 1:
        return None
    rest = words[at + 1 :]
    if rest[0].lower() == "of":
        rest = rest[1:]
    if lowered[at] in ("each", "every") and (not rest or rest[0].lower() in ("the", "of")):
        return None  # "each of the" reads as "all the" only through the bare noun after it
    kept = [*words[:at], *(["the"] if lowered[at] in ("each", "every") else []), *rest]
    if len(kept) < 3:
        return None
    text = " ".join(kept)
    return f"{text[0].upper()}{text[1:]}?"


@dataclass(frozen=True)
class _Objects:
    """The objects a `unique` picks from: a class, picked from the scene or by a relation to other
    objects (`related_to`, in nested form), and the attribute filters on it, innermost first."""

    cls: str
    related_to: tuple[str, str, str] | None  # (objects, relation, position) of a `relate`
    filters: tuple[Step, ...]

    def on(self, base: str) -> str:
        """These filters put on `base`, in nested form."""
        for step in self.filters:
            base = format_call(step, [base])
        return base

    @property
    def nested(self) -> str:
        if self.related_to is None:
            return self.on(f"select(scene(), {self.cls})")
        other, relation, position = self.related_to
        return self.on(f"relate({other}, {self.cls}, {relation}, {position})")


def _objects(program: Program, step_id: int, ontology: Ontology) -> _Objects | None:
    """The objects step `step_id` gives, with a plural class made singular ("all the cows" are cows);
    None unless they are a class, of the scene or related to other objects, filtered by attributes."""
    filters: list[Step] = []
    step = program.step(step_id)
    while step.operation in _FILTERS:
        filters.append(step)
        step = program.step(step.dependencies[0])
    source = program.step(step.dependencies[0]) if step.dependencies else None
    if step.operation == "select" and source is not None and source.operation == "scene":
        related_to = None
    elif step.operation == "relate" and source is not None:
        related_to = (nested_step(program, source.id), step.arguments[1], step.arguments[2])
    else:
        return None
    cls = step.arguments[0]
    if singular(cls) in ontology.classes:
        cls = singular(cls)
    return _Objects(cls, related_to, tuple(reversed(filters)))


def _all_of(objects: str, kept: str) -> Program | None:
    try:
        return parse_nested(f"and(exist({objects}), compare_count(count({kept}), count({objects}), same))")
    except ProgramError:
        return None


def every(program: Program, ontology: Ontology) -> Program | None:
    """A verification of one object made one of every object it picks (see the module docstring),
    or None when `program` is no such verification."""
    last = program.step(program.answer)
    if last.operation == "exist":
        last = program.step(last.dependencies[0])
        if last.operation != "filter_any":
            return None
    if last.operation not in ("verify_attr", "verify_rel", "filter_any"):
        return None
    one = program.step(last.dependencies[0])
    objects = _objects(program, one.dependencies[0], ontology) if one.operation == "unique" else None
    if objects is None:
        return None
    if last.operation == "verify_rel":
        if objects.related_to is not None:
            return None  # the objects would be related twice, which no step joins
        # The objects related to one of CLASS: related from CLASS, the position turned round, then
        # filtered as the objects are.
        other, relation, position = last.arguments
        turned = "object" if position == "subject" else "subject"
        kept = objects.on(f"relate(select(scene(), {other}), {objects.cls}, {relation}, {turned})")
    else:
        kept_by = "filter" if last.operation == "verify_attr" else "filter_any"
        kept = f"{kept_by}({objects.nested}, {', '.join(last.arguments)})"
    return _all_of(objects.nested, kept)


def of_class(program: Program, cls: str, ontology: Ontology) -> Program | None:
    """Whether every object `program` counts is a `cls` ("Are all the animals sheep?"), or None
    when `program` is no count of a class filtered by attributes."""
    last = program.step(program.answer)
    objects = _objects(program, last.dependencies[0], ontology) if last.operation == "count" else None
    if objects is None:
        return None
    return _all_of(objects.nested, f"select({objects.nested}, {cls})")


class QuantifiedFiller:
    """Fills "Are all the X A?" from the fill of "Are the X A?" (or of "How many X are there?")."""

    def __init__(self, fillers: Sequence[Filler], ontology: Ontology) -> None:
        self.fillers = tuple(fillers)
        self.ontology = ontology

    def _fill_plain(self, question: str, exclude_ids: Collection[str]) -> FilledProgram | None:
        for filler in self.fillers:
            filled = filler.fill(question, exclude_ids)
            if filled is not None:
                return filled
        return None

    def _candidates(self, plain: str, exclude_ids: Collection[str]) -> list[tuple[Program, FilledProgram]]:
        found: list[tuple[Program, FilledProgram]] = []
        filled = self._fill_plain(plain, exclude_ids)
        made = every(filled.program, self.ontology) if filled is not None else None
        if filled is not None and made is not None:
            found.append((made, filled))
        words = QUESTION_TOKEN.findall(plain)
        last = singular(words[-1].lower())
        # "Are the animals sheep?": a class said right after the objects, not at the end of a relation.
        named_after = len(words) > 3 and words[-2].lower() not in FUNCTION_WORDS
        if last in self.ontology.classes and named_after and words[1].lower() in ("the", "these", "those"):
            counted = self._fill_plain(f"How many {' '.join(words[2:-1])} are there?", exclude_ids)
            made = of_class(counted.program, last, self.ontology) if counted is not None else None
            if counted is not None and made is not None:
                found.append((made, counted))
        return found

    def fill(
        self, question: str, exclude_ids: Collection[str] = (), accept: Callable[[Program], bool] | None = None
    ) -> FilledProgram | None:
        """The count program for every object the question names, or None (with `accept`, only one it
        accepts)."""
        plain = quantified_plain(question)
        if plain is None:
            return None
        for program, filled in self._candidates(plain, exclude_ids):
            if accept is not None and not accept(program):
                continue
            form = f"quantified: {filled.form}"
            return FilledProgram(program, form, filled.examples, filled.votes, filled.voters)
        return None
