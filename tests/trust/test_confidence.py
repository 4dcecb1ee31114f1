"""The parts of a confidence and the score made of them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theory.flat import parse_flat
from theory.nested import parse_nested
from translators.evidence import TranslationEvidence
from translators.examples.bank import legacy_bank
from translators.model.backends.replay import ReplayBackend
from translators.translate import TranslationSettings, Translator
from trust.confidence import (
    ConfidenceParts,
    ShownExample,
    Weights,
    answer_margin,
    calibration_settings,
    confidence,
    confidence_parts,
    program_confidence,
    program_skeleton,
)

CAT = parse_flat("scene(0). select(1, 0, cat). exist(2, 1). end(2).")
DOG = "scene(0). select(1, 0, dog). exist(2, 1). end(2)."
QUERY = "scene(0). select(1, 0, dog). unique(2, 1). query(3, 2, color). end(3)."


def test_skeleton_blanks_the_arguments_only():
    assert program_skeleton(CAT) == program_skeleton(parse_flat(DOG)) == "scene[] select[0] exist[1]"
    assert program_skeleton(CAT) != program_skeleton(parse_flat(QUERY))


def test_parts_report_retrieval_skeletons_and_repairs():
    shown = (ShownExample(0.8, DOG), ShownExample(0.6, QUERY), ShownExample(None, "not a program"))
    parts = confidence_parts(TranslationEvidence(CAT, examples=shown, attempts=3, schema_fixes=1))
    assert parts.retrieval_similarity == 0.8
    assert parts.skeleton_agreement == 0.5  # the unparsable example is not counted
    assert (parts.retries, parts.schema_fixes, parts.agreement, parts.cost_margin) == (2, 1, None, None)


def test_examples_that_share_the_skeleton_raise_the_confidence():
    same = confidence_parts(TranslationEvidence(CAT, examples=(ShownExample(0.9, DOG),) * 3))
    other = confidence_parts(TranslationEvidence(CAT, examples=(ShownExample(0.9, QUERY),) * 3))
    assert program_confidence(same) > program_confidence(other)


def test_retries_weigh_as_fitted_and_disagreeing_samples_lower_the_confidence():
    base = ConfidenceParts(retrieval_similarity=0.9, skeleton_agreement=1.0)
    retried = ConfidenceParts(retrieval_similarity=0.9, skeleton_agreement=1.0, retries=2)
    model = Weights(intercept=0.0, retrieval_similarity=0.0, skeleton_agreement=0.0, retries=-0.5)
    assert model.program_confidence(retried) < model.program_confidence(base) == 0.5
    assert program_confidence(retried) <= program_confidence(base)  # the fitted weight is never positive
    agreeing = ConfidenceParts(samples=3, agreement=1.0, retrieval_similarity=0.9, skeleton_agreement=1.0)
    split = ConfidenceParts(samples=3, agreement=1 / 3, retrieval_similarity=0.9, skeleton_agreement=1.0)
    assert program_confidence(split) == pytest.approx(program_confidence(agreeing) / 3)


def test_the_cost_margin_and_the_answer_share():
    assert answer_margin([]) == (None, 1.0)
    assert answer_margin([(0,)]) == (None, 1.0)
    margin, share = answer_margin([(100,), (100,)])
    assert margin == 0.0 and share == pytest.approx(0.5)
    margin, share = answer_margin([(0, 0), (0, 2000)])
    assert margin == 2000.0 and share > 0.85


@given(
    st.floats(0, 2), st.floats(0, 1), st.integers(0, 10), st.floats(0, 1), st.integers(1, 5),
    st.lists(st.integers(0, 5000), max_size=4),
)  # fmt: skip
def test_confidence_is_a_probability(similarity, skeletons, retries, agreement, samples, costs):
    parts = ConfidenceParts(samples, agreement, similarity, skeletons, retries, 0, None, answer_margin(
        [(c,) for c in sorted(costs)])[1])  # fmt: skip
    assert 0.0 <= confidence(parts) <= program_confidence(parts) + 1e-6 <= 1.0 + 1e-6


def test_a_translation_carries_the_example_scores_and_programs():
    backend = ReplayBackend({("Is there a cat?", None): ["exist(select(scene(), cat))"]})
    translator = Translator(
        TranslationSettings(sampling="jaccard", llm="replay", template_fill=False), legacy_bank(), backend
    )
    result = translator.translate("Is there a cat?")
    assert all(isinstance(e["score"], float) and e["program"].endswith(").") for e in result.examples)
    parts = confidence_parts(result.evidence)
    assert parts.samples == 1 and parts.retries == 0
    assert parts.retrieval_similarity == max(e["score"] for e in result.examples)


def test_calibration_settings_name_the_bank_and_the_weights():
    found = calibration_settings({"llm": "m", "examples": 3}, "bank-digest")
    assert found["bank"] == "bank-digest" and found["examples"] == 3 and len(found["confidence_weights"]) == 12


def test_a_calibration_is_tied_to_the_token_reading_the_weights_were_fitted_on(monkeypatch):
    import trust.confidence

    shipped = calibration_settings({}, "bank-digest")["confidence_weights"]
    monkeypatch.setattr(trust.confidence, "LEAST_LIKELY_READING", "whole")
    assert calibration_settings({}, "bank-digest")["confidence_weights"] != shipped


def test_nested_and_flat_give_one_skeleton():
    assert program_skeleton(parse_nested("exist(select(scene(), cat))")) == program_skeleton(CAT)


def test_a_filled_program_reports_its_source_and_the_vote_of_its_form():
    from translators.translate import Translation

    filled = Translation(
        question="Is there a red chair?",
        question_id=None,
        program=parse_flat("scene(0). select(1, 0, chair). filter(2, 1, color, red). exist(3, 2). end(3)."),
        error=None,
        attempts=[],
        examples=[{"program": "scene(0). select(1, 0, cup). filter(2, 1, color, blue). exist(3, 2). end(3)."}],
        timings={},
        source="template",
        fill={"form": "is there color thing", "votes": 3, "voters": 4},
    )
    parts = confidence_parts(filled.evidence)
    assert parts.source == "template" and parts.fill_agreement == 0.75 and parts.agreement is None
    assert parts.retrieval_similarity is None and parts.skeleton_agreement == 1.0 and parts.retries == 0
    assert 0.0 < confidence(parts) <= 1.0
    # the question's retrieval score, where the translator looked it up, stands in for the unscored form's examples
    filled.fill = {"form": "is there color thing", "votes": 3, "voters": 4, "similarity": 0.9}
    near = confidence_parts(filled.evidence)
    assert near.retrieval_similarity == 0.9 and confidence(near) > confidence(parts)


def test_no_translation_gives_the_answers_parts_only():
    parts = confidence_parts(None, [(0,), (693,)])
    assert parts.cost_margin == 693.0 and parts.answer_share == pytest.approx(2 / 3, abs=1e-3)
    assert parts.retrieval_similarity is None and parts.samples == 1
