"""Stress check: the app tests and concurrent first-time model loads, many times, under CPU load.

Each round runs (1) the app tests in a fresh pytest process and checks that its summary line
reached its output (a process whose descriptors 1 and 2 were left on /dev/null exits 0 and prints
nothing more), and (2) a fresh process that loads the language model in several threads at once,
translates one question in each, then writes a marker through Python and through the raw
descriptors: the parent checks that every marker arrived. Busy processes keep the cores loaded
meanwhile, so thread interleavings vary from round to round.

    .venv/bin/python scripts/stress_check.py --rounds 20 --load 2

Prints one line per round and a summary; writes the same as JSON (``--out``). Exit status 1 if
any round failed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUMMARY = re.compile(r"^=* ?(\d+ passed.*) in [\d.]+s", re.MULTILINE)

# Loads one model per thread at the same moment, compiles the program grammar and generates a
# program in each, then writes through every output path.
LOADER = """
import os, sys, threading
from translators.model.backends.base import GenerationRequest
from translators.model.backends.local import LlamaCppBackend
from translators.model.grammar import program_grammar
from translators.model.prompts import Prompt
grammar = program_grammar("nested")
workers = int(sys.argv[2])
backends = [LlamaCppBackend(sys.argv[1], n_ctx=512, n_threads=1) for _ in range(workers)]
barrier = threading.Barrier(workers)
texts = []
def work(backend):
    barrier.wait()
    text = "Question: Is there a cat?\\nProgram: "
    prompt = Prompt([{"role": "user", "content": text}], text, [], "stress", "nested")
    request = GenerationRequest(prompt, "Is there a cat?", max_tokens=24, grammar=grammar)
    texts.append(backend.generate(request).text)
threads = [threading.Thread(target=work, args=(b,)) for b in backends]
for t in threads: t.start()
for t in threads: t.join()
print("stdout-python-ok", len(texts), flush=True)
print("stderr-python-ok", file=sys.stderr, flush=True)
os.write(1, b"stdout-fd-ok\\n")
os.write(2, b"stderr-fd-ok\\n")
sys.exit(0 if len(texts) == workers else 1)
"""
MARKERS_OUT = ("stdout-python-ok", "stdout-fd-ok")
MARKERS_ERR = ("stderr-python-ok", "stderr-fd-ok")


def _burn(stop_at: float) -> None:
    while time.monotonic() < stop_at:
        sum(i * i for i in range(10_000))


def run_tests(tests: list[str]) -> dict[str, object]:
    """One pytest process over `tests`; ok when it exits 0 and its summary line was printed."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *tests, "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    summary = SUMMARY.search(done.stdout)
    ok = done.returncode == 0 and summary is not None
    return {
        "ok": ok,
        "exit": done.returncode,
        "summary": summary.group(1) if summary else None,
        "seconds": round(time.perf_counter() - started, 1),
        "tail": None if ok else _failures(done.stdout + done.stderr),
    }


def _failures(output: str) -> str:
    """The part of pytest's output that says what failed: its short summary, else the end."""
    start = output.find("short test summary info")
    return output[start:][-3000:] if start >= 0 else output[-3000:]


def run_loads(model: str, threads: int) -> dict[str, object]:
    """One process loading `threads` models at once; ok when every output marker arrived."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", LOADER, model, str(threads)], cwd=REPO, capture_output=True, text=True)
    missing = [m for m in MARKERS_OUT if m not in done.stdout] + [m for m in MARKERS_ERR if m not in done.stderr]
    ok = done.returncode == 0 and not missing
    return {
        "ok": ok,
        "exit": done.returncode,
        "missing": missing,
        "seconds": round(time.perf_counter() - started, 1),
        "tail": None if ok else (done.stdout + done.stderr)[-2000:],
    }


def main() -> int:
    """Run the rounds, print one line each and a summary, write the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--load", type=int, default=os.cpu_count() or 1, help="busy processes beside the checks")
    parser.add_argument("--tests", default="tests/app", help="comma-separated test paths for each round")
    parser.add_argument("--model", default="smollm2-135m", help="bundled model the loaders load")
    parser.add_argument("--threads", type=int, default=3, help="models loaded at once per round")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "stress.json")
    args = parser.parse_args()

    stop_at = time.monotonic() + 24 * 3600
    burners = [multiprocessing.Process(target=_burn, args=(stop_at,), daemon=True) for _ in range(args.load)]
    for burner in burners:
        burner.start()
    rounds = []
    try:
        for number in range(1, args.rounds + 1):
            load_before = os.getloadavg()[0]
            tests = run_tests(args.tests.split(","))
            loads = run_loads(args.model, args.threads)
            rounds.append({"round": number, "load_average": round(load_before, 2), "tests": tests, "loads": loads})
            print(
                f"round {number:>2}: tests {'ok' if tests['ok'] else 'FAILED'} ({tests['summary']}, "
                f"{tests['seconds']} s) · {args.threads} concurrent loads {'ok' if loads['ok'] else 'FAILED'} "
                f"({loads['seconds']} s) · load average {load_before:.1f}",
                flush=True,
            )
            for part in (tests, loads):
                if part["tail"]:
                    print(part["tail"], flush=True)
            failed = _write_report(args, rounds)  # after every round: an interrupted check keeps its rounds
    finally:
        for burner in burners:
            burner.terminate()
    failed = _write_report(args, rounds)
    print(f"{len(rounds) - len(failed)} of {len(rounds)} rounds passed; report in {args.out}")
    return 1 if failed else 0


def _write_report(args: argparse.Namespace, rounds: list[dict[str, object]]) -> list[object]:
    """Write the JSON report so far; the numbers of the rounds that failed."""
    failed = [r["round"] for r in rounds if not (r["tests"]["ok"] and r["loads"]["ok"])]  # type: ignore[index]
    report = {
        "rounds": len(rounds),
        "failed_rounds": failed,
        "busy_processes": args.load,
        "cores": os.cpu_count(),
        "tests": args.tests,
        "model": args.model,
        "concurrent_loads": args.threads,
        "details": rounds,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    return failed


if __name__ == "__main__":
    sys.exit(main())
