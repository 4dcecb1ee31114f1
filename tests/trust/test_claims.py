"""Claims from answers, and counts written with the operations there are."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory.nested import parse_nested
from theory.program import Program, Step
from theory.representations import format_program
from theory.scene_facts import SceneFacts
from theory.solver import solve
from trust.claims import Claim, ClaimError, as_claim, at_least, claim_from_answer, count_level
from trust.verify import verify_claim


def nested(text: str) -> Program:
    return parse_nested(text)


@pytest.mark.parametrize(
    ("question", "answer", "claim", "holds"),
    [
        (
            "query(unique(select(scene(), bus)), color)",
            "Red",
            "verify_attr(unique(select(scene(), bus)), color, red)",
            True,
        ),
        (
            "query(unique(select(scene(), animal)), name)",
            "horse",
            "verify_attr(unique(select(scene(), animal)), class, horse)",
            True,
        ),
        ("exist(select(scene(), dog))", "no", "exist(select(scene(), dog))", False),
        (
            "verify_attr(unique(select(scene(), bus)), color, red)",
            "yes",
            "verify_attr(unique(select(scene(), bus)), color, red)",
            True,
        ),
        (
            "choose_attr(unique(select(scene(), cup)), color, red, blue)",
            "blue",
            "verify_attr(unique(select(scene(), cup)), color, blue)",
            True,
        ),
        (
            "choose_rel(unique(select(scene(), cup)), table, to_the_left_of, to_the_right_of, object)",
            "left",
            "verify_rel(unique(select(scene(), cup)), table, to_the_left_of, object)",
            True,
        ),
        (
            "choose_attr(unique(select(scene(), apple)), other, red, green)",
            "green",
            "verify_attr(unique(select(scene(), apple)), color, green)",
            True,
        ),
        (
            "common(unique(select(scene(), cup)), unique(select(scene(), plate)))",
            "color",
            "two_same(unique(select(scene(), cup)), unique(select(scene(), plate)), color)",
            True,
        ),
    ],
)
def test_claim_from_answer(question, answer, claim, holds):
    made = claim_from_answer(nested(question), answer)
    assert format_program(made.program, "nested") == claim
    assert made.holds is holds


def test_yes_no_question_needs_yes_or_no():
    with pytest.raises(ClaimError, match="yes or no"):
        claim_from_answer(nested("exist(select(scene(), dog))"), "maybe")


def test_a_claim_answers_yes_or_no():
    with pytest.raises(ClaimError, match="yes/no program"):
        as_claim(nested("query(unique(select(scene(), bus)), color)"))


@settings(deadline=None, max_examples=40)
@given(objects=st.integers(min_value=0, max_value=6), claimed=st.integers(min_value=1, max_value=6))
def test_at_least_n_holds_exactly_when_there_are_n(objects, claimed):
    steps = [Step(0, "scene"), Step(1, "select", (0,), ("dog",))]
    top = at_least(steps, 1, claimed)
    steps.append(Step(max(s.id for s in steps) + 1, "exist", (top,)))
    program = Program(tuple(steps), answer=steps[-1].id)
    assert count_level(program, top) == ((1, claimed) if claimed > 1 else None)
    dogs = " ".join(f"object({i}). has_attr({i},class,dog)." for i in range(1, objects + 1))
    scene = SceneFacts.from_asp(dogs + " object(99). has_attr(99,class,cat).")
    answers = [a.answer for a in solve(program, scene).answers]
    # Taking a dog away from none has no reading at all: the verifier reads that as "fewer".
    assert answers == (["yes"] if objects >= claimed else ["no"] if objects >= claimed - 1 else [])
    # A claim of n things means exactly n ("there are two dogs"); of one, at least one ("there is a dog").
    holds = objects == claimed if claimed > 1 else objects >= 1
    assert verify_claim(Claim(program), scene).verdict == ("supported" if holds else "refuted")
