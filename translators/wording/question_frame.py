"""A question's frame, and whether a program's final operation fits it.

The frame is read from the wording alone: a question that opens with a verb ("Is", "Are",
"Does", "Can") asks yes or no, unless it offers a choice ("Is the sky gray or blue?", answered
by a `choose`; with "there", "either" or "see", "Is there a cat or a dog?", by an `or` of two
existences); a question with a wh-word ("what", "which", "who", "where", "how") asks for a name
or value, and "how many" (or "what is the number of") for a number, a `count`. A yes/no
question never gets a program that answers a name, and a wh-question never gets a yes/no
program; "Are there more dogs than cats?" asks yes or no (`compare_count`). On GQA's tuning
part every question's program fits its frame (the 84 choices end in `choose_attr` or
`choose_rel`, the 9 "either" questions in `or`).

Example:
    >>> frame_of("Is the chair brown or white?"), frame_of("Are the doors open?")
    (<Frame.CHOICE: 'choice'>, <Frame.YES_NO: 'yes/no'>)
    >>> frame_of("Are there any cats or dogs?")
    <Frame.EITHER: 'either'>
    >>> frame_of("The lamp is where?")
    <Frame.OPEN: 'open'>
"""

from __future__ import annotations

import re
from enum import Enum

from theory.operations import OPERATIONS, Kind
from theory.program import Program

_TOKEN = re.compile(r"[a-z]+")
VERBS = frozenset("is are was were does do did can could has have had will would should may might must".split())
_WH = frozenset("what which who whom whose where how when".split())
# Words by which a choice asks whether either thing is there, GQA's `or` of two `exist`s.
_EXISTENCE = frozenset({"there", "either", "see"})
# The final operations of a choice between two words ("Is the sky gray or blue?", "Is the cup to
# the left or to the right of the plate?") and of whether either thing is there.
CHOICE_OPERATIONS = frozenset(name for name in OPERATIONS if name.startswith("choose_"))
EITHER_OPERATIONS = frozenset({"or"})


class Frame(str, Enum):
    """What kind of answer the wording asks for."""

    YES_NO = "yes/no"
    CHOICE = "choice"  # "Is it A or B?": one of two words
    EITHER = "either"  # "Is there a cat or a dog?": whether either is there
    OPEN = "open"  # a wh-question: a name or value
    COUNT = "count"  # "How many dogs are there?": a number
    UNKNOWN = "unknown"  # no verb first and no wh-word: any program


def frame_of(question: str) -> Frame:
    """The frame of `question` (see the module docstring)."""
    words = _TOKEN.findall(question.lower())
    if not words:
        return Frame.UNKNOWN
    if words[0] in VERBS:
        if "or" not in words:
            return Frame.YES_NO
        return Frame.EITHER if _EXISTENCE & set(words) else Frame.CHOICE
    if _asks_number(words):
        return Frame.COUNT
    if _WH & set(words):
        return Frame.OPEN
    return Frame.UNKNOWN


def _asks_number(words: list[str]) -> bool:
    """ "How many ...", "What is the number of ...": a question whose answer is a count."""
    pairs = set(zip(words, words[1:]))
    return ("how", "many") in pairs or (("number", "of") in pairs and words[0] in _WH)


def final_kinds(frame: Frame) -> frozenset[Kind]:
    """What the final operation of a program in this frame may produce."""
    if frame in (Frame.YES_NO, Frame.EITHER):
        return frozenset({Kind.BOOL})
    if frame in (Frame.OPEN, Frame.CHOICE):
        return frozenset({Kind.VALUE})
    if frame is Frame.COUNT:
        return frozenset({Kind.NUMBER})
    return frozenset({Kind.BOOL, Kind.VALUE, Kind.NUMBER})


def final_operations(frame: Frame) -> frozenset[str]:
    """The operations a program in this frame may end in (what `misfit` lets through)."""
    if frame is Frame.CHOICE:
        return CHOICE_OPERATIONS
    if frame is Frame.EITHER:
        return EITHER_OPERATIONS
    kinds = final_kinds(frame)
    return frozenset(name for name, spec in OPERATIONS.items() if spec.output in kinds)


def misfit(program: Program, frame: Frame) -> str | None:
    """Why `program` does not fit `frame`, or None when it does (see `frame_of`)."""
    operation = program.step(program.answer).operation
    kind = OPERATIONS[operation].output
    if kind not in final_kinds(frame):
        wanted = {
            Frame.YES_NO: "yes or no",
            Frame.EITHER: "yes or no (whether either thing is there)",
            Frame.CHOICE: "one of the words it offers",
            Frame.COUNT: "a number",
        }.get(frame, "a name or value")
        return f"the question asks for {wanted}, but the program ends in {operation}"
    if frame is Frame.CHOICE and operation not in CHOICE_OPERATIONS:
        return f"the question offers a choice of two words, but the program ends in {operation}"
    if frame is Frame.EITHER and operation not in EITHER_OPERATIONS:
        return f"the question asks whether either thing is there, but the program ends in {operation}"
    return None
