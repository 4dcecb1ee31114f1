import pytest

from scene.word_kinship import WordNetKinship
from theory.nested import format_nested, parse_nested
from translators.wording.ontology import bundled_ontology
from translators.wording.said_this import with_this_named

_OF_SCENE = "choose_attr(unique(select(scene(), scene)), {}, {}, {})"


@pytest.mark.parametrize(
    ("question", "category", "first", "second"),
    [
        ("Is this a train or a bus?", "place", "train", "bus"),
        ("What is this, a dog or a cat?", "name", "dog", "cat"),
        ("Is that a skateboarder or a snowboarder?", "other", "skateboarder", "snowboarder"),
    ],
)
def test_a_choice_of_two_things_asked_of_the_scene_is_asked_of_this(question, category, first, second):
    program = parse_nested(_OF_SCENE.format(category, first, second))
    fixed, fixes = with_this_named(program, question, bundled_ontology(), WordNetKinship())
    assert format_nested(fixed) == f"choose_attr(unique(select(scene(), this)), name, {first}, {second})"
    assert [f.rule for f in fixes] == ["this named"]


@pytest.mark.parametrize(
    ("question", "first", "second", "wordnet"),
    [
        ("Is this a beach or a park?", "beach", "park", False),  # the ontology's places
        ("Is this a kitchen or a bedroom?", "kitchen", "bedroom", False),
        ("Is this a restaurant or a church?", "restaurant", "church", True),  # places by WordNet
        ("Is this a shop or a zoo?", "shop", "zoo", True),
        ("Is this sunny or cloudy?", "sunny", "cloudy", False),  # no things
    ],
)
def test_a_choice_of_places_or_of_values_stays_the_scenes(question, first, second, wordnet):
    program = parse_nested(_OF_SCENE.format("place", first, second))
    kinds = WordNetKinship() if wordnet else None
    assert with_this_named(program, question, bundled_ontology(), kinds) == (program, [])


def test_only_a_question_that_says_this_and_only_the_scene_are_read_so():
    ontology = bundled_ontology()
    unsaid = parse_nested(_OF_SCENE.format("place", "train", "bus"))
    assert with_this_named(unsaid, "Which do you see, a train or a bus?", ontology) == (unsaid, [])
    of_object = parse_nested("choose_attr(unique(select(scene(), vehicle)), name, train, bus)")
    assert with_this_named(of_object, "Is this vehicle a train or a bus?", ontology) == (of_object, [])
