"""The student's beam keeps to programs the operations' signatures allow."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from theory.nested import parse_nested
from theory.operations import ARGUMENT_CHOICES, OPERATIONS, Kind
from translators.model.student.call_grammar import CallGrammar, Offered
from translators.model.student.vocabulary import END, SPECIALS, program_tokens
from translators.wording.question_frame import final_operations, frame_of

CONSTANTS = ("cat", "table", "color", "red", "on", "scene", *(w for words in ARGUMENT_CHOICES.values() for w in words))
GRAMMAR = CallGrammar((*SPECIALS, "(", ")", ",", *OPERATIONS, *CONSTANTS))


def _call(rng: random.Random, kind: Kind | None, depth: int) -> str:
    """A random well-typed call of the given output kind (an answer's kind when None)."""
    specs = [s for s in OPERATIONS.values() if (s.output != Kind.STATE if kind is None else s.output == kind)]
    if depth >= 4:  # bottom out in calls whose inputs are only objects, and scene() at the very end
        specs = [s for s in specs if not s.inputs] or [s for s in specs if set(s.inputs) <= {Kind.STATE}] or specs
    spec = rng.choice(specs)
    inputs = [_call(rng, k, depth + 1) if depth < 6 else "scene()" for k in spec.inputs]
    arguments: list[str] = []
    for at, name in enumerate(spec.arguments):
        choices = ARGUMENT_CHOICES.get(name, CONSTANTS)
        if at and spec.arguments[at - 1] == name:  # the second of two options is another word
            choices = tuple(c for c in choices if c != arguments[-1])
        arguments.append(rng.choice(choices))
    return f"{spec.name}({', '.join([*inputs, *arguments])})"


def _accepts(tokens: list[str], answers: frozenset[str] | None = None, offered: Offered | None = None) -> bool:
    state = GRAMMAR.start(answers, offered)
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


def test_the_second_of_two_options_is_not_the_first_again() -> None:
    assert not _accepts(program_tokens("choose_attr(unique(select(scene(), cat)), color, red, red)"))
    assert _accepts(program_tokens("choose_attr(unique(select(scene(), cat)), color, red, table)"))
    assert not _accepts(program_tokens("choose_rel(unique(select(scene(), cat)), table, on, on, subject)"))
    # Arguments of different roles may be the same word.
    assert _accepts(program_tokens("verify_attr(unique(select(scene(), color)), color, red)"))


def test_the_answer_may_be_narrowed_to_the_operations_a_frame_allows() -> None:
    choice = frame_of("Is the cat red or white?")
    assert not _accepts(
        program_tokens("or(verify_attr(unique(select(scene(), cat)), color, red), exist(select(scene(), cat)))"),
        final_operations(choice),
    )
    assert _accepts(
        program_tokens("choose_attr(unique(select(scene(), cat)), color, red, table)"), final_operations(choice)
    )
    assert not _accepts(
        program_tokens("exist(select(scene(), cat))"), final_operations(frame_of("How many cats are there?"))
    )


def _side(*words: str) -> np.ndarray:
    mask = np.zeros(len(GRAMMAR.tokens), dtype=bool)
    mask[[GRAMMAR.index[w] for w in words]] = True
    return mask


def test_a_choice_is_between_a_word_said_before_or_and_one_said_after() -> None:
    offered = Offered(before=_side("red", "cat"), after=_side("table"))

    def choice(first: str, second: str) -> bool:
        text = f"choose_attr(unique(select(scene(), cat)), color, {first}, {second})"
        return _accepts(program_tokens(text), offered=offered)

    assert choice("red", "table") and choice("table", "red")
    assert not choice("red", "cat")  # both before "or"
    assert not choice("red", "on")  # "on" is not offered
    # Only a choice's values are held to the offered words.
    assert _accepts(program_tokens("exist(filter(select(scene(), scene), color, on))"), offered=offered)
