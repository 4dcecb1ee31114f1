"""Run the service in a child process on 127.0.0.1 for tests and benchmarks."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def local_server(
    env: dict[str, str] | None = None, cwd: Path | None = None, start_timeout_s: float = 60.0, *, lazy: bool = True
) -> Iterator[str]:
    """`aspvqa serve` on a free local port (`--lazy` unless `lazy` is false: the parts load at start);
    yields its base URL and stops it on exit."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            *(["--lazy"] if lazy else []),
        ],
        cwd=cwd,
        env=dict(os.environ, **(env or {})),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + start_timeout_s
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                error = _tail(process.stderr) if process.poll() is not None else "timed out"
                raise RuntimeError(f"the service did not start: {error}")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def _tail(stream: IO[bytes] | None) -> str:
    """The end of a finished process's error output."""
    return stream.read().decode(errors="replace")[-2000:] if stream is not None else ""
