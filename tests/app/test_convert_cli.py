"""`aspvqa convert` through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from tests.support import GQA_DIR

runner = CliRunner()

GQA_QUESTIONS = {
    "q1": {
        "question": "What color is the cup?",
        "semantic": [
            {"operation": "select", "argument": "cup (12)", "dependencies": []},
            {"operation": "query", "argument": "color", "dependencies": [0]},
        ],
    },
    "q2": {"question": "Broken", "semantic": [{"operation": "count", "argument": "", "dependencies": []}]},
}


def lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def test_gqa_file_to_flat(tmp_path: Path):
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(GQA_QUESTIONS))
    result = runner.invoke(cli, ["convert", "--from", "gqa", "--to", "flat", "--input", str(path)])
    assert result.exit_code == 1  # one item failed
    first, second = lines(result.stdout)
    assert first == {"id": "q1", "program": "scene(0). select(1, 0, cup). unique(2, 1). query(3, 2, color). end(3)."}
    assert second["id"] == "q2" and "unknown GQA operation 'count'" in second["error"]


def test_gqa_list_of_records_uses_their_question_ids(tmp_path: Path):
    path = tmp_path / "questions.json"
    path.write_text(json.dumps([{"question_id": 7, **GQA_QUESTIONS["q1"]}]))
    result = runner.invoke(cli, ["convert", "--from", "gqa", "--to", "nested", "--input", str(path)])
    assert result.exit_code == 0, result.output
    assert lines(result.stdout) == [{"id": 7, "program": "query(unique(select(scene(), cup)), color)"}]


def test_json_lines_between_representations():
    source = "\n".join(
        json.dumps(r)
        for r in [
            {
                "id": "a",
                "program": "var1 = unique(select(scene(), cup))\nand(exist(var1), verify_attr(var1, color, red))",
            },
            {"id": "b", "program": "exist(select(scene(), dog)"},
        ]
    )
    result = runner.invoke(cli, ["convert", "--from", "code", "--to", "flat"], input=source)
    assert result.exit_code == 1
    good, bad = lines(result.stdout)
    assert good["program"] == (
        "scene(0). select(1, 0, cup). unique(2, 1). exist(3, 2). verify_attr(4, 2, color, red). and(5, 3, 4). end(5)."
    )
    assert bad == {"id": "b", "error": "line 1:6: unbalanced parenthesis: '(' of exist is never closed"}


def test_flat_output_is_canonical():
    result = runner.invoke(
        cli,
        ["convert", "--from", "flat", "--to", "flat"],
        input="scene(4). select(9, 4, dog). select(2,4,cat). exist(5, 9). end(5).",
    )
    assert result.exit_code == 0, result.output
    assert lines(result.stdout) == [{"id": None, "program": "scene(0). select(1, 0, dog). exist(2, 1). end(2)."}]


def test_clean_option_strips_model_chatter():
    raw = "Sure:\n```\nexist(select(scene(), dog))\n```\nQuestion: Is there a cat?"
    plain = runner.invoke(cli, ["convert", "--from", "nested", "--to", "code"], input=raw)
    cleaned = runner.invoke(cli, ["convert", "--from", "nested", "--to", "code", "--clean"], input=raw)
    assert plain.exit_code == 1 and "error" in lines(plain.stdout)[0]
    assert cleaned.exit_code == 0 and lines(cleaned.stdout)[0]["program"] == "exist(select(scene(), dog))"


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["--from", "gqa", "--to", "flat", "--input", "/no/such/file.json"], None, "input file not found"),
        (["--from", "gqa", "--to", "flat"], "not json", "GQA input is not JSON"),
        (["--from", "nested", "--to", "flat"], '{"id": 1}', 'needs a "program" string'),
        (["--from", "gqa", "--to", "flat", "--attributes", "/no/such.json"], "{}", "attribute taxonomy file not found"),
    ],
)
def test_bad_input_fails_with_one_line(args, stdin, message):
    result = runner.invoke(cli, ["convert", *args], input=stdin)
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_unknown_target_is_refused():
    result = runner.invoke(cli, ["convert", "--from", "flat", "--to", "gqa"], input="")
    assert result.exit_code != 0


@pytest.mark.skipif(not GQA_DIR.is_dir(), reason=f"GQA sample data not found at {GQA_DIR}")
def test_console_script_converts_the_real_val_sample():
    path = GQA_DIR / "questions/val_balanced_sample.json"
    done = subprocess.run(
        [sys.executable, "-m", "app", "convert", "--from", "gqa", "--to", "code", "--input", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    records = lines(done.stdout)
    assert len(records) == 1358 and all("program" in r for r in records)
