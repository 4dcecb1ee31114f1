from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.theory.conftest import build_scene
from theory import solve
from theory.nested import format_nested, parse_nested
from translators.examples.bundled import default_bank
from translators.rules.compositional_fill import CompositionalFiller
from translators.rules.quantified import QuantifiedFiller, every, of_class, quantified_plain
from translators.rules.template_fill import filler_for
from translators.wording.ontology import bundled_ontology

ONTOLOGY = bundled_ontology()
# Three cows, two of them brown and on the grass, and a sheep.
MEADOW = build_scene(
    {
        1: {"class": ["cow", "animal"], "color": "brown"},
        2: {"class": ["cow", "animal"], "color": "brown"},
        3: {"class": ["cow", "animal"], "color": "white"},
        4: {"class": "grass"},
        5: {"class": ["sheep", "animal"], "color": "white"},
    },
    [(1, "on", 4), (2, "on", 4)],
)


@pytest.fixture(scope="module")
def quantified() -> QuantifiedFiller:
    filler = filler_for(default_bank(), ONTOLOGY)
    return QuantifiedFiller((filler, CompositionalFiller(filler)), ONTOLOGY)


@pytest.mark.parametrize(
    ("question", "plain"),
    [
        ("Are all the cows brown?", "Are the cows brown?"),
        ("Are both of the cups white?", "Are the cups white?"),
        ("Are the cows all brown?", "Are the cows brown?"),
        ("Do all the cows look brown?", "Do the cows look brown?"),
        ("Is every plate round?", "Is the plate round?"),
        ("Is each chair made of wood?", "Is the chair made of wood?"),
    ],
)
def test_the_quantifier_is_left_out(question, plain):
    assert quantified_plain(question) == plain


@pytest.mark.parametrize(
    "question",
    [
        "Are all the cups the same color?",  # all_same
        "Do both the people have the same gender?",
        "Is the newspaper both large and white?",  # two joined predicates
        "Are there both napkins and plates?",
        "What color are all the cups?",  # no yes/no question
        "Are the cows brown?",
        "Is each of the chairs wooden?",
        "",
    ],
)
def test_questions_other_rules_read_keep_no_quantified_reading(question):
    assert quantified_plain(question) is None


@given(st.text(max_size=120))
def test_any_text_gives_a_shorter_question_or_none(text):
    plain = quantified_plain(text)
    assert plain is None or (plain.endswith("?") and len(plain.split()) < len(text.split()) + 1)


@pytest.mark.parametrize(
    ("one", "all_of"),
    [
        (
            "verify_attr(unique(select(scene(), cows)), color, brown)",
            "and(exist(select(scene(), cow)), compare_count(count(filter(select(scene(), cow), color, brown)), "
            "count(select(scene(), cow)), same))",
        ),
        (
            "exist(filter_any(unique(select(scene(), door)), open))",
            "and(exist(select(scene(), door)), compare_count(count(filter_any(select(scene(), door), open)), "
            "count(select(scene(), door)), same))",
        ),
        (
            "verify_rel(unique(filter(select(scene(), cow), color, brown)), grass, on, object)",
            "and(exist(filter(select(scene(), cow), color, brown)), compare_count(count(filter(relate(select("
            "scene(), grass), cow, on, subject), color, brown)), count(filter(select(scene(), cow), color, brown)), "
            "same))",
        ),
        (
            "verify_attr(unique(relate(select(scene(), grass), cows, on, subject)), color, brown)",
            "and(exist(relate(select(scene(), grass), cow, on, subject)), compare_count(count(filter(relate(select("
            "scene(), grass), cow, on, subject), color, brown)), count(relate(select(scene(), grass), cow, on, "
            "subject)), same))",
        ),
    ],
)
def test_a_verification_of_one_object_becomes_one_of_every_object(one, all_of):
    made = every(parse_nested(one), ONTOLOGY)
    assert made is not None and format_nested(made) == all_of


@pytest.mark.parametrize(
    "program",
    [
        "query(unique(select(scene(), cow)), color)",  # no verification
        "verify_attr(select(scene(), cow), color, brown)",  # of no one object
        # A relation verified of related objects would need two relations joined, which no step does.
        "verify_rel(unique(relate(select(scene(), fence), cow, near, subject)), grass, on, object)",
    ],
)
def test_other_programs_have_no_every_reading(program):
    assert every(parse_nested(program), ONTOLOGY) is None


def test_a_class_of_counted_objects_is_asked_of_each():
    made = of_class(parse_nested("count(select(scene(), animals))"), "sheep", ONTOLOGY)
    assert made is not None
    assert format_nested(made) == (
        "and(exist(select(scene(), animal)), compare_count(count(select(select(scene(), animal), sheep)), "
        "count(select(scene(), animal)), same))"
    )
    assert of_class(parse_nested("exist(select(scene(), animal))"), "sheep", ONTOLOGY) is None


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Are all the cows brown?", "no"),
        ("Are all the cows on the grass brown?", "yes"),
        ("Are both of the cows on the grass brown?", "yes"),
        ("Are all the brown cows on the grass?", "yes"),
        ("Are the cows all on the grass?", "no"),
        ("Is every sheep white?", "yes"),
        ("Are all the animals cows?", "no"),
        ("Are all the horses brown?", "no"),  # none in the scene: not yes for want of a counterexample
    ],
)
def test_filled_programs_answer_on_a_scene(quantified, question, answer):
    filled = quantified.fill(question)
    assert filled is not None and filled.form.startswith("quantified: ")
    assert [a.answer for a in solve(filled.program, MEADOW).answers] == [answer]


def test_a_program_the_caller_refuses_is_not_given(quantified):
    assert quantified.fill("Are all the cows brown?", accept=lambda program: False) is None
    assert quantified.fill("Are all the cups the same color?") is None
