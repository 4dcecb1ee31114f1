"""How many threads the in-process models (llama.cpp, ONNX Runtime) use: one setting for both."""

from __future__ import annotations

import os

THREADS_VARIABLE = "ASPVQA_THREADS"


def threads_setting() -> int | None:
    """ASPVQA_THREADS as a count of at least one; None when it is not set."""
    value = os.environ.get(THREADS_VARIABLE)
    return max(1, int(value)) if value else None


def model_threads() -> int:
    """Threads for the in-process models: ASPVQA_THREADS, else every core.

    llama.cpp's threads spin at barriers, so on a machine shared with other busy processes set
    ASPVQA_THREADS lower (measured here: 121 prompt tokens took 11 s on 2 threads beside other busy
    processes, 2.4 s on 1). The load average is no guide: it counts this process's own recent
    work, so a busy translator would talk itself down to one thread (p50 8.2 s instead of 4.5 s).
    """
    return threads_setting() or os.cpu_count() or 1
