"""`aspvqa bank build` on a small GQA-format questions file."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from app.cli import cli
from translators.examples.bank import load_bank

runner = CliRunner()

QUESTIONS = {
    "q1": {
        "question": "What color is the cup?",
        "equivalent": ["q1"],
        "semantic": [
            {"operation": "select", "argument": "cup (12)", "dependencies": []},
            {"operation": "query", "argument": "color", "dependencies": [0]},
        ],
    },
    "q2": {"question": "Broken", "semantic": [{"operation": "count", "argument": "", "dependencies": []}]},
    "q3": {
        "question": "Is there a dog?",
        "semantic": [
            {"operation": "select", "argument": "dog (1)", "dependencies": []},
            {"operation": "exist", "argument": "?", "dependencies": [0]},
        ],
    },
}


def test_build_converts_what_it_can_and_counts_the_rest(tmp_path):
    source = tmp_path / "questions.json"
    source.write_text(json.dumps(QUESTIONS))
    result = runner.invoke(
        cli, ["bank", "build", "--questions", str(source), "--out", str(tmp_path / "bank"), "--no-index"]
    )
    assert result.exit_code == 0, result.output
    assert "wrote 2 examples" in result.output and "1 skipped" in result.output
    bank = load_bank(tmp_path / "bank" / "bank.jsonl")
    assert [e.id for e in bank] == ["q1", "q3"]
    assert bank[0].semantic[0]["argument"] == "cup (12)"
    assert str(bank[1].program.step(bank[1].program.answer).operation) == "exist"


def test_missing_file_is_a_one_line_error(tmp_path):
    result = runner.invoke(cli, ["bank", "build", "--questions", str(tmp_path / "none.json"), "--out", str(tmp_path)])
    assert result.exit_code != 0 and result.stderr.startswith("error: questions file not found")


def test_generate_builds_the_default_bank_in_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ASPVQA_CACHE_DIR", str(tmp_path))
    result = runner.invoke(cli, ["bank", "generate", "--per-template", "3", "--no-index"])
    assert result.exit_code == 0, result.output
    written = list((tmp_path / "banks").glob("bundled-*.jsonl"))
    assert len(written) == 1 and f"examples in {written[0]}" in result.output
    bank = load_bank(written[0])
    assert len(bank) > 251 and any(e.source == "generated" for e in bank)


def test_generate_names_a_bad_ontology_folder(tmp_path):
    result = runner.invoke(cli, ["bank", "generate", "--ontology", str(tmp_path), "--no-index"])
    assert result.exit_code != 0 and "gqa_all_class.json" in result.stderr
