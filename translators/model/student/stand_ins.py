"""Known names standing in for the things a question names that the student never learnt to write.

The student writes a program's names from its output vocabulary, so a question about a "tap" or a
"storage box" (names its training pairs never held) gets no program, though its form is one the
student knows. Such a name is replaced in the question by a plain object the student writes in
every form ("Is the box silver?"), and the programs it writes get the question's name back in the
stand-in's place (`StandIns.restore`). Only things are stood in: a value's program depends on its
category, which an unknown adjective does not tell.

Which words name things is the caller's (WordNet's) reading (`GenerationRequest.things`); an unknown
thing followed by another thing is one compound name ("storage box": `storage_box`).

Example:
    >>> swapped = stand_ins("Is the tap silver?", ("tap",), {"box", "boxes", "silver"})
    >>> swapped.asked
    'Is the box silver?'
    >>> swapped.restore("verify_attr(unique(select(scene(), box)), color, silver)")
    'verify_attr(unique(select(scene(), tap)), color, silver)'
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from translators.model.student.vocabulary import program_text, program_tokens
from translators.wording.grounded_words import FUNCTION_WORDS, IRREGULAR_PLURALS, SPELLINGS, singular, stem

# Changes what the student's programs say: part of the translation cache key.
STAND_INS_VERSION = "stand-ins-2"
# Plain hand-held objects with regular plurals that the bank asks about in every form, in the order
# they are tried (the first the question does not say is used).
STAND_INS: tuple[tuple[str, str], ...] = (("box", "boxes"), ("bag", "bags"), ("bottle", "bottles"), ("cup", "cups"))
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

    def restore(self, text: str) -> str:
        """A program written for `asked` with the question's own names in the stand-ins' places."""
        if not self.swaps:
            return text
        back = {swap.stand_in: swap.name for swap in self.swaps}
        return program_text(back.get(token, token) for token in program_tokens(text))


def stand_ins(question: str, things: Collection[str], known: Collection[str]) -> StandIns:
    """`question` with each word of `things` that no name of `known` (the writer's names) says, and
    the thing after it if there is one, replaced by a known plain object the question does not say."""
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
    spellings name it otherwise ("trousers": `pants`)."""
    return stem(word) in parts or stem(singular(word)) in parts or word in SPELLINGS or word in IRREGULAR_PLURALS


def _names(run: Sequence[str]) -> tuple[str, str]:
    """The compound's name with its last word in the singular, and as said."""
    return "_".join([*run[:-1], singular(run[-1])]), "_".join(run)
