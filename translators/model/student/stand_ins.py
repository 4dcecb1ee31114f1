"""Known names standing in for the things a question names that the student never learnt to write.

The student writes a program's names from its output vocabulary, so a question about a "tap" or a
"storage box" (names its training pairs never held) gets no program, though its form is one the
student knows. Such a name is replaced in the question by a plain object the student writes in
every form ("Is the box silver?"), and the programs it writes get the question's name back in the
stand-in's place (`StandIns.restore`).

A value it never learnt ("dull", "bushy", "black and white") is stood in likewise by a plain value
("striped"), and put back with the category `other` in place of the stand-in's: a category cannot be
told from the word alone, GQA's programs give such values `other` or none (`filter_any`), and the
theory reads an asked value in whichever category the scene holds it (`value_via`).

Which words name things and which may be values is the caller's (WordNet's) reading
(`GenerationRequest.things`, `GenerationRequest.values`); an unknown thing followed by another thing
is one compound name ("storage box": `storage_box`).

Example:
    >>> swapped = stand_ins("Is the tap silver?", ("tap",), {"box", "boxes", "silver"})
    >>> swapped.asked
    'Is the box silver?'
    >>> swapped.restore("verify_attr(unique(select(scene(), box)), color, silver)")
    'verify_attr(unique(select(scene(), tap)), color, silver)'
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from theory.nested import format_nested, parse_nested
from theory.operations import OPERATIONS
from theory.program import Program, ProgramError, Step
from translators.model.student.vocabulary import program_text, program_tokens
from translators.wording.grounded_words import FUNCTION_WORDS, IRREGULAR_PLURALS, SPELLINGS, singular, stem
from translators.wording.ontology import OTHER_CATEGORY

# Changes what the student's programs say: part of the translation cache key.
STAND_INS_VERSION = "stand-ins-4"
# Plain hand-held objects with regular plurals that the bank asks about in every form, in the order
# they are tried (the first the question does not say is used).
STAND_INS: tuple[tuple[str, str], ...] = (("box", "boxes"), ("bag", "bags"), ("bottle", "bottles"), ("cup", "cups"))
# Plain values the bank says of things in every form, of categories other than colour and size (which
# questions often say beside the unknown value), in the order they are tried.
STAND_IN_VALUES: tuple[str, ...] = ("striped", "shiny", "dirty", "wet")
_WORD = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class StandIn:
    """One name swapped: the program name the question says and the known name written for it."""

    name: str  # as a program writes it: "tap", "taps", "storage_box"
    stand_in: str  # the known class written in the question and the program: "box", "boxes"


@dataclass(frozen=True)
class StandIns:
    """A question with its unknown names stood in (`asked`) and how to put them back."""

    asked: str
    swaps: tuple[StandIn, ...] = ()
    values: frozenset[str] = frozenset()  # the names of `swaps` that are values

    def restore(self, text: str) -> str | None:
        """A program written for `asked` with the question's own names in the stand-ins' places, a value
        read where a category goes with it of no category in particular (see the module docstring);
        None when it writes a stand-in where its word cannot go: a thing's as a relation ("What does
        the dog want?" read with "want" as a thing, the dog related to its stand-in by `box`), a
        value's anywhere but as a value."""
        if not self.swaps:
            return text
        # The roles each stand-in's word may have: a thing's a class or a value ("a tap or a cup" is a
        # choice of names), a value's a value.
        roles = {swap.stand_in: ("value",) if swap.name in self.values else ("class", "value") for swap in self.swaps}
        try:
            if any(_misplaced(step, roles) for step in parse_nested(text)):
                return None
        except ProgramError:
            pass  # the translator's parser says what is wrong with it, once the names are back
        back = {swap.stand_in: swap.name for swap in self.swaps}
        restored = program_text(back.get(token, token) for token in program_tokens(text))
        if not self.values:
            return restored
        try:
            program = parse_nested(restored)
        except ProgramError:
            return restored
        return format_nested(Program(tuple(_uncategorised(step, self.values) for step in program), program.answer))


def _misplaced(step: Step, allowed: Mapping[str, tuple[str, ...]]) -> bool:
    """Whether `step` writes a stand-in of `allowed` in a role it does not allow."""
    roles = OPERATIONS[step.operation].arguments
    return any(role not in allowed.get(argument, (role,)) for role, argument in zip(roles, step.arguments))


def _uncategorised(step: Step, values: frozenset[str]) -> Step:
    """`step` with the category of a value of `values` it reads made `OTHER_CATEGORY`."""
    roles = OPERATIONS[step.operation].arguments
    if "category" not in roles or not any(r == "value" and a in values for r, a in zip(roles, step.arguments)):
        return step
    arguments = tuple(OTHER_CATEGORY if role == "category" else a for role, a in zip(roles, step.arguments))
    return Step(step.id, step.operation, step.dependencies, arguments)


def stand_ins(question: str, things: Collection[str], known: Collection[str], values: Collection[str] = ()) -> StandIns:
    """`question` with each word of `things` that no name of `known` (the writer's names) says, and
    the thing after it if there is one, replaced by a known plain object the question does not say;
    and each of `values` (a word, or a run's words joined by "_") that the writer cannot say, by a
    known plain value."""
    by_value = _values_stood_in(question, values, known)
    by_thing = _things_stood_in(by_value.asked, things, known)
    named = frozenset(swap.name for swap in by_value.swaps)
    return StandIns(by_thing.asked, by_value.swaps + by_thing.swaps, named)


def _values_stood_in(question: str, values: Collection[str], known: Collection[str]) -> StandIns:
    """`question` with each of `values` the writer cannot say replaced by a plain value it does not say."""
    said = {m.group().lower() for m in _WORD.finditer(question)}
    free = [value for value in STAND_IN_VALUES if value not in said and value in known]
    parts = _name_stems(frozenset(known))
    swaps: list[StandIn] = []
    # A run first: "black and white" is one value though "black" and "white" are known.
    for value in sorted(values, key=lambda v: -v.count("_")):
        if not free or value in known or ("_" not in value and _known(value, parts)):
            continue
        # A word after "to" is a verb ("trying to go"), whatever WordNet also reads it as: no value.
        pattern = r"(?<!\bto )\b" + r"\s+".join(re.escape(word) for word in value.split("_")) + r"\b"
        question, found = re.subn(pattern, free[0], question, flags=re.IGNORECASE)
        if found:
            swaps.append(StandIn(value, free.pop(0)))
    return StandIns(question, tuple(swaps))


def _things_stood_in(question: str, things: Collection[str], known: Collection[str]) -> StandIns:
    """`question` with its unknown things stood in (see `stand_ins`)."""
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(question)]
    said = {word for _, _, word in words}
    parts = _name_stems(frozenset(known))
    free = [pair for pair in STAND_INS if not said & set(pair)]
    # One stand-in per name, whatever its number, so that "the tap near the other taps" keeps its form.
    chosen: dict[str, tuple[str, str]] = {}
    pieces: list[str] = []
    swaps: dict[StandIn, None] = {}
    at = index = 0
    while index < len(words):
        start, end, word = words[index]
        if word not in things or word in FUNCTION_WORDS or _known(word, parts):
            index += 1
            continue
        run = [word]
        # "storage box": the thing after an unknown one is the compound's head.
        if index + 1 < len(words) and words[index + 1][2] in things and question[end : words[index + 1][0]] == " ":
            run.append(words[index + 1][2])
        singular_name, said_name = _names(run)
        if singular_name not in chosen and free:
            chosen[singular_name] = free.pop(0)
        if singular_name not in chosen:  # every stand-in is taken: the word stays
            index += 1
            continue
        one, many = chosen[singular_name]
        stand_in = one if said_name == singular_name else many
        pieces += [question[at:start], stand_in]
        swaps[StandIn(said_name, stand_in)] = None
        # The singular stands for the name too: the student may write either number of a plural.
        swaps[StandIn(singular_name, one)] = None
        index += len(run)
        at = words[index - 1][1]
    if not swaps:
        return StandIns(question)
    return StandIns("".join([*pieces, question[at:]]), tuple(swaps))


@lru_cache(maxsize=4)
def _name_stems(known: frozenset[str]) -> frozenset[str]:
    """The stems of every word of the known names: one writer's vocabulary is read once, not per question."""
    return frozenset(stem(part) for name in known for part in name.split("_"))


def _known(word: str, parts: Collection[str]) -> bool:
    """Whether a known name has the word in some form ("wears": `wearing`), or the translator's
    spellings name it otherwise by a known name ("trousers": `pants`; "tap" is `faucet`, which a
    writer may not know)."""
    if stem(word) in parts or stem(singular(word)) in parts or word in IRREGULAR_PLURALS:
        return True
    usual = SPELLINGS.get(word)
    return usual is not None and all(stem(part) in parts for part in usual.split("_"))


def _names(run: Sequence[str]) -> tuple[str, str]:
    """The compound's name with its last word in the singular, and as said."""
    return "_".join([*run[:-1], singular(run[-1])]), "_".join(run)
