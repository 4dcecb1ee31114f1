"""Which token may come next in a program the student writes: the operations' signatures read as a
pushdown grammar over its tokens.

A nested program is a call, ``op(inputs..., arguments...)``, whose inputs are calls of the kinds its
signature asks for (`theory.operations`: a set of objects, a yes/no, a number) and whose arguments
are constants. The student's beam search is kept to such programs, so each of its four programs is
one the parser accepts (a wrong number of arguments, or a yes/no where objects are read, can no
longer be written), as a language model is kept to the program grammar. The answer is a call that
gives a value, a yes/no or a number, and an argument of a closed set (`theory.operations.ARGUMENT_CHOICES`:
subject or object, ...) takes one of its words, and the second of two options ("choose_attr(..., color,
red, blue)") is not the first again. The caller may narrow the answer to the final operations the
question's frame allows (a choice ends in a ``choose``). Which other constant fits which argument is
left to the student and the translator's checks.

Example:
    >>> grammar = CallGrammar(("<s>", "</s>", "exist", "select", "scene", "(", ")", ",", "cat"))
    >>> state = grammar.start()
    >>> [grammar.tokens[i] for i in grammar.allowed(state)]
    ['exist']
    >>> for token in ("exist", "(", "select", "("):
    ...     state = grammar.advance(state, grammar.index[token])
    >>> [grammar.tokens[i] for i in grammar.allowed(state)]
    ['select', 'scene']
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from theory.operations import ARGUMENT_CHOICES, OPERATIONS, Kind
from translators.model.student.vocabulary import END, SPECIALS

_OPEN, _CLOSE, _COMMA = "(", ")", ","


@dataclass(frozen=True)
class CallState:
    """Where a program is: its open calls, each with how many of its inputs and arguments are written,
    and the token of the last constant it was given (-1: none yet), what comes next (``call``: an
    operation; ``open``: its parenthesis; ``next``: the next input or argument; ``between``: a comma or
    the closing parenthesis; ``end``: the end of the program), the answer's allowed operations and
    the words a choice offers (`CallGrammar.start`)."""

    calls: tuple[tuple[str, int, int], ...] = ()
    need: str = "call"
    answers: frozenset[str] | None = None
    offered: Offered | None = field(default=None, compare=False)


@dataclass(frozen=True, eq=False)
class Offered:
    """The tokens a question says before its "or" and after it (a boolean per token): a choice's two
    values are one of each ("Is the cup white or black?")."""

    before: np.ndarray
    after: np.ndarray

    def first(self) -> np.ndarray:
        """The tokens said on either side."""
        return self.before | self.after

    def second(self, first: int) -> np.ndarray:
        """The tokens on the other side from `first`."""
        other = np.zeros_like(self.before)
        if self.before[first]:
            other |= self.after
        if self.after[first]:
            other |= self.before
        return other


class CallGrammar:
    """The signatures of `theory.operations` over one vocabulary of program tokens."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self.tokens = tuple(tokens)
        self.index = {token: i for i, token in enumerate(self.tokens)}
        size = len(self.tokens)
        punctuation = {_OPEN, _CLOSE, _COMMA, *SPECIALS}
        self._calls = {
            kind: self._mask(i for i, t in enumerate(self.tokens) if t in OPERATIONS and OPERATIONS[t].output == kind)
            for kind in Kind
        }
        # A program's answer is a value, a yes/no or a number, never a set of objects.
        self._answers = self._mask(
            i for i, t in enumerate(self.tokens) if t in OPERATIONS and OPERATIONS[t].output != Kind.STATE
        )
        # An operation's name may also be a constant ("scene" is a class as well as a call).
        self._constants = self._mask(i for i, t in enumerate(self.tokens) if t not in punctuation)
        # Arguments of a closed set (a position, a polarity, a comparison) take only its words.
        self._choices = {
            name: self._mask(self.index[word] for word in words if word in self.index)
            for name, words in ARGUMENT_CHOICES.items()
        }
        self._only = {t: self._mask([self.index[t]]) for t in (_OPEN, _CLOSE, _COMMA, END) if t in self.index}
        self._none = np.zeros(size, dtype=bool)

    def _mask(self, ids: Iterable[int]) -> np.ndarray:
        mask = np.zeros(len(self.tokens), dtype=bool)
        mask[list(ids)] = True
        return mask

    def start(self, answers: Collection[str] | None = None, offered: Offered | None = None) -> CallState:
        """Before the first token: an operation that gives an answer, one of `answers` when given; with
        `offered`, a `choose_attr`'s two values are one said on each side of the question's "or"."""
        return CallState(answers=None if answers is None else frozenset(answers), offered=offered)

    def mask(self, state: CallState) -> np.ndarray:
        """Which tokens may come next (a boolean per token)."""
        if state.need == "call":
            if not state.calls:
                if state.answers is None:
                    return self._answers
                return self._answers & self._mask(self.index[t] for t in state.answers if t in self.index)
            operation, written, _ = state.calls[-1]
            return self._calls[OPERATIONS[operation].inputs[written]]
        if state.need in ("open", "end"):
            return self._only.get(_OPEN if state.need == "open" else END, self._none)
        operation, written, last = state.calls[-1]
        spec = OPERATIONS[operation]
        total = len(spec.inputs) + len(spec.arguments)
        if state.need == "between":
            return self._only.get(_COMMA if written < total else _CLOSE, self._none)
        if written == total:  # "next" in a call of nothing: scene()
            return self._only.get(_CLOSE, self._none)
        if written < len(spec.inputs):
            return self._calls[spec.inputs[written]]
        at = written - len(spec.inputs)
        allowed = self._choices.get(spec.arguments[at], self._constants)
        if operation == "choose_attr" and state.offered is not None and at > 0:
            allowed = allowed & (state.offered.first() if at == 1 else state.offered.second(last))
        if at > 0 and spec.arguments[at] == spec.arguments[at - 1] and last >= 0:
            # The second of two options (two values, two relations) differs from the first.
            allowed = allowed.copy()
            allowed[last] = False
        return allowed

    def allowed(self, state: CallState) -> list[int]:
        """The ids of the tokens that may come next."""
        return [int(i) for i in np.flatnonzero(self.mask(state))]

    def advance(self, state: CallState, token: int) -> CallState:
        """The state after `token` (one `mask` allowed in `state`)."""
        text = self.tokens[token]
        calls = state.calls
        if state.need == "end":  # the end token itself
            return state
        if state.need == "call" or (state.need == "next" and _reads_call(calls[-1])):
            return replace(state, calls=(*calls, (text, 0, -1)), need="open")
        if state.need == "open" or text == _COMMA:
            return replace(state, need="next")
        if text == _CLOSE:
            calls = calls[:-1]
            if not calls:
                return replace(state, calls=(), need="end")
            return replace(state, calls=_one_more(calls), need="between")
        return replace(state, calls=_one_more(calls, token), need="between")  # a constant


def _reads_call(call: tuple[str, int, int]) -> bool:
    """Whether the call's next input or argument is itself a call."""
    operation, written, _ = call
    return written < len(OPERATIONS[operation].inputs)


def _one_more(calls: tuple[tuple[str, int, int], ...], constant: int = -1) -> tuple[tuple[str, int, int], ...]:
    """The innermost call with one more input or argument written (`constant`: the token of an argument)."""
    operation, written, last = calls[-1]
    return (*calls[:-1], (operation, written + 1, constant if constant >= 0 else last))
