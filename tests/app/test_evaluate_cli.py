"""`aspvqa evaluate` through the command line, including a killed run that resumes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from scene.wordnet import wordnet_available

runner = CliRunner()
REPO = Path(__file__).parents[2]
DATA = REPO / "tests" / "data"
QUESTIONS = DATA / "gqa_questions.json"
REPLAY = DATA / "replay_evaluation.jsonl"
GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR") or REPO / "../shared/data/gqa")
GRAPHS = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
needs_gqa = pytest.mark.skipif(not GRAPHS.is_file(), reason=f"GQA scene graphs not in {GRAPHS.parent}")
needs_wordnet = pytest.mark.skipif(not wordnet_available(), reason="WordNet not installed: run `make wordnet`")


def results(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def keyed(records: list[dict]) -> dict:
    return {(r["run"], r["setting"], r["questionId"]): {k: v for k, v in r.items() if k != "seconds"} for r in records}


def replay_grid(folder: Path) -> Path:
    """A grid with one run translating through a private copy of the recorded outputs (a replay
    backend counts the calls per file, and loaded backends are shared within a process)."""
    folder.mkdir(parents=True, exist_ok=True)
    replay = folder / "replay.jsonl"
    replay.write_text(REPLAY.read_text())
    grid = folder / "grid.json"
    grid.write_text(json.dumps({
        "name": "replay", "settings": ["isolated", "translation"],
        # The recorded outputs are what these tests read: no program filled from the bank.
        "runs": [{"name": "replay", "llm": f"replay:{replay}", "sampling": "jaccard", "examples": 2,
                  "template_fill": False}],
    }))  # fmt: skip
    return grid


@needs_gqa
@needs_wordnet
def test_oracle_settings_on_the_real_scene_graphs_with_a_report(tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(cli, ["evaluate", "-q", str(QUESTIONS), "-g", str(GRAPHS), "-s", "oracle,asp-oracle",
                                 "-o", str(out), "-w", "1", "--no-progress"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "108 results written" in result.output
    records = results(out)
    assert len(records) == 108 and all(r["correct"] for r in records)
    assert {p.name for p in out.iterdir()} >= {
        "results.jsonl",
        "job.json",
        "report.md",
        "report.json",
        "accuracy_by_structural_type.png",
    }
    assert "| reference | asp-oracle | 54 | 54 | 100.0 |" in (out / "report.md").read_text()


@needs_gqa
@needs_wordnet
def test_isolated_with_recorded_translations_and_resume_by_limit(tmp_path):
    grid = replay_grid(tmp_path / "first")
    out = tmp_path / "out"
    base = ["evaluate", "-q", str(QUESTIONS), "-g", str(GRAPHS), "--grid", str(grid), "-o", str(out), "-w", "1",
            "--no-progress", "--no-report"]  # fmt: skip
    first = runner.invoke(cli, base + ["--limit", "3"])
    assert first.exit_code == 0, first.output
    assert "6 results written" in first.output
    second = runner.invoke(cli, base + ["--limit", "8"])
    assert second.exit_code == 0, second.output
    assert "10 results written, 6 already done" in second.output
    records = results(out)
    assert len(keyed(records)) == len(records) == 16
    isolated = {r["questionId"]: r for r in records if r["setting"] == "isolated"}
    assert isolated["aspvqa002"]["failure"]["category"] == "translation"
    assert isolated["aspvqa006"]["failure"]["category"] == "formulation"
    assert sum(r["correct"] for r in isolated.values()) == 6

    fresh = tmp_path / "fresh"
    grid_again = replay_grid(tmp_path / "again")
    base_fresh = [a if a != str(out) else str(fresh) for a in base]
    base_fresh[base_fresh.index(str(grid))] = str(grid_again)
    whole = runner.invoke(cli, base_fresh + ["--limit", "8"])
    assert whole.exit_code == 0, whole.output
    assert keyed(results(fresh)) == keyed(records)


@needs_gqa
@needs_wordnet
def test_a_killed_run_resumes_with_the_same_results_and_no_duplicates(tmp_path):
    command = [sys.executable, "-m", "app", "evaluate", "-q", str(QUESTIONS), "-g", str(GRAPHS),
               "-s", "oracle,asp-oracle", "-w", "1", "--no-progress", "--no-report", "-o"]  # fmt: skip
    killed = tmp_path / "killed"
    process = subprocess.Popen(command + [str(killed)], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    path = killed / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if path.is_file() and path.read_text().count("\n") >= 10:
            process.send_signal(signal.SIGKILL)
            break
        time.sleep(0.005)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL, "the run ended before it could be interrupted"
    interrupted = path.read_text().count("\n")
    assert 10 <= interrupted < 108

    resumed = subprocess.run(command + [str(killed)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "already done" in resumed.stdout
    whole = tmp_path / "whole"
    complete = subprocess.run(command + [str(whole)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert complete.returncode == 0, complete.stderr
    records = results(killed)
    assert len(records) == 108 and len(keyed(records)) == 108
    assert keyed(records) == keyed(results(whole))


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-s", "oracle,magic"], "unknown setting"),
        ([], "no settings given"),
        (["-s", "pipeline"], "need --images"),
        (["-s", "translation,oracle,isolated"], "settings oracle, isolated need --scene-graphs"),
        (["-s", "oracle", "-g", "missing.json"], "scene graphs file not found"),
        (["-s", "oracle", "--executor", "spark"], "unknown executor"),
        (["-s", "oracle", "--grid", "nope.toml"], "grid file not found"),
        (["-s", "isolated", "--record", "r.jsonl", "-w", "2"], "--record needs"),
    ],
)
def test_errors_are_one_line(tmp_path, arguments, message):
    result = runner.invoke(cli, ["evaluate", "-q", str(QUESTIONS), "-o", str(tmp_path / "out"), *arguments])
    assert result.exit_code != 0
    assert message in result.output
    assert result.output.strip().count("\n") == 0


def test_missing_questions_file(tmp_path):
    result = runner.invoke(cli, ["evaluate", "-q", str(tmp_path / "none.json"), "-s", "oracle", "-o", str(tmp_path)])
    assert result.exit_code == 2 and "questions file not found" in result.output


def test_a_missing_language_model_fails_before_the_job(tmp_path):
    result = runner.invoke(cli, ["evaluate", "-q", str(QUESTIONS), "-s", "translation", "-o", str(tmp_path / "out"),
                                 "--llm", f"replay:{tmp_path / 'no-recording.jsonl'}"])  # fmt: skip
    assert result.exit_code != 0 and "cannot load the models" in result.output
    assert not (tmp_path / "out" / "results.jsonl").exists()


@needs_gqa
@needs_wordnet
def test_recorded_outputs_of_the_local_model_reproduce_its_run(tmp_path):
    """tests/data/replay_qwen_team.jsonl holds what Qwen2.5-Coder-1.5B (nested, k=8, BERT retrieval,
    operator cover) wrote for the 54 questions; replayed, the job gives that run's numbers, less the
    outputs that today's translator refuses (a word the question lacks, the wrong kind of answer)."""
    replay = tmp_path / "qwen.jsonl"
    replay.write_text((DATA / "replay_qwen_team.jsonl").read_text())
    grid = tmp_path / "grid.json"
    grid.write_text(
        json.dumps(
            {
                "name": "qwen",
                "runs": [{"name": "qwen", "llm": f"replay:{replay}", "sampling": "jaccard", "template_fill": False}],
            }
        )
    )
    out = tmp_path / "out"
    result = runner.invoke(cli, ["evaluate", "-q", str(QUESTIONS), "-g", str(GRAPHS), "--grid", str(grid), "-s",
                                 "isolated", "-o", str(out), "-w", "1", "--no-progress"])  # fmt: skip
    assert result.exit_code == 0, result.output
    records = results(out)
    assert len(records) == 54
    # The run answered 34 right; 12 of its outputs name a word their question lacks, answer the
    # wrong kind of thing or choose between words the question does not offer around its "or", and
    # are refused now (2 of them had been right by luck). 3 more are right
    # since an asked value holds in whichever category the scene files it (closed, dark and
    # sloped, wet: filed under `other` or another category than the program names), and 1 more
    # since the way its relation runs is read from the question's word order. 5 more outputs (all
    # wrong) do not mean their question ("the closed" as a class, "same color" and "cup" left out,
    # "on" selected as a class) and are declined.
    refused = [r for r in records if not r["program"]]
    assert len(refused) == 17 and sum(r["correct"] for r in records) == 36
    assert all(r["failure"]["category"] == "formulation" for r in refused)
    assert {r["failure"]["category"] for r in records if not r["correct"] and r["program"]} == {"translation"}
    walking = next(r for r in records if r["questionId"] == "aspvqa002")
    message = walking["failure"]["message"]
    # None of its outputs means the question: one selects "walking", a value, as a thing.
    assert "'walking' says something of a thing" in message
