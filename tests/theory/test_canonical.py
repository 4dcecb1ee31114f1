"""Canonical form: dead steps dropped, identical steps merged, ids renumbered deterministically."""

from __future__ import annotations

import random

from hypothesis import given, settings

from tests.theory.test_representations import programs
from theory.canonical import canonical, same_program
from theory.flat import format_flat, parse_flat
from theory.program import Program, Step


def test_renumbers_from_zero_in_post_order():
    program = parse_flat("scene(7). select(3, 7, cup). unique(9, 3). query(1, 9, color). end(1).")
    assert format_flat(canonical(program)) == ("scene(0). select(1, 0, cup). unique(2, 1). query(3, 2, color). end(3).")


def test_steps_that_do_not_reach_the_answer_are_dropped():
    program = parse_flat("scene(0). select(1, 0, cup). select(2, 0, dog). exist(3, 2). exist(4, 1). end(4).")
    assert format_flat(canonical(program)) == "scene(0). select(1, 0, cup). exist(2, 1). end(2)."


def test_identical_steps_are_merged_and_their_readers_follow():
    program = parse_flat(
        "scene(0). select(1, 0, truck). relate(2, 1, tire, of, subject). unique(3, 2). "
        "verify_attr(4, 3, color, black). unique(5, 2). verify_attr(6, 5, shape, round). and(7, 4, 6). end(7)."
    )
    assert format_flat(canonical(program)) == (
        "scene(0). select(1, 0, truck). relate(2, 1, tire, of, subject). unique(3, 2). "
        "verify_attr(4, 3, color, black). verify_attr(5, 3, shape, round). and(6, 4, 5). end(6)."
    )


def test_input_order_matters_and_is_kept():
    a = parse_flat("scene(0). select(1, 0, a). exist(2, 1). select(3, 0, b). exist(4, 3). and(5, 2, 4). end(5).")
    b = parse_flat("scene(0). select(1, 0, a). exist(2, 1). select(3, 0, b). exist(4, 3). and(5, 4, 2). end(5).")
    assert not same_program(a, b)
    assert canonical(b).step(canonical(b).answer).dependencies == (2, 4)  # b's first input, numbered first


def test_different_arguments_are_different_programs():
    a = parse_flat("scene(0). select(1, 0, cup). exist(2, 1). end(2).")
    b = parse_flat("scene(0). select(1, 0, mug). exist(2, 1). end(2).")
    assert not same_program(a, b)


@settings(max_examples=200, deadline=None)
@given(programs())
def test_canonical_is_idempotent_and_ignores_numbering(program):
    once = canonical(program)
    assert canonical(once) == once
    assert [s.id for s in once.steps] == list(range(len(once)))
    shuffled = list(range(100, 100 + len(program)))
    random.Random(len(program)).shuffle(shuffled)
    renumber = dict(zip((s.id for s in program.steps), shuffled))
    moved = Program(
        tuple(
            Step(renumber[s.id], s.operation, tuple(renumber[d] for d in s.dependencies), s.arguments) for s in program
        ),
        renumber[program.answer],
    )
    assert canonical(moved) == once
    assert same_program(moved, program)


@settings(max_examples=200, deadline=None)
@given(programs())
def test_canonical_programs_have_no_duplicates_and_no_dead_steps(program):
    once = canonical(program)
    keys = [(s.operation, s.dependencies, s.arguments) for s in once.steps]
    assert len(keys) == len(set(keys))
    for step in once.steps:
        assert step.id == once.answer or once.uses(step.id)
