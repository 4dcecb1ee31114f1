from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theory.nested import format_nested
from translators.examples.bundled import default_bank
from translators.rules.compositional_fill import CompositionalFiller
from translators.rules.coordination import CoordinatedFiller, as_be, coordinated_parts
from translators.rules.template_fill import filler_for
from translators.wording.ontology import bundled_ontology


@pytest.fixture(scope="module")
def coordinator() -> CoordinatedFiller:
    filler = filler_for(default_bank(), bundled_ontology())
    return CoordinatedFiller((filler, CompositionalFiller(filler)))


def test_the_predicate_after_and_takes_the_place_of_the_one_or_two_words_before_it():
    parts = list(coordinated_parts("Is the basket both tan and large?"))
    assert parts[0] == ("Is the basket tan?", "Is the basket large?")
    assert ("Is the shirt short sleeved?", "Is the shirt white?") in coordinated_parts(
        "Is the shirt short sleeved and white?"
    )


@pytest.mark.parametrize(
    "question", ["What color is the cup and the plate?", "Is the cup white?", "Are there cats and dogs?", ""]
)
def test_only_yes_no_questions_with_and_after_their_object_are_cut(question):
    assert all(first != second for first, second in coordinated_parts(question))
    if not question.startswith(("Is", "Are")) or " and " not in question:
        assert list(coordinated_parts(question)) == []


@given(st.text(max_size=120))
def test_any_text_is_cut_without_error_into_questions(text):
    for first, second in coordinated_parts(text):
        assert first.endswith("?") and second.endswith("?")


@pytest.mark.parametrize(
    ("question", "program"),
    [
        (
            "Does the bus behind the other bus look white and rectangular?",
            "and(verify_attr(unique(relate(select(scene(), bus), bus, behind, subject)), color, white), "
            "verify_attr(unique(relate(select(scene(), bus), bus, behind, subject)), shape, rectangular))",
        ),
        (
            "Is the door white and open?",
            "and(verify_attr(unique(select(scene(), door)), color, white), "
            "exist(filter_any(unique(select(scene(), door)), open)))",
        ),
    ],
)
def test_both_parts_verify_one_object_and_are_joined_by_and(coordinator, question, program):
    filled = coordinator.fill(question)
    assert filled is not None and format_nested(filled.program) == program
    assert filled.form.startswith("coordinated: ")


def test_parts_about_two_objects_are_not_joined(coordinator):
    # "Is the cup white?" and "Is the plate?" do not verify one object.
    assert coordinator.fill("Is the cup white and the plate?") is None


@pytest.mark.parametrize(
    ("looks", "is_"),
    [
        ("Does the drawer seem to be white?", "Is the drawer white?"),
        ("Do the zebras look large?", "Are the zebras large?"),
        ("Does the man appear to be young?", "Is the man young?"),
        ("Is the man young?", "Is the man young?"),
    ],
)
def test_looking_appearing_and_seeming_are_read_as_being(looks, is_):
    assert as_be(looks) == is_
