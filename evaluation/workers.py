"""How many worker processes, and how many threads each: from the machine and what the job loads.

llama.cpp and torch each start one thread per core unless told otherwise, so N workers on N cores
ran N x N threads. The plan keeps workers x threads per worker <= cores:

- settings without a model (oracle, asp-oracle: the interpreter and clingo, one thread each): one
  worker per core;
- settings with a local language model: `MODEL_THREADS_PER_WORKER` threads per worker (fewer on a
  small machine), as many workers as the cores and the memory allow; llama.cpp maps the model file,
  so its weights are in memory once, shared by every worker, and each worker needs its own
  context and buffers (`Footprint.per_worker_bytes`);
- with GPUs and a model offloaded to them: one worker per GPU, the cores shared among them.

Explicit `workers` / `threads` win (an explicit oversubscription is allowed, and said).

Example:
    >>> plan_workers(Machine(cores=16, memory_bytes=64 << 30), Footprint(uses_model=True)).describe()
    '4 workers x 4 threads (16 of 16 cores): 4 threads per model worker'
"""

from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import NotRequired, TypedDict, cast

from translators.model.threads import THREADS_VARIABLE

# Threads per language-model worker on a large machine. llama.cpp's generation is bound by memory
# bandwidth and its threads meet at a barrier per layer, so past a few threads a process gains
# little; more processes of 4 threads each use the cores better (not measured: no machine with
# more than 2 cores here). On 2 cores, shared with other busy processes (load average 9-13),
# bench/worker_plan.py measured the `isolated` setting with the bundled model on 20 GQA questions
# once per plan: 2 workers x 1 thread 0.031 questions/s (p50 37 s a question), the previous 2 x 2
# 0.009 (p50 179 s): llama.cpp's spinning threads lose most when they outnumber the cores.
MODEL_THREADS_PER_WORKER = 4
# Memory kept free for the parent process, the page cache and the rest of the machine.
RESERVED_BYTES = 1 << 30
GIB = 1 << 30


@dataclass(frozen=True)
class Machine:
    """What a plan is made for: usable cores, available memory (None: unknown) and GPUs."""

    cores: int
    memory_bytes: int | None = None
    gpus: int = 0


@dataclass(frozen=True)
class Footprint:
    """What one worker loads: whether a model computes (threads matter), the bytes shared by all
    workers (a memory-mapped model file) and the bytes each worker needs of its own."""

    uses_model: bool = False
    shared_bytes: int = 0
    per_worker_bytes: int = 0
    offloaded: bool = False  # the model runs on a GPU


class WorkerPlanJson(TypedDict):
    """A worker plan as the manifest keeps it (with the executor the command line chose)."""

    workers: int
    threads: int
    cores: int
    memory_per_worker_bytes: int
    shared_bytes: int
    reason: str
    summary: str
    executor: NotRequired[str]


@dataclass(frozen=True)
class WorkerPlan:
    """The chosen workers and threads per worker, with the memory they need and why."""

    workers: int
    threads: int
    cores: int
    memory_per_worker_bytes: int
    shared_bytes: int
    reason: str

    def describe(self) -> str:
        """One line for the terminal and the manifest."""
        used = self.workers * self.threads
        s = "s" if self.workers > 1 else ""
        t = "s" if self.threads > 1 else ""
        return f"{self.workers} worker{s} x {self.threads} thread{t} ({used} of {self.cores} cores): {self.reason}"

    def to_json(self) -> WorkerPlanJson:
        """The plan and its one-line summary, for the manifest."""
        return cast(WorkerPlanJson, asdict(self) | {"summary": self.describe()})


def this_machine(gpus: int = 0) -> Machine:
    """The cores this process may use and the memory available now, with `gpus` (the caller knows them)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return Machine(max(1, cores), available_memory(), gpus)


def available_memory() -> int | None:
    """MemAvailable from /proc/meminfo (Linux), else None."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _memory_cap(machine: Machine, footprint: Footprint) -> int | None:
    if machine.memory_bytes is None or footprint.per_worker_bytes <= 0:
        return None
    free = machine.memory_bytes - RESERVED_BYTES - footprint.shared_bytes
    return max(1, free // footprint.per_worker_bytes)


def plan_workers(
    machine: Machine, footprint: Footprint, workers: int | None = None, threads: int | None = None
) -> WorkerPlan:
    """Workers and threads per worker for `machine` running `footprint`, explicit values first."""
    cores = max(1, machine.cores)
    cap = _memory_cap(machine, footprint)
    reason: str
    if workers is not None and threads is not None:
        reason = "as asked" + (" (more threads than cores)" if workers * threads > cores else "")
    elif workers is not None:
        threads = max(1, cores // workers)
        reason = f"{workers} asked, the cores shared among them"
    elif threads is not None:
        workers = max(1, cores // threads)
        reason = f"{threads} threads asked"
    elif not footprint.uses_model:
        workers, threads = cores, 1
        reason = "no model: one single-threaded worker per core"
    elif footprint.offloaded and machine.gpus > 0:
        workers = machine.gpus
        threads = max(1, cores // workers)
        reason = "model on the GPU: one worker per GPU"
    else:
        threads = min(MODEL_THREADS_PER_WORKER, max(1, cores // 2))
        workers = max(1, cores // threads)
        reason = f"{threads} thread{'s' if threads > 1 else ''} per model worker"
    if cap is not None and workers > cap and not reason.startswith("as asked"):
        workers = cap
        reason += f"; {cap} fit in memory ({footprint.per_worker_bytes / GIB:.1f} GiB each)"
    return WorkerPlan(workers, threads, cores, footprint.per_worker_bytes, footprint.shared_bytes, reason)


def apply_threads(threads: int) -> None:
    """Make this process and the workers it starts use `threads` threads per model: llama.cpp
    (`ASPVQA_THREADS`), OpenMP/BLAS and torch (its pool is sized when torch is first imported)."""
    value = str(max(1, threads))
    for name in (THREADS_VARIABLE, "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = value
    if "torch" in sys.modules:
        import torch

        torch.set_num_threads(int(value))
