"""Answer matching as WordNet 3.0 says: strict, generous (synonyms, hyponyms), generous+ (N hypernym levels)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.matching import Matcher, MatchMode
from scene.wordnet import wordnet_available

pytestmark = pytest.mark.skipif(not wordnet_available(), reason="WordNet not installed: run `make wordnet`")

STRICT, GENEROUS, PLUS = MatchMode.STRICT, MatchMode.GENEROUS, MatchMode.GENEROUS_PLUS


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher()


def test_puppy_for_dog_is_a_hyponym(matcher):
    assert not matcher.matches("puppy", "dog", STRICT)
    assert matcher.matches("puppy", "dog", GENEROUS)
    assert matcher.matches("puppy", "dog", PLUS)


def test_canine_one_level_up_only_generous_plus(matcher):
    assert matcher.hypernym_distance("canine", "dog") == 1
    assert not matcher.matches("canine", "dog", GENEROUS)
    assert matcher.matches("canine", "dog", PLUS)


def test_animal_two_levels_up_through_domestic_animal(matcher):
    assert matcher.hypernym_distance("animal", "dog") == 2
    assert not matcher.matches("animal", "dog", GENEROUS)
    assert matcher.matches("animal", "dog", PLUS)
    assert not Matcher(hypernym_levels=1).matches("animal", "dog", PLUS)


def test_entity_eight_levels_up_is_too_far_for_five(matcher):
    assert matcher.hypernym_distance("entity", "dog") == 8
    assert not matcher.matches("entity", "dog", PLUS)
    assert Matcher(hypernym_levels=8).matches("entity", "dog", PLUS)


def test_suv_is_not_a_truck(matcher):
    assert matcher.synsets("suv")[0].name() == "sport_utility.n.01"
    for mode in MatchMode:
        assert not matcher.matches("suv", "truck", mode)
        assert not Matcher(hypernym_levels=20).matches("suv", "truck", mode)


@pytest.mark.parametrize("mode", list(MatchMode))
def test_yes_and_no_never_match(matcher, mode):
    assert not matcher.matches("yes", "no", mode)
    assert not matcher.matches("no", "yes", mode)
    assert not Matcher(hypernym_levels=50).matches("no", "yes", mode)


def test_synonyms_and_normalisation(matcher):
    assert matcher.matches("grey", "gray", GENEROUS) and not matcher.matches("grey", "gray", STRICT)
    assert matcher.matches(True, "yes", STRICT) and matcher.matches("False", "no", STRICT)
    assert matcher.matches("to the left of", "left", STRICT)
    assert matcher.matches("to_the_right_of", "right", STRICT)
    assert matcher.matches("Tennis_Racket", "tennis racket", STRICT)
    assert not matcher.matches("", "dog", PLUS)
    assert not matcher.matches("dog", "puppy", GENEROUS)  # a hypernym is not generous


def test_top_k(matcher):
    ranked = ["cat", "canine", "puppy"]
    assert not matcher.matches_top_k(ranked, "dog", STRICT, 3)
    assert not matcher.matches_top_k(ranked, "dog", PLUS, 1)
    assert matcher.matches_top_k(ranked, "dog", PLUS, 2)
    assert not matcher.matches_top_k(ranked, "dog", GENEROUS, 2)
    assert matcher.matches_top_k(ranked, "dog", GENEROUS, 3)
    assert not matcher.matches_top_k([], "dog", PLUS, 5)
    with pytest.raises(ValueError):
        matcher.matches_top_k(ranked, "dog", STRICT, 0)
    scores = matcher.scores(ranked, "dog")
    assert scores["generous+@1"] is False and scores["generous+@3"] is True and scores["generous@3"] is True
    assert len(scores) == 9


def test_negative_levels_are_refused():
    with pytest.raises(ValueError):
        Matcher(hypernym_levels=-1)


# WordNet lookups take variable time on a loaded machine: no per-example deadline.
@settings(deadline=None)
@given(st.text(max_size=20), st.sampled_from(list(MatchMode)))
def test_an_answer_always_matches_itself(text, mode):
    assert Matcher().matches(text, text, mode)


@settings(deadline=None)
@given(st.text(alphabet="abcdefghij ", max_size=12), st.text(alphabet="abcdefghij ", max_size=12))
def test_modes_are_nested(predicted, gold):
    matcher = Matcher()
    strict, generous, plus = (matcher.matches(predicted, gold, m) for m in MatchMode)
    assert (not strict or generous) and (not generous or plus)
