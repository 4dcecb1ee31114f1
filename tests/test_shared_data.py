"""Data from ../shared stays there: no tracked file outside the tests copies a GQA file or quotes a
GQA question of it word for word (results name question ids)."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest

from tests.support import GQA_DIR, REPO


def _tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [name for name in listed.stdout.decode().split("\0") if name]


def _gqa_data() -> list[object]:
    if not (GQA_DIR / "questions").is_dir():
        pytest.skip(f"GQA data not found at {GQA_DIR}")
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted((GQA_DIR / "questions").glob("*.json"))]


def _questions(value: object) -> set[str]:
    if isinstance(value, dict):
        own = {value["question"]} if isinstance(value.get("question"), str) else set()
        return own.union(*(_questions(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(_questions(item) for item in value))
    return set()


def _plain(text: str) -> str:
    return " ".join(text.lower().replace('\\"', '"').split())


def _outside_tests() -> list[str]:
    # Tests that read ../shared may name a question they check; nothing else may.
    return [name for name in _tracked_files() if not name.startswith("tests/")]


def test_no_tracked_file_quotes_a_gqa_question() -> None:
    """Every question of four words or more, matched without case or spacing (a shorter question
    is a phrase anyone writes; a question's first words are too, so the question mark is kept)."""
    questions = {_plain(q) for data in _gqa_data() for q in _questions(data) if len(q.split()) >= 4}
    quoted = []
    for name in _outside_tests():
        raw = (REPO / name).read_bytes()
        if b"\0" in raw[:4096]:
            continue  # binary: embeddings, images
        text = _plain(raw.decode("utf-8", errors="ignore"))
        quoted += [f"{name}: {question}" for question in questions if question in text]
    assert not quoted, "GQA questions quoted word for word: " + "; ".join(sorted(quoted)[:20])


def test_no_tracked_file_is_a_copy_of_a_gqa_file() -> None:
    if not GQA_DIR.is_dir():
        pytest.skip(f"GQA data not found at {GQA_DIR}")
    shared = {hashlib.sha256(path.read_bytes()).hexdigest() for path in GQA_DIR.rglob("*") if path.is_file()}
    copies = [name for name in _tracked_files() if hashlib.sha256((REPO / name).read_bytes()).hexdigest() in shared]
    assert not copies, f"copies of ../shared data: {copies}"
