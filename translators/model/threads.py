"""How many threads the in-process models (llama.cpp, ONNX Runtime) use: one setting for both.

The count is `Settings.threads` (ASPVQA_THREADS), handed over once by the settings (`use_threads`);
a caller may also pass a count to a model directly (`LlamaCppBackend(n_threads=...)`).
"""

from __future__ import annotations

import os

THREADS_VARIABLE = "ASPVQA_THREADS"  # the setting's name, for the evaluation job to hand to its workers
_chosen: int | None = None


def use_threads(count: int | None) -> None:
    """The thread count of the settings (None: every core)."""
    global _chosen
    _chosen = max(1, count) if count is not None else None


def threads_setting() -> int | None:
    """The configured count of at least one; None when it is not set."""
    return _chosen


def model_threads() -> int:
    """Threads for the in-process models: the setting, else every core.

    llama.cpp's threads spin at barriers, so on a machine shared with other busy processes set
    ASPVQA_THREADS lower (measured here: 121 prompt tokens took 11 s on 2 threads beside other busy
    processes, 2.4 s on 1). The load average is no guide: it counts this process's own recent
    work, so a busy translator would talk itself down to one thread (p50 8.2 s instead of 4.5 s).
    """
    return _chosen or os.cpu_count() or 1
