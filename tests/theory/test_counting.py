"""Counting: `count` equals the number of matching objects on every perfect-information scene,
ranks counts by likelihood on a weighted scene, and round-trips through every text syntax."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import SceneFacts, solve
from theory.flat import parse_flat
from theory.program import ProgramError
from theory.representations import TEXT_REPRESENTATIONS, format_program, parse_program

CLASSES = ("dog", "cat", "bird")
COLORS = ("black", "white", "brown")

# One object: its class and its colors (an object may have none or several).
_OBJECT = st.tuples(st.sampled_from(CLASSES), st.sets(st.sampled_from(COLORS), max_size=2))


def _scene(objects: list[tuple[str, set[str]]]) -> SceneFacts:
    scene = SceneFacts()
    for oid, (cls, colors) in enumerate(objects, start=1):
        scene.add_fact("object", oid)
        scene.add_fact("has_attr", oid, "class", cls)
        scene.add_fact("has_attr", oid, "class", "animal")
        for color in sorted(colors):
            scene.add_fact("has_attr", oid, "color", color)
    return scene


def _only(program: str, scene: SceneFacts) -> str:
    result = solve(program, scene)
    assert result.status.value == "ok", result.message
    assert len(result.answers) == 1  # a certain scene has one count
    return result.answers[0].answer


@settings(max_examples=60, deadline=None)
@given(st.lists(_OBJECT, max_size=12), st.sampled_from((*CLASSES, "animal")), st.sampled_from((None, *COLORS)))
def test_count_is_the_number_of_matching_objects(objects, cls, color):
    scene = _scene(objects)
    program = f"scene(0). select(1, 0, {cls}). "
    program += f"filter(2, 1, color, {color}). count(3, 2). end(3)." if color else "count(3, 1). end(3)."
    expected = sum(1 for c, colors in objects if cls in (c, "animal") and (color is None or color in colors))
    assert _only(program, scene) == str(expected)


@settings(max_examples=40, deadline=None)
@given(st.lists(_OBJECT, max_size=10), st.sampled_from(CLASSES), st.sampled_from(CLASSES))
def test_count_comparisons_agree_with_the_numbers(objects, first, second):
    scene = _scene(objects)
    n1, n2 = (sum(1 for c, _ in objects if c == cls) for cls in (first, second))
    body = f"scene(0). select(1, 0, {first}). count(2, 1). select(3, 0, {second}). count(4, 3). "
    for comparison, holds in (("more", n1 > n2), ("fewer", n1 < n2), ("same", n1 == n2)):
        assert _only(body + f"compare_count(5, 2, 4, {comparison}). end(5).", scene) == ("yes" if holds else "no")


def test_weighted_scene_ranks_the_most_likely_count_first_with_its_probability():
    # One certain dog, two that are dogs with likelihood 0.9 and 0.6: the likeliest reading has
    # all three (0.9 * 0.6 = 0.54), then two (0.9 * 0.4 = 0.36), then one (0.1 * 0.4 = 0.04).
    scene = SceneFacts()
    for oid in (1, 2, 3):
        scene.add_fact("object", oid)
    scene.add_fact("has_attr", 1, "class", "dog")
    scene.add_likely("has_attr", (2, "class", "dog"), 0.9)
    scene.add_likely("has_attr", (3, "class", "dog"), 0.6)
    result = solve("scene(0). select(1, 0, dog). count(2, 1). end(2).", scene, top_k=5)
    assert [a.answer for a in result.answers] == ["3", "2", "1"]
    probabilities = [math.exp(-a.cost[-1] / 1000) for a in result.answers]
    for found, expected in zip(probabilities, (0.54, 0.36, 0.04)):
        assert abs(found - expected) < 0.002
    assert result.answers[0].support.steps[1] == ["1", "2", "3"]


def test_uncertain_objects_are_counted_by_their_detection_likelihood():
    scene = SceneFacts()
    scene.add_likely("object", (1,), 0.8)
    scene.add_fact("object", 2)
    for oid in (1, 2):
        scene.add_fact("has_attr", oid, "class", "dog")
    result = solve("scene(0). select(1, 0, dog). count(2, 1). end(2).", scene, top_k=5)
    assert [a.answer for a in result.answers] == ["2", "1"]
    top1 = solve("scene(0). select(1, 0, dog). count(2, 1). end(2).", scene, top_k=1)
    assert [a.answer for a in top1.answers] == ["2"]


COUNT_PROGRAMS = (
    "scene(0). select(1, 0, dog). count(2, 1). end(2).",
    "scene(0). select(1, 0, table). relate(2, 1, cup, on, subject). filter(3, 2, color, red). count(4, 3). end(4).",
    "scene(0). select(1, 0, dog). count(2, 1). select(3, 0, cat). count(4, 3). compare_count(5, 2, 4, more). end(5).",
    "scene(0). select(1, 0, dog). filter(2, 1, color, black). count(3, 2). count(4, 1). "
    "compare_count(5, 3, 4, same). end(5).",
)


def test_count_programs_round_trip_through_every_text_syntax():
    for text in COUNT_PROGRAMS:
        program = parse_flat(text)
        for representation in TEXT_REPRESENTATIONS:
            assert parse_program(format_program(program, representation), representation) == program, representation


def test_comparisons_read_counts_only():
    nested = "compare_count(select(scene(), dog), count(select(scene(), cat)), more)"
    with pytest.raises(ProgramError, match="giving a number"):
        parse_program(nested, "nested")
