"""kill -9 mid-work, then restart: nothing lost, nothing duplicated.

Three scenarios, each against an uninterrupted reference:
- service: `aspvqa serve` (ASPVQA_THREADS=1) is killed while /answer requests (some taking
  seconds of solving) and /translate requests are in flight, three times at different moments; after each restart the client sends
  again every request that got no response. Every request must end with exactly one 200 response
  whose body matches the reference pass (answers, or the translated flat program).
- evaluation: `aspvqa evaluate` (public CLI; oracle, asp-oracle and isolated settings with a local
  model, 2 worker processes) is killed with SIGKILL on its main process three times as its results
  grow, then run again to the end. The results must hold each (run, setting, question) once,
  every line whole, and equal the reference run's records (timings aside). Worker processes left
  running after their parent's death are counted, then ended.
- model-join: joining the bundled model's parts on first use is killed half-way; no joined file
  may appear, and the next start joins and verifies it, removing the abandoned partial file.

Usage: python bench/crash_restart.py [--only service,evaluation,model-join] [--eval-llm smollm2-135m]
Prints each check and writes bench/results/crash_restart.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import ROOT, Service, start_service  # noqa: E402
from bench.soak import gold_recording, translate_questions  # noqa: E402
from theory.representations import format_program, parse_program  # noqa: E402

GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR", ROOT / "../shared/data/gqa"))
QUESTIONS = ROOT / "tests" / "data" / "gqa_questions.json"
GRAPHS = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
TIMEOUT_S = 300.0


# --- service -----------------------------------------------------------------------------------------
def heavy_scene(objects: int) -> str:
    """Uncertain colours of many balls: asking whether all differ takes the solver a second or more."""
    lines = []
    for oid in range(1, objects + 1):
        lines.append(f"object({oid}). has_attr({oid},class,ball).")
        for j, color in enumerate(["red", "green", "blue", "pink"]):
            p = ((oid * 7 + j * 13) % 97) / 100 + 0.01
            atom = f"has_attr({oid},color,{color})"
            on, off = int(min(-1000 * math.log(p), 5000)), int(min(-1000 * math.log(1 - p), 5000))
            lines.append(f"{{ {atom} }}. :~ {atom}. [{on},{atom},1] :~ not {atom}. [{off},{atom},0]")
    return "\n".join(lines)


def service_requests(questions: list[str]) -> list[tuple[str, str, dict[str, Any]]]:
    """(id, path, body): four slow answers (seconds of solving), three translations and forty answers
    in every syntax on the demo scenes."""
    graphs = json.loads((ROOT / "app/data/demo/scenes.json").read_text())
    bank = [json.loads(line) for line in (ROOT / "translators/data/bank.jsonl").read_text().splitlines() if line]
    slow = {"program": "all_different(select(scene(), ball), color)", "scene_facts": heavy_scene(18)}
    requests: list[tuple[str, str, dict[str, Any]]] = [(f"s{i}", "/answer", slow) for i in range(4)]
    requests += [(f"t{i}", "/translate", {"question": q}) for i, q in enumerate(questions[:3])]
    for i, example in enumerate(bank[:40]):
        program = format_program(parse_program(example["program"], "flat"), ("flat", "nested", "code")[i % 3])
        graph = graphs["kitchen" if i % 2 else "street"]
        requests.append((f"a{i}", "/answer", {"program": program, "scene_graph": graph}))
    return requests


def essence(path: str, body: dict[str, Any]) -> Any:
    """What must not change between runs: the answers, or the translated program."""
    if path == "/translate":
        return body["flat"]
    return [(a["answer"], a["cost"]) for a in body["answers"]], body["status"]


def send_all(
    service: Service, requests: list[tuple[str, str, dict[str, Any]]], kill_after_s: float | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """Send every request at once (translations first); kill the service after `kill_after_s` if given.

    Returns the 200 responses' essence by id and the failures by id.
    """
    answered: dict[str, Any] = {}
    failed: dict[str, str] = {}
    lock = threading.Lock()

    def one(request_id: str, path: str, body: dict[str, Any]) -> None:
        try:
            response = httpx.post(service.url + path, json=body, timeout=TIMEOUT_S)
        except httpx.HTTPError as exc:
            with lock:
                failed[request_id] = type(exc).__name__
            return
        with lock:
            if response.status_code == 200:
                if request_id in answered:
                    failed[request_id] = "answered twice"
                answered[request_id] = essence(path, response.json())
            else:
                failed[request_id] = f"HTTP {response.status_code}: {response.text[:200]}"

    threads = [threading.Thread(target=one, args=r) for r in requests]
    for thread in threads:
        thread.start()
        time.sleep(0.02)  # a steady stream rather than one burst
    if kill_after_s is not None:
        time.sleep(kill_after_s)
        service.kill9()
    for thread in threads:
        thread.join()
    return answered, failed


def service_scenario(llm: str, work: Path) -> dict[str, Any]:
    requests = service_requests(translate_questions())
    by_id = {r[0]: r for r in requests}
    work.mkdir(parents=True, exist_ok=True)
    model = f"replay:{gold_recording(work, copies=20)}" if llm == "replay" else llm
    env = {"ASPVQA_THREADS": "1", "ASPVQA_LLM": model}
    log = work / "service.log"
    started = time.perf_counter()
    service = start_service(env, log)
    first_ready_s = time.perf_counter() - started
    reference, failures = send_all(service, requests, None)
    if failures:
        service.stop()
        raise RuntimeError(f"the reference pass failed: {failures}")
    cycles = []
    try:
        for kill_after_s in (0.5, 2.0, 5.0):
            answered, failed = send_all(service, requests, kill_after_s)
            in_flight = sorted(failed)
            started = time.perf_counter()
            service = start_service(env, log, port=service.port)
            restart_s = time.perf_counter() - started
            # the client sends again what got no answer; the rest keeps its first answer
            again, still_failed = send_all(service, [by_id[i] for i in in_flight], None)
            duplicated = sorted(set(again) & set(answered))
            answered.update(again)
            lost = sorted(set(by_id) - set(answered))
            differing = sorted(i for i in answered if answered[i] != reference[i])
            cycle = {
                "kill_after_s": kill_after_s,
                "answered_before_kill": len(by_id) - len(in_flight),
                "without_response_at_kill": len(in_flight),
                "translations_in_flight": sum(1 for i in in_flight if i.startswith("t")),
                "restart_to_ready_s": round(restart_s, 1),
                "answered_after_restart": len(again),
                "lost": lost,
                "duplicated": duplicated,
                "differing_from_reference": differing,
                "failed_after_restart": still_failed,
            }
            cycles.append(cycle)
            print(f"service: {json.dumps(cycle)}")
    finally:
        service.stop()
    return {
        "llm": llm,
        "requests": len(requests),
        "first_start_to_ready_s": round(first_ready_s, 1),
        "cycles": cycles,
        "ok": all(not (c["lost"] or c["duplicated"] or c["differing_from_reference"]) for c in cycles),
    }


# --- evaluation job ------------------------------------------------------------------------------------
def evaluate_command(out: Path, llm: str) -> list[str]:
    return [
        sys.executable, "-m", "app", "evaluate", "-q", str(QUESTIONS), "-g", str(GRAPHS),
        "-s", "oracle,asp-oracle,isolated", "--llm", llm, "-w", "2", "--no-progress", "--no-report", "-o", str(out),
    ]  # fmt: skip


def read_lines(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The records of a results file and how many of its lines are not whole JSON records."""
    records, torn = [], 0
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                torn += 1
    return records, torn


def group_members(group: int) -> list[int]:
    """Processes of a process group still running."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == group and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def keyed(records: list[dict[str, Any]]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(r["run"], r["setting"], r["questionId"]): {k: v for k, v in r.items() if k != "seconds"} for r in records}


def evaluation_scenario(llm: str, work: Path) -> dict[str, Any]:
    if not GRAPHS.is_file():
        return {"skipped": f"GQA scene graphs not in {GRAPHS.parent}"}
    env = dict(os.environ, ASPVQA_THREADS="1")
    reference_dir = work / "reference"
    started = time.perf_counter()
    subprocess.run(evaluate_command(reference_dir, llm), cwd=ROOT, env=env, check=True, capture_output=True)
    reference_s = time.perf_counter() - started
    reference, _ = read_lines(reference_dir / "results.jsonl")
    expected = len(reference)

    killed_dir = work / "killed"
    results = killed_dir / "results.jsonl"
    kills = []
    for fraction in (0.1, 0.4, 0.75):
        threshold = max(1, int(fraction * expected))
        process = subprocess.Popen(
            evaluate_command(killed_dir, llm), cwd=ROOT, env=env, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 900
        while process.poll() is None and time.monotonic() < deadline:
            if results.is_file() and results.read_bytes().count(b"\n") >= threshold:
                break
            time.sleep(0.01)
        if process.poll() is not None:
            raise RuntimeError("the evaluation ended before it could be killed")
        os.kill(process.pid, signal.SIGKILL)  # the main process only, as `kill -9 PID` does
        process.wait(timeout=30)
        time.sleep(3)
        orphans = group_members(process.pid)
        for pid in orphans:
            os.kill(pid, signal.SIGKILL)
        records, torn = read_lines(results)
        kills.append(
            {
                "after_records": threshold,
                "records_at_kill": len(records),
                "torn_lines": torn,
                "workers_left": len(orphans),
            }
        )
        print(f"evaluation: {json.dumps(kills[-1])}")
    resumed = subprocess.run(evaluate_command(killed_dir, llm), cwd=ROOT, env=env, capture_output=True, text=True)
    final, torn = read_lines(results)
    keys = [(r["run"], r["setting"], r["questionId"]) for r in final]
    mine, theirs = keyed(final), keyed(reference)
    summary = {
        "llm": llm,
        "expected_records": expected,
        "reference_run_s": round(reference_s, 1),
        "kills": kills,
        "resumed_exit_status": resumed.returncode,
        "resumed_output": resumed.stdout.strip().splitlines()[-1:] if resumed.stdout else [],
        "final_records": len(final),
        "torn_lines_at_end": torn,
        "duplicated": len(keys) - len(set(keys)),
        "lost": len(set(theirs) - set(mine)),
        "differing_from_reference": sorted(f"{k[1]}/{k[2]}" for k in set(mine) & set(theirs) if mine[k] != theirs[k]),
    }
    summary["ok"] = (
        resumed.returncode == 0
        and not summary["duplicated"]
        and not summary["lost"]
        and not torn
        and not summary["differing_from_reference"]
        and len(final) == expected
    )
    return summary


# --- model join --------------------------------------------------------------------------------------------
JOIN = "from translators.model.backends.models import model_path; print(model_path('qwen2.5-coder-1.5b'))"


def model_join_scenario(work: Path) -> dict[str, Any]:
    cache = work / "cache"
    env = dict(os.environ, ASPVQA_CACHE_DIR=str(cache))
    folder = cache / "models"
    process = subprocess.Popen([sys.executable, "-c", JOIN], cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    partial_bytes = 0
    while time.monotonic() < deadline and process.poll() is None:
        partials = list(folder.glob("*.partial")) if folder.is_dir() else []
        partial_bytes = sum(p.stat().st_size for p in partials)
        if partial_bytes > 300 * 2**20:
            break
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    after_kill = sorted(p.name for p in folder.iterdir())
    joined_after_kill = [n for n in after_kill if n.endswith(".gguf")]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", JOIN], cwd=ROOT, env=env, capture_output=True, text=True)
    rejoin_s = time.perf_counter() - started
    after_restart = sorted(p.name for p in folder.iterdir())
    summary = {
        "partial_mib_at_kill": round(partial_bytes / 2**20),
        "files_after_kill": after_kill,
        "joined_file_after_kill": joined_after_kill,
        "restart_exit_status": done.returncode,
        "restart_join_and_verify_s": round(rejoin_s, 1),
        "files_after_restart": after_restart,
    }
    summary["ok"] = (
        not joined_after_kill
        and done.returncode == 0
        and not [n for n in after_restart if n.endswith(".partial")]
        and any(n.endswith(".gguf") for n in after_restart)
    )
    print(f"model-join: {json.dumps(summary)}")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="service,evaluation,model-join")
    parser.add_argument(
        "--llm", default="replay", help="the service's model; 'replay' replays the GQA gold programs (see soak.py)"
    )
    parser.add_argument("--eval-llm", default="smollm2-135m", help="the evaluation's model (isolated setting)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    chosen = set(args.only.split(","))
    out_file = ROOT / "bench" / "results" / "crash_restart.json"
    results: dict[str, Any] = json.loads(out_file.read_text()) if out_file.is_file() else {}
    with tempfile.TemporaryDirectory(prefix="aspvqa-crash-") as folder:
        work = Path(folder)
        if "model-join" in chosen:
            results["model_join"] = model_join_scenario(work / "join")
        if "service" in chosen:
            results["service"] = service_scenario(args.llm, work / "service")
            print(f"service ok: {results['service']['ok']}")
        if "evaluation" in chosen:
            results["evaluation"] = evaluation_scenario(args.eval_llm, work / "evaluation")
            print(f"evaluation: {json.dumps(results['evaluation'])}")
    results["benchmark"] = "crash_restart"
    if not args.no_write:
        out_file.write_text(json.dumps(results, indent=2) + "\n")
    if not all(v.get("ok", True) for v in results.values() if isinstance(v, dict)):
        sys.exit(1)


if __name__ == "__main__":
    main()
