"""The real service under 1 to 32 concurrent clients (Locust, headless), given programs and questions mixed,
with the scene sent in each request (by value) and stored once and named by its id (by reference).

Starts `aspvqa serve` (default settings: solver worker processes, the bundled model warmed up) on
127.0.0.1. At each step, N clients post `POST /answer` one after another as fast as answers
come, a given program on one of the four real GQA scene graphs, sent in the request. Then the
by-reference steps: the four graphs stored once (`POST /scenes`) and each request naming one by
`scene_id`; in one of them (8 clients) a solver worker is killed with SIGKILL midway, and the
scenes, kept in the service process, must still be there. By reference, a program asked again of
a scene is answered from the answer kept with it (the service's default); `--answers-kept 0` runs
the same steps with none kept, so that every request is solved, as a program new to its scene is. Then the mixed steps: three of every
four requests a given program, the fourth a GQA question (translated by the service) on the same
scene graphs, by value. Each step prints answers/s, p50 and p99 of the given programs, status
codes by kind, the service's memory (its process and its workers) and whether it is still
running. Midway through the mixed 8-client step one solver worker is killed too: the service must
go on.

Targets: the service survives and answers given programs in every step; given programs get only 200s (a killed worker's own
request may get 503); at 8 clients at least 1.5x the answers/s of one client and p99 <= 250 ms;
8 clients by reference at least 3x the answers/s of 8 clients by value in the same run (answers
kept; with `--answers-kept 0` the ratio is printed, not judged);
translation requests over the queue get 503 with Retry-After, not a long wait.

Usage: python bench/service_load.py [--seconds 15] [--clients 1,2,4,8,16,32] [--reference-clients 1,8]
                                    [--reference-kill-clients 8] [--mixed-clients 8,16] [--rounds 1]
                                    [--fresh] [--warm-up-seconds 3] [--answers-kept N] [--out NAME]
(`--clients 16,1,2,4,8 --mixed-clients "" --fresh`: each step on a fresh server;
`--clients 8 --reference-clients 8 --reference-kill-clients "" --mixed-clients "" --rounds 5`: by value and
by reference in turn, five times each, alone;
`--clients "" --mixed-clients 8 --seconds 1800`: half an hour of mixed load.)
Writes bench/results/service_load.json; exits 1 when a target is missed.
"""

from __future__ import annotations

# Locust patches the standard library for gevent when it is imported: first, before anything else.
from locust import FastHttpUser, constant, task  # isort: skip
from locust.env import Environment  # isort: skip

import argparse
import json
import os
import resource
import signal
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gevent
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._questions import LOAD_PROGRAMS as PROGRAMS  # noqa: E402
from bench._questions import scene_graphs, val_questions
from bench._service import ROOT, process_cpu, process_tree, start_service  # noqa: E402

GRAPHS = scene_graphs()
QUESTIONS = val_questions(200, step=5)
# Every how many requests a client asks a question (0: given programs only); set per step.
QUESTION_EVERY = 0
# The stored graphs' ids, in GRAPHS' order, in a by-reference step (empty: each request sends its graph).
SCENE_IDS: list[str] = []
P99_TARGET_S = 0.25
SPEEDUP_TARGET = 1.5
REFERENCE_TARGET = 3.0


class Tally:
    """Status codes by request kind, and the given programs' latencies, for one step."""

    def __init__(self) -> None:
        self.codes: dict[str, Counter[int]] = {"program": Counter(), "question": Counter()}
        self.latencies: list[float] = []
        self.retry_after_ok = True
        self.refusals: Counter[str] = Counter()
        self.refused_latencies: list[float] = []

    def record(self, kind: str, status: int, seconds: float, retry_after: str | None, detail: str) -> None:
        self.codes[kind][status] += 1
        if status != 200:
            self.refusals[f"{kind} {status}: {detail[:80]}"] += 1
        if status == 503 and "queue is full" in detail:  # a full queue's refusal, not a lost worker's request
            self.refused_latencies.append(seconds)
        if kind == "program" and status == 200:
            self.latencies.append(seconds)
        if status == 503 and not retry_after:
            self.retry_after_ok = False


TALLY = Tally()


class Client(FastHttpUser):
    """One client: given programs, and every `QUESTION_EVERY`-th request a question."""

    wait_time = constant(0)

    def on_start(self) -> None:
        self.turn = 0

    @task
    def ask(self) -> None:
        self.turn += 1
        which = self.turn % len(GRAPHS)
        scene: dict[str, Any] = {"scene_id": SCENE_IDS[which]} if SCENE_IDS else {"scene_graph": GRAPHS[which]}
        if not QUESTION_EVERY or self.turn % QUESTION_EVERY:
            kind, body = "program", {"program": PROGRAMS[self.turn % len(PROGRAMS)], **scene}
        else:
            kind, body = "question", {"question": QUESTIONS[self.turn % len(QUESTIONS)], **scene}
        started = time.perf_counter()
        with self.client.post("/answer", json=body, name=kind, catch_response=True) as response:
            seconds = time.perf_counter() - started
            detail = "" if response.status_code == 200 else str((response.json() or {}).get("detail"))
            TALLY.record(kind, response.status_code, seconds, response.headers.get("retry-after"), detail)
            response.success()  # the tally judges; Locust's own failure count would mix kinds


def service_rss(pid: int) -> int:
    """Resident bytes of the service and its worker processes."""
    total = 0
    for p in process_tree(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def worker_pids(pid: int) -> list[int]:
    """The service's solver worker processes."""
    found = []
    for p in process_tree(pid)[1:]:
        try:
            if "spawn_main" in Path(f"/proc/{p}/cmdline").read_text(errors="replace"):
                found.append(p)
        except OSError:
            continue
    return found


def stored_scenes(url: str) -> list[str]:
    """The four graphs stored in the service (POST /scenes), their ids in GRAPHS' order."""
    ids = []
    for graph in GRAPHS:
        response = httpx.post(url + "/scenes", json={"scene_graph": graph}, timeout=60)
        response.raise_for_status()
        assert response.headers["location"] == f"/scenes/{response.json()['id']}"
        ids.append(response.json()["id"])
    return ids


def run_step(
    url: str, clients: int, seconds: float, kill_worker_of: int | None, mixed: bool, scene_ids: list[str]
) -> dict[str, Any]:
    """`clients` Locust users for `seconds`; with `kill_worker_of`, one worker of that pid is killed
    midway; with `scene_ids`, the scenes are named by those ids instead of sent."""
    global TALLY, QUESTION_EVERY, SCENE_IDS
    TALLY = Tally()
    QUESTION_EVERY = 4 if mixed else 0
    SCENE_IDS = scene_ids
    env = Environment(user_classes=[Client], host=url)
    runner = env.create_local_runner()
    runner.start(clients, spawn_rate=clients)
    started = time.perf_counter()
    killed = None
    if kill_worker_of is not None:
        gevent.sleep(seconds / 2)
        workers = worker_pids(kill_worker_of)
        if workers:
            killed = workers[0]
            os.kill(killed, signal.SIGKILL)
        gevent.sleep(seconds / 2)
    else:
        gevent.sleep(seconds)
    wall = time.perf_counter() - started
    runner.stop()
    runner.quit()
    latencies = sorted(TALLY.latencies)

    def percentile(q: float) -> float | None:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else None

    return {
        "clients": clients,
        "mixed": mixed,
        "scenes": "reference" if scene_ids else "value",
        "seconds": round(wall, 1),
        "program_answers_per_s": round(len(latencies) / wall, 1),
        "answers_per_s": round(sum(TALLY.codes["program"].values()) / wall + TALLY.codes["question"][200] / wall, 1),
        "program_p50_s": percentile(0.5),
        "program_p99_s": percentile(0.99),
        "program_codes": dict(TALLY.codes["program"]),
        "question_codes": dict(TALLY.codes["question"]),
        "retry_after_on_every_503": TALLY.retry_after_ok,
        "refusals": dict(TALLY.refusals),
        "refused_p99_s": sorted(TALLY.refused_latencies)[int(0.99 * len(TALLY.refused_latencies))]
        if TALLY.refused_latencies
        else None,
        "killed_worker": killed,
    }


@dataclass(frozen=True)
class Step:
    """One step: how many clients, whether questions are mixed in, whether scenes go by reference,
    and whether a solver worker is killed midway."""

    clients: int
    mixed: bool = False
    by_reference: bool = False
    kill: bool = False

    @property
    def label(self) -> str:
        kind = "mixed" if self.mixed else "by reference" if self.by_reference else "by value"
        return f"{self.clients:>3} clients {kind:12}" + (" kill" if self.kill else "     ")


def steps_of(args: argparse.Namespace) -> list[Step]:
    """The steps the options ask for, in the order they run."""

    def counts(text: str) -> list[int]:
        return [int(c) for c in text.split(",") if c]

    # By value and by reference in turn, `rounds` times: a machine whose other load comes and goes
    # weighs on both alike.
    steps = (
        [Step(c) for c in counts(args.clients)] + [Step(c, by_reference=True) for c in counts(args.reference_clients)]
    ) * args.rounds
    steps += [Step(c, by_reference=True, kill=True) for c in counts(args.reference_kill_clients)]
    return steps + [Step(c, mixed=True, kill=c == 8) for c in counts(args.mixed_clients)]


def cpu_per_request(
    row: dict[str, Any], pid: int, before: dict[int, float], own_before: resource.struct_rusage
) -> dict[str, float]:
    """CPU milliseconds per request of the step, in the service process, its solver processes and
    this client (all on the same cores)."""
    after, own = process_cpu(pid), resource.getrusage(resource.RUSAGE_SELF)
    requests = max(1, sum(row["program_codes"].values()) + sum(row["question_codes"].values()))
    workers = sum(after[p] - before.get(p, 0.0) for p in after if p != pid)
    client = own.ru_utime + own.ru_stime - own_before.ru_utime - own_before.ru_stime
    return {
        "service_cpu_ms_per_request": round((after[pid] - before[pid]) / requests * 1000, 2),
        "workers_cpu_ms_per_request": round(workers / requests * 1000, 2),
        "client_cpu_ms_per_request": round(client / requests * 1000, 2),
    }


def run_steps(
    steps: list[Step], seconds: float, fresh: bool, log: Path, warm_up_s: float, env: dict[str, str]
) -> list[dict[str, Any]]:
    """Each step against the service (one for all, or a fresh one per step); stops at a dead service.
    A fresh service first answers `warm_up_s` of 8 clients' programs, not counted: each solver
    process has then encoded the graphs once, whichever step comes first."""
    rows: list[dict[str, Any]] = []
    service = None
    scene_ids: list[str] = []
    try:
        for step in steps:
            if service is None or fresh:
                if service is not None:
                    service.stop()
                service = start_service(env, log)
                scene_ids = []
                if warm_up_s:
                    run_step(service.url, 8, warm_up_s, None, False, [])
            if step.by_reference and not scene_ids:
                scene_ids = stored_scenes(service.url)
            kill = service.process.pid if step.kill else None
            cpu_before, own_before = process_cpu(service.process.pid), resource.getrusage(resource.RUSAGE_SELF)
            row = run_step(service.url, step.clients, seconds, kill, step.mixed, scene_ids if step.by_reference else [])
            row |= cpu_per_request(row, service.process.pid, cpu_before, own_before)
            row["rss_mb"] = round(service_rss(service.process.pid) / 2**20)
            row["survived"] = service.process.poll() is None
            rows.append(row)
            p50 = row["program_p50_s"] or 0.0
            p99 = row["program_p99_s"] or 0.0
            print(
                f"{step.label}  {row['program_answers_per_s']:6.1f} program answers/s  "
                f"p50 {p50 * 1000:5.0f} ms  p99 {p99 * 1000:5.0f} ms  programs {row['program_codes']}  "
                f"questions {row['question_codes']}  CPU ms/request: service {row['service_cpu_ms_per_request']}, "
                f"solvers {row['workers_cpu_ms_per_request']}, clients {row['client_cpu_ms_per_request']}  "
                f"RSS {row['rss_mb']} MB  "
                f"{'alive' if row['survived'] else 'DEAD'}"
                + (f"  (killed worker {row['killed_worker']})" if row["killed_worker"] else ""),
                flush=True,
            )
            if not row["survived"]:
                break
    finally:
        if service is not None:
            service.stop()
    return rows


def checks_of(rows: list[dict[str, Any]], steps: list[Step], answers_kept: bool) -> dict[str, bool]:
    """Each target, named with the figure it was judged on (a step run in several rounds: its rounds' mean
    answers/s and their highest p99). Without answers kept the by-reference ratio is printed only."""
    by_value = _rounds([r for r in rows if not r["mixed"] and r["scenes"] == "value"])
    by_reference = _rounds([r for r in rows if r["scenes"] == "reference" and not r["killed_worker"]])
    one, eight = by_value.get(1), by_value.get(8)
    checks = {"the service survived every step": all(r["survived"] for r in rows) and len(rows) == len(steps)}
    # Alive is not enough: a service whose every request hangs is alive too.
    checks["the service answered given programs in every step"] = all(r["program_answers_per_s"] > 0 for r in rows)
    checks["given programs: only 200s (503 only for a killed worker's own request)"] = all(
        set(r["program_codes"]) <= {200}
        or (r["killed_worker"] and set(r["program_codes"]) <= {200, 503} and r["program_codes"].get(503, 0) <= 2)
        for r in rows
    )
    checks["every 503 has Retry-After"] = all(r["retry_after_on_every_503"] for r in rows)
    refused = [r["refused_p99_s"] for r in rows if r["refused_p99_s"] is not None]
    if refused:
        checks[f"a full queue's 503 within 100 ms (p99 {max(refused) * 1000:.0f} ms)"] = max(refused) <= 0.1
    if one and eight:
        ratio = eight["program_answers_per_s"] / max(one["program_answers_per_s"], 1e-9)
        checks[f"8 clients >= {SPEEDUP_TARGET}x one client's answers/s ({ratio:.2f}x)"] = ratio >= SPEEDUP_TARGET
        p99 = eight["program_p99_s"] or float("inf")
        checks[f"8 clients: given-program p99 <= {P99_TARGET_S * 1000:.0f} ms ({p99 * 1000:.0f} ms)"] = (
            p99 <= P99_TARGET_S
        )
    if eight and 8 in by_reference:
        ratio = by_reference[8]["program_answers_per_s"] / max(eight["program_answers_per_s"], 1e-9)
        if not answers_kept:
            print(f"8 clients by reference, every request solved: {ratio:.2f}x by value's answers/s (not judged)")
            return checks
        checks[f"8 clients by reference >= {REFERENCE_TARGET:g}x by value's answers/s ({ratio:.2f}x)"] = (
            ratio >= REFERENCE_TARGET
        )
    return checks


def _rounds(rows: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The rows by clients, the rounds of one step as one: mean answers/s, highest p99."""
    merged: dict[int, dict[str, Any]] = {}
    for clients in sorted({r["clients"] for r in rows}):
        same = [r for r in rows if r["clients"] == clients]
        merged[clients] = {
            "program_answers_per_s": statistics.mean(r["program_answers_per_s"] for r in same),
            "program_p99_s": max((r["program_p99_s"] or float("inf")) for r in same),
        }
    return merged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--clients", default="1,2,4,8,16,32", help="steps with each scene sent in the request")
    parser.add_argument("--reference-clients", default="1,8", help="steps with the scenes stored and named by id")
    parser.add_argument("--reference-kill-clients", default="8", help="by reference, a solver worker killed midway")
    parser.add_argument("--mixed-clients", default="8,16", help="steps with questions among the programs")
    parser.add_argument("--rounds", type=int, default=1, help="the by-value and by-reference steps, in turn")
    parser.add_argument("--fresh", action="store_true", help="a fresh server for every step")
    parser.add_argument("--warm-up-seconds", type=float, default=3.0, help="load not counted on a fresh server")
    parser.add_argument(
        "--answers-kept", type=int, default=None, help="ASPVQA_SCENE_STORE_ANSWERS for the service (default: its own)"
    )
    parser.add_argument("--out", default="service_load", help="name of the results file")
    args = parser.parse_args()
    steps = steps_of(args)
    log = ROOT / "bench" / "results" / f"{args.out}.log"
    env = {} if args.answers_kept is None else {"ASPVQA_SCENE_STORE_ANSWERS": str(args.answers_kept)}
    rows = run_steps(steps, args.seconds, args.fresh, log, args.warm_up_seconds, env)
    checks = checks_of(rows, steps, answers_kept=args.answers_kept != 0)
    print("load average (1, 5, 15 min): " + ", ".join(f"{load:.2f}" for load in os.getloadavg()))
    for check, ok in checks.items():
        print(f"  {'ok  ' if ok else 'MISS'} {check}")
    out = ROOT / "bench" / "results" / f"{args.out}.json"
    results = {"load_average": os.getloadavg(), "answers_kept": args.answers_kept, "steps": rows, "checks": checks}
    out.write_text(json.dumps(results, indent=2))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
