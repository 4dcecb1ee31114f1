"""Counting questions: generated examples, the frame, template fill and composition."""

from __future__ import annotations

import pytest

from theory.nested import format_nested
from translators.examples.bank import ExampleBank, legacy_bank
from translators.examples.synthetic import TEMPLATES, generate_examples
from translators.rules.compositional_fill import CompositionalFiller
from translators.rules.template_fill import TemplateFiller
from translators.wording.ontology import bundled_ontology
from translators.wording.question_frame import frame_of, misfit

COUNTING = [t for t in TEMPLATES if t.family.startswith("count")]


@pytest.fixture(scope="module")
def composer() -> CompositionalFiller:
    ontology = bundled_ontology()
    examples = generate_examples(ontology, per_template=300, templates=COUNTING)
    return CompositionalFiller(TemplateFiller(ExampleBank([*legacy_bank(), *examples]), ontology))


def translated(composer: CompositionalFiller, question: str) -> str | None:
    frame = frame_of(question)

    def fits(program) -> bool:  # noqa: ANN001 - a Program
        return misfit(program, frame) is None

    filled = composer.filler.fill(question, accept=fits) or composer.fill(question, accept=fits)
    return format_nested(filled.program) if filled is not None else None


def test_counting_families_come_after_gqa_s_so_the_other_families_are_drawn_as_before():
    # Families added later (counting, then the choice of the scene's place, then long-tail forms) come
    # after all others.
    first = TEMPLATES.index(COUNTING[0])
    assert TEMPLATES[first : first + len(COUNTING)] == tuple(COUNTING)
    later = {t.family for t in TEMPLATES[first + len(COUNTING) :]}
    assert later == {
        "choose_place",
        "query_who_o",
        "all_same_plain",
        "query_rel_o_fronted",
        "query_rel_s_verb",
        "query_group_rel_o_do",
        "query_group_not_other",
        "choose_weather",
    }
    ontology = bundled_ontology()
    others = generate_examples(ontology, per_template=3, templates=TEMPLATES[:first])
    everything = generate_examples(ontology, per_template=3)
    assert everything[: len(others)] == others
    assert everything == generate_examples(ontology, per_template=3)  # deterministic
    counted = [e for e in everything[len(others) :] if not e.id.startswith(tuple(f"gen-{f}" for f in later))]
    assert counted and all(e.program.step(e.program.answer).operation in ("count", "compare_count") for e in counted)


@pytest.mark.parametrize(
    ("question", "program"),
    [
        ("How many dogs are there?", "count(select(scene(), dog))"),
        ("How many dogs are in the picture?", "count(select(scene(), dog))"),
        ("How many animals are there?", "count(select(scene(), animal))"),
        ("What is the number of cups?", "count(select(scene(), cup))"),
        ("How many cars are white?", "count(filter(select(scene(), car), color, white))"),
        ("How many pillows are on the sofa?", "count(relate(select(scene(), sofa), pillow, on, subject))"),
        (
            "How many white plates are on the table?",
            "count(filter(relate(select(scene(), table), plate, on, subject), color, white))",
        ),
        (
            "Are there more cars than buildings?",
            "compare_count(count(select(scene(), car)), count(select(scene(), building)), more)",
        ),
        (
            "Are there fewer dogs than cars?",
            "compare_count(count(select(scene(), dog)), count(select(scene(), car)), fewer)",
        ),
        (
            "Is the number of cups the same as the number of plates?",
            "compare_count(count(select(scene(), cup)), count(select(scene(), plate)), same)",
        ),
        (
            "Are there as many cats as dogs?",
            "compare_count(count(select(scene(), cat)), count(select(scene(), dog)), same)",
        ),
    ],
)
def test_counting_questions_are_filled_from_the_bank(composer, question, program):
    assert translated(composer, question) == program


def test_a_counted_noun_keeps_its_attributes_when_the_fill_names_it_in_a_relate(composer):
    # "street" is a place word, a form the bank lacks: composed from "How many cars are on the street?".
    assert translated(composer, "How many red cars are on the street?") == (
        "count(filter(relate(select(scene(), street), car, on, subject), color, red))"
    )
    assert translated(composer, "Are there more red cars than blue trucks?") == (
        "compare_count(count(filter(select(scene(), car), color, red)), "
        "count(filter(select(scene(), truck), color, blue)), more)"
    )


def test_a_how_many_question_never_takes_a_program_that_does_not_count(composer):
    filled = composer.filler.fill("How many dogs are there?", accept=lambda p: misfit(p, frame_of("Is it?")) is None)
    assert filled is None
