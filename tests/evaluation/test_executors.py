"""Executors: the same records from one process, a process pool and a small local Ray cluster."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evaluation.executors import LocalExecutor, RayExecutor, default_workers, make_executor
from evaluation.job import Evaluator, EvaluatorConfig, Run, Task, load_questions, result_key, run_job
from scene.wordnet import wordnet_available

DATA = Path(__file__).parents[1] / "data"
GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR") or Path(__file__).parents[2] / "../shared/data/gqa")
GRAPHS = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
pytestmark = [
    pytest.mark.skipif(not GRAPHS.is_file(), reason=f"GQA scene graphs not in {GRAPHS.parent}"),
    pytest.mark.skipif(not wordnet_available(), reason="WordNet not installed: run `make wordnet`"),
]

QUESTIONS = load_questions(json.loads((DATA / "gqa_questions.json").read_text()))[:12]
RUN = Run("reference-only")
SETTINGS = ("oracle", "asp-oracle")


def tasks() -> list[Task]:
    return [Task(RUN, q, SETTINGS) for q in QUESTIONS]


def evaluator() -> Evaluator:
    return Evaluator(EvaluatorConfig(scene_graphs=str(GRAPHS)))


def content(batches) -> list[tuple]:
    records = [r for batch in batches for r in batch]
    return sorted((result_key(r), r["answers"], r["correct"], json.dumps(r["failure"])) for r in records)


@pytest.fixture(scope="module")
def expected():
    ev = evaluator()
    return content(ev.evaluate(t) for t in tasks())


def test_a_process_pool_gives_the_records_of_one_process(expected):
    batches = list(LocalExecutor(workers=2, show_progress=False).run(evaluator(), tasks()))
    assert len(batches) == len(QUESTIONS)
    assert content(batches) == expected


def test_the_progress_bar_shows_rate_and_time_left(capsys):
    list(LocalExecutor(workers=1, show_progress=True).run(evaluator(), tasks()[:3]))
    bar = capsys.readouterr().err
    assert "3/3" in bar and ("q/s" in bar or "s/q" in bar) and "<" in bar  # tqdm: elapsed<remaining, rate


def test_a_ray_cluster_gives_the_records_of_one_process(expected, tmp_path):
    pytest.importorskip("ray")
    executor = RayExecutor(workers=2, show_progress=False)
    summary = run_job(QUESTIONS, [RUN], SETTINGS, evaluator(), executor, tmp_path / "out")
    assert summary.written == len(QUESTIONS) * len(SETTINGS)
    records = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert content([records]) == expected
    import ray

    assert not ray.is_initialized()  # the executor stops the cluster it started


def test_executor_names():
    assert isinstance(make_executor("local", 3), LocalExecutor) and make_executor("local", 3).workers == 3
    assert make_executor("local").workers == default_workers()
    assert isinstance(make_executor("ray"), RayExecutor)
    with pytest.raises(ValueError, match="unknown executor"):
        make_executor("dask")
    with pytest.raises(ValueError):
        LocalExecutor(workers=0)
