"""Solving in worker processes: one clingo thread per process, a deadline that ends the work, and
a worker that dies costing one request, not the service.

The service answers given programs and translated questions on scene graphs and scene facts here
(images stay in the service process, which holds the vision models). Each worker is a process of
its own (spawned, so that none inherits the language model or the server's threads) with its own
`Pipeline`; clingo is only ever called from that process's one thread. A job that outlives its
deadline is stopped by ending its worker, so no work goes on after the request was answered 504;
pebble starts a fresh worker in its place, as it does for a worker that crashed or was killed,
whose request is answered 503.

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
from collections.abc import Mapping
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from pebble import ProcessExpired, ProcessPool

from app.config import Settings
from app.errors import PipelineError
from app.pipeline import Pipeline, SceneAnswer
from theory import Program

log = logging.getLogger("aspvqa.workers")

# Time a worker has beyond the solve limit to hand back what it found before it is ended.
GRACE_S = 0.3

_pipeline: Pipeline | None = None


@dataclass(frozen=True)
class SolveJob:
    """One program to solve on one scene graph or text scene (plain data: it crosses processes)."""

    program: Program
    scene_graph: Mapping[str, Any] | None
    scene_facts: str | None
    top_k: int
    exact: bool


@dataclass(frozen=True)
class WorkerError:
    """A `PipelineError` raised in a worker, as data (the exception does not pickle)."""

    kind: str
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
    _pipeline = pipeline


def _solve_job(job: SolveJob) -> SceneAnswer | WorkerError:
    """Run in a worker: the scene and the solve of one job."""
    assert _pipeline is not None, "the worker was not started through _start_worker"
    try:
        return _pipeline.solve_here(
            job.program, scene_graph=job.scene_graph, scene_facts=job.scene_facts, top_k=job.top_k, exact=job.exact
        )
    except PipelineError as exc:
        return WorkerError(exc.kind, exc.message)
    except MemoryError:
        limit = _pipeline.settings.solve_worker_memory_mb
        return WorkerError("too_large", f"the request needs more memory than a solver process may use ({limit} MiB)")


class SolverPool:
    """`workers` solver processes behind a `SceneSolver` interface; `close` ends them."""

    def __init__(self, settings: Settings, workers: int) -> None:
        self.settings = settings
        self.workers = workers
        self._lock = threading.Lock()
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPool:
        return ProcessPool(
            max_workers=self.workers,
            initializer=_start_worker,
            initargs=(self.settings,),
            context=multiprocessing.get_context("spawn"),
        )

    def _renew(self, broken: ProcessPool) -> None:
        """A fresh pool in place of one that pebble gave up on (every worker died at once)."""
        with self._lock:
            if self._pool is broken:
                log.error("every solver worker ended; starting new ones")
                broken.stop()
                self._pool = self._new_pool()

    def __call__(
        self,
        program: Program,
        *,
        scene_graph: Mapping[str, Any] | None,
        scene_facts: str | None,
        top_k: int,
        exact: bool,
    ) -> SceneAnswer:
        """Solve in a worker; raises `PipelineError` (timeout: the worker was ended; worker_lost: it died)."""
        limit = self.settings.solve_timeout_s
        started = time.perf_counter()
        pool = self._pool
        try:
            future = pool.schedule(
                _solve_job, args=(SolveJob(program, scene_graph, scene_facts, top_k, exact),), timeout=limit + GRACE_S
            )
            outcome = future.result()
        except (BrokenProcessPool, RuntimeError) as exc:  # RuntimeError: pebble's "pool not running"
            self._renew(pool)
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
        futures = [self._pool.schedule(time.sleep, args=(0.2,)) for _ in range(self.workers)]
        for future in futures:
            future.result(timeout=timeout_s)

    def close(self) -> None:
        """End the workers (in-flight jobs are ended too)."""
        self._pool.stop()
        self._pool.join(timeout=10)
