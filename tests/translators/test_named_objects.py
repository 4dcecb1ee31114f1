"""The objects a question names are its program's to name too."""

from __future__ import annotations

import pytest

from tests.translators.test_translate import Capturing, _settings
from theory.nested import format_nested, parse_nested
from translators.examples.bundled import default_bank
from translators.rules.compositional_fill import CompositionalFiller
from translators.rules.named_objects import named_objects, unnamed
from translators.rules.template_fill import TemplateFiller
from translators.translate import Translator
from translators.wording.ontology import bundled_ontology


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("What color is the blanket to the left of the trash can?", [("blanket",), ("trash", "can")]),
        ("Is the cup on the table red or blue?", [("cup",), ("table",)]),
        ("What piece of furniture is in the photo?", []),  # a kind and the picture, no object
        ("Who is holding a t-shirt?", [("shirt",)]),  # a part of `t_shirt`
    ],
)
def test_the_class_words_of_a_question_name_its_objects(question, named):
    assert list(named_objects(question, bundled_ontology())) == named


def test_an_object_counts_as_named_by_stem_spelling_or_inside_a_longer_name():
    program = parse_nested(
        "query(unique(relate(select(scene(), trash_can), t_shirt, to_the_right_of, subject)), color)"
    )
    assert unnamed(program, [("garbage", "can"), ("shirt",), ("shirts",)]) == []
    assert unnamed(program, [("table",), ("t", "shirt")]) == ["table"]


def test_gqa_programs_of_the_tuning_part_name_the_objects_their_questions_name(tuning_programs):
    ontology = bundled_ontology()
    missing = [q for q, program in tuning_programs if unnamed(program, named_objects(q, ontology))]
    # GQA names one traffic cone `cone`: 906 of 907.
    assert len(missing) <= 1 and len(tuning_programs) > 900


def test_a_question_is_reduced_to_the_bare_nouns_of_its_relating_references():
    composer = CompositionalFiller(TemplateFiller(default_bank(), bundled_ontology()))
    text, references = composer.reduced("The standing woman to the left of the shelves holds what?")
    assert text == "The woman holds what?" and [r.noun for r in references] == ["woman"]
    assert composer.reduced("What color is the baby?") is None  # nothing to reduce


def test_a_model_program_that_leaves_out_an_object_is_asked_with_bare_nouns_and_composed(bank):
    # A form the bank has no example of, so the model is asked (the references are read by composition).
    question = "What shade does the towel to the right of the garbage can have?"
    dropped = "query(unique(select(scene(), towel)), color)"  # the garbage can left out
    backend = Capturing([dropped, "query(unique(select(scene(), towel)), color)"])
    result = Translator(_settings(template_fill=True), bank, backend).translate(question)
    assert format_nested(result.program) == (
        "query(unique(relate(select(scene(), trash_can), towel, to_the_right_of, subject)), color)"
    )
    assert "What shade does the towel have?" in backend.requests[1].prompt.messages[-1]["content"]
    assert [f["rule"] for f in result.schema_fixes] == ["named objects"]
    # A program that names every object is kept as the model wrote it, with one model call.
    backend = Capturing([dropped])
    assert Translator(_settings(template_fill=True), bank, backend).translate("What shade does the towel have?").flat
    assert len(backend.requests) == 1


def test_gqa_programs_of_the_tuning_part_name_the_values_their_questions_say(tuning_programs):
    from translators.rules.named_objects import said_values, unsaid

    ontology = bundled_ontology()
    filler = TemplateFiller(default_bank(), ontology)

    def values(question):
        return said_values(filler.raw_slots(question), ontology)

    missing = [q for q, program in tuning_programs if unsaid(program, values(q), q)]
    # One question of the form "Is the black X to the right of a Y?" checks any X: 906 of 907.
    assert len(missing) <= 1 and len(tuning_programs) > 900
    # A choice between relations and a "how" question leave the value out, as GQA's programs do.
    choice = parse_nested("choose_rel(unique(select(scene(), road)), vehicle, behind, in_front_of, subject)")
    assert unsaid(choice, values("Is the small vehicle behind or in front of the road?"), "x") == []
    program = parse_nested("query(unique(relate_any(select(scene(), man), holding, object)), name)")
    assert unsaid(program, values("What is the standing man holding?"), "What is ...") == ["standing"]
