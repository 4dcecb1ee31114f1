import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory.nested import format_nested, parse_nested
from translators.examples.bank import Example, ExampleBank, legacy_bank
from translators.rules.compositional_fill import CompositionalFiller
from translators.rules.template_fill import TemplateFiller
from translators.wording.ontology import bundled_ontology


@pytest.fixture(scope="module")
def composer():
    return CompositionalFiller(TemplateFiller(legacy_bank(), bundled_ontology()))


def nested(composer, question):
    filled = composer.fill(question)
    return format_nested(filled.program) if filled is not None else None


def test_a_relation_reference_becomes_a_relate_chain(composer):
    assert nested(composer, "Is there a cup on the wooden table?") == (
        "exist(relate(filter(select(scene(), table), material, wooden), cup, on, subject))"
    )


def test_the_other_thing_a_reference_relates_to_is_named_by_its_class(composer):
    # GQA's programs relate "the basket above the other basket" to a basket, as to "the basket".
    assert nested(composer, "Is the wooden basket above the other basket red?") == nested(
        composer, "Is the wooden basket above the basket red?"
    )
    assert nested(composer, "Is the wooden basket above the other basket red?") is not None


def test_the_right_side_is_the_right(composer):
    assert nested(composer, "Is there a cup on the table on the right side?") == nested(
        composer, "Is there a cup on the table on the right?"
    )


def test_a_noun_the_ontology_lacks_is_read_after_its_article(composer):
    program = nested(composer, "Is there a dog to the left of the zorb?")
    assert program == "exist(relate(select(scene(), zorb), dog, to_the_left_of, subject))"


def test_attributes_after_the_noun_and_positions_are_filters(composer):
    program = nested(composer, "Is there a cup that is red and blue?")
    assert program is not None and "color, red" in program and "color, blue" in program
    assert nested(composer, "Is there a cup on the right?") == "exist(filter(select(scene(), cup), hposition, right))"


def test_an_object_relative_clause_makes_the_noun_the_relation_object(composer):
    program = nested(composer, "Is there a shirt that the man is wearing?")
    assert program == "exist(relate(select(scene(), man), shirt, wearing, object))"


def test_a_verb_in_the_present_tense_names_the_relation_as_its_ing_form(composer):
    expected = "exist(relate(select(scene(), man), shirt, wearing, object))"
    assert nested(composer, "Is there a shirt that the man wears?") == expected
    assert nested(composer, "Is there a shirt the man wears?") == expected
    # A relation that is no verb needs its "is": "the cup the table on" is no reference.
    assert nested(composer, "Is there a cup the table on?") != "exist(relate(select(scene(), table), cup, on, object))"


def test_what_a_thing_is_made_of_is_its_material_even_for_words_the_ontology_lacks(composer):
    assert nested(composer, "Is there a fence made of wire?") == "exist(filter(select(scene(), fence), material, wire))"


def test_made_of_before_or_is_the_questions_choice_not_a_description():
    # Not "the bag on the chair that is made of leather": the question asks which of two materials.
    example = Example(
        "m1",
        "Is the cup made of wood or metal?",
        parse_nested("choose_attr(unique(select(scene(), cup)), material, wood, metal)"),
    )
    choices = CompositionalFiller(TemplateFiller(ExampleBank([example]), bundled_ontology()))
    assert nested(choices, "Is the bag on the chair made of leather or plastic?") == (
        "choose_attr(unique(relate(select(scene(), chair), bag, on, subject)), material, leather, plastic)"
    )


def test_a_question_of_bare_nouns_is_left_to_the_plain_fill(composer):
    assert composer.fill("Is there a cat?") is None
    assert composer.fill("Why is the sky blue?") is None


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            "the a red cup table man that is are on to left of wearing made wood zorb who what he and".split()
        ),
        max_size=14,
    )
)
def test_any_word_sequence_is_read_without_error(composer, words):
    filled = composer.fill(" ".join(words) + "?")
    assert filled is None or filled.program.step(filled.program.answer) is not None


def test_an_object_relative_clause_one_level_down(composer):
    program = nested(composer, "Is there a cup on the table the man is sitting at?")
    assert program == "exist(relate(relate(select(scene(), man), table, sitting_at, object), cup, on, subject))"


def test_a_possessive_names_the_noun_of_that_person(composer):
    program = nested(composer, "What color is his hat?")
    assert program == "query(unique(relate(select(scene(), he), hat, of, subject)), color)"
    # "her" with no noun after it is the person herself, not something of hers.
    program = nested(composer, "Is there a cup to the left of her?")
    assert program is not None and "cup, to_the_left_of, subject" in program and ", of, " not in program


def test_a_nouns_possessive_names_the_thing_of_that_noun(composer):
    program = nested(composer, "What color is the woman's hair?")
    assert program == "query(unique(relate(select(scene(), woman), hair, of, subject)), color)"
    # A word the ontology files as a value names the owner too, and "what's" is still "what is".
    assert nested(composer, "What color is the baby’s hair?") == (
        "query(unique(relate(select(scene(), baby), hair, of, subject)), color)"
    )
    assert composer.filler.raw_slots("What's on the table?")[:2] == [("what", None), ("is", None)]


def test_an_attribute_before_or_is_the_questions_choice_not_the_references(composer):
    # "that is standing" describes the horse; "brown or white" is what the question asks.
    assert nested(composer, "Is the horse that is standing brown or white?") == (
        "choose_attr(unique(filter(select(scene(), horse), pose, standing)), color, brown, white)"
    )


def test_a_category_after_its_article_is_what_is_asked_not_an_object():
    # "the material of the bowl": the bowl's material, not an object called material.
    example = Example(
        "m1", "What is the material of the cup?", parse_nested("query(unique(select(scene(), cup)), material)")
    )
    materials = CompositionalFiller(TemplateFiller(ExampleBank([example]), bundled_ontology()))
    assert nested(materials, "What is the material of the bowl near the fruits?") == (
        "query(unique(relate(select(scene(), fruits), bowl, near, subject)), material)"
    )


@pytest.fixture(scope="module")
def bundled_composer():
    from translators.examples.bundled import default_bank

    return CompositionalFiller(TemplateFiller(default_bank(), bundled_ontology()))


def test_a_relation_object_does_not_swallow_the_question_s_own_predicate(bundled_composer):
    # Read greedily, "the bench holding an umbrella" would be one reference and "Is [it]?" no form.
    program = nested(bundled_composer, "Is the woman next to the bench holding an umbrella?")
    assert program == (
        "verify_rel(unique(relate(select(scene(), bench), woman, next_to, subject)), umbrella, holding, object)"
    )


def test_a_described_noun_does_not_swallow_the_relation_the_question_asks(bundled_composer):
    program = nested(bundled_composer, "Is the small dog in front of a car?")
    assert program == "verify_rel(unique(filter(select(scene(), dog), size, small)), car, in_front_of, object)"


def test_an_attribute_denied_in_a_relative_clause_is_a_negate(bundled_composer):
    program = nested(bundled_composer, "What is behind the table that is not wooden?")
    assert program == (
        "query(unique(relate_any(negate(filter(select(scene(), table), material, wooden), select(scene(), table)), "
        "behind, subject)), name)"
    )
