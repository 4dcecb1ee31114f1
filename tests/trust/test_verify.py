"""Verdicts of claims on scenes: supported, refuted, unverifiable, each with its facts."""

from __future__ import annotations

import pytest

from theory.nested import parse_nested
from theory.scene_facts import SceneFacts
from trust.claims import Claim, ClaimError
from trust.subclaims import Formula
from trust.verify import combine, verify_claim

STREET = SceneFacts.from_asp(
    """
    object(1). has_attr(1,class,bus). has_attr(1,name,bus). has_attr(1,color,red). has_attr(1,hposition,left).
    object(2). has_attr(2,class,car). has_attr(2,name,car). has_attr(2,color,white). has_attr(2,hposition,right).
    object(3). has_attr(3,class,dog). has_attr(3,name,dog).
    object(4). has_attr(4,class,dog). has_attr(4,name,dog).
    object(5). has_attr(5,class,cup). has_attr(5,name,cup). has_attr(5,color,red).
    object(6). has_attr(6,class,cup). has_attr(6,name,cup). has_attr(6,color,blue).
    has_rel(1,to_the_left_of,2). has_rel(2,to_the_right_of,1).
    """
)


def verdict(program: str, scene: SceneFacts = STREET, holds: bool = True):
    return verify_claim(Claim(parse_nested(program), holds), scene)


RED_BUS_LEFT_OF_WHITE_CAR = (
    "exist(filter(relate(filter(select(scene(), car), color, white), bus, to_the_left_of, subject), color, red))"
)


def test_true_relation_claim_is_supported_with_its_facts():
    result = verdict(RED_BUS_LEFT_OF_WHITE_CAR)
    assert result.verdict == "supported"
    assert all(s.verdict == "supported" and s.facts for s in result.subclaims)
    assert "has_rel(1,to_the_left_of,2)" in result.subclaims[3].facts


def test_swapped_relation_is_refuted_by_the_relation_that_holds():
    result = verdict(RED_BUS_LEFT_OF_WHITE_CAR.replace("to_the_left_of", "to_the_right_of"))
    assert result.verdict == "refuted"
    relation = next(s for s in result.subclaims if s.subclaim.kind == "relation")
    assert relation.verdict == "refuted" and "has_rel(1,to_the_left_of,2)" in relation.facts


def test_other_color_refutes_with_the_color_the_scene_gives():
    result = verdict("verify_attr(unique(select(scene(), bus)), color, blue)")
    assert result.verdict == "refuted"
    assert "has_attr(1,color,red)" in result.subclaims[-1].facts


def test_absent_object_is_refuted_listing_what_is_there():
    result = verdict("exist(select(scene(), truck))")
    assert result.verdict == "refuted"
    assert "has_attr(1,name,bus)" in result.subclaims[0].facts


def test_category_the_scene_does_not_describe_is_unverifiable():
    result = verdict("verify_attr(unique(select(scene(), bus)), material, metal)")
    assert result.verdict == "unverifiable"
    assert "does not describe the material" in result.subclaims[-1].reason


def test_the_that_fits_objects_differently_is_unverifiable():
    assert verdict("verify_attr(unique(select(scene(), cup)), color, red)").verdict == "unverifiable"


def test_unrelated_objects_make_a_relation_unverifiable():
    result = verdict("verify_rel(unique(select(scene(), bus)), dog, near, object)")
    assert result.verdict == "unverifiable"


def test_count_is_exact():
    two_dogs = "exist(negate(unique(select(scene(), dog)), select(scene(), dog)))"
    assert verdict(two_dogs).verdict == "supported"
    dogs = "select(scene(), dog)"
    two_left = f"negate(unique({dogs}), {dogs})"
    three = f"exist(negate(unique({two_left}), {two_left}))"
    assert verdict(three).verdict == "refuted"
    two_buses = two_dogs.replace("dog", "bus")
    assert verdict(two_buses).verdict == "refuted"


def test_negative_claim():
    assert verdict("verify_attr(unique(select(scene(), bus)), color, blue)", holds=False).verdict == "supported"
    assert verdict("exist(select(scene(), truck))", holds=False).verdict == "supported"
    assert verdict("exist(select(scene(), truck))", holds=False).subclaims[0].facts


def test_uncertain_detection_is_unverifiable():
    scene = SceneFacts.from_asp("object(1). has_attr(1,class,bus). has_attr(1,name,bus). has_attr(1,color,white).")
    scene.add_likely("has_attr", (1, "color", "red"), 0.55)
    result = verdict("verify_attr(unique(select(scene(), bus)), color, red)", scene)
    assert result.verdict == "unverifiable"
    assert "not sure" in result.subclaims[-1].reason
    scene.weighted.clear()
    scene.add_likely("has_attr", (1, "color", "red"), 0.99)
    assert verdict("verify_attr(unique(select(scene(), bus)), color, red)", scene).verdict == "supported"


@pytest.mark.parametrize(
    ("connective", "verdicts", "expected"),
    [
        ("all", ["supported", "unverifiable"], "unverifiable"),
        ("all", ["unverifiable", "refuted"], "refuted"),
        ("any", ["refuted", "unverifiable"], "unverifiable"),
        ("any", ["refuted", "supported"], "supported"),
        ("any", ["refuted", "refuted"], "refuted"),
    ],
)
def test_three_valued_combination(connective, verdicts, expected):
    formula = Formula(connective, parts=tuple(Formula("sub", i) for i in range(1, len(verdicts) + 1)))
    assert combine(formula, dict(enumerate(verdicts, 1))) == expected


def test_a_program_that_does_not_answer_yes_or_no_is_no_claim():
    with pytest.raises(ClaimError):
        verdict("query(unique(select(scene(), bus)), color)")
