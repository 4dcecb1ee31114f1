"""How long a command takes from the shell: the installed `aspvqa` entry point, each run a new process.

Commands, on the demo kitchen with the docs' program (the mug's colour, `docs/cli.md`):
- `aspvqa --help`: target p50 <= 0.3 s;
- `aspvqa solve --program P --scene app/data/demo/kitchen_uncertain.lp`: target p50 <= 0.5 s;
- `aspvqa answer --program P --scene app/data/demo/kitchen_uncertain.lp`: target p50 <= 1 s;
- `aspvqa answer --program P --scene-graph app/data/demo/scenes.json --image-id kitchen`: reported
  without a target: encoding a scene graph reads WordNet through NLTK, which imports SciPy and
  scikit-learn and loads WordNet's index (a stored table of the taxonomy's answers would take it
  off this path).

Each command runs once untimed (Python's bytecode and the files in the page cache, as for any second
start), then five times in rounds (every command once per round, so that the machine's load falls
on all alike); the wall clock is read around each process from outside, and the CPU seconds the
process used are read from the kernel. A command must exit 0 and print the expected answer. The
machine is shared: the load average and `bench._machine.machine_check` are stored at the start and
the end. With `--baseline REV`, the same commands of that commit (its packages first on the path of
the same entry point) run in the same rounds, beside the current ones, and are reported without a
target. Prints a table, writes bench/results/cli_start.json; exits 1 when a target is missed.

    .venv/bin/python bench/cli_start.py
    .venv/bin/python bench/cli_start.py --baseline 4dce760    # and the code before this benchmark
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._machine import machine_check  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENTRY_POINT = ROOT / ".venv" / "bin" / "aspvqa"
RESULTS = ROOT / "bench" / "results" / "cli_start.json"
RUNS = 5
PROGRAM = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3).\n"
SCENE_FACTS = "app/data/demo/kitchen_uncertain.lp"
SCENE_GRAPHS = "app/data/demo/scenes.json"


@dataclass(frozen=True)
class Command:
    name: str
    arguments: tuple[str, ...]
    expected: str  # printed by a right run
    target_s: float | None


def commands(program: str) -> list[Command]:
    """The commands timed, with the program file they read."""
    given = ("--program", program)
    return [
        Command("--help", ("--help",), "solve", 0.3),
        Command("solve (demo scene)", ("solve", *given, "--scene", SCENE_FACTS), "1. white", 0.5),
        Command("answer --program (demo scene)", ("answer", *given, "--scene", SCENE_FACTS), "1. white", 1.0),
        Command(
            "answer --program (demo scene graph)",
            ("answer", *given, "--scene-graph", SCENE_GRAPHS, "--image-id", "kitchen"),
            "1. white",
            None,
        ),
    ]


def run_once(command: Command, packages: Path | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run in a new process, with the packages of `packages` (a
    checkout) instead of the repository's; raises when it fails or answers wrong."""
    env = {**os.environ, "PYTHONPATH": str(packages)} if packages else None
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run([str(ENTRY_POINT), *command.arguments], cwd=ROOT, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    after = os.times()
    if done.returncode != 0 or command.expected not in done.stdout:
        raise SystemExit(f"{command.name} exited {done.returncode}: {done.stdout[-500:]}{done.stderr[-500:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def checkout(revision: str, folder: Path) -> Path:
    """The packages of `revision`, written into `folder` (from git, the working tree untouched)."""
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def timed_rounds(
    timed: list[Command], variants: dict[str, Path | None]
) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """(variant, command) -> (wall, CPU) seconds of each run: one untimed run each, then the rounds."""
    for packages in variants.values():
        for command in timed:
            run_once(command, packages)  # untimed: bytecode written, files in the page cache
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {(v, c.name): [] for v in variants for c in timed}
    for _ in range(RUNS):
        for command in timed:
            for variant, packages in variants.items():
                runs[variant, command.name].append(run_once(command, packages))
    return runs


def row(command: Command, variant: str, runs: list[tuple[float, float]], program: str) -> dict[str, Any]:
    """One command's figures; the target applies to the current code only."""
    walls, cpus = [wall for wall, _ in runs], [cpu for _, cpu in runs]
    p50 = statistics.median(walls)
    target = command.target_s if variant == "current" else None
    return {
        "command": command.name,
        "code": variant,
        "argv": ["aspvqa", *(a if a != program else "PROGRAM" for a in command.arguments)],
        "runs_s": [round(t, 4) for t in walls],
        "p50_s": round(p50, 4),
        "max_s": round(max(walls), 4),
        "cpu_runs_s": [round(t, 4) for t in cpus],
        "cpu_p50_s": round(statistics.median(cpus), 4),
        "target_p50_s": target,
        "met": None if target is None else p50 <= target,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", metavar="REV", help="also time this commit's code, in the same rounds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "mug_color.lp"
        program.write_text(PROGRAM, encoding="utf-8")
        timed = commands(str(program))
        variants: dict[str, Path | None] = {"current": None}
        if args.baseline:
            variants[args.baseline] = checkout(args.baseline, Path(tempfile.mkdtemp(dir=folder)))
        load_start, machine_start = os.getloadavg(), machine_check()
        runs = timed_rounds(timed, variants)
        load_end, machine_end = os.getloadavg(), machine_check()

    rows = [row(c, v, runs[v, c.name], str(program)) for c in timed for v in variants]
    print(f"{'command':<38} {'code':<9} {'p50 s':>7} {'max s':>7} {'cpu p50':>8} {'target':>7}  met")
    for r in rows:
        target = "-" if r["target_p50_s"] is None else f"{r['target_p50_s']:.1f}"
        met = {None: "", True: "yes", False: "NO"}[r["met"]]
        print(
            f"{r['command']:<38} {r['code']:<9} {r['p50_s']:>7.3f} {r['max_s']:>7.3f} {r['cpu_p50_s']:>8.3f} {target:>7}  {met}"
        )
    print(f"load average (1, 5, 15 min): start {load_start}, end {load_end}; {os.cpu_count()} cores")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    result = {
        "entry_point": ".venv/bin/aspvqa",
        "program": PROGRAM.strip(),
        "runs_per_command": RUNS,
        "baseline": args.baseline,
        "commands": rows,
        "load_average": {"start": [round(x, 2) for x in load_start], "end": [round(x, 2) for x in load_end]},
        "machine_check": {"start": machine_start, "end": machine_end},
        "cores": os.cpu_count(),
        "python": platform.python_version(),
    }
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    missed = [r["command"] for r in rows if r["met"] is False]
    if missed:
        print("missed: " + ", ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
