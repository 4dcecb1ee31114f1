"""Splitting claims into sub-claims and the formula that combines their verdicts."""

from __future__ import annotations

from theory.nested import parse_nested
from trust.claims import Claim
from trust.subclaims import Formula, split_claim


def split(text: str, holds: bool = True):
    return split_claim(Claim(parse_nested(text), holds))


def test_relation_claim_names_each_object_attribute_and_relation():
    result = split(
        "exist(filter(relate(filter(select(scene(), car), color, white), bus, to_the_left_of, subject), color, red))"
    )
    assert [(s.kind, s.text) for s in result.subclaims] == [
        ("object", "there is a car"),
        ("attribute", "there is a white car"),
        ("object", "there is a bus"),
        ("relation", "there is a bus to the left of the white car"),
        ("attribute", "there is a red bus to the left of the white car"),
    ]
    assert result.formula.connective == "all" and len(result.formula.parts) == 5


def test_count_is_exactly_n():
    result = split("exist(negate(unique(select(scene(), cat)), select(scene(), cat)))")
    count = result.subclaims[-1]
    assert count.kind == "count" and count.text == "there are exactly two cats"
    assert [c.expected for c in count.checks] == [True, False]


def test_negative_claim_keeps_its_presupposition():
    result = split("verify_attr(unique(select(scene(), bus)), color, red)", holds=False)
    assert [(s.text, [c.expected for c in s.checks]) for s in result.subclaims] == [
        ("there is a bus", [True]),
        ("not: the bus is red", [False]),
    ]


def test_there_is_no_presupposes_nothing():
    result = split("exist(select(scene(), dog))", holds=False)
    assert [s.text for s in result.subclaims] == ["there is no dog"]
    assert result.formula == Formula("sub", 1)


def test_or_and_negated_and():
    either = split("or(exist(select(scene(), dog)), exist(select(scene(), cat)))")
    assert either.formula.connective == "any"
    neither = split("and(exist(select(scene(), dog)), exist(select(scene(), cat)))", holds=False)
    assert neither.formula.connective == "any"  # not (a and b) = not a or not b


def test_each_subclaim_once():
    result = split(
        "and(verify_attr(unique(select(scene(), plate)), color, white), "
        "verify_attr(unique(select(scene(), plate)), shape, round))"
    )
    assert [s.text for s in result.subclaims] == ["there is a plate", "the plate is white", "the plate is round"]
