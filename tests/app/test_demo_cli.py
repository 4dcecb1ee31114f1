"""`aspvqa demo`: the whole pipeline on the bundled scenes (recorded model outputs keep it fast)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from app.cli import cli

REPLAY = Path(__file__).resolve().parents[1] / "data" / "replay_demo.jsonl"


def test_demo_answers_every_question_with_its_program():
    result = CliRunner().invoke(cli, ["demo", "--llm", f"replay:{REPLAY}"])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("program:") == 7
    assert "could not answer" not in result.stdout
    assert "answers: chair" in result.stdout  # the cat sits on the chair
    assert "answers: umbrella" in result.stdout
    # The uncertain kitchen ranks the mug's likelier colour first and says how much likelier.
    assert "answers: white (score 1.0), blue (score 0.1" in result.stdout


def test_demo_without_the_model_says_what_is_missing():
    result = CliRunner().invoke(cli, ["demo", "--llm", "replay:/nonexistent.jsonl"])
    assert result.exit_code == 2
    assert "ASPVQA_LLM" in result.stderr


def test_the_demo_by_the_rules_alone_loads_no_model():
    # The first answers `make demo` shows on a first install, before the language model is built.
    result = CliRunner().invoke(cli, ["demo", "--llm", "none"])
    assert result.exit_code == 0, result.output
    assert "no language model" in result.stdout
    assert result.stdout.count("program:") == 7
    assert "answers: chair" in result.stdout
