"""Whether a candidate program can be the question's: in its words, answering as it asks, choosing
between the words it offers, and (`QuestionJudge`) meaning it: every content word accounted for,
every object it names named, and a reading back that asks the same."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

from theory.program import Program
from theory.program_words import program_words
from translators.checks.meaning import WordKinship, thing_words, uncovered, value_words
from translators.checks.misreadings import misread
from translators.checks.read_back import mismatch
from translators.rules.compositional_fill import CompositionalFiller
from translators.rules.named_objects import named_objects, said_groups, said_values, unnamed, unsaid
from translators.rules.template_fill import TemplateFiller
from translators.wording.grounded_words import QuestionWords, invented, offered_either_side, singular, stem
from translators.wording.ontology import Ontology
from translators.wording.question_frame import Frame, misfit

# What a question names that its program must name too: its objects, and its values and group words
# (`translators.rules.named_objects`).
Said = tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]

_WORD = re.compile(r"[a-z]+")

# Why a program does not mean a question (None: it does).
Judge = Callable[[Program], str | None]


def said(question: str, filler: TemplateFiller) -> Said:
    """The objects, and the values and group words, the question names (read once per question)."""
    slots = filler.raw_slots(question)
    return named_objects(question, filler.ontology), said_values(slots, filler.ontology) + said_groups(slots)


def not_named(program: Program, named: Said, question: str) -> list[str]:
    """What the question names (`said`) and the program does not."""
    objects, values = named
    return unnamed(program, objects) + unsaid(program, values, question)


def problems(program: Program, words: QuestionWords, frame: Frame, meaning: Judge | None = None) -> str | None:
    """Why a program cannot be the question's (an invented word; a reading of the question's shape it
    does not say, `misread`; the wrong kind of answer; a choice between words the question does not
    offer; or, with `meaning`, a question word it does not account for or a reading that asks
    something else), or None."""
    made_up = invented(program, words)
    if made_up:
        return "; ".join(str(m) for m in made_up)
    if (misreading := misread(program, words.surface)) is not None:
        return misreading
    for step in program:
        if step.operation != "choose_attr":
            continue
        _, first, second = step.arguments
        if not offered_either_side(first, second, words):
            return f"step {step.id} chooses between {first!r} and {second!r}, not the two words around 'or'"
    wrong_kind = misfit(program, frame)
    if wrong_kind is not None or meaning is None:
        return wrong_kind
    return meaning(program)


def things_as_values(program: Program, values: frozenset[str], kinship: WordKinship | None) -> tuple[str, ...]:
    """Values of no category (`filter_any`) in `program` that name a thing rather than say something
    of one: no value of the ontology (`values`, by stem) and a thing by WordNet (`WordKinship.thing`).
    "The storage box" filtered by "storage" is a box of some other kind, not a box that is storage. A
    value of a category stays: a name ("a cow or a sheep") or a material ("made of wire") is a thing's."""
    if kinship is None:
        return ()
    found: dict[str, None] = {}
    for step in program:
        if step.operation == "filter_any":
            (argument,) = step.arguments
            if argument.isalpha() and stem(argument) not in values and kinship.thing(argument):
                found.setdefault(argument, None)
    return tuple(found)


def values_as_things(program: Program, classes: Collection[str], kinship: WordKinship | None) -> tuple[str, ...]:
    """Classes of `program` that say something of a thing rather than name one: no class of the
    ontology (`classes`) and a value by WordNet that is no thing ("select(dull)", "select(rectangular)")."""
    if kinship is None:
        return ()
    found: dict[str, None] = {}
    for argument in (c for words in program_words(program).steps for c in words.classes):
        if argument in classes or singular(argument) in classes:
            continue  # "the nuts": a class said in the plural names things, whatever else WordNet says
        if kinship.value(argument) and not kinship.thing(argument):
            found.setdefault(argument, None)
    return tuple(found)


def relations_as_things(program: Program, ontology: Ontology) -> tuple[str, ...]:
    """Classes and values of `program` that are relations of the ontology and no class or value of it
    ("What is the person near the painting playing?" read as a selected `playing`; "Is the boy wearing
    jeans?" as a boy whose height is `wearing`)."""
    relations = set(ontology.relations)
    found: dict[str, None] = {}
    for words in program_words(program).steps:
        for argument in words.classes:
            if argument in relations and singular(argument) not in ontology.classes:
                found.setdefault(argument, None)
        for argument in words.values:
            unvalued = not ontology.categories_of(argument) and argument not in ontology.uncategorised
            if argument in relations and unvalued:
                found.setdefault(argument, None)
    return tuple(found)


def not_relations(program: Program, ontology: Ontology) -> tuple[str, ...]:
    """Relations of `program` that are no relation of the ontology but one of its classes or values
    ("Does the man have a beard?" read as the man related to a beard by `beard`, "... long hair?" by
    `long`)."""
    found: dict[str, None] = {}
    for words in program_words(program).steps:
        for argument in words.relations:
            named = singular(argument) in ontology.classes or ontology.categories_of(argument)
            if argument not in ontology.relations and named:
                found.setdefault(argument, None)
    return tuple(found)


def one_read_as_two(program: Program, question: str, kinship: WordKinship | None) -> tuple[str, str] | None:
    """Two words side by side in `question` that name one thing, the second a kind above the first
    ("the laptop computer": a laptop is a computer), which `program` names as two classes; else None."""
    if kinship is None:
        return None
    classes = program_words(program).classes
    words = _WORD.findall(question.lower())
    for first, head in zip(words, words[1:]):
        named = [next((c for c in classes if c in (w, singular(w))), None) for w in (first, head)]
        if None not in named and named[0] != named[1] and kinship.related(head, first):
            return first, head
    return None


def _stems(words: Iterable[str]) -> frozenset[str]:
    return frozenset(stem(part) for word in words for part in word.split("_") if part)


@dataclass(frozen=True)
class WordStems:
    """The stems of an ontology's words: every word's, and the attribute values' alone."""

    known: frozenset[str]
    values: frozenset[str]

    @classmethod
    def of(cls, vocabulary: Ontology) -> WordStems:
        values = (*vocabulary.uncategorised, *(v for values in vocabulary.categories.values() for v in values))
        known = (
            *vocabulary.classes,
            *vocabulary.categories,
            *vocabulary.relations,
            *vocabulary.uncategorised,
            *(v for values in vocabulary.categories.values() for v in values),
        )
        return cls(known=_stems(known), values=_stems(values))


@dataclass(frozen=True)
class Unmeant:
    """Why one candidate program did not mean the question: the words it left out (none for a
    wrong reading), and the problem in a line."""

    left_out: tuple[str, ...]
    problem: str


@dataclass
class QuestionJudge:
    """Judges candidate programs for one question (asked as `asked`), remembering each verdict and
    why each candidate that did not mean it did not (`unmeant`, for a decline)."""

    asked: str
    words: QuestionWords
    frame: Frame
    checked: bool  # whether meaning is judged at all (else only words, frame and choices)
    ontology: Ontology  # the vocabulary a reading back names words with
    stems: WordStems
    kinship: WordKinship | None
    composer: CompositionalFiller | None  # with `schema`: a left-out object is composed in later
    schema: bool  # whether the translator decodes with an ontology
    unmeant: list[Unmeant] = field(default_factory=list)
    _judged: dict[tuple[Program, bool], str | None] = field(default_factory=dict)  # a form's voters often agree
    _said: Said | None = None  # read on first need
    _reduces: bool | None = None  # whether `composer` reduces the question; read on first need

    def meaning(self, program: Program, strict: bool = True) -> str | None:
        """Why `program` does not mean the question (None: it does, or meaning is not checked)."""
        if not self.checked:
            return None
        if (program, strict) not in self._judged:
            self._judged[(program, strict)] = self._unmeant(program, strict)
        return self._judged[(program, strict)]

    def lenient(self, program: Program) -> str | None:
        """`meaning`, letting go an attribute value the program leaves out."""
        return self.meaning(program, strict=False)

    def fits(self, judge: Judge) -> Callable[[Program], bool]:
        """Whether a program is in the question's words, answers as it asks and means it by `judge`."""
        return lambda program: problems(program, self.words, self.frame, judge) is None

    def problems(self, program: Program, judge: Judge | None = None) -> str | None:
        """Why `program` cannot be the question's (see `problems`), judged by `judge`."""
        return problems(program, self.words, self.frame, judge)

    def to_compose(self, strict: bool) -> Judge:
        """`meaning` for a model's program, which gets an object it leaves out composed in later."""

        def check(program: Program) -> str | None:
            # A model program that leaves out an object the question names gets it composed in
            # by the translator (`_with_references`), and the program that comes out is checked then.
            # A question with no reference to compose in gets none: such a program is judged as it is
            # (it was kept, "... empty and black?" checked for empty alone).
            if self.checked and self.composer is not None and self.schema and self._composable():
                if not_named(program, self.said(), self.asked):
                    return mismatch(program, self.asked, self.ontology, self.kinship)
            return self.meaning(program, strict)

        return check

    def _composable(self) -> bool:
        """Whether the question relates an object to another by a reference that can be composed in."""
        if self._reduces is None:
            assert self.composer is not None
            self._reduces = self.composer.reduced(self.asked) is not None
        return self._reduces

    def things(self) -> tuple[str, ...]:
        """The question's words that may name a thing (`thing_words`), for a writer's stand-ins."""
        return thing_words(self.asked, self.kinship)

    def values(self) -> tuple[str, ...]:
        """The question's words that may be attribute values (`value_words`), for a writer's stand-ins."""
        return value_words(self.asked, self.kinship)

    def said(self) -> Said:
        """What the question names (needs a composer)."""
        if self._said is None:
            assert self.composer is not None
            self._said = said(self.asked, self.composer.filler)
        return self._said

    def _unmeant(self, program: Program, strict: bool) -> str | None:
        """Why `program` does not mean the question (recorded in `unmeant`), or None when it does. Not
        `strict`: an attribute value the program leaves out is let go, as GQA's programs leave out a
        modifier that does not pick the object."""
        left_out = uncovered(self.asked, program, self.kinship, self.ontology.categories_of)
        if not strict:
            left_out = tuple(w for w in left_out if stem(w) not in self.stems.values)
        if left_out:
            listed = ", ".join(repr(w) for w in left_out)
            problem = f"the program does not express {listed} of the question"
            self.unmeant.append(Unmeant(left_out, problem))
            return problem
        wrong_reading = mismatch(program, self.asked, self.ontology, self.kinship)
        things = things_as_values(program, self.stems.values, self.kinship)
        if wrong_reading is None and things:
            wrong_reading = f"{', '.join(repr(w) for w in things)} names a thing, not a value the program can filter by"
        twice = one_read_as_two(program, self.asked, self.kinship)
        if wrong_reading is None and twice is not None:
            wrong_reading = f"{' '.join(twice)!r} names one thing, and the program selects two"
        values = values_as_things(program, self.ontology.classes, self.kinship) + relations_as_things(
            program, self.ontology
        )
        if wrong_reading is None and values:
            wrong_reading = f"{', '.join(repr(w) for w in values)} says something of a thing, not a thing to select"
        relating = not_relations(program, self.ontology)
        if wrong_reading is None and relating:
            wrong_reading = f"{', '.join(repr(w) for w in relating)} names a thing or a value, not a relation"
        if wrong_reading is not None:
            self.unmeant.append(Unmeant((), wrong_reading))
        return wrong_reading
