"""Questions outside what the programs express are told apart by their wording, and GQA's never are."""

from __future__ import annotations

import json

import pytest

from tests.support import GQA_DIR
from translators.checks.question_scope import ANSWERABLE, beyond_the_scene, out_of_scope
from translators.examples.bank import legacy_bank
from translators.model.backends.replay import ReplayBackend
from translators.translate import TranslationSettings, Translator
from translators.wording.ontology import bundled_ontology

QUESTIONS = GQA_DIR / "questions"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Why is the man smiling?", "reason"),
        ("How come the street is wet?", "reason"),
        ("What if the cat jumped off the chair?", "hypothetical"),
        ("Suppose the light turns red: who stops?", "hypothetical"),
        ("What is the boy about to eat?", "future"),
        ("Is the girl about to jump?", "future"),
        ("What is the woman going to eat?", "future"),
        ("What will the dog do next?", "future"),
        ("Will the man fall?", "future"),
        ("How did the man get on the horse?", "manner"),
        ("When was this picture taken?", "time"),
        ("What time is it?", "time"),
        ("How long has the car been waiting?", "time"),
        ("How long do dogs usually live?", "time"),
        ("What make is the blue car?", "brand"),
        ("What make of car is waiting on the street?", "brand"),
        ("What is the bicycle worth?", "price"),
        ("How much does the lamp cost?", "price"),
        ("What is the price of the apple?", "price"),
        ("Would you eat this apple?", "opinion"),
        ("Should I cross the street now?", "opinion"),
        ("Do you like the red car?", "opinion"),
        ("What does the sign say?", "text"),
        ("What is written on the bus?", "text"),
        ("What does the bread smell like?", "sense"),
        ("Does the soup taste salty?", "sense"),
    ],
)
def test_forms_outside_the_language_are_refused_with_what_can_be_answered(question, kind):
    found = out_of_scope(question)
    assert found is not None and found.kind == kind
    assert found.message.endswith(ANSWERABLE) and "cannot be answered" in found.message


@pytest.mark.parametrize(
    "question",
    [
        "How many dogs are there?",
        "How is the sky?",
        "How do the pants look, red or beige?",
        "How big is the door?",
        "How long is the table?",
        "How long are the sleeves of the shirt?",
        "What material makes up the table?",
        "Do you see any cats?",
        "Can you see a dog in the picture?",
        "What color do you think the jacket is?",
        "Do you think the jacket is sleeveless or long sleeved?",
        "Who is wearing the scarf?",
        "What is the skier holding?",
        "Does the man look happy?",
        "Which side is the sign on?",
        "What color is the price tag?",
        "Is the bus going to the station?",
        "Is the man going down the hill?",
        "What is the dog next to?",
    ],
)
def test_questions_the_programs_express_pass(question):
    assert out_of_scope(question) is None


@pytest.mark.skipif(not QUESTIONS.is_dir(), reason="the real GQA sample (../shared/data/gqa) is absent")
def test_no_real_gqa_question_is_refused():
    sample = json.loads((QUESTIONS / "val_balanced_sample.json").read_text())
    train = json.loads((QUESTIONS / "train_balanced_sample50.json").read_text())
    questions = [q["question"] for q in sample.values()] + [q["question"] for q in train]
    assert len(questions) > 1400
    assert [q for q in questions if out_of_scope(q)] == []


def test_the_translator_refuses_without_asking_the_model():
    backend = ReplayBackend({})  # any call would fail: no recorded output
    translator = Translator(TranslationSettings(sampling="jaccard", llm="replay"), legacy_bank(), backend)
    result = translator.translate("Why is the cat on the chair?")
    assert result.program is None and result.unsupported == "reason" and result.attempts == []
    assert "cannot be answered" in (result.error or "") and result.to_json()["unsupported"] == "reason"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How old is the fence in years?", "measurement"),
        ("How tall is the lamp in meters?", "measurement"),
        ("How expensive is the sofa?", "measurement"),
        ("How much did the umbrella cost?", "measurement"),
        ("Who painted the building?", "maker"),
        ("Who made the table?", "maker"),
        ("Who is the woman?", "identity"),
        ("Who is the man carrying the bag?", "identity"),
        ("Who is this?", "identity"),
    ],
)
def test_measurements_and_past_deeds_are_beyond_the_scene(question, kind):
    found = beyond_the_scene(question, bundled_ontology().category_of)
    assert found is not None and found.kind == kind and found.message.endswith(ANSWERABLE)


@pytest.mark.parametrize(
    "question",
    [
        "How big is the lamp?",
        "How clean is the rug?",
        "Who is wearing a scarf?",
        "How many cars are there?",
        # GQA's height, length and age are words ("tall", "long", "young"), asked without units.
        "How tall is the fence that the horse jumps over?",
        "How old is the man?",
        "How long is the brown hair?",
        # a relation asked with "who" at its far end
        "Who is the girl in front of?",
        "Who is the batter facing?",
    ],
)
def test_degrees_of_a_named_category_and_present_deeds_stay(question):
    assert beyond_the_scene(question, bundled_ontology().category_of) is None


@pytest.mark.parametrize(
    "question", ["Whose car is on the street?", "Who does the bicycle belong to?", "Who is the owner of the van?"]
)
def test_ownership_is_refused(question):
    found = out_of_scope(question)
    assert found is not None and found.kind == "ownership"


@pytest.mark.skipif(not QUESTIONS.is_dir(), reason="the real GQA sample (../shared/data/gqa) is absent")
def test_no_real_gqa_question_is_beyond_the_scene():
    sample = json.loads((QUESTIONS / "val_balanced_sample.json").read_text())
    train = json.loads((QUESTIONS / "train_balanced_sample50.json").read_text())
    questions = [q["question"] for q in sample.values()] + [q["question"] for q in train]
    category_of = bundled_ontology().category_of
    assert [q for q in questions if beyond_the_scene(q, category_of)] == []
