"""GQA interpreter throughput (questions/s on one core); target >= 2,000 questions/s.

Runs the project's GQA questions (tests/data/gqa_questions.json) on the real GQA sample scene
graphs (../shared/data/gqa or $ASPVQA_GQA_DIR); a "large" row runs the questions about image
2375429 on that graph grown to 60 objects (copies of its objects with fresh ids), larger than
GQA's typical graph. Prints a table, writes bench/results/interpreter.json.
"""

from __future__ import annotations

import copy
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.config import load_settings  # noqa: E402
from evaluation.interpreter import Interpreter, InterpreterFailure  # noqa: E402

load_settings()  # hands ASPVQA_CACHE_DIR to every layer before the first cache path is made

ROOT = Path(__file__).resolve().parents[1]
GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR", ROOT / "../shared/data/gqa"))
QUESTIONS = ROOT / "tests" / "data" / "gqa_questions.json"
RESULTS = ROOT / "bench" / "results" / "interpreter.json"
TARGET = 2000.0
REPEATS = 5
ROUNDS = 20


def grow(graph: dict[str, Any], size: int) -> dict[str, Any]:
    """`graph` with copies of its objects (fresh ids, relations among the copies) up to `size` objects."""
    grown = copy.deepcopy(graph)
    originals = list(graph["objects"].items())
    base = max(int(k) for k in graph["objects"]) + 1
    copy_round = 0
    while len(grown["objects"]) < size:
        offset = base + copy_round * 10_000
        ids = {k: str(int(k) + offset) for k, _ in originals}
        for key, obj in originals:
            if len(grown["objects"]) >= size:
                break
            clone = copy.deepcopy(obj)
            clone["relations"] = [dict(r, object=ids[r["object"]]) for r in obj["relations"]]
            grown["objects"][ids[key]] = clone
        copy_round += 1
    for obj in grown["objects"].values():
        obj["relations"] = [r for r in obj["relations"] if r["object"] in grown["objects"]]
    return grown


def run_all(interpreter: Interpreter, items: list[tuple[list, Any]]) -> int:
    answered = 0
    for semantic, scene in items:
        try:
            interpreter.run(semantic, scene)
            answered += 1
        except InterpreterFailure:
            pass
    return answered


def rate(work: Callable[[], Any], count: int) -> float:
    """Best-of-REPEATS questions per second of `work`, which runs `count` questions."""
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return count / best


def main() -> None:
    graphs_file = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
    if not graphs_file.is_file():
        print(f"GQA scene graphs not found in {graphs_file.parent}; set ASPVQA_GQA_DIR")
        sys.exit(1)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    graphs = json.loads(graphs_file.read_text())
    questions = list(json.loads(QUESTIONS.read_text()).values())
    interpreter = Interpreter()

    started = time.perf_counter()
    scenes = {image: interpreter.prepare(graph) for image, graph in graphs.items()}
    items = [(q["semantic"], scenes[q["imageId"]]) for q in questions]
    answered = run_all(interpreter, items)
    cold = time.perf_counter() - started

    rows = []
    mean_objects = sum(len(g["objects"]) for g in graphs.values()) / len(graphs)
    batch = items * ROUNDS
    rows.append(("sample graphs, prepared once", mean_objects, rate(lambda: run_all(interpreter, batch), len(batch))))
    raw = [(q["semantic"], graphs[q["imageId"]]) for q in questions] * ROUNDS
    rows.append(
        ("sample graphs, prepared per question", mean_objects, rate(lambda: run_all(interpreter, raw), len(raw)))
    )
    large_graph = grow(graphs["2375429"], 60)
    large = interpreter.prepare(large_graph)
    horse = [(q["semantic"], large) for q in questions if q["imageId"] == "2375429"] * ROUNDS * 2
    run_all(interpreter, horse[:50])
    rows.append(
        (
            "60-object graph, prepared once",
            len(large_graph["objects"]),
            rate(lambda: run_all(interpreter, horse), len(horse)),
        )
    )

    print(f"GQA interpreter, {len(questions)} questions ({answered} answered), one core, best of {REPEATS}")
    print(f"cold start (WordNet look-ups, first pass): {cold:.2f} s")
    print(f"{'setting':<40} {'objects':>8} {'questions/s':>12}")
    for name, objects, qps in rows:
        print(f"{name:<40} {objects:>8.1f} {qps:>12,.0f}")
    worst = min(r[2] for r in rows)
    print(f"target {TARGET:,.0f} questions/s: {'met' if worst >= TARGET else 'NOT met'} (slowest row {worst:,.0f})")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "benchmark": "interpreter",
                "questions": len(questions),
                "answered": answered,
                "cold_start_s": round(cold, 3),
                "rows": [{"setting": n, "objects": o, "questions_per_s": round(q, 1)} for n, o, q in rows],
                "target_questions_per_s": TARGET,
                "target_met": worst >= TARGET,
                "python": platform.python_version(),
                "machine": platform.machine(),
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
