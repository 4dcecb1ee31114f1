"""Fill a yes/no question about one object with two coordinated predicates as two questions.

"Does the truck behind the other truck look white and rectangular?" has no example of its form, but
it is "Does the truck behind the other truck look white?" and "... look rectangular?" asked of one object,
and GQA's program is those two verifications joined by ``and``. The question is cut at an "and";
the words after it (one predicate) take the place of the one or two words before it, so the
object reference need not be parsed: each part is filled as a question of its own (template fill,
then composition), and the two programs count only when both verify something of the very same
object (the same reference), as GQA's programs for such questions do. "both" before the first
predicate goes ("Is the basket both tan and large?"), and a part that looks, appears or seems is
filled as one that is, when it is not filled as it is asked.

Example:
    >>> [(a, b) for a, b in coordinated_parts("Is the cup white and large?")][:1]
    [('Is the cup white?', 'Is the cup large?')]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Sequence
from functools import lru_cache
from typing import Protocol

from theory.nested import format_nested, nested_step, parse_nested
from theory.operations import Kind, operations_where
from theory.program import Program, ProgramError
from translators.rules.template_fill import FilledProgram

# A question's words, hyphens and apostrophes inside kept; the words a yes/no question opens with.
QUESTION_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*")
YES_NO_OPENERS = frozenset("is are was were does do did".split())
# The yes/no checks of one object's attribute or relation ("Is the cup red and small?").
_VERIFICATIONS = operations_where(lambda spec: spec.output is Kind.BOOL and spec.family in ("attribute", "relation"))
_LOOKS = re.compile(
    r"^(?P<aux>does|do) (?P<object>.+?) (?:looks?|appears?(?: to be)?|seems?(?: to be)?) (?P<predicate>.+)$", re.I
)
_MAX_PREDICATE_WORDS = 2  # "short sleeved", "black and white"


class Filler(Protocol):
    """A template or compositional filler."""

    def fill(
        self, question: str, exclude_ids: Collection[str] = (), accept: Callable[[Program], bool] | None = None
    ) -> FilledProgram | None: ...


def coordinated_parts(question: str) -> Iterator[tuple[str, str]]:
    """The two questions a yes/no question with "A and B" may stand for, one cut at a time."""
    words = QUESTION_TOKEN.findall(question)
    if len(words) < 5 or words[0].lower() not in YES_NO_OPENERS:
        return
    for cut, word in enumerate(words):
        if word.lower() != "and" or cut < 3 or cut == len(words) - 1:
            continue
        second = words[cut + 1 :]
        for length in range(1, _MAX_PREDICATE_WORDS + 1):
            start = cut - length
            if start < 2:
                break
            prefix = words[:start]
            if prefix[-1].lower() == "both":
                prefix = prefix[:-1]
            first = words[start:cut]
            if len(prefix) < 2:
                continue
            yield _sentence(prefix + first), _sentence(prefix + second)


def as_be(question: str) -> str:
    """ "Does the X look (appear to be, seem to be) A?" as "Is the X A?": GQA's programs of the two are one."""
    found = _LOOKS.match(question)
    if found is None:
        return question
    verb = "Is" if found["aux"].lower() == "does" else "Are"
    return f"{verb} {found['object']} {found['predicate']}"


def _sentence(words: Sequence[str]) -> str:
    text = " ".join(words)
    return f"{text[0].upper()}{text[1:]}?"


def _object_of(program: Program) -> str | None:
    """The object a verification is about (the sub-program it reads), or None for another operation. A
    value of no category is verified as ``exist(filter_any(OBJECT, value))``."""
    last = program.step(program.answer)
    if last.operation == "exist":
        last = program.step(last.dependencies[0])
        if last.operation != "filter_any":
            return None
    elif last.operation not in _VERIFICATIONS:
        return None
    return nested_step(program, last.dependencies[0])  # ids left out: equal for the same object in two programs


class CoordinatedFiller:
    """Fills "Is the X A and B?" from the fills of "Is the X A?" and "Is the X B?"."""

    def __init__(self, fillers: Sequence[Filler]) -> None:
        self.fillers = tuple(fillers)
        # The translator asks twice per question (every word said, then modifiers left out), and
        # successive cuts share a part: each part is filled once.
        self._part = lru_cache(maxsize=1024)(self._fill_part)

    def _fill_part(self, question: str, exclude_ids: frozenset[str]) -> FilledProgram | None:
        for asked in dict.fromkeys((question, as_be(question))):
            for filler in self.fillers:
                filled = filler.fill(asked, exclude_ids)
                if filled is not None:
                    return filled
        return None

    def fill(
        self, question: str, exclude_ids: Collection[str] = (), accept: Callable[[Program], bool] | None = None
    ) -> FilledProgram | None:
        """The two parts' verifications joined by ``and``, or None (with `accept`, only a program it accepts)."""
        for first_question, second_question in coordinated_parts(question):
            excluded = frozenset(exclude_ids)
            first = self._part(first_question, excluded)
            second = self._part(second_question, excluded) if first is not None else None
            if first is None or second is None:
                continue
            a, b = format_nested(first.program), format_nested(second.program)
            about = _object_of(first.program)
            if about is None or about != _object_of(second.program) or a == b:
                continue
            try:
                program = parse_nested(f"and({a}, {b})")
            except ProgramError:
                continue
            if accept is not None and not accept(program):
                continue
            # The weaker part's agreement stands for both.
            weaker = min((first, second), key=lambda f: f.agreement)
            form = f"coordinated: {first.form} + {second.form}"
            return FilledProgram(program, form, first.examples + second.examples, weaker.votes, weaker.voters)
        return None
