"""Oracle concepts from real GQA semantic programs."""

from __future__ import annotations

import json

import pytest

from evaluation.oracle import concepts_from_gqa
from tests.support import GQA_DIR


@pytest.mark.skipif(not (GQA_DIR / "questions").is_dir(), reason=f"GQA data not found at {GQA_DIR}")
def test_oracle_concepts_from_real_gqa_questions() -> None:
    questions = json.loads((GQA_DIR / "questions/val_balanced_sample.json").read_text())
    attributes = json.loads((GQA_DIR / "metadata/gqa_all_attribute.json").read_text())
    converted = 0
    for question in list(questions.values())[:200]:
        selected = {s["argument"].split("(")[0].strip() for s in question["semantic"] if s["operation"] == "select"}
        try:
            concepts = concepts_from_gqa(question["semantic"], attributes=attributes)
        except ValueError:
            continue  # a GQA program the converter does not support
        converted += 1
        assert {w.replace(" ", "_") for w in selected} <= concepts.classes, question["semanticStr"]
    assert converted >= 150
