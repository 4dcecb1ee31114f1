"""The `isolated` setting's questions/s and each worker's peak memory: the default worker plan
against the previous default (one worker per core, each llama.cpp using every core).

Both plans run `aspvqa evaluate -s isolated` with the bundled local model on the same first N GQA
val questions (`questions/val_balanced_sample.json` of the shared data). Those questions are not
about the 4 images with a public scene graph, so each question's image gets one of the 4 real
graphs in turn (a temporary file, removed afterwards): translation, grounding and solving all run
as in a real job, but the answers mean nothing and are not scored here.

While a job runs, its process tree is sampled every 0.2 s from /proc: each worker's peak RSS
(VmHWM, which counts the pages of the memory-mapped model file it touched) and its peak private
memory (RssAnon, what `evaluation.provenance` estimates per worker). The load average and the CPU time
other processes used during each run say how busy the shared machine was (only processes still
alive at the end of a run are counted: a lower bound).

    python bench/worker_plan.py [--questions 20] [--plans default,previous]

Prints a table and writes bench/results/worker_plan.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results" / "worker_plan.json"
GQA = Path(os.environ.get("ASPVQA_GQA_DIR") or REPO / ".." / "shared" / "data" / "gqa")
QUESTIONS = GQA / "questions" / "val_balanced_sample.json"
GRAPHS = GQA / "scene_graphs" / "val_sceneGraphs_sample.json"
TAXONOMY = GQA / "metadata"
TICKS = os.sysconf("SC_CLK_TCK")
MIB = 2**20


def cores() -> int:
    return len(os.sched_getaffinity(0))


def plan_flags(name: str) -> list[str]:
    """The command-line flags of a plan: none for the default, one worker per core of every core's
    threads for the previous default."""
    if name == "default":
        return []
    if name == "previous":
        return ["--workers", str(cores()), "--threads", str(cores())]
    raise SystemExit(f"unknown plan {name!r}; use default or previous")


def status_kib(pid: int, *fields: str) -> dict[str, int]:
    """Fields of /proc/<pid>/status in KiB (missing when the process is gone)."""
    values: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in fields:
                values[key] = int(rest.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return values


def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        pass
    return found


def tree(pid: int) -> list[int]:
    """`pid` and its descendants."""
    pids, index = [pid], 0
    while index < len(pids):
        pids += children(pids[index])
        index += 1
    return pids


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def role(pid: int, job: int) -> str:
    if pid == job:
        return "job"
    line = command_line(pid)
    if "resource_tracker" in line:
        return "resource tracker"
    if "spawn_main" in line:
        return "worker"
    return "other"


def cpu_seconds() -> dict[int, tuple[float, str]]:
    """CPU seconds (user + system) so far and a short command line of every process."""
    usage: dict[int, tuple[float, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            seconds = (int(fields[11]) + int(fields[12])) / TICKS
        except (OSError, ValueError, IndexError):
            continue
        usage[int(entry.name)] = (seconds, command_line(int(entry.name))[:90])
    return usage


def others_busy(before: dict[int, tuple[float, str]], after: dict[int, tuple[float, str]], ours: set[int]) -> dict:
    """CPU seconds other processes used between two snapshots, with the busiest ones."""
    used = []
    for pid, (seconds, line) in after.items():
        if pid in ours or pid == os.getpid():
            continue
        delta = seconds - before.get(pid, (0.0, ""))[0]
        if delta > 0.5:
            used.append((round(delta, 1), line or f"pid {pid}"))
    used.sort(reverse=True)
    return {
        "cpu_seconds": round(sum(d for d, _ in used), 1),
        "busiest": [{"cpu_s": d, "command": c} for d, c in used[:5]],
    }


def load_average() -> list[float]:
    return [float(v) for v in Path("/proc/loadavg").read_text().split()[:3]]


@dataclass
class Peak:
    role: str
    vm_hwm_kib: int = 0
    rss_anon_kib: int = 0
    rss_file_kib: int = 0

    def sample(self, pid: int) -> None:
        values = status_kib(pid, "VmHWM", "RssAnon", "RssFile")
        self.vm_hwm_kib = max(self.vm_hwm_kib, values.get("VmHWM", 0))
        self.rss_anon_kib = max(self.rss_anon_kib, values.get("RssAnon", 0))
        self.rss_file_kib = max(self.rss_file_kib, values.get("RssFile", 0))

    def to_json(self) -> dict:
        return {
            "role": self.role,
            "peak_rss_mib": round(self.vm_hwm_kib / 1024, 1),
            "peak_private_mib": round(self.rss_anon_kib / 1024, 1),
            "peak_file_backed_mib": round(self.rss_file_kib / 1024, 1),
        }


@dataclass
class Watch:
    peaks: dict[int, Peak] = field(default_factory=dict)
    result_times: list[float] = field(default_factory=list)


def watch(process: subprocess.Popen, results: Path, start: float) -> Watch:
    """Sample the job's process tree and the times results appear until the job ends."""
    seen = Watch()
    lines = 0
    while process.poll() is None:
        for pid in tree(process.pid):
            if pid not in seen.peaks:
                seen.peaks[pid] = Peak(role(pid, process.pid))
            seen.peaks[pid].sample(pid)
        if results.is_file():
            count = results.read_bytes().count(b"\n")
            seen.result_times += [round(time.perf_counter() - start, 2)] * (count - lines)
            lines = count
        time.sleep(0.2)
    return seen


def scene_graphs_for(questions: list[dict], target: Path) -> None:
    """Each question's image id mapped to one of the 4 real scene graphs, in turn."""
    real = list(json.loads(GRAPHS.read_text(encoding="utf-8")).values())
    images = list(dict.fromkeys(q["imageId"] for q in questions))
    target.write_text(json.dumps({image: real[i % len(real)] for i, image in enumerate(images)}), encoding="utf-8")


def run_plan(name: str, count: int, folder: Path, graphs: Path) -> dict:
    """One `aspvqa evaluate -s isolated` job under the plan `name`, measured."""
    out = folder / f"out-{name}"
    command = [sys.executable, "-m", "app", "evaluate", "-q", str(QUESTIONS), "-g", str(graphs), "-t", str(TAXONOMY),
               "-s", "isolated", "-o", str(out), "--limit", str(count), "--no-report", "--no-progress",
               *plan_flags(name)]  # fmt: skip
    # The default plan is the job's own: no thread count from the environment.
    env = {k: v for k, v in os.environ.items() if k != "ASPVQA_THREADS"} | {"PYTHONPATH": str(REPO)}
    load_start, cpu_before = load_average(), cpu_seconds()
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = watch(process, out / "results.jsonl", start)
    stdout, stderr = process.communicate()
    wall = time.perf_counter() - start
    ours = set(seen.peaks)
    busy = others_busy(cpu_before, cpu_seconds(), ours)
    if process.returncode != 0:
        raise SystemExit(f"plan {name}: the job failed ({process.returncode}): {stderr.strip()[-500:]}")
    manifest = json.loads((out / "job.json").read_text(encoding="utf-8"))
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    job_seconds = float(stdout.split(" tasks in ")[1].split(" s")[0])
    times = seen.result_times
    steady = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else None
    workers = [p.to_json() for p in seen.peaks.values() if p.role == "worker"]
    statuses: dict[str, int] = {}
    for record in records:
        statuses[record["status"]] = statuses.get(record["status"], 0) + 1
    return {
        "plan": manifest["worker_plan"]["summary"],
        "flags": plan_flags(name),
        "questions": len(records),
        "statuses": statuses,
        "wall_seconds": round(wall, 1),
        "job_seconds": job_seconds,
        "questions_per_second": round(len(records) / job_seconds, 3),
        "steady_questions_per_second": round(steady, 3) if steady else None,
        "first_result_seconds": times[0] if times else None,
        "question_seconds_p50": round(statistics.median(r["seconds"] for r in records), 2),
        "workers": workers,
        "job_process": next(p.to_json() for p in seen.peaks.values() if p.role == "job"),
        "load_average_start": load_start,
        "load_average_end": load_average(),
        "other_processes": busy,
    }


def table(runs: dict[str, dict]) -> str:
    rows = ["| plan | q/s (job) | q/s (after first) | p50 s/question | worker peak RSS MiB | worker peak private MiB | load start -> end |",
            "|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, run in runs.items():
        rss = ", ".join(f"{w['peak_rss_mib']:.0f}" for w in run["workers"]) or "-"
        private = ", ".join(f"{w['peak_private_mib']:.0f}" for w in run["workers"]) or "-"
        rows.append(
            f"| {name}: {run['plan']} | {run['questions_per_second']:.3f} | {run['steady_questions_per_second']} | "
            f"{run['question_seconds_p50']} | {rss} | {private} | {run['load_average_start'][0]} -> "
            f"{run['load_average_end'][0]} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20, help="the first N val sample questions")
    parser.add_argument("--plans", default="default,previous", help="comma-separated: default, previous")
    args = parser.parse_args()
    if not QUESTIONS.is_file() or not GRAPHS.is_file():
        sys.exit(f"the GQA sample is not in {GQA} (set ASPVQA_GQA_DIR)")
    names = [n.strip() for n in args.plans.split(",") if n.strip()]
    for name in names:
        plan_flags(name)
    first = list(json.loads(QUESTIONS.read_text(encoding="utf-8")).values())[: args.questions]
    runs: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="aspvqa-worker-plan-") as tmp:
        graphs = Path(tmp) / "val_sceneGraphs.json"
        scene_graphs_for(first, graphs)
        for name in names:
            runs[name] = run_plan(name, args.questions, Path(tmp), graphs)
            print(f"{name}: {json.dumps(runs[name])}", file=sys.stderr)
    summary = {
        "questions": args.questions,
        "setting": "isolated",
        "model": "qwen2.5-coder-1.5b (bundled, llama.cpp, CPU)",
        "cores": cores(),
        "memory_total_mib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / MIB),
        "runs": runs,
    }
    print(table(runs))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
