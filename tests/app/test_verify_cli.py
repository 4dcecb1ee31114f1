"""`aspvqa verify`: verdicts, exit statuses and one-line errors."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from app.cli import cli

SCENES = "app/data/demo/scenes.json"
MUG_COLOR = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3)."
runner = CliRunner()


def test_right_answer_is_supported_with_exit_0(tmp_path):
    program = tmp_path / "q.lp"
    program.write_text(MUG_COLOR)
    result = runner.invoke(
        cli,
        [
            "verify",
            "--program",
            str(program),
            "--answer",
            "white",
            "--scene-graph",
            SCENES,
            "--image-id",
            "kitchen",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["verdict"] == "supported"
    assert all(s["facts"] for s in body["subclaims"])


def test_wrong_answer_is_refuted_with_exit_1(tmp_path):
    program = tmp_path / "q.lp"
    program.write_text(MUG_COLOR)
    result = runner.invoke(
        cli, ["verify", "--program", str(program), "--answer", "red", "--scene-graph", SCENES, "--image-id", "kitchen"]
    )
    assert result.exit_code == 1
    assert result.stdout.startswith("refuted:") and "has_attr(3,color,white)" in result.stdout


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    result = runner.invoke(cli, ["verify", "--answer", "red", "--scene-graph", SCENES])
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0 and "needs --question" in result.stderr
    scene = tmp_path / "s.lp"
    scene.write_text("object(1).")
    program = tmp_path / "q.lp"
    program.write_text(MUG_COLOR)
    result = runner.invoke(cli, ["verify", "--program", str(program), "--answer", "", "--scene", str(scene)])
    assert result.exit_code == 2 and "answer is empty" in result.stderr


def test_a_missing_scene_is_named_by_the_command_s_options():
    result = CliRunner().invoke(cli, ["verify", "--claim", "The mug is white."])
    assert result.exit_code == 2
    assert "give exactly one of: --image, --scene-graph, --scene" in result.stderr
    assert "scene_id" not in result.stderr
