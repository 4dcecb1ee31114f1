"""Soak: mixed POST /answer and POST /translate traffic on 127.0.0.1 for minutes, memory at start and end.

Starts `aspvqa serve` (models loaded at start, ASPVQA_THREADS=1), warms every path once, then for
`--minutes` sends /answer requests at a bounded rate (programs of the bundled bank and GQA
programs in all four syntaxes, without `representation`, on the demo scene graphs and the
uncertain demo scene) while one client keeps one model request in flight: /translate (real GQA
questions when ../shared/data/gqa is present, else the bank's; the four representations in turn),
and every `--question-every`-th an /answer with a question. The service's resident memory is read every 15 s.

Usage: python bench/soak.py [--minutes 10] [--answer-rate 4] [--llm qwen2.5-coder-1.5b | replay:FILE]
Prints a summary and writes bench/results/soak.json (a run shorter than 10 minutes writes
bench/results/soak_short.json).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import ROOT, Service, start_service  # noqa: E402
from theory.operations import REPRESENTATIONS, TEXT_REPRESENTATIONS  # noqa: E402
from theory.program import ProgramError  # noqa: E402
from theory.representations import format_program, parse_program  # noqa: E402
from translators.gqa.gqa_program import format_gqa, gqa_to_program  # noqa: E402

GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR", ROOT / "../shared/data/gqa"))
SAMPLE_EVERY_S = 15.0
REQUEST_TIMEOUT_S = 300.0


def answer_payloads(rng: random.Random) -> list[dict[str, Any]]:
    """/answer bodies: bank programs in every syntax, none naming its representation, on the demo scenes."""
    bank = [json.loads(line) for line in (ROOT / "translators/data/bank.jsonl").read_text().splitlines() if line]
    graphs = json.loads((ROOT / "app/data/demo/scenes.json").read_text())
    facts = (ROOT / "app/data/demo/kitchen_uncertain.lp").read_text()
    payloads = []
    for example in bank:
        program = parse_program(example["program"], "flat")
        for syntax in TEXT_REPRESENTATIONS:
            scene: dict[str, Any] = rng.choice(
                [{"scene_graph": graphs["kitchen"]}, {"scene_graph": graphs["street"]}, {"scene_facts": facts}]
            )
            payloads.append({"program": format_program(program, syntax), **scene})
    # GQA programs (the project's test questions), as compact lines and as JSON
    for record in json.loads((ROOT / "tests/data/gqa_questions.json").read_text()).values():
        text = rng.choice([format_gqa(record["semantic"]), json.dumps(record["semantic"])])
        payloads.append({"program": text, "scene_graph": graphs[rng.choice(["kitchen", "street"])]})
    rng.shuffle(payloads)
    return payloads


def gold_recording(folder: Path, copies: int) -> Path:
    """A replay recording of the GQA gold programs in every representation (`--llm replay`): the
    service's whole translation path runs, with a stand-in for the model's generation."""
    real = GQA_DIR / "questions" / "val_balanced_sample.json"
    source = real if real.is_file() else ROOT / "tests" / "data" / "gqa_questions.json"
    path = folder / "gold.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for record in json.loads(source.read_text()).values():
            try:
                program = gqa_to_program(record["semantic"])
            except ProgramError:
                continue
            texts = {r: format_program(program, r) for r in TEXT_REPRESENTATIONS}
            texts["gqa"] = format_gqa(record["semantic"])
            for representation, text in texts.items():
                line = {"question": record["question"], "representation": representation, "outputs": [text] * copies}
                out.write(json.dumps(line) + "\n")
    return path


def translate_questions() -> list[str]:
    """Real GQA questions when present, else the bank's questions."""
    real = GQA_DIR / "questions" / "val_balanced_sample.json"
    if real.is_file():
        return [q["question"] for q in json.loads(real.read_text()).values()]
    lines = (ROOT / "translators/data/bank.jsonl").read_text().splitlines()
    return [json.loads(line)["question"] for line in lines if line]


class Tally:
    """Status codes, latencies and client-side errors per endpoint, shared by the client threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.codes: dict[str, Counter[int]] = {}
        self.latencies: dict[str, list[float]] = {}
        self.errors: dict[str, list[str]] = {}

    def record(self, name: str, started: float, response: httpx.Response | None, error: str | None = None) -> None:
        with self.lock:
            if response is not None:
                self.codes.setdefault(name, Counter())[response.status_code] += 1
                self.latencies.setdefault(name, []).append(time.perf_counter() - started)
            else:
                self.errors.setdefault(name, []).append(error or "no response")

    def post(self, client: httpx.Client, name: str, path: str, body: dict[str, Any]) -> None:
        started = time.perf_counter()
        try:
            response = client.post(path, json=body, timeout=REQUEST_TIMEOUT_S)
        except httpx.HTTPError as exc:
            self.record(name, started, None, f"{type(exc).__name__}: {exc}")
            return
        self.record(name, started, response)

    def summary(self) -> dict[str, Any]:
        out = {}
        for name in sorted(set(self.codes) | set(self.errors)):
            times = sorted(self.latencies.get(name, []))
            out[name] = {
                "requests": sum(self.codes.get(name, Counter()).values()) + len(self.errors.get(name, [])),
                "status": {str(k): v for k, v in sorted(self.codes.get(name, Counter()).items())},
                "client_errors": len(self.errors.get(name, [])),
                "p50_s": round(statistics.median(times), 3) if times else None,
                "p95_s": round(times[math.ceil(0.95 * len(times)) - 1], 3) if times else None,
                "first_errors": self.errors.get(name, [])[:3],
            }
        return out


def warm(service: Service, payloads: list[dict[str, Any]], question: str, graph: dict[str, Any]) -> None:
    """Every path once, so that lazily built parts are in memory before the first reading."""
    with httpx.Client(base_url=service.url) as client:
        for syntax in REPRESENTATIONS:
            client.post("/translate", json={"question": question, "representation": syntax}, timeout=REQUEST_TIMEOUT_S)
        for body in payloads[:40]:
            client.post("/answer", json=body, timeout=REQUEST_TIMEOUT_S)
        client.post("/answer", json={"question": question, "scene_graph": graph}, timeout=REQUEST_TIMEOUT_S)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--answer-rate", type=float, default=4.0, help="/answer requests per second (bounded)")
    parser.add_argument(
        "--question-every", type=int, default=4, help="every n-th model request is an /answer with a question"
    )
    parser.add_argument(
        "--llm",
        default="qwen2.5-coder-1.5b",
        help="the service's ASPVQA_LLM; 'replay' replays the GQA gold programs (no model generation)",
    )
    parser.add_argument("--model-rate", type=float, default=2.0, help="model requests per second at most")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    payloads = answer_payloads(rng)
    questions = translate_questions()
    graphs = json.loads((ROOT / "app/data/demo/scenes.json").read_text())
    folder = Path(tempfile.mkdtemp(prefix="aspvqa-soak-"))
    log = folder / "service.log"
    llm = f"replay:{gold_recording(folder, copies=5)}" if args.llm == "replay" else args.llm
    env = {"ASPVQA_THREADS": "1", "ASPVQA_LLM": llm}
    started_at = time.perf_counter()
    service = start_service(env, log)
    ready_s = time.perf_counter() - started_at
    print(f"service ready in {ready_s:.1f} s ({args.llm}); log {log}")
    try:
        rss_ready = service.rss_bytes()
        warm(service, payloads, questions[0], graphs["kitchen"])
        rss_start = service.rss_bytes()
        print(f"memory: {rss_ready / 2**20:.0f} MiB ready, {rss_start / 2**20:.0f} MiB after warm-up (start)")
        tally = Tally()
        stop = threading.Event()
        samples: list[tuple[float, int]] = [(0.0, rss_start)]
        t0 = time.perf_counter()

        def translating() -> None:
            # One model request in flight: /translate, and every `question_every`-th an /answer with a question.
            with httpx.Client(base_url=service.url) as client:
                index = 1
                while not stop.is_set():
                    began = time.perf_counter()
                    question = questions[index % len(questions)]
                    if index % args.question_every == 0:
                        body = {"question": question, "scene_graph": graphs["kitchen"]}
                        tally.post(client, "answer_question", "/answer", body)
                    else:
                        syntax = REPRESENTATIONS[index % len(REPRESENTATIONS)]
                        tally.post(client, "translate", "/translate", {"question": question, "representation": syntax})
                    index += 1
                    stop.wait(max(0.0, began + 1 / args.model_rate - time.perf_counter()))

        def sampling() -> None:
            while not stop.wait(SAMPLE_EVERY_S):
                samples.append((round(time.perf_counter() - t0, 1), service.rss_bytes()))

        workers = [threading.Thread(target=translating), threading.Thread(target=sampling)]
        for worker in workers:
            worker.start()
        deadline = t0 + args.minutes * 60
        sent = 0
        with httpx.Client(base_url=service.url) as client, ThreadPoolExecutor(max_workers=4) as pool:
            while time.perf_counter() < deadline:
                pool.submit(tally.post, client, "answer_program", "/answer", payloads[sent % len(payloads)])
                sent += 1
                time.sleep(max(0.0, t0 + sent / args.answer_rate - time.perf_counter()))
            stop.set()
        for worker in workers:
            worker.join()
        duration = time.perf_counter() - t0
        rss_end = service.rss_bytes()
        samples.append((round(duration, 1), rss_end))
        alive = service.process.poll() is None
    finally:
        service.stop()

    summary = tally.summary()
    growth = (rss_end - rss_start) / rss_start
    server_errors = sum(
        v for endpoint in summary.values() for code, v in endpoint["status"].items() if code.startswith("5")
    )
    row = {
        "benchmark": "soak",
        "minutes": round(duration / 60, 2),
        "llm": args.llm,
        "answer_rate_per_s": args.answer_rate,
        "service_ready_s": round(ready_s, 1),
        "rss_mib": {
            "ready": round(rss_ready / 2**20, 1),
            "start": round(rss_start / 2**20, 1),
            "end": round(rss_end / 2**20, 1),
            "peak": round(max(r for _, r in samples) / 2**20, 1),
        },
        "growth_percent": round(100 * growth, 2),
        "samples": [{"t_s": t, "rss_mib": round(r / 2**20, 1)} for t, r in samples],
        "endpoints": summary,
        "server_errors": server_errors,
        "service_alive_at_end": alive,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }
    print(json.dumps({k: v for k, v in row.items() if k != "samples"}, indent=2))
    name = "soak.json" if args.minutes >= 10 else "soak_short.json"
    out = ROOT / "bench" / "results" / name
    out.write_text(json.dumps(row, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
