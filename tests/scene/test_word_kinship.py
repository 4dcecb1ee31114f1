"""WordNet tells synonyms and more general words, and words no scene could hold."""

from __future__ import annotations

import pytest

from scene.word_kinship import WordNetKinship


@pytest.fixture(scope="module")
def kin() -> WordNetKinship:
    return WordNetKinship()


@pytest.mark.parametrize(
    ("asked", "named"), [("bike", "bicycle"), ("fridge", "refrigerator"), ("shut", "closed"), ("animal", "dog")]
)
def test_synonyms_and_hypernyms_are_related(kin, asked, named):
    assert kin.related(asked, named)


@pytest.mark.parametrize(("asked", "named"), [("dog", "animal"), ("sauce", "horse"), ("brand", "sauce")])
def test_a_more_specific_or_unrelated_word_is_not(kin, asked, named):
    assert not kin.related(asked, named)


@pytest.mark.parametrize("word", ["brand", "price", "year", "owns", "thinking", "taste", "designed", "usually"])
def test_abstract_words_are_not_expressible(kin, word):
    assert not kin.expressible(word)


# "tap": a knock first, a faucet second.
@pytest.mark.parametrize("word", ["horse", "wet", "old", "sofa", "wearing", "skateboarder", "tap", "xyzzy"])
def test_things_values_relations_and_unknown_words_are(kin, word):
    assert kin.expressible(word)


@pytest.mark.parametrize(("word", "only"), [("comfortable", True), ("leafless", True), ("closed", False),
                                           ("silver", False), ("posing", False), ("xyzzy", False)])  # fmt: skip
def test_a_word_known_only_as_an_adjective(kin, word, only):
    assert kin.adjective_only(word) is only


@pytest.mark.parametrize(("word", "thing"), [("weapon", True), ("pastry", True), ("coffee_cup", True),
                                            ("electric", False), ("kind", False), ("side", False),
                                            ("standing", False), ("xyzzy", False)])  # fmt: skip
def test_a_word_whose_usual_sense_is_a_thing_a_scene_may_show(kin, word, thing):
    assert kin.object_noun(word) is thing


@pytest.mark.parametrize(("word", "thing"), [("weapon", True), ("tap", True), ("staircase", True), ("short", False),
                                            ("electric", False), ("brand", False), ("think", False),
                                            ("xyzzy", False)])  # fmt: skip
def test_a_word_that_may_name_a_thing_though_its_usual_sense_is_another(kin, word, thing):
    assert kin.thing(word) is thing


@pytest.mark.parametrize(("word", "value"), [("dull", True), ("bushy", True), ("black_and_white", True),
                                            ("silver", True), ("orange", False), ("weapon", False),
                                            ("xyzzy", False)])  # fmt: skip
def test_a_word_that_may_be_an_attribute_value(kin, word, value):
    assert kin.value(word) is value
