"""Minutes from a fresh clone to the first demo answer: `make demo` with empty caches.

Clones the repository's committed HEAD into a new folder and runs `make demo` there with a new
cache folder (`ASPVQA_CACHE_DIR`) and a new pip cache (`PIP_CACHE_DIR`), as on a fresh machine:
nothing built or downloaded before is reused. (Packages still come from the machine's configured
package index; a machine farther from it waits longer.) Each step of the Makefile prints a line
starting "==> "; the time between two such lines is the step's. The first answer is the demo's first
"answers:" line. Prints a table, writes bench/results/first_run.json and exits 1 when the first answer
takes longer than five minutes or `make demo` fails.

    .venv/bin/python bench/first_run.py            # about 5-25 minutes
    .venv/bin/python bench/first_run.py --keep     # leave the clone and caches for a look
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "first_run.json"
TARGET_FIRST_ANSWER_S = 300.0
STEP_MARK = "==> "
ANSWER_MARK = "   answers: "


def run_make_demo(folder: Path, log: Path) -> tuple[int, list[tuple[float, str]]]:
    """`make demo` in a fresh clone with fresh caches: its exit status and its timed output lines."""
    clone = folder / "aspvqa"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = {
        **os.environ,
        "ASPVQA_CACHE_DIR": str(folder / "cache"),
        "PIP_CACHE_DIR": str(folder / "pip-cache"),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    started = time.monotonic()
    lines: list[tuple[float, str]] = []
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            ["make", "demo"], cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert process.stdout is not None
        for line in process.stdout:
            at = time.monotonic() - started
            lines.append((at, line.rstrip("\n")))
            out.write(f"{at:8.1f} {line}")
            if line.startswith(STEP_MARK) or line.startswith(ANSWER_MARK):
                print(f"{at:7.1f} s  {line.rstrip()}", flush=True)
        status = process.wait()
    return status, lines


def steps(lines: list[tuple[float, str]], end: float) -> list[dict[str, object]]:
    """Each marked step with its seconds (to the next mark, or to the end) and share of the whole."""
    marks = [(at, text[len(STEP_MARK) :].split(":")[0]) for at, text in lines if text.startswith(STEP_MARK)]
    rows = []
    for (at, name), (until, _) in zip(marks, [*marks[1:], (end, "")], strict=True):
        rows.append({"step": name, "seconds": round(until - at, 1), "share": round((until - at) / end, 3)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the clone and its caches")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="aspvqa-first-run-"))
    log = folder / "make-demo.log"
    try:
        status, lines = run_make_demo(folder, log)
    finally:
        if not args.keep:
            kept_log = Path(tempfile.gettempdir()) / "aspvqa-first-run.log"
            if log.exists():
                shutil.copy(log, kept_log)
            shutil.rmtree(folder, ignore_errors=True)
    end = lines[-1][0] if lines else 0.0
    first = next((at for at, text in lines if text.startswith(ANSWER_MARK)), None)
    result = {
        "data": "none: the repository's committed HEAD, cloned; the demo questions of app/data/demo",
        "machine": platform.machine(),
        "cores": os.cpu_count(),
        "load_average_end": os.getloadavg(),
        "make_demo_status": status,
        "first_answer_s": None if first is None else round(first, 1),
        "end_s": round(end, 1),
        "steps": steps(lines, end),
        "target_first_answer_s": TARGET_FIRST_ANSWER_S,
    }
    result["met"] = status == 0 and first is not None and first <= TARGET_FIRST_ANSWER_S
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    print(f"\n{'step':<10} {'seconds':>8} {'share':>6}")
    for row in result["steps"]:
        print(f"{row['step']:<10} {row['seconds']:>8} {row['share']:>6.1%}")
    shown = "none" if first is None else f"{first / 60:.1f} min"
    print(f"first answer: {shown}; end: {end / 60:.1f} min; make demo exit status {status}")
    print(f"log: {log if args.keep else Path(tempfile.gettempdir()) / 'aspvqa-first-run.log'}")
    sys.exit(0 if result["met"] else 1)


if __name__ == "__main__":
    main()
