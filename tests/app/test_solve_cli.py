"""`aspvqa solve` and `aspvqa demo` through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from tests.theory.test_solver import weighted_ball

runner = CliRunner()
PROGRAM = "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3)."


@pytest.fixture
def files(tmp_path: Path):
    program = tmp_path / "q.lp"
    program.write_text(PROGRAM)
    scene = tmp_path / "scene.lp"
    scene.write_text(weighted_ball(0.9, 0.2).to_asp())
    return program, scene


def test_solve_json_ranks_answers(files):
    program, scene = files
    result = runner.invoke(cli, ["solve", "--program", str(program), "--scene", str(scene), "--json", "--top-k", "2"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["status"] == "ok"
    assert [a["answer"] for a in payload["answers"]] == ["red", "blue"]
    assert payload["answers"][0]["cost"] == [328]
    assert "has_attr(1,color,red)" in payload["answers"][0]["support"]["facts"]


def test_solve_reads_program_from_stdin(files):
    _, scene = files
    result = runner.invoke(cli, ["solve", "--program", "-", "--scene", str(scene)], input=PROGRAM)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].startswith("1. red")


@pytest.mark.parametrize(
    "program",
    [
        "query(unique(select(scene(), ball)), color)",
        "b = unique(select(scene(), ball))\nquery(b, color)",
        '[{"operation": "select", "argument": "ball (1)", "dependencies": []},'
        ' {"operation": "query", "argument": "color", "dependencies": [0]}]',
    ],
)
def test_solve_detects_the_program_syntax(files, program):
    _, scene = files
    result = runner.invoke(cli, ["solve", "--program", "-", "--scene", str(scene)], input=program)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].startswith("1. red")


def test_solve_program_in_no_known_syntax_is_one_line_naming_what_was_tried(files):
    _, scene = files
    result = runner.invoke(cli, ["solve", "--program", "-", "--scene", str(scene)], input="is the ball red?")
    assert result.exit_code == 2
    assert "tried flat, nested, code, gqa" in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("program", "reason"),
    [
        ("#script (python)\nimport os\nos.system('echo pwned')\n#end.\nscene(0). exist(1,0). end(1).", "#script"),
        ("scene(0). exist(1, 0). launch(2, 1). end(1).", "unknown predicate launch/2"),
    ],
)
def test_unsafe_programs_exit_non_zero_with_one_line(tmp_path, files, program, reason):
    _, scene = files
    path = tmp_path / "bad.lp"
    path.write_text(program)
    # A real subprocess: the console script's exit code and stderr as a user sees them.
    done = subprocess.run(
        [sys.executable, "-m", "app", "solve", "--program", str(path), "--scene", str(scene)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and reason in lines[0]
    assert "pwned" not in done.stdout


def test_missing_file_is_one_line_error(files):
    _, scene = files
    result = runner.invoke(cli, ["solve", "--program", "/nonexistent.lp", "--scene", str(scene)])
    assert result.exit_code == 2
    assert "program file not found" in result.stderr


def test_no_answer_exit_code(tmp_path, files):
    _, scene = files
    path = tmp_path / "q.lp"
    path.write_text("scene(0). select(1, 0, kite). unique(2, 1). query(3, 2, color). end(3).")
    result = runner.invoke(cli, ["solve", "--program", str(path), "--scene", str(scene), "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["status"] == "no_answer"
