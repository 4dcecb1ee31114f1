"""Plain questions a person asks about real scene graphs, answered as `POST /answer` answers them.

50 questions written for this benchmark (bench/data/natural_questions.jsonl) on the four real
GQA scene graphs of the shared sample (../shared/data/gqa or $ASPVQA_GQA_DIR) and the two demo
scenes: category words ("What animal is this?"), counting, negation, everyday GQA-like wording and
questions outside what the programs can express (why, reading text, opinions, what if), whose
right answer is the status `unsupported`. Each question goes in as text with the default settings
(translation, scene graph encoding, solving); the top answer must be one of the expected words.

Prints a table by kind, writes bench/results/natural_questions.json (one entry per `--label`, so
a run before a change and one after stay side by side) and exits 1 below the target (90 %).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.api.routes.demo import demo_scenes  # noqa: E402
from app.config import load_settings  # noqa: E402
from app.pipeline import Pipeline, PipelineError  # noqa: E402
from evaluation.interpreter import sanitise_answer  # noqa: E402

GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR", ROOT / "../shared/data/gqa"))
QUESTIONS = ROOT / "bench" / "data" / "natural_questions.jsonl"
RESULTS = ROOT / "bench" / "results" / "natural_questions.json"
TARGET = 0.90
UNSUPPORTED = "unsupported"


def scenes() -> dict[str, dict]:
    """The demo scenes and the shared GQA scene graphs, by id."""
    graphs = dict(demo_scenes())
    path = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
    if not path.is_file():
        print(f"GQA scene graphs not found in {path.parent}; set ASPVQA_GQA_DIR")
        sys.exit(1)
    graphs.update(json.loads(path.read_text(encoding="utf-8")))
    return graphs


def ask(pipeline: Pipeline, question: str, graph: dict) -> tuple[str | None, str, str]:
    """(top answer or `unsupported`, status, program) of one question."""
    try:
        outcome = pipeline.answer(question, scene_graph=graph)
    except PipelineError as exc:
        return (UNSUPPORTED if exc.kind == UNSUPPORTED else None), exc.kind, exc.message
    status = outcome.status.value
    if status == UNSUPPORTED:
        return UNSUPPORTED, status, outcome.program_text
    top = outcome.answers[0].answer if outcome.answers else None
    return top, status, outcome.program_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="latest", help="the name this run is kept under in the results file")
    args = parser.parse_args()
    items = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    graphs = scenes()
    pipeline = Pipeline(load_settings())
    started = time.perf_counter()
    pipeline.warm_up()
    print(f"ready in {time.perf_counter() - started:.1f} s; {len(items)} questions")
    rows = []
    for item in items:
        started = time.perf_counter()
        answer, status, program = ask(pipeline, item["question"], graphs[item["scene"]])
        seconds = time.perf_counter() - started
        shown = sanitise_answer(answer) if answer is not None else None
        right = shown in {sanitise_answer(e) for e in item["expected"]}
        rows.append(item | {"answer": answer, "status": status, "program": program, "right": right, "s": seconds})
        mark = "ok " if right else "NO "
        print(f"{mark} [{item['scene']:>8}] {item['question']:60} -> {answer!s:14} ({status}) {program[:70]}")
    by_kind: Counter[str] = Counter(r["kind"] for r in rows)
    right_by_kind: Counter[str] = Counter(r["kind"] for r in rows if r["right"])
    print(f"\n{'kind':10} {'right':>8}")
    for kind in sorted(by_kind):
        print(f"{kind:10} {right_by_kind[kind]:>3} / {by_kind[kind]:<3}")
    right = sum(r["right"] for r in rows)
    share = right / len(rows)
    print(f"{'all':10} {right:>3} / {len(rows):<3} = {share:.0%}  (target >= {TARGET:.0%})")
    results = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    results[args.label] = {
        "right": right,
        "questions": len(rows),
        "share": round(share, 4),
        "by_kind": {k: [right_by_kind[k], n] for k, n in sorted(by_kind.items())},
        "target": TARGET,
        "rows": rows,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    if share < TARGET:
        print(f"target missed: {share:.0%} < {TARGET:.0%}")
        sys.exit(1)


if __name__ == "__main__":
    main()
