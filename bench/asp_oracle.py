"""Throughput of the `asp-oracle` evaluation setting on perfect-information scenes; target >= 100
questions/s on this 2-core machine.

Per question: GQA program -> ASP (`gqa_to_program`), scene graph -> facts restricted to the
program's concepts, clingo solve, answer matching at every generosity and top-k (the interpreter
runs too: it decides answerability). Questions: the project's 54 (tests/data/gqa_questions.json)
on the real GQA sample scene graphs (../shared/data/gqa or $ASPVQA_GQA_DIR), repeated with fresh
ids. Rows: one warm process; the whole job with the local executor on all cores (worker start-up
included, and from the first result on); the load average is printed because the machine is shared.
Prints a table, writes bench/results/asp_oracle.json.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.config import load_settings  # noqa: E402
from evaluation.executors import LocalExecutor, default_workers  # noqa: E402
from evaluation.job import Evaluator, EvaluatorConfig, Run, Task, load_questions, plan  # noqa: E402

load_settings()  # hands ASPVQA_CACHE_DIR to every layer before the first cache path is made

ROOT = Path(__file__).resolve().parents[1]
GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR", ROOT / "../shared/data/gqa"))
QUESTIONS = ROOT / "tests" / "data" / "gqa_questions.json"
RESULTS = ROOT / "bench" / "results" / "asp_oracle.json"
TARGET = 100.0
COPIES = 12  # 54 x 12 = 648 questions per job


class _Timed:
    """Wraps an executor to note when the first result arrived."""

    def __init__(self, inner: LocalExecutor) -> None:
        self.inner = inner
        self.first: float | None = None
        self.count = 0

    def run(self, evaluator, tasks):  # noqa: ANN001, ANN201
        for records in self.inner.run(evaluator, tasks):
            if self.first is None:
                self.first = time.perf_counter()
            self.count += 1
            yield records


def main() -> None:
    graphs = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
    if not graphs.is_file():
        print(f"GQA scene graphs not found in {graphs.parent}; set ASPVQA_GQA_DIR")
        sys.exit(1)
    base = load_questions(json.loads(QUESTIONS.read_text()))
    questions = [replace(q, id=f"{q.id}-{i}") for i in range(COPIES) for q in base]
    config = EvaluatorConfig(scene_graphs=str(graphs))
    run = Run("bench")
    rows = []

    evaluator = Evaluator(config)
    for q in base:  # warm: WordNet, taxonomy caches, clingo
        evaluator.evaluate(Task(run, q, ("asp-oracle",)))
    started = time.perf_counter()
    correct = 0
    for q in questions:
        correct += evaluator.evaluate(Task(run, q, ("asp-oracle",)))[0]["correct"]
    seconds = time.perf_counter() - started
    rows.append({"case": "one warm process", "workers": 1, "questions": len(questions), "seconds": round(seconds, 2),
                 "questions_per_s": round(len(questions) / seconds, 1), "correct": correct})  # fmt: skip

    workers = default_workers()
    tasks = plan(questions, [run], ("asp-oracle",), set())
    timed = _Timed(LocalExecutor(workers, show_progress=False))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        records = [r for batch in timed.run(Evaluator(config), tasks) for r in batch]
        Path(folder, "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    ended = time.perf_counter()
    steady = (timed.count - 1) / (ended - timed.first) if timed.first and ended > timed.first else 0.0
    rows.append({"case": f"job, local executor ({workers} workers), with start-up", "workers": workers,
                 "questions": len(records), "seconds": round(ended - started, 2),
                 "questions_per_s": round(len(records) / (ended - started), 1),
                 "correct": sum(r["correct"] for r in records)})  # fmt: skip
    rows.append({"case": f"job, local executor ({workers} workers), after start-up", "workers": workers,
                 "questions": timed.count - 1, "seconds": round(ended - (timed.first or ended), 2),
                 "questions_per_s": round(steady, 1), "correct": None})  # fmt: skip

    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    best = max(r["questions_per_s"] for r in rows)
    print(f"{'case':<52} {'workers':>7} {'questions':>9} {'seconds':>8} {'q/s':>8}")
    for r in rows:
        print(f"{r['case']:<52} {r['workers']:>7} {r['questions']:>9} {r['seconds']:>8} {r['questions_per_s']:>8}")
    print(f"target >= {TARGET:.0f} questions/s: {'met' if best >= TARGET else 'NOT met'} (best {best}); "
          f"load average {load}; {os.cpu_count()} cores")  # fmt: skip
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({
        "machine": platform.machine(), "python": platform.python_version(), "cores": os.cpu_count(),
        "load_average": load, "rows": rows, "target_questions_per_s": TARGET, "met": best >= TARGET,
    }, indent=2) + "\n")  # fmt: skip


if __name__ == "__main__":
    main()
