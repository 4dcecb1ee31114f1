"""The service as a child process on 127.0.0.1 for the reliability benchmarks: start, wait, measure, kill.

Unlike `app.local_server` (tests), it writes the service's log to a file, so a run of many
minutes never blocks on a full pipe, and it exposes the process for memory readings and kill -9.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.local_server import free_port  # noqa: E402


@dataclass
class Service:
    """A running `aspvqa serve`."""

    process: subprocess.Popen[bytes]
    url: str
    port: int
    log: Path

    def rss_bytes(self) -> int:
        """Resident memory of the service process (VmRSS)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS for the service process")

    def kill9(self) -> None:
        """SIGKILL, as a crash or an out-of-memory kill would end it; waits until it is gone."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        """End the service politely, then by force."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill9()


def process_tree(pid: int) -> list[int]:
    """A process and its living children (each thread's children: pools start workers from threads)."""
    pids = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            pids += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return pids


def process_cpu(pid: int) -> dict[int, float]:
    """CPU seconds (user + system) of a process and of each of its living children, by pid."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for p in process_tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[p] = (int(fields[11]) + int(fields[12])) / tick
    return found


def start_service(
    env: dict[str, str], log: Path, *, port: int | None = None, warm_up: bool = True, ready_timeout_s: float = 600
) -> Service:
    """Start `aspvqa serve` on 127.0.0.1 and wait until /ready answers 200 (warm-up) or /health does (lazy)."""
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command.append("--warm-up" if warm_up else "--lazy")
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=dict(os.environ, **env), stdout=out, stderr=subprocess.STDOUT)
    service = Service(process, url, port, log)
    deadline = time.monotonic() + ready_timeout_s
    probe = "/ready" if warm_up else "/health"
    while True:
        try:
            if httpx.get(url + probe, timeout=5).status_code == 200:
                return service
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            service.stop()
            tail = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"the service did not become ready on {url}{probe}: {tail}")
        time.sleep(0.5)
