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


def test_workers_stop_when_the_job_process_is_killed(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "job.py"
    script.write_text(
        "import os, time\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from evaluation.executors import exit_with_parent\n"
        "def pid(_):\n"
        "    time.sleep(0.2)\n"
        "    return os.getpid()\n"
        "if __name__ == '__main__':\n"
        "    pool = ProcessPoolExecutor(2, initializer=exit_with_parent, initargs=(0.1,))\n"
        "    print(*sorted(set(pool.map(pid, range(8)))), flush=True)\n"
        "    time.sleep(60)\n"
    )
    from tests.support import REPO

    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    job = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=os.environ | {"PYTHONPATH": path}
    )
    workers = [int(p) for p in job.stdout.readline().split()]
    assert workers
    os.kill(job.pid, signal.SIGKILL)
    job.wait()
    deadline = time.monotonic() + 10
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [p for p in workers if os.path.exists(f"/proc/{p}") and "Z" not in _state(p)]
    for pid in alive:  # leave nothing behind when the check fails
        os.kill(pid, signal.SIGKILL)
    assert alive == []


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
