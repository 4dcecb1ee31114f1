"""Hostile but valid requests against the real service, with a well-behaved client beside them.

Starts `aspvqa serve` (default settings: solver worker processes; the scene store bounded at
`STORE_MAX_BYTES`) on 127.0.0.1. One client keeps asking a given program on a real GQA scene
graph the whole time, in turn sending the graph and naming it stored (`scene_id`). Meanwhile,
first, pairs of hostile requests arrive at once: a scene graph of 300 objects each `near` every
other with a relate over it, the same as 400 objects in scene facts text (160,800 facts, within
the limit: the text is read and solved) and as 600 objects (8 MB, over it), and a chain of 150
relate steps over 200 related objects. Then, once the solver processes ended at the deadline are
replaced, two clients fill the scene store: 60 distinct scene graphs of 150 related objects and
scene facts of 400, each megabytes, far more than the store holds, while the store's fill
(GET /scenes) and the service's memory are read every 200 ms. Targets: each hostile request is
answered (result, 413/422 or 504) within the solve limit plus 1 s; every store request is
answered 201; the well-behaved client gets only 200s with p99 <= 250 ms in each phase; the store
never counts more than its bound; the service's resident memory grows by at most the bound and
64 MB (two scenes in flight, parsed, and the pages the allocator keeps), and by at most 32 MB
once the store first holds 90 % of its bound (from then on it evicts, and a store that kept what
it evicted would grow on); the
service's processes are idle again within 2 s of the last answer.

Usage: python bench/hostile.py [--scenes N]   (prints a table, writes bench/results/hostile.json, or
hostile_scenes<N>.json for another number of scenes, with the memory's trace; exits 1 on a miss)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._hostile import NEAR_PROGRAM, relate_chain, related_scene  # noqa: E402
from bench._questions import scene_graphs  # noqa: E402
from bench._service import ROOT, process_cpu, start_service  # noqa: E402

SOLVE_LIMIT_S = 10.0
GOOD_PROGRAM = "query(unique(select(scene(), sky)), color)"
GOOD_P99_S = 0.25
IDLE_WITHIN_S = 2.0
PAIRS = 2
# The scene store's bound for this run, and what the filling clients post (several times more).
STORE_MAX_BYTES = 48 * 2**20
FILLER_SCENES = 60
FILLER_GRAPH_OBJECTS = 150
RSS_ROOM_MB = 64
RSS_FLAT_MB = 32
# The share of its bound at which the store counts as full: one more large scene evicts another.
FULL_SHARE = 0.9
PHASES = ("hostile requests", "store filled")


def facts_text(objects: int, salt: str = "") -> str:
    """The related scene of `objects` objects as scene facts text (600: about 8 MB); `salt` names the first
    object otherwise, so that each salt is a scene of its own."""
    lines = [f"object({i}). has_attr({i},class,thing). has_attr({i},name,thing)." for i in range(objects)]
    if salt:
        lines[0] = f"object(0). has_attr(0,class,thing). has_attr(0,name,thing_{salt})."
    lines += [f"has_rel({i},near,{j})." for i in range(objects) for j in range(objects) if i != j]
    return "\n".join(lines)


def filler_scene(turn: int) -> dict[str, Any]:
    """A large scene of its own for POST /scenes: 150 related objects as a graph, or 400 as facts."""
    if turn % 2:
        return {"scene_facts": facts_text(400, salt=str(turn))}
    graph = related_scene(FILLER_GRAPH_OBJECTS)
    graph["objects"]["0"]["name"] = f"thing_{turn}"
    return {"scene_graph": graph}


class WellBehaved:
    """The well-behaved client: a given program on a GQA graph, sent and named stored in turn, timed by phase."""

    def __init__(self, url: str, graph: dict[str, Any]) -> None:
        self.url = url
        self.graph = graph
        self.phase = "hostile requests"
        self.answers: dict[str, list[tuple[float, int, str, str]]] = {}  # seconds, status, detail, how sent
        self.stop = threading.Event()
        self.scene_id = httpx.post(url + "/scenes", json={"scene_graph": graph}, timeout=60).json()["id"]

    def run(self) -> None:
        turn = 0
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while not self.stop.is_set():
                turn += 1
                sent = "reference" if turn % 2 else "value"
                scene = {"scene_id": self.scene_id} if turn % 2 else {"scene_graph": self.graph}
                started = time.perf_counter()
                response = client.post("/answer", json={"program": GOOD_PROGRAM, **scene})
                seconds = time.perf_counter() - started
                detail = "" if response.status_code == 200 else str(response.json().get("detail"))[:80]
                self.answers.setdefault(self.phase, []).append((seconds, response.status_code, detail, sent))

    def summary(self, phase: str) -> dict[str, Any]:
        """Answers, status codes, p50 and p99 of one phase."""
        rows = self.answers.get(phase, [])
        latencies = sorted(t for t, _, _, _ in rows)
        codes: dict[str, int] = {}
        for _, status, _, _ in rows:
            codes[str(status)] = codes.get(str(status), 0) + 1
        return {
            "answers": len(rows),
            "codes": codes,
            "p50_s": statistics.median(latencies) if latencies else None,
            "p99_s": _p99(latencies),
            "p99_by_value_s": _p99(sorted(t for t, _, _, sent in rows if sent == "value")),
            "p99_by_reference_s": _p99(sorted(t for t, _, _, sent in rows if sent == "reference")),
            "refusals": sorted({d for _, s, d, _ in rows if s != 200}),
        }


def _p99(latencies: list[float]) -> float:
    return latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] if latencies else float("inf")


def hostile_pairs(url: str) -> list[dict[str, Any]]:
    """Each hostile request, twice at once, `PAIRS` times."""
    graph_body = {"program": NEAR_PROGRAM, "scene_graph": related_scene(300)}
    hostile: list[tuple[str, dict[str, Any]]] = [
        ("300 related objects (scene graph)", graph_body),
        ("400 related objects (scene facts, 3.5 MB)", {"program": NEAR_PROGRAM, "scene_facts": facts_text(400)}),
        ("600 related objects (scene facts, 8 MB)", {"program": NEAR_PROGRAM, "scene_facts": facts_text(600)}),
        (
            "150 relate steps over 200 related objects",
            {"program": relate_chain(150), "scene_graph": related_scene(200)},
        ),
    ]
    bodies = [(name, json.dumps(body, separators=(",", ":")).encode()) for name, body in hostile]

    def send(name: str, body: bytes) -> dict[str, Any]:
        started = time.perf_counter()
        response = httpx.post(url + "/answer", content=body, headers={"content-type": "application/json"}, timeout=120)
        detail = response.json().get("detail") or response.json().get("status")
        return {
            "request": name,
            "status": response.status_code,
            "seconds": time.perf_counter() - started,
            "detail": detail,
        }

    rows: list[dict[str, Any]] = []
    for _ in range(PAIRS):
        for name, body in bodies:
            with ThreadPoolExecutor(2) as pool:
                rows += list(pool.map(send, [name, name], [body, body]))
    return rows


class Reading(NamedTuple):
    """One look at the service while the store fills: seconds since the filling began, the bytes the
    store counts, and the service's resident bytes."""

    seconds: float
    stored: int
    rss: int


def fill_store(url: str, pid: int, scenes: int = FILLER_SCENES) -> dict[str, Any]:
    """Two clients store `scenes` large scenes between them; the store's fill and the service's
    memory read every 200 ms meanwhile."""
    bodies = [json.dumps(filler_scene(turn), separators=(",", ":")).encode() for turn in range(scenes)]
    readings: list[Reading] = []
    done = threading.Event()
    started = time.monotonic()

    def watch() -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            while not done.is_set():
                stored = client.get("/scenes").json()["store"]["bytes"]
                readings.append(Reading(time.monotonic() - started, stored, rss_bytes(pid)))
                time.sleep(0.2)

    def store(body: bytes) -> tuple[int, float, int]:
        started = time.perf_counter()
        response = httpx.post(url + "/scenes", content=body, headers={"content-type": "application/json"}, timeout=120)
        return response.status_code, time.perf_counter() - started, len(body)

    rss_before = rss_bytes(pid)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    with ThreadPoolExecutor(2) as pool:
        stored = list(pool.map(store, bodies))
    done.set()
    watcher.join(timeout=30)
    final = httpx.get(url + "/scenes", timeout=30).json()["store"]
    return {
        "scenes_posted": len(stored),
        "megabytes_posted": round(sum(size for _, _, size in stored) / 2**20, 1),
        "statuses": sorted({status for status, _, _ in stored}),
        "post_p50_s": statistics.median(seconds for _, seconds, _ in stored),
        "store_max_bytes": STORE_MAX_BYTES,
        "store_bytes_max_seen": max(r.stored for r in readings),
        "store_final": final,
        "rss_before_mb": round(rss_before / 2**20),
        "rss_growth_max_mb": round((max(r.rss for r in readings) - rss_before) / 2**20),
        "rss_growth_once_full_mb": growth_once_full(readings),
        # What the check read before: the growth after the first third of the *readings*, which can end
        # before the store is full (20 readings in 4 s), so that the store's own filling was counted.
        "rss_growth_after_first_third_of_readings_mb": round(
            (max(r.rss for r in readings[len(readings) // 3 :]) - max(r.rss for r in readings[: len(readings) // 3]))
            / 2**20
        ),
        "readings": len(readings),
        "readings_once_full": sum(1 for r in readings if r.stored >= FULL_SHARE * STORE_MAX_BYTES),
        # (seconds since the filling began, MB the service grew by): where its memory levels off.
        "rss_trace_mb": [[round(r.seconds, 1), round((r.rss - rss_before) / 2**20)] for r in readings],
    }


def growth_once_full(readings: list[Reading]) -> int | None:
    """MB the service's memory grew after the store first held `FULL_SHARE` of its bound (None if it
    never did): the store evicts from then on, and one that kept what it evicted would grow on."""
    full_at = next((i for i, r in enumerate(readings) if r.stored >= FULL_SHARE * STORE_MAX_BYTES), None)
    if full_at is None:
        return None
    at_full = max(r.rss for r in readings[: full_at + 1])
    return round((max(r.rss for r in readings[full_at:]) - at_full) / 2**20)


def settle(pid: int, first_pids: set[int], limit_s: float = 60.0) -> float:
    """Seconds until the processes started after `first_pids` (replacement workers) have started: none
    busy more than 40 % of half a second (one starting loads WordNet at a whole core; one serving
    the well-behaved client uses a few per cent)."""
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        before = process_cpu(pid)
        time.sleep(0.5)
        after = process_cpu(pid)
        if all(after[p] - before.get(p, 0.0) < 0.2 for p in after if p not in first_pids):
            break
    return time.monotonic() - started


def rss_bytes(pid: int) -> int:
    """Resident bytes of the service process alone (the store lives there, not in the workers)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def idle_cpu(pid: int, first_pids: set[int]) -> tuple[float, float]:
    """CPU seconds over one second of the processes there from the start, and of replacement workers."""
    before = process_cpu(pid)
    time.sleep(1.0)
    after = process_cpu(pid)
    # The processes that were there before the hostile requests (the service and its idle
    # workers) must be idle; workers started in place of ended ones load WordNet (about 5 s of
    # CPU each), which is reported apart.
    busy_after = sum(after[p] - before.get(p, after[p]) for p in after if p in first_pids)
    warming = sum(after[p] - before.get(p, 0.0) for p in after if p not in first_pids)
    return busy_after, warming


def report(
    rows: list[dict[str, Any]], client: WellBehaved, filled: dict[str, Any], busy: float, warming: float
) -> None:
    print(f"{'hostile request':45} {'status':>6} {'seconds':>8}  detail")
    for row in rows:
        print(f"{row['request']:45} {row['status']:>6} {row['seconds']:8.2f}  {str(row['detail'])[:70]}")
    print(
        f"\nscene store filled: {filled['scenes_posted']} scenes, {filled['megabytes_posted']} MB posted "
        f"(statuses {filled['statuses']}, p50 {filled['post_p50_s']:.2f} s each); the store counted at most "
        f"{filled['store_bytes_max_seen'] / 2**20:.1f} MB of its {STORE_MAX_BYTES / 2**20:.0f} MB, ending with "
        f"{filled['store_final']['scenes']} scenes; service RSS {filled['rss_before_mb']} MB before, grew by at most "
        f"{filled['rss_growth_max_mb']} MB, {filled['rss_growth_once_full_mb']} MB of it once the store was full "
        f"({filled['rss_growth_after_first_third_of_readings_mb']} MB after the first third of the readings)"
    )
    for phase in PHASES:
        good = client.summary(phase)
        p50 = (good["p50_s"] or 0.0) * 1000
        print(
            f"well-behaved client, {phase}: {good['answers']} answers, codes {good['codes']}, "
            f"p50 {p50:.0f} ms, p99 {good['p99_s'] * 1000:.0f} ms (target <= {GOOD_P99_S * 1000:.0f} ms; "
            f"sent {good['p99_by_value_s'] * 1000:.0f} ms, stored {good['p99_by_reference_s'] * 1000:.0f} ms)"
        )
    print(
        f"CPU in the second from {IDLE_WITHIN_S:g} s after the last answer: the service and its first workers "
        f"{busy:.2f} s (target < 0.2); replacement workers starting up {warming:.2f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scenes",
        type=int,
        default=FILLER_SCENES,
        help=f"scenes the two clients store ({FILLER_SCENES}); another number writes hostile_scenes<N>.json",
    )
    args = parser.parse_args()
    env = {"ASPVQA_SOLVE_TIMEOUT_S": str(SOLVE_LIMIT_S), "ASPVQA_SCENE_STORE_MAX_BYTES": str(STORE_MAX_BYTES)}
    service = start_service(env, ROOT / "bench" / "results" / "hostile_service.log")
    try:
        client = WellBehaved(service.url, scene_graphs()[0])
        thread = threading.Thread(target=client.run, daemon=True)
        thread.start()
        time.sleep(2.0)
        first_pids = set(process_cpu(service.process.pid))
        rows = hostile_pairs(service.url)
        # Solver processes ended at the deadline are replaced, each loading WordNet (seconds of CPU on
        # two cores): the store is filled once they are up, so that its phase measures the store.
        settled_s = settle(service.process.pid, first_pids)
        client.phase = "store filled"
        filled = fill_store(service.url, service.process.pid, args.scenes)
        last_answer = time.monotonic()
        # The service's CPU over the second after the idle deadline: the hostile work must be gone.
        time.sleep(max(0.0, last_answer + IDLE_WITHIN_S - time.monotonic()))
        client.stop.set()
        thread.join(timeout=30)
        busy_after, warming = idle_cpu(service.process.pid, first_pids)
        survived = service.process.poll() is None
    finally:
        service.stop()

    report(rows, client, filled, busy_after, warming)
    bound = SOLVE_LIMIT_S + 1.0
    checks = {
        f"every hostile request answered (2xx/413/422/504) within {bound:g} s": all(
            r["seconds"] <= bound and r["status"] in (200, 413, 422, 504) for r in rows
        ),
        "every large scene stored (201)": filled["statuses"] == [201],
        f"the store never counted more than its {STORE_MAX_BYTES / 2**20:.0f} MB": filled["store_bytes_max_seen"]
        <= STORE_MAX_BYTES,
        # The bound, and room for two scenes in flight (their bodies, parsed) and the pages the allocator keeps.
        f"service RSS grew by at most the store's bound + {RSS_ROOM_MB} MB ({filled['rss_growth_max_mb']} MB)": filled[
            "rss_growth_max_mb"
        ]
        <= STORE_MAX_BYTES / 2**20 + RSS_ROOM_MB,
        f"service RSS flat once the store is full: <= {RSS_FLAT_MB} MB more "
        f"({filled['rss_growth_once_full_mb']} MB)": filled["rss_growth_once_full_mb"] is not None
        and filled["rss_growth_once_full_mb"] <= RSS_FLAT_MB,
        f"idle within {IDLE_WITHIN_S:g} s of the last answer": busy_after < 0.2,
        "service process survived": survived,
    }
    for phase in PHASES:
        good = client.summary(phase)
        checks[f"well-behaved client, {phase}: only 200s"] = set(good["codes"]) == {"200"}
        checks[f"well-behaved client, {phase}: p99 <= {GOOD_P99_S * 1000:.0f} ms"] = good["p99_s"] <= GOOD_P99_S
    for check, ok in checks.items():
        print(f"  {'ok  ' if ok else 'MISS'} {check}")
    name = "hostile.json" if args.scenes == FILLER_SCENES else f"hostile_scenes{args.scenes}.json"
    out = ROOT / "bench" / "results" / name
    out.write_text(
        json.dumps(
            {
                "solve_limit_s": SOLVE_LIMIT_S,
                "load_average": os.getloadavg(),
                "hostile": rows,
                "well_behaved": {phase: client.summary(phase) for phase in PHASES},
                "store_filled": filled,
                "seconds_until_replacement_workers_idle": settled_s,
                "cpu_seconds_after_idle_deadline": busy_after,
                "replacement_workers_startup_cpu_seconds": warming,
                "checks": checks,
            },
            indent=2,
        )
    )
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
