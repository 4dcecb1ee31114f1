"""Load check: 200 concurrent POST /answer (scene graph + given program) against a local server.

Starts `aspvqa serve` on 127.0.0.1, fires the requests at once (bounded count, bounded time),
reports p50/p95 latency, requests/s and status codes; writes bench/results/load.json.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.local_server import local_server  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REQUESTS = 200
TIMEOUT_S = 120
PROGRAMS = [
    "scene(0). select(1, 0, cat). unique(2, 1). relate_any(3, 2, on, object). unique(4, 3). query(5, 4, name). end(5).",
    "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3).",
    "scene(0). select(1, 0, table). relate(2, 1, apple, on, subject). exist(3, 2). end(3).",
    "scene(0). select(1, 0, chair). unique(2, 1). select(3, 0, table). unique(4, 3). two_same(5, 2, 4, color). end(5).",
]


async def fire(url: str, graph: dict) -> tuple[list[float], dict[int, int], float]:
    latencies: list[float] = []
    codes: dict[int, int] = {}
    limits = httpx.Limits(max_connections=REQUESTS, max_keepalive_connections=REQUESTS)
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT_S, limits=limits) as client:

        async def one(i: int) -> None:
            started = time.perf_counter()
            response = await client.post("/answer", json={"program": PROGRAMS[i % len(PROGRAMS)], "scene_graph": graph})
            latencies.append(time.perf_counter() - started)
            codes[response.status_code] = codes.get(response.status_code, 0) + 1

        started = time.perf_counter()
        await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(REQUESTS))), TIMEOUT_S)
        return latencies, codes, time.perf_counter() - started


def main() -> None:
    graph = json.loads((ROOT / "app" / "data" / "demo" / "scenes.json").read_text())["kitchen"]
    with local_server(cwd=ROOT) as url:
        # One request first so WordNet is loaded before the burst (the service loads it once).
        httpx.post(
            f"{url}/answer", json={"program": PROGRAMS[0], "scene_graph": graph}, timeout=TIMEOUT_S
        ).raise_for_status()
        latencies, codes, wall = asyncio.run(fire(url, graph))
    ordered = sorted(latencies)
    row = {
        "requests": REQUESTS,
        "concurrency": REQUESTS,
        "status_codes": {str(k): v for k, v in sorted(codes.items())},
        "server_errors": sum(v for k, v in codes.items() if k >= 500),
        "p50_ms": round(statistics.median(ordered) * 1000, 1),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
        "requests_per_s": round(REQUESTS / wall, 1),
        "wall_s": round(wall, 2),
    }
    print(f"{'requests':>9} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'req/s':>7}  status codes")
    print(
        f"{row['requests']:>9} {row['p50_ms']:>8} {row['p95_ms']:>8} {row['max_ms']:>8} {row['requests_per_s']:>7}  {row['status_codes']}"
    )
    print(f"target: no 5xx: {'met' if row['server_errors'] == 0 else 'MISSED'} ({row['server_errors']} server errors)")
    out = ROOT / "bench" / "results" / "load.json"
    out.write_text(json.dumps(row, indent=2))
    print(f"wrote {out}")
    if row["server_errors"]:
        raise SystemExit(f"{row['server_errors']} server errors")


if __name__ == "__main__":
    main()
