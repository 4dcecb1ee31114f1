import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluation.splits import split_questions
from theory.nested import format_nested, parse_nested
from translators.gqa.gqa_program import GQAProgramError, gqa_to_program
from translators.wording.grounded_words import invented, offered_either_side, question_words, sides_of_or, singular
from translators.wording.question_text import read_as_scene

from .conftest import gqa_dir


def test_inflections_runs_and_frame_words_are_supported():
    words = question_words("Who wears the red train cars?")
    assert words.supports("train_car") and words.supports("train_cars") and words.supports("red")
    assert words.supports("person")  # "who" asks about a person
    assert words.supports_relation("wearing") and not words.supports_relation("holding")
    assert not words.supports("blue") and not words.supports("photo")
    assert "train_car" in words.names() and "who" not in words.names()


def test_a_name_may_hold_a_function_word_after_its_first():
    words = question_words("Is the trash can black and white?")
    assert words.supports("trash_can") and words.supports("black_and_white")
    assert not words.supports("the_trash") and not words.supports("is_the")


def test_a_comparative_supports_its_base_value():
    words = question_words("Who is taller, the man or the woman? Which is bigger, healthier or larger?")
    assert all(words.supports(v) for v in ("tall", "big", "healthy", "large"))
    assert not question_words("Who is tall?").supports("short")


def test_relations_need_their_words_but_not_their_glue():
    words = question_words("Is the cup left of the plate?")
    assert words.supports_relation("to_the_left_of") and not words.supports_relation("to_the_right_of")
    assert question_words("What color is the woman's hair?").supports_relation("of")
    assert question_words("Where is the skier?").supports_relation("on")
    assert question_words("Does the man have a hat?").supports_relation("has")  # "have" to its stem "ha"
    assert question_words("Which dog has a collar?").supports_relation("has")
    assert not question_words("Does the man hold a hat?").supports_relation("has")


def test_invented_arguments_are_named_with_their_role():
    program = parse_nested("exist(relate(select(scene(), building), horse, docked_at, subject))")
    found = invented(program, question_words("Is the horse near a building?"))
    assert [(f.role, f.word) for f in found] == [("relation", "docked_at")]
    assert "not in the question" in str(found[0])
    slippery = parse_nested("verify_attr(unique(select(scene(), floor)), other, slippery)")
    assert [f.word for f in invented(slippery, question_words("Is the floor sloped?"))] == ["slippery"]


@given(st.text(max_size=60))
def test_any_question_gives_words_without_error(text):
    words = question_words(text)
    assert all(words.supports(name) for name in words.names())


def test_gqa_programs_of_the_tuning_part_use_the_question_words():
    """The declared tables cover what GQA's programs write; the rest are GQA's hidden annotations."""
    path = gqa_dir() / "questions" / "val_balanced_sample.json"
    if not path.exists():
        pytest.skip(f"GQA data not found at {path}")
    data = json.loads(path.read_text())
    grounded = total = 0
    for qid in split_questions(data).tuning:
        try:
            program = gqa_to_program(data[qid]["semantic"])
        except (GQAProgramError, ValueError):
            continue
        total += 1
        grounded += not invented(program, question_words(read_as_scene(data[qid]["question"])))
    assert grounded / total >= 0.98, (grounded, total)


def test_things_are_named_as_gqa_names_them():
    from translators.wording.grounded_words import with_usual_names

    program = parse_nested("choose_attr(unique(select(scene(), trousers)), color, khaki, orange)")
    assert "select(scene(), pants)" in format_nested(with_usual_names(program))
    plain = parse_nested("exist(select(scene(), cat))")
    assert with_usual_names(plain) is plain


def test_buses_are_a_bus_and_houses_a_house():
    assert singular("buses") == "bus" and singular("houses") == "house"


def test_the_sides_of_or_are_the_names_said_near_it() -> None:
    before, after = sides_of_or(question_words("Is the man holding a phone or two video cameras?"))
    assert {"phone", "holding_a_phone"} <= before and "camera" not in before
    assert {"video_camera", "camera", "two_video_camera"} <= after
    assert sides_of_or(question_words("Is the man holding a phone?")) is None
    assert offered_either_side("video_camera", "phone", question_words("Is it a phone or a video camera?"))
