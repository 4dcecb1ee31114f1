"""The in-process reproduction of the service's native crash under concurrent clients, kept as a check.

Each run is a fresh process with faulthandler on: one `Pipeline(Settings())` answers three given
programs on the four real GQA scene graphs once inside a thread that is then joined, then
`--rounds` rounds start 1 + r % 8 new threads that each answer 10 times (threads come and go as
the server's worker threads do). Without `theory.clingo_lock.CLINGO_LOCK` such runs die with a
segmentation fault in clingo: one thread grounding or adding the theory's statements while
others build or print symbols. Target: every run survives.

Usage: python bench/thread_crash.py [--runs 3] [--rounds 60]   (writes bench/results/thread_crash.json)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def one_run(rounds: int) -> None:
    """The reproduction itself (run in a child process)."""
    from app.config import Settings
    from app.inputs import GivenProgram
    from app.pipeline import Pipeline
    from bench._questions import LOAD_PROGRAMS as PROGRAMS
    from bench._questions import scene_graphs

    graphs = scene_graphs()
    pipeline = Pipeline(Settings())

    def first() -> None:
        for program in PROGRAMS:
            for graph in graphs:
                pipeline.answer(GivenProgram(program), pipeline.scene_input(scene_graph=graph))

    thread = threading.Thread(target=first)
    thread.start()
    thread.join()
    answers = 0
    for r in range(rounds):

        def work(i: int) -> None:
            for k in range(10):
                pipeline.answer(
                    GivenProgram(PROGRAMS[(i + k) % 3]), pipeline.scene_input(scene_graph=graphs[(i + k) % 4])
                )

        threads = [threading.Thread(target=work, args=(i,)) for i in range(1 + r % 8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        answers += 10 * len(threads)
    print(f"survived: {answers} answers")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        one_run(args.rounds)
        return 0
    results = []
    for run in range(args.runs):
        started = time.perf_counter()
        child = subprocess.run(
            [sys.executable, __file__, "--child", "--rounds", str(args.rounds)],
            env=dict(os.environ, PYTHONFAULTHANDLER="1"),
            capture_output=True,
            text=True,
            timeout=1800,
        )
        seconds = time.perf_counter() - started
        tail = (child.stdout + child.stderr).strip().splitlines()[-1:] or [""]
        results.append(
            {"run": run + 1, "exit_code": child.returncode, "seconds": round(seconds, 1), "last_line": tail[0]}
        )
        print(f"run {run + 1}: exit {child.returncode} in {seconds:.0f} s: {tail[0]}")
        if child.returncode:
            print(child.stderr[-4000:])
    survived = sum(r["exit_code"] == 0 for r in results)
    print(f"{survived} of {len(results)} runs survived (target: all)")
    out = ROOT / "bench" / "results" / "thread_crash.json"
    out.write_text(json.dumps({"rounds": args.rounds, "runs": results, "survived": survived}, indent=2))
    return 0 if survived == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
