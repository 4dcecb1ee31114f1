"""The semantic equivalence check: equal programs pass, different ones get a distinguishing scene."""

from __future__ import annotations

import random

import pytest

from theory.equivalence import equivalent, random_scene
from theory.nested import parse_nested
from theory.program_words import program_words
from theory.solver import solve


def check(a: str, b: str):
    return equivalent(parse_nested(a), parse_nested(b))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("exist(filter(select(scene(), cup), color, red))", "exist(select(filter(scene(), color, red), cup))"),
        (
            "verify_rel(unique(select(scene(), man)), hat, wearing, object)",
            "exist(relate(unique(select(scene(), man)), hat, wearing, object))",
        ),
        (
            "and(exist(select(scene(), a)), exist(select(scene(), b)))",
            "and(exist(select(scene(), b)), exist(select(scene(), a)))",
        ),
        (
            "exist(relate(select(scene(), man), hat, wearing, object))",
            "exist(relate(select(scene(), hat), man, wearing, subject))",
        ),
    ],
)
def test_programs_that_mean_the_same_pass(a, b):
    result = check(a, b)
    assert result.equivalent, result.message
    assert result.scenes_tried == 40 and not result.same_canonical


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("exist(filter(select(scene(), cup), color, red))", "verify_attr(unique(select(scene(), cup)), color, red)"),
        ("query(unique(select(scene(), cup)), color)", "query(unique(select(scene(), cup)), material)"),
        (
            "exist(relate(select(scene(), man), hat, wearing, object))",
            "exist(relate(select(scene(), man), hat, wearing, subject))",
        ),
        (
            "or(exist(select(scene(), a)), exist(select(scene(), b)))",
            "and(exist(select(scene(), a)), exist(select(scene(), b)))",
        ),
        (
            "exist(negate(filter(select(scene(), cup), color, red), select(scene(), cup)))",
            "exist(select(scene(), cup))",
        ),
    ],
)
def test_programs_that_differ_get_a_scene_that_tells_them_apart(a, b):
    result = check(a, b)
    assert not result.equivalent
    first = solve(parse_nested(a), result.scene, top_k=50)
    second = solve(parse_nested(b), result.scene, top_k=50)
    assert sorted(x.answer for x in first.answers) != sorted(x.answer for x in second.answers) or (
        first.status != second.status
    )
    assert result.outcomes is not None and result.outcomes[0] != result.outcomes[1]


def test_identical_canonical_programs_need_no_scenes():
    result = check("exist(select(scene(), cup))", "exist(select(scene(), cup))")
    assert result.equivalent and result.same_canonical and result.scenes_tried == 0


def test_scenes_are_deterministic_and_use_the_mentioned_words():
    concepts = program_words(
        parse_nested("choose_attr(unique(relate(select(scene(), man), hat, wearing, object)), color, red, blue)")
    )
    assert concepts.classes == {"man", "hat"} and concepts.relations == {"wearing"}
    assert concepts.values["color"] == {"red", "blue"}
    first = [random_scene(concepts, random.Random(3)).to_asp() for _ in range(2)]
    assert first[0] == first[1]
    text = "\n".join(random_scene(concepts, random.Random(seed)).to_asp() for seed in range(20))
    for word in ("man", "hat", "wearing", "red", "blue"):
        assert word in text
