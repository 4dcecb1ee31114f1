"""The student's beam keeps to programs the operations' signatures allow."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from theory.nested import parse_nested
from theory.operations import ARGUMENT_CHOICES, OPERATIONS, Kind
from translators.model.student.call_grammar import CallGrammar
from translators.model.student.vocabulary import END, SPECIALS, program_tokens

CONSTANTS = ("cat", "table", "color", "red", "on", "scene", *(w for words in ARGUMENT_CHOICES.values() for w in words))
GRAMMAR = CallGrammar((*SPECIALS, "(", ")", ",", *OPERATIONS, *CONSTANTS))


def _call(rng: random.Random, kind: Kind | None, depth: int) -> str:
    """A random well-typed call of the given output kind (an answer's kind when None)."""
    specs = [s for s in OPERATIONS.values() if (s.output != Kind.STATE if kind is None else s.output == kind)]
    if depth >= 4:  # bottom out in calls whose inputs are only objects, and scene() at the very end
        specs = [s for s in specs if not s.inputs] or [s for s in specs if set(s.inputs) <= {Kind.STATE}] or specs
    spec = rng.choice(specs)
    inputs = [_call(rng, k, depth + 1) if depth < 6 else "scene()" for k in spec.inputs]
    arguments = [rng.choice(ARGUMENT_CHOICES.get(name, CONSTANTS)) for name in spec.arguments]
    return f"{spec.name}({', '.join([*inputs, *arguments])})"


def _accepts(tokens: list[str]) -> bool:
    state = GRAMMAR.start()
    for token in [*tokens, END]:
        if not GRAMMAR.mask(state)[GRAMMAR.index[token]]:
            return False
        state = GRAMMAR.advance(state, GRAMMAR.index[token])
    return state.need == "end"


@given(st.integers(0, 10_000))
def test_every_well_typed_program_is_allowed_token_by_token(seed: int) -> None:
    assert _accepts(program_tokens(_call(random.Random(seed), None, 0)))


@given(st.integers(0, 10_000))
def test_every_program_the_grammar_lets_through_parses(seed: int) -> None:
    rng = random.Random(seed)
    state, tokens = GRAMMAR.start(), []
    while state.need != "end" and len(tokens) < 400:
        allowed = GRAMMAR.allowed(state)
        # Prefer closing calls as the program grows, so that walks end.
        closing = [i for i in allowed if GRAMMAR.tokens[i] in ("scene", ")", ",")]
        token = rng.choice(closing if len(tokens) > 40 and closing else allowed)
        tokens.append(GRAMMAR.tokens[token])
        state = GRAMMAR.advance(state, token)
    if state.need == "end":
        parse_nested("".join(", " if t == "," else t for t in tokens))


def test_a_wrong_number_of_arguments_or_a_wrong_kind_of_input_is_refused() -> None:
    assert not _accepts(program_tokens("select(scene(), cat, table)"))
    assert not _accepts(program_tokens("and(exist(select(scene(), cat)))"))
    assert not _accepts(program_tokens("exist(query(unique(select(scene(), cat)), color))"))
    assert not _accepts(program_tokens("select(scene(), cat)"))  # objects are no answer
    assert not _accepts(program_tokens("verify_rel(unique(select(scene(), cat)), table, on, more)"))
    assert _accepts(program_tokens("verify_rel(unique(select(scene(), cat)), table, on, subject)"))
    assert _accepts(program_tokens("exist(select(scene(), scene))"))  # an operation's name as a constant
