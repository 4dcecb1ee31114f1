"""Conversion throughput: GQA -> Program, and printing/parsing every representation.

Runs over the real GQA val sample (1,358 programs) when ../shared/data/gqa (or $ASPVQA_GQA_DIR)
is present, else over generated programs. Prints a table, writes bench/results/convert.json.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from theory.canonical import canonical  # noqa: E402
from theory.operations import TEXT_REPRESENTATIONS  # noqa: E402
from theory.postprocess import clean_model_output  # noqa: E402
from theory.program import Program  # noqa: E402
from theory.representations import format_program, parse_program  # noqa: E402
from translators.gqa.gqa_program import gqa_to_program  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR", ROOT / "../shared/data/gqa"))
REPEATS = 3


def timed(items: list, work: Callable, repeats: int = REPEATS) -> float:
    """Best-of-`repeats` items per second of `work` over `items`."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for item in items:
            work(item)
        best = min(best, time.perf_counter() - started)
    return len(items) / best


def fallback_programs() -> list[Program]:
    words = ["cup", "plate", "man", "dog", "table"]
    texts = [f"query(unique(relate(select(scene(), {a}), {b}, on, subject)), color)" for a in words for b in words] + [
        f"and(exist(select(scene(), {a})), verify_attr(unique(select(scene(), {a})), color, red))" for a in words
    ]
    return [parse_program(t, "nested") for t in texts] * 20


def main() -> None:
    rows = []
    source = "generated"
    semantic: list = []
    questions_file = GQA_DIR / "questions/val_balanced_sample.json"
    if questions_file.is_file():
        source = str(questions_file.name)
        semantic = [q["semantic"] for q in json.loads(questions_file.read_text()).values()]
        rows.append(("gqa -> Program", timed(semantic, gqa_to_program)))
        programs = [gqa_to_program(s) for s in semantic]
    else:
        programs = fallback_programs()
    rows.append(("canonical", timed(programs, canonical)))
    for representation in TEXT_REPRESENTATIONS:
        texts = [format_program(p, representation) for p in programs]
        rows.append((f"format {representation}", timed(programs, lambda p, r=representation: format_program(p, r))))
        rows.append((f"parse {representation}", timed(texts, lambda t, r=representation: parse_program(t, r))))
        raw = [f"```\n{t}\n```\nQuestion: Is there a cat?\n{t}" for t in texts]
        rows.append(
            (
                f"clean {representation} output",
                timed(raw, lambda text, r=representation: clean_model_output(text, r)),
            )
        )
    print(f"{len(programs)} programs ({source}), best of {REPEATS}")
    print(f"{'stage':24} {'programs/s':>12} {'us/program':>11}")
    for stage, rate in rows:
        print(f"{stage:24} {rate:>12,.0f} {1e6 / rate:>11.1f}")
    out = Path(__file__).parent / "results" / "convert.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "machine": platform.machine(),
                "python": platform.python_version(),
                "programs": len(programs),
                "source": source,
                "rows": [
                    {"stage": s, "programs_per_s": round(r), "us_per_program": round(1e6 / r, 1)} for s, r in rows
                ],
            },
            indent=2,
        )
    )
    print("target: none (throughput is reported for comparison)")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
