"""What one given-program answer costs in one process, on the four real GQA scene graphs.

Three programs (one answered everywhere, two with no answer on most scenes, so the why-not
explanation runs), text in: the scene graph's JSON text is parsed and `Pipeline.answer` runs on
the program text, as `POST /answer` does in a solver process. "repeat": the same graph asked again (its encoding is kept, as when several questions
are asked of one image); "new graph": a graph the process has not seen (encoded afresh).
Target: <= 3 ms on average for each program over the four scenes (repeat).

Usage: python bench/answer_cost.py   (writes bench/results/answer_cost.json; exits 1 on a miss)
"""

from __future__ import annotations

import itertools
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from app.pipeline import Pipeline  # noqa: E402
from bench._questions import LOAD_PROGRAMS as PROGRAMS  # noqa: E402
from bench._questions import scene_graphs  # noqa: E402

TARGET_MS = 3.0
REPEATS = 100


def main() -> int:
    graphs = scene_graphs()
    pipeline = Pipeline(Settings())
    for program, graph in itertools.product(PROGRAMS, graphs):  # loads WordNet and the table
        pipeline.answer(None, program=program, scene_graph=graph)
    fresh = itertools.count()
    rows = []
    print(f"{'program':45} {'repeat ms (4 scenes)':>28} {'mean':>6} {'new graph ms':>13}  statuses")
    for program in PROGRAMS:
        repeat, new, statuses = [], [], []
        for graph in graphs:
            text = json.dumps(graph)
            started = time.perf_counter()
            for _ in range(REPEATS):
                outcome = pipeline.answer(None, program=program, scene_graph=json.loads(text))
            repeat.append((time.perf_counter() - started) / REPEATS * 1000)
            statuses.append(outcome.status.value)
            times = []
            for _ in range(10):
                unseen = json.dumps(dict(graph, width=int(graph.get("width", 0)) + 1 + next(fresh)))  # another graph
                started = time.perf_counter()
                pipeline.answer(None, program=program, scene_graph=json.loads(unseen))
                times.append((time.perf_counter() - started) * 1000)
            new.append(statistics.median(times))
        mean = statistics.mean(repeat)
        rows.append(
            {"program": program, "repeat_ms": repeat, "mean_ms": mean, "new_graph_ms": new, "statuses": statuses}
        )
        print(
            f"{program:45} {' '.join(f'{t:6.2f}' for t in repeat):>28} {mean:6.2f} "
            f"{statistics.mean(new):13.2f}  {' '.join(statuses)}"
        )
    ok = all(r["mean_ms"] <= TARGET_MS for r in rows)
    print(f"{'ok  ' if ok else 'MISS'} each program <= {TARGET_MS} ms on average over the four scenes (repeat)")
    (ROOT / "bench" / "results" / "answer_cost.json").write_text(
        json.dumps({"target_ms": TARGET_MS, "rows": rows, "ok": ok}, indent=2)
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
