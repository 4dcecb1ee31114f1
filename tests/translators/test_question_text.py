import pytest
from hypothesis import given
from hypothesis import strategies as st

from translators.wording.question_text import read_as_scene


def test_a_photo_of_a_place_is_the_place_and_hedges_change_nothing():
    assert read_as_scene("Is this an image of a beach or a farm?") == "Is this a beach or a farm?"
    assert read_as_scene("Is it a photo of a beach or perhaps a lake?") == "Is it a beach or a lake?"
    assert read_as_scene("Is the photo of a dog on the wall?") == "Is the photo of a dog on the wall?"


def test_image_phrases_are_read_as_the_whole_scene():
    assert read_as_scene("Are there both bread and cheese in this picture?") == "Are there both bread and cheese?"
    assert read_as_scene("Who in the image is sitting?") == "Who is sitting?"
    assert read_as_scene("What room is shown?") == "What room is this?"
    assert read_as_scene("What room is the photo in?") == "What room is this?"
    assert read_as_scene("Which room is the picture of?") == "Which room is this?"
    assert read_as_scene("What animals are pictured?") == "What animals are these?"
    assert read_as_scene("What is the vehicle that is shown in the picture?") == "What is the vehicle?"
    assert read_as_scene("Which side of the photo is the notebook on?") == "Which side is the notebook on?"
    assert read_as_scene("What color is the box on the left side of the image?") == "What color is the box on the left?"
    assert read_as_scene("Can you see a cat?") == "Is there a cat?"


def test_what_the_picture_shows_is_its_place_and_before_a_place_is_in_front_of():
    assert read_as_scene("What does this photo show?") == "Which place is it?"
    assert read_as_scene("What is the picture showing?") == "Which place is it?"
    assert read_as_scene("What is the man showing?") == "What is the man showing?"
    assert read_as_scene("What animal is the wall before?") == "What animal is the wall in front of?"


@pytest.mark.parametrize(
    "question",
    ["How is the weather?", "How is the weather today?", "What kind of weather is it?", "Which weather is shown?",
     "What type of weather do you see?"],
)  # fmt: skip
def test_the_weather_however_asked_is_asked_as_what_it_is_like(question):
    assert read_as_scene(question).startswith("What is the weather like")


def test_where_with_two_places_offered_is_a_choice_between_them():
    assert read_as_scene("Where is the cup, on the left or on the right?") == "Is the cup on the left or on the right?"
    assert read_as_scene("Where are the cats, at the top or the bottom?") == "Are the cats at the top or the bottom?"
    assert read_as_scene("Where is the cup?") == "Where is the cup?"  # no choice offered: a where-question


def test_gqas_what_the_thing_is_called_and_a_pointing_that_are_read_as_said_plainly():
    assert read_as_scene("What the bowls on the table are called?") == "What are the bowls on the table called?"
    assert read_as_scene("Is the cup that that man holds red?") == "Is the cup that the man holds red?"
    assert read_as_scene("What is the cup that is red called?") == "What is the cup that is red called?"


def test_questions_without_image_phrases_are_unchanged():
    for question in ("Is the cup on the table?", "What is the skier holding?", "The man that is walking wears what?"):
        assert read_as_scene(question) == question


READINGS = [
    # the place a picture shows, however asked
    ("What room was the picture taken at?", "What room is this?"),
    ("Where was the image taken?", "Where is this?"),
    ("Which place could this be?", "Which place is this?"),
    ("What place does this represent?", "What place is this?"),
    ("Which venue is this?", "Which place is this?"),
    ("Which room of the house is it?", "Which room is it?"),
    # a wh-word said last is asked first
    ("The lamp is where?", "Where is the lamp?"),
    ("The cat is on what rug?", "What rug is the cat on?"),
    ("She is holding what?", "What is she holding?"),
    ("The man that is near the car is sitting on what?", "What is the man that is near the car sitting on?"),
    # a category named, then two of its values; not its values: left as it is
    ("Which size is the dog, large or small?", "Is the dog large or small?"),
    ("What color is the cup, red or blue?", "Is the cup red or blue?"),
    ("What size is the dog, a cat or a cow?", "What size is the dog, a cat or a cow?"),
    # small wordings that change nothing asked
    ("Is there either any cow or fence?", "Is there any cow or fence?"),
    ("Do you see bikes or cars there?", "Are there bikes or cars?"),
    ("Which material makes up the floor, wood or metal?", "Is the floor wood or metal?"),
    ("What color do you think the shirt has?", "What color does the shirt have?"),
    ("What color is the towel in the center?", "What color is the towel in the middle?"),
    ("How is the weather today?", "What is the weather like?"),
]


@pytest.mark.parametrize(("question", "reading"), READINGS)
def test_wordings_are_read_as_the_banks(question, reading):
    assert read_as_scene(question) == reading


@given(st.text(max_size=80))
def test_any_text_is_read_without_error_and_twice_is_once(text):
    once = read_as_scene(text)
    assert isinstance(once, str) and read_as_scene(once) == read_as_scene(read_as_scene(once))


@pytest.mark.parametrize(
    ("question", "reading"),
    [
        ("Is the cat on the chair or on the table?", "Is the cat on the chair or the table?"),
        ("Where is the cat sitting, on the chair or on the table?", "Is the cat sitting on the chair or the table?"),
        ("Where is the lamp: on the left or on the right?", "Is the lamp on the left or on the right?"),
        ("Is the dog under the wooden bench or under a car?", "Is the dog under the wooden bench or a car?"),
        # A choice of sides, or of two relations, keeps its words.
        ("Is the lamp on the left or on the right?", "Is the lamp on the left or on the right?"),
        ("Is the cup in the middle or in the back?", "Is the cup in the middle or in the back?"),
        ("Is the cat on or under the table?", "Is the cat on or under the table?"),
    ],
)
def test_a_relation_said_again_before_the_second_thing_offered_is_said_once(question, reading):
    assert read_as_scene(question) == reading


@pytest.mark.parametrize(
    ("question", "reading"),
    [
        ("Is there anything white on the table?", "Is there a white thing on the table?"),
        ("Is there something wooden next to the bench?", "Is there a wooden thing next to the bench?"),
        # A value that makes a relation with the preposition is that relation; no value, no change.
        ("Is there anything parked on the street?", "Is there anything parked on the street?"),
        ("Is there anything sitting under the table?", "Is there anything sitting under the table?"),
        ("Is there anything on the table?", "Is there anything on the table?"),
        ("Is there anything red?", "Is there anything red?"),
    ],
)
def test_a_value_said_of_anything_before_a_relation_is_said_of_a_thing(question, reading):
    assert read_as_scene(question) == reading
