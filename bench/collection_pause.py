"""Full garbage collections in a loaded solver process, with and without the loaded parts kept out.

A solver worker loads WordNet and the entailment table at start (`app.solver_pool`), about half a
million tracked objects that live as long as the process. Python's full collection walks every tracked object, so a
request that meets one waits for the whole walk. `app.components.keep_loaded` (run at the end of a
worker's start and of `Components.warm_up`) freezes what is loaded, so full passes walk only what
came after.

Each mode runs in a fresh process built as a worker is (`Pipeline` with its entailment table and
taxonomy loaded), then answers the same 3,000 requests as `POST /answer` with `scene_facts` does in a
worker (`Pipeline.solve_here` on program objects and scene text: GS-VQA-form weighted text and
synthetic perfect-information text, several questions per text), timing every full collection
(`gc.callbacks`) and every request.

Target: the longest full collection with the loaded parts kept out is at most a third of the
longest without (a ratio, so that a slow hour of a shared machine moves both alike).
Usage: python bench/collection_pause.py   (writes bench/results/collection_pause.json; exits 1 on a miss)
"""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

REQUESTS = 3000
TEXTS = 40
TARGET_RATIO = 1 / 3


def run(keep: bool) -> dict:
    """One mode, in this process: load as a worker does, then time requests and full collections."""
    from solve import perfect_scene, random_program, tuple_weighted_scene

    from app.components import keep_loaded
    from app.config import Settings
    from app.pipeline import Pipeline
    from app.scene_input import FactsScene
    from theory.flat import parse_flat

    pipeline = Pipeline(Settings())
    pipeline.components.entailments  # noqa: B018 - loaded at a worker's start
    pipeline.components.scene_graph_encoder  # noqa: B018 - the taxonomy (WordNet)
    if keep:
        keep_loaded()
    tracked = len(gc.get_objects())
    pauses: list[float] = []
    started: list[float] = []

    def timed(phase: str, info: dict) -> None:
        if info["generation"] == 2:
            if phase == "start":
                started.append(time.perf_counter())
            else:
                pauses.append((time.perf_counter() - started.pop()) * 1e3)

    rng = random.Random(3)
    texts = [tuple_weighted_scene(rng)[1] for _ in range(TEXTS // 2)]
    texts += [perfect_scene(rng, 30, 100).to_asp() for _ in range(TEXTS // 2)]
    gc.callbacks.append(timed)
    latencies = []
    began = time.perf_counter()
    for request in range(REQUESTS):
        program = parse_flat(random_program(rng))
        # A new text every few requests, as images come: readings and indexes are kept and dropped
        # (the fact that makes it new is one no question's rules read).
        text = texts[rng.randrange(len(texts))] + f"\nis_attr(image{request // 4})."
        start = time.perf_counter()
        pipeline.solve_here(program, FactsScene(text), top_k=5)
        latencies.append((time.perf_counter() - start) * 1e3)
    wall = time.perf_counter() - began
    gc.callbacks.remove(timed)
    latencies.sort()

    def at(q: float) -> float:
        return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))], 2)

    return {
        "kept_out": keep,
        "tracked_objects_at_start": tracked,
        "requests": REQUESTS,
        "wall_s": round(wall, 1),
        "p50_ms": at(0.5),
        "p99_ms": at(0.99),
        "p999_ms": at(0.999),
        "max_ms": round(latencies[-1], 1),
        "full_collections": len(pauses),
        "full_collection_ms": [round(p, 1) for p in pauses],
        "longest_full_collection_ms": round(max(pauses, default=0.0), 1),
    }


def main() -> int:
    if len(sys.argv) == 2 and sys.argv[1] in ("kept", "walked"):
        print(json.dumps(run(sys.argv[1] == "kept")))
        return 0
    rows = []
    for mode in ("walked", "kept"):
        done = subprocess.run([sys.executable, __file__, mode], capture_output=True, text=True, check=False, cwd=ROOT)
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            return 1
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    walked, kept = rows
    print(f"{'loaded parts':14} {'tracked':>9} {'p50':>6} {'p99':>6} {'p99.9':>6} {'max':>6}  full collections (ms)")
    for row in rows:
        name = "kept out" if row["kept_out"] else "walked"
        print(
            f"{name:14} {row['tracked_objects_at_start']:>9} {row['p50_ms']:>6} {row['p99_ms']:>6} "
            f"{row['p999_ms']:>6} {row['max_ms']:>6}  {row['full_collections']}: {row['full_collection_ms']}"
        )
    longest_walked, longest_kept = walked["longest_full_collection_ms"], kept["longest_full_collection_ms"]
    # Without a full collection in the walked run there is nothing to compare: say so, not "met".
    met = longest_walked > 0 and longest_kept <= TARGET_RATIO * longest_walked
    print(
        f"longest full collection: {longest_kept} ms kept out, {longest_walked} ms walked "
        f"(target: at most a third) {'met' if met else 'MISSED'}"
    )
    result = {
        "path": "Pipeline.solve_here with scene_facts text, as a solver worker serves POST /answer",
        "rows": rows,
        "target_ratio": TARGET_RATIO,
        "met": met,
        "cpu_count": os.cpu_count(),
    }
    out = ROOT / "bench" / "results" / "collection_pause.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
