"""How fast this machine runs right now: a fixed small workload, timed beside a benchmark.

A shared two-core machine runs the same code 20-40 % slower in some hours than in others, which
moves every millisecond target alike. Benchmarks print and store this check at their start and end,
so that two runs (or a miss) can be read against the machine's state at the time.
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from pathlib import Path

import clingo

_PROGRAM = "item(1..60). pair(X,Y) :- item(X), item(Y), X < Y, Y < X + 4. { pick(X) : item(X) } = 1. #show pick/1."


def _clingo_solve() -> None:
    ctl = clingo.Control(["--models=0"])
    ctl.add("base", [], _PROGRAM)
    ctl.ground([("base", [])])
    ctl.solve()


def _python_loop() -> None:
    total = 0
    for i in range(100_000):
        total += i * i % 7


def machine_check() -> dict[str, float]:
    """p50 ms of a fixed clingo ground-and-solve and of a fixed pure-Python loop."""
    timings = {}
    for name, work, repeats in (("clingo_ms", _clingo_solve, 300), ("python_ms", _python_loop, 30)):
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            work()
            times.append((time.perf_counter() - started) * 1000)
        timings[name] = round(statistics.median(times), 3)
    return timings


def processor() -> str:
    """The processor's model name and whether it has AVX-512: llama.cpp's speed depends on both."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    name = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("model name")), "?")
    wide = "AVX-512" if re.search(r"\bavx512f\b", info) else "no AVX-512"
    return f"{name}, {wide}"


def llama_build() -> str | None:
    """The llama.cpp build scripts/install_llm.sh installed (version and vector extensions)."""
    marker = Path(sys.prefix) / ".llama-cpp-build"
    return marker.read_text().strip() if marker.is_file() else None
