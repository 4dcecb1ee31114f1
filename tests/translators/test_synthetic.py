import random

import pytest

from theory.operations import OPERATIONS
from theory.representations import format_program
from translators.bank import normalise_question
from translators.grammar import program_grammar
from translators.ontology import OTHER_CATEGORY, bundled_ontology
from translators.synthetic import TEMPLATES, generate_examples

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
