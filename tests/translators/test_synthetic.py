import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theory.operations import OPERATIONS
from theory.representations import format_program
from translators.examples.bank import normalise_question
from translators.examples.synthetic import TEMPLATES, expand_alternatives, generate_examples
from translators.model.grammar import program_grammar
from translators.wording.ontology import OTHER_CATEGORY, bundled_ontology

from .test_grammar import accepts, needs_tokenizer  # noqa: F401 - the fixture is used by name


@pytest.fixture(scope="module")
def generated():
    return generate_examples(bundled_ontology(), per_template=12, seed=3)


def test_generation_is_deterministic_and_deduplicated(generated):
    again = generate_examples(bundled_ontology(), per_template=12, seed=3)
    assert [(e.id, e.question, e.program) for e in again] == [(e.id, e.question, e.program) for e in generated]
    assert len({normalise_question(e.question) for e in generated}) == len(generated)
    assert all(e.source == "generated" for e in generated)


def test_every_operation_and_family_is_generated(generated):
    assert set().union(*(e.operations for e in generated)) == set(OPERATIONS)
    assert {e.id.split("-")[1] for e in generated} == {t.family for t in TEMPLATES}


def test_values_belong_to_the_category_they_are_used_with(generated):
    ontology = bundled_ontology()
    for example in generated:
        for step in example.program.steps:
            if step.operation in ("filter", "verify_attr", "choose_attr") and step.arguments[0] not in (
                "name",
                OTHER_CATEGORY,
            ):
                for value in step.arguments[1:]:
                    assert step.arguments[0] in ontology.categories_of(value), (example.question, step)


def test_questions_name_the_words_of_their_programs(generated):
    for example in random.Random(0).sample(generated, 200):
        text = example.question.lower()
        for step in example.program.steps:
            if step.operation == "select" and step.arguments[0] not in (
                "scene",
                "person",
                "he",
                "she",
            ):  # pronouns: his, her
                assert step.arguments[0].replace("_", " ")[:-1] in text, example.question  # plurals: accessor-ies


@needs_tokenizer
def test_schema_grammar_admits_generated_programs(generated, accepts):  # noqa: F811
    grammar = program_grammar("nested", ontology=bundled_ontology())
    for example in random.Random(1).sample(generated, 60):
        assert accepts(format_program(example.program, "nested"), grammar), example.question


@needs_tokenizer
def test_schema_grammar_rejects_unknown_categories_and_relations(accepts):  # noqa: F811
    grammar = program_grammar("nested", ontology=bundled_ontology())
    assert accepts("query(unique(select(scene(), door)), color)", grammar)
    assert not accepts("query(unique(select(scene(), door)), kind)", grammar)
    assert not accepts("query(unique(relate_any(select(scene(), man), called, object)), name)", grammar)
    assert not accepts("exist(filter(select(scene(), car), color, wooden))", grammar)
    assert accepts("exist(filter(select(scene(), car), other, wooden))", grammar)


def test_places_are_asked_as_the_scene_s_place_never_selected_as_objects(generated):
    for example in generated:
        assert not any(s.operation == "select" and s.arguments == ("place",) for s in example.program.steps)
    choices = [e for e in generated if e.id.split("-")[1] == "choose_place"]
    places = set(bundled_ontology().categories["place"])
    assert choices
    for example in choices:
        step = example.program.step(example.program.answer)
        assert step.operation == "choose_attr" and step.arguments[0] == "place"
        assert set(step.arguments[1:]) <= places - {"place"}


def test_the_weather_is_chosen_between_two_weather_values_of_the_scene(generated):
    choices = [e for e in generated if e.id.split("-")[1] == "choose_weather"]
    weather = set(bundled_ontology().categories["weather"])
    assert choices
    for example in choices:
        assert example.program.step(1).operation == "select" and example.program.step(1).arguments == ("scene",)
        step = example.program.step(example.program.answer)
        assert step.operation == "choose_attr" and step.arguments[0] == "weather"
        assert set(step.arguments[1:]) <= weather and "weather" in example.question


def test_a_phrasing_with_choices_stands_for_each_wording():
    assert expand_alternatives("{What|Which} place is {it|this}?") == [
        "What place is it?",
        "What place is this?",
        "Which place is it?",
        "Which place is this?",
    ]
    assert expand_alternatives("How is the weather{| like}?") == ["How is the weather?", "How is the weather like?"]
    assert expand_alternatives("What color is the {a} {r} the {b}?") == ["What color is the {a} {r} the {b}?"]


_PLAIN = st.text(alphabet="abc {}?", max_size=12).filter(lambda s: "|" not in s)
_CHOICE = st.lists(st.text(alphabet="xyz ", max_size=4), min_size=2, max_size=3, unique=True)


@given(st.lists(st.tuples(_PLAIN, _CHOICE), max_size=3), _PLAIN)
def test_choices_multiply_and_each_wording_keeps_the_text_around_them(pieces, tail):
    phrasing = "".join(text + "{" + "|".join(choice) + "}" for text, choice in pieces) + tail
    wordings = expand_alternatives(phrasing)
    assert len(wordings) == len(set(wordings))
    assert all("|" not in w and w.endswith(tail) for w in wordings)
    if not any("{" in text or "}" in text for text, _ in pieces) and "{" not in tail and "}" not in tail:
        expected = 1
        for _, choice in pieces:
            expected *= len(choice)
        # Distinct choices may still write the same wording ("x" + "" and "" + "x"): never more.
        assert 1 <= len(wordings) <= expected
