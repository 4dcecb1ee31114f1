"""Solving in worker processes: one clingo thread per process, a deadline that ends the work, and
a worker that dies costing one request, not the service.

The service answers given programs and translated questions here on a scene graph's objects (each
graph encoded once per worker) or on facts read in the service process: an image perceived there,
where the vision models are, or scene facts text read there, cross as the facts themselves (plain
terms, or the text's reading), so no worker prints or reads them again. Each worker is a process of
its own (spawned, so that none inherits the language model or the server's threads) with its own
`Pipeline`; clingo is only ever called from that process's one thread. A job that outlives its
deadline is stopped by ending its worker, so no work goes on after the request was answered 504;
pebble starts a fresh worker in its place, as it does for a worker that crashed or was killed,
whose request is answered 503. A pool that stops taking jobs (a worker killed while it held the
lock of pebble's shared channel) is replaced as soon as a waiting request sees it (`STALL_S`).

Built on pebble's `ProcessPool` because it ends the one worker of a late task and replaces a dead
worker without breaking the pool, which `concurrent.futures.ProcessPoolExecutor` does not.
"""

from __future__ import annotations

import faulthandler
import logging
import multiprocessing
import resource
import signal
import threading
import time
from concurrent.futures import CancelledError
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from pebble import ProcessExpired, ProcessPool

from app.config import Settings
from app.errors import ErrorKind, PipelineError
from app.outcomes import SceneAnswer
from app.parts.shared import keep_loaded
from app.pipeline import Pipeline, SolverScene
from theory import Program

log = logging.getLogger("aspvqa.workers")

# Time a worker has beyond the solve limit to hand back what it found before it is ended.
GRACE_S = 0.3
# pebble's workers hold a lock of the shared channel while they take a job and while they send a
# result back; a worker killed (SIGKILL, the OOM killer) inside one leaves it locked for good, and
# no worker takes a job again. A pool in which no job has ended for the longest job (the solve
# limit and the grace) and this much more, while a request waits, is taken for such a one and
# replaced; the margin covers new workers starting (each loads WordNet in a few seconds).
STALL_S = 5.0
# Until a new pool's first job has ended its workers are starting (spawned, WordNet loaded): slower
# on a loaded machine, so a pool is only taken for stalled that long after it was started.
STARTUP_S = 60.0
_POLL_S = 0.25

_pipeline: Pipeline | None = None


@dataclass(frozen=True)
class SolveJob:
    """One program to solve on one scene graph or read facts (plain data: it crosses processes)."""

    program: Program
    scene: SolverScene
    top_k: int
    exact: bool


@dataclass(frozen=True)
class WorkerError:
    """A `PipelineError` raised in a worker, as data (the exception does not pickle)."""

    kind: ErrorKind
    message: str


def _start_worker(settings: Settings) -> None:
    """Worker start: faulthandler on, the pipeline built and its scene parts loaded now, not mid-request."""
    global _pipeline
    faulthandler.enable()
    # pebble ends a late worker with SIGTERM and waits 3 s before SIGKILL; its own handler runs
    # only between Python bytecodes, never inside a long grounding. The default action ends the
    # process at once, which is all a worker needs (it holds nothing to clean up).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if settings.solve_worker_memory_mb:
        # A request bounded in time may still ground millions of atoms: the process's memory is
        # bounded too, so that such a request fails alone instead of swapping the machine.
        limit = settings.solve_worker_memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    pipeline = Pipeline(settings)
    try:
        pipeline.components.entailments  # noqa: B018 - loads the table
        pipeline.components.scene_graph_encoder  # noqa: B018 - loads the taxonomy (WordNet)
    except PipelineError as exc:  # said again, per request, by the part that is missing
        log.warning("solver worker: %s", exc.message)
    keep_loaded()
    _pipeline = pipeline


def _solve_job(job: SolveJob) -> SceneAnswer | WorkerError:
    """Run in a worker: the scene and the solve of one job."""
    assert _pipeline is not None, "the worker was not started through _start_worker"
    try:
        return _pipeline.solve_here(job.program, job.scene, top_k=job.top_k, exact=job.exact)
    except PipelineError as exc:
        return WorkerError(exc.kind, exc.message)
    except MemoryError:
        limit = _pipeline.settings.solve_worker_memory_mb
        return WorkerError("too_large", f"the request needs more memory than a solver process may use ({limit} MiB)")


class SolverPool:
    """`workers` solver processes behind a `SceneSolver` interface; `close` ends them."""

    def __init__(self, settings: Settings, workers: int, stall_s: float = STALL_S) -> None:
        self.settings = settings
        self.workers = workers
        self.stall_s = stall_s
        self._lock = threading.Lock()
        self._start_pool()

    def _start_pool(self) -> None:
        """A new pool in `_pool`; `_ready` once its first job has ended."""
        self._pool = ProcessPool(
            max_workers=self.workers,
            initializer=_start_worker,
            initargs=(self.settings,),
            context=multiprocessing.get_context("spawn"),
        )
        self._ready = False
        self._progress = time.monotonic()  # when a job of the current pool last ended (or it started)
        self._schedule(time.sleep, 0)  # its end says the workers have started

    def _schedule(self, function: Any, *args: Any, timeout: float | None = None) -> Any:
        """`function(*args)` in the current pool; its end, however it ends, counts as the pool's progress."""
        pool = self._pool
        future = pool.schedule(function, args=args, timeout=timeout)
        future.add_done_callback(lambda _done: self._job_ended(pool))
        return future

    def _job_ended(self, pool: ProcessPool) -> None:
        if pool is self._pool:
            self._ready = True
            self._progress = time.monotonic()

    def _renew(self, broken: ProcessPool, why: str = "every solver worker ended") -> None:
        """A fresh pool in place of one that pebble gave up on (every worker died at once) or that
        stopped taking jobs."""
        with self._lock:
            if self._pool is broken:
                log.error("%s; starting new solver workers", why)
                broken.stop()
                self._start_pool()

    def _wait(self, future: Any, pool: ProcessPool, limit: float) -> Any:
        """The job's outcome; raises `PipelineError` (worker_lost) when the pool stopped taking jobs."""
        waiting_since = time.monotonic()
        while True:
            try:
                return future.result(timeout=_POLL_S)
            except FutureTimeout:
                if future.done():  # the job's own deadline (pebble's TimeoutError)
                    raise
                if pool is not self._pool:
                    raise PipelineError("worker_lost", "the solver processes were restarted; try again") from None
                # Nothing ended since this job was scheduled or since the last one ended, whichever is later.
                stalled_after = limit + GRACE_S + self.stall_s if self._ready else STARTUP_S
                if time.monotonic() - max(self._progress, waiting_since) > stalled_after:
                    future.cancel()
                    self._renew(pool, f"no solver job ended for {stalled_after:g} s while one waited")
                    raise PipelineError(
                        "worker_lost", "the solver processes stopped taking work and were restarted; try again"
                    ) from None

    def __call__(self, program: Program, scene: SolverScene, *, top_k: int, exact: bool) -> SceneAnswer:
        """Solve in a worker; raises `PipelineError` (timeout: the worker was ended; worker_lost: it died)."""
        limit = self.settings.solve_timeout_s
        started = time.perf_counter()
        pool = self._pool
        try:
            job = SolveJob(program, scene, top_k, exact)
            outcome = self._wait(self._schedule(_solve_job, job, timeout=limit + GRACE_S), pool, limit)
        except (BrokenProcessPool, RuntimeError, CancelledError) as exc:  # RuntimeError: pebble's "pool not running"
            self._renew(pool, f"a solver job ended with {type(exc).__name__} ({exc})")
            raise PipelineError("worker_lost", f"the solver processes were restarted ({exc}); try again") from None
        except FutureTimeout:
            raise PipelineError("timeout", f"solving took longer than {limit:g} s and was stopped") from None
        except ProcessExpired as exc:
            log.error("solver worker %s ended with exit code %s during a request", exc.pid, exc.exitcode)
            raise PipelineError(
                "worker_lost", f"the solver process ended unexpectedly (exit code {exc.exitcode}); try again"
            ) from None
        if isinstance(outcome, WorkerError):
            raise PipelineError(outcome.kind, outcome.message)
        outcome.timings["worker"] = time.perf_counter() - started
        return outcome

    def warm_up(self, timeout_s: float = 120.0) -> None:
        """Wait until every worker has started (each loads WordNet: a few seconds)."""
        futures = [self._schedule(time.sleep, 0.2) for _ in range(self.workers)]
        for future in futures:
            future.result(timeout=timeout_s)

    def close(self) -> None:
        """End the workers (in-flight jobs are ended too)."""
        self._pool.stop()
        self._pool.join(timeout=10)
