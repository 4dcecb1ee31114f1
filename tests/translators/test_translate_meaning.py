"""A translation means the whole question, or the question is declined naming what cannot be said."""

from __future__ import annotations

import pytest

from scene.word_kinship import WordNetKinship
from translators.examples.bank import legacy_bank
from translators.model.backends.replay import ReplayBackend
from translators.translate import TranslationSettings, Translator

SETTINGS = TranslationSettings(sampling="jaccard", llm="replay", template_fill=False)


def _translator(recordings: dict[str, list[str]], kinship: WordNetKinship | None = None) -> Translator:
    backend = ReplayBackend({(q, None): outputs for q, outputs in recordings.items()})
    return Translator(SETTINGS, legacy_bank(), backend, kinship=kinship)


@pytest.fixture(scope="module")
def kinship() -> WordNetKinship:
    return WordNetKinship()


def test_a_word_no_scene_holds_is_declined_before_the_model_is_asked(kinship):
    result = _translator({}, kinship).translate("What brand is the sauce?")
    assert result.program is None and result.unsupported == "inexpressible" and result.attempts == []
    assert "cannot express 'brand'" in (result.error or "")


def test_a_polite_wording_is_translated_as_the_question_it_wraps(kinship):
    polite = "Could you tell me what color the cat is?"
    result = _translator({polite: ["query(unique(select(scene(), cat)), color)"]}, kinship).translate(polite)
    assert result.unsupported is None
    assert result.flat == "scene(0). select(1, 0, cat). unique(2, 1). query(3, 2, color). end(3)."
    assert result.question == polite


@pytest.mark.parametrize("framed", ["Is the cup really white?", "Is the cup white, please?", "So, is the cup white?"])
def test_a_word_that_only_frames_the_question_declines_nothing(kinship, framed):
    program = "verify_attr(unique(select(scene(), cup)), color, white)"
    result = _translator({framed: [program]}, kinship).translate(framed)
    assert result.unsupported is None and result.flat is not None and "white" in result.flat


@pytest.mark.parametrize("question", ["What brand is the car, please?", "Honestly, what brand is the car?"])
def test_a_word_out_of_scope_still_declines_with_a_framing_word_beside_it(kinship, question):
    result = _translator({}, kinship).translate(question)
    assert result.unsupported == "inexpressible" and "cannot express 'brand'" in (result.error or "")


def test_a_program_that_drops_a_word_is_refused_and_the_next_one_kept():
    question = "Is the red cup on the table?"
    outputs = [
        "verify_rel(unique(select(scene(), cup)), table, on, subject)",  # drops "red"
        "verify_rel(unique(filter(select(scene(), cup), color, red)), table, on, subject)",
    ]
    result = _translator({question: outputs}).translate(question)
    assert result.program is not None and "red" in (result.flat or "")
    assert "does not express 'red'" in (result.attempts[0].error or "")


def test_when_no_program_reads_back_as_the_question_it_is_declined_with_the_reason():
    question = "What is the man called?"
    naming = "query(unique(select(scene(), man)), name)"
    result = _translator({question: [naming] * 4}).translate(question)
    assert result.program is None and result.unsupported == "inexpressible"
    assert "name of the man" in (result.error or "")


def test_measurements_past_deeds_and_identities_are_declined_without_a_program():
    translator = _translator({})
    for question, kind in (
        ("How old is the fence in years?", "measurement"),
        ("Who painted the building?", "maker"),
        ("Who is the man?", "identity"),
    ):
        result = translator.translate(question)
        assert result.unsupported == kind and result.attempts == []


def test_the_check_can_be_turned_off():
    question = "Is the red cup on the table?"
    off = SETTINGS.model_copy(update={"meaning_check": False})
    backend = ReplayBackend({(question, None): ["verify_rel(unique(select(scene(), cup)), table, on, subject)"]})
    result = Translator(off, legacy_bank(), backend).translate(question)
    assert result.program is not None and "red" not in (result.flat or "")


def test_a_program_that_leaves_out_a_checked_value_is_refused_where_nothing_can_be_composed_in(kinship):
    # No reference relates the box to another object, so composition cannot put "black" back: the
    # program that checks only "empty" is refused, and the next one, which checks both, kept.
    question = "Is the storage box that is made of metal empty and black?"  # a form the bank lacks
    box = "unique(filter(select(scene(), storage_box), material, metal))"
    outputs = [
        f"verify_attr({box}, state, empty)",
        f"and(verify_attr({box}, state, empty), verify_attr({box}, color, black))",
    ]
    translator = Translator(
        TranslationSettings(sampling="jaccard", llm="replay"),
        legacy_bank(),
        ReplayBackend({(question, None): outputs}),
        kinship=kinship,
    )
    result = translator.translate(question)
    assert result.program is not None and "black" in (result.flat or ""), result.attempts
    assert "does not express 'black'" in (result.attempts[0].error or "")
