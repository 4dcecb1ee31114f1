"""Where the evaluation tasks run: local worker processes, or a Ray cluster.

Both yield each task's records as soon as the task completes (in completion order) and show a
progress bar with the rate and the time left (tqdm, on stderr). Each worker unpickles the
`Evaluator` once, so models, WordNet and scene graphs load once per worker, not per task. Tasks
may be a stream: a bounded window of them is in flight. Each worker runs with the threads per
worker of the plan (`evaluation.workers`): workers x threads stay within the cores.

Example:
    >>> executor = LocalExecutor(workers=2)                       # doctest: +SKIP
    >>> for records in executor.run(evaluator, tasks): ...        # doctest: +SKIP
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, TypedDict

from tqdm import tqdm

from evaluation.job import Evaluator, Task
from evaluation.records import ResultJson
from evaluation.workers import Footprint, apply_threads, plan_workers, this_machine
from scene.wordnet import chosen_wordnet_dir, use_wordnet_dir
from theory.cache import chosen_cache_dir, use_cache_dir

_WORKER: Evaluator | None = None


def default_workers() -> int:
    """Workers for settings without a model: one per usable core."""
    return plan_workers(this_machine(), Footprint()).workers


def progress(total: int, description: str, enabled: bool = True) -> tqdm:
    """A progress bar over questions with rate and ETA (hidden when `enabled` is false)."""
    return tqdm(
        total=total, desc=description, unit="q", file=sys.stderr, disable=not enabled, dynamic_ncols=True, smoothing=0.1
    )


def exit_with_parent(poll_s: float = 1.0) -> None:
    """Stop this process once its parent is gone: a job killed with kill -9 cannot stop its pool,
    and its workers would otherwise run on, owned by no one, until their queue breaks."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _init_worker(evaluator: Evaluator, threads: int | None, cache: Path | None, wordnet: Path | None) -> None:
    global _WORKER
    exit_with_parent()
    # The folders the parent's settings chose: a spawned process has not read the settings.
    use_cache_dir(cache)
    use_wordnet_dir(wordnet)
    if threads is not None:
        apply_threads(threads)
    _WORKER = evaluator


def _run_task(task: Task) -> list[ResultJson]:
    assert _WORKER is not None, "worker not initialised"
    return _WORKER.evaluate(task)


class LocalExecutor:
    """A pool of worker processes on this machine (one worker: in this process, no pool)."""

    def __init__(
        self,
        workers: int | None = None,
        show_progress: bool = True,
        start_method: str = "spawn",
        threads: int | None = None,
    ) -> None:
        self.workers = default_workers() if workers is None else workers
        if self.workers < 1:
            raise ValueError("workers must be >= 1")
        self.threads = threads  # per worker; None leaves the environment's setting
        self.show_progress = show_progress
        # spawn: a forked child would inherit the parent's threads (llama.cpp, torch) mid-state.
        self.start_method = start_method

    def run(self, evaluator: Evaluator, tasks: Iterable[Task], total: int | None = None) -> Iterator[list[ResultJson]]:
        """Evaluate `tasks` (`total` of them, for the progress bar), yielding each one's records when it completes."""
        if total is None and isinstance(tasks, list):
            total = len(tasks)
        bar = progress(
            total or 0, f"evaluate ({self.workers} worker{'s' if self.workers > 1 else ''})", self.show_progress
        )
        try:
            if self.workers == 1 or (total is not None and total <= 1):
                if self.threads is not None:
                    apply_threads(self.threads)
                for task in tasks:
                    records = evaluator.evaluate(task)
                    bar.update(1)
                    yield records
                return
            context = multiprocessing.get_context(self.start_method)
            with ProcessPoolExecutor(
                max_workers=min(self.workers, total) if total else self.workers,
                mp_context=context,
                initializer=_init_worker,
                initargs=(evaluator, self.threads, chosen_cache_dir(), chosen_wordnet_dir()),
            ) as pool:
                yield from _bounded(pool, tasks, 4 * self.workers, bar)
        finally:
            bar.close()


def _bounded(pool: ProcessPoolExecutor, tasks: Iterable[Task], window: int, bar: tqdm) -> Iterator[list[ResultJson]]:
    # A bounded window of submitted tasks keeps memory flat and lets a killed run lose at most it.
    pending: set[Future] = set()
    iterator = iter(tasks)
    exhausted = False
    while True:
        while not exhausted and len(pending) < window:
            task = next(iterator, None)
            if task is None:
                exhausted = True
                break
            pending.add(pool.submit(_run_task, task))
        if not pending:
            return
        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in finished:
            bar.update(1)
            yield future.result()


class RayOptions(TypedDict, total=False):
    """The `ray.init` options an executor sets (more may be given through `init_options`)."""

    include_dashboard: bool
    log_to_driver: bool
    address: str
    num_cpus: int
    namespace: str
    runtime_env: dict[str, object]


class RayExecutor:
    """The same work on a Ray cluster: one actor per worker, each holding an evaluator.

    `address` names a running cluster (``auto``, ``ray://host:10001``); None starts a local one
    with `workers` CPUs (Ray 2.x no longer has a single-process local mode).
    """

    def __init__(
        self,
        address: str | None = None,
        workers: int | None = None,
        show_progress: bool = True,
        init_options: RayOptions | None = None,
        threads: int = 1,
    ) -> None:
        self.address = address
        self.workers = workers
        self.threads = threads  # CPUs each actor reserves, and the threads its models use
        self.show_progress = show_progress
        self.init_options: RayOptions = init_options or {}

    def _ray(self) -> Any:
        try:
            import ray
        except ImportError as exc:
            raise RuntimeError("Ray is not installed: pip install '.[eval]'") from exc
        self._started = not ray.is_initialized()
        if self._started:
            options: RayOptions = {"include_dashboard": False, "log_to_driver": False}
            if self.address:
                options["address"] = self.address
            elif self.workers:
                options["num_cpus"] = self.workers
            options.update(self.init_options)
            ray.init(**options)
        return ray

    def run(self, evaluator: Evaluator, tasks: Iterable[Task], total: int | None = None) -> Iterator[list[ResultJson]]:
        """Evaluate `tasks` on Ray actors, yielding each one's records when it completes."""
        if total is None and isinstance(tasks, list):
            total = len(tasks)
        if total == 0:
            return
        ray = self._ray()
        from ray.util import ActorPool

        workers = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1)) // self.threads)
        actor_class = ray.remote(num_cpus=self.threads)(_RayWorker)
        shared = ray.put(evaluator)
        cache, wordnet = chosen_cache_dir(), chosen_wordnet_dir()
        actors = [
            actor_class.remote(shared, self.threads, cache, wordnet) for _ in range(min(workers, total or workers))
        ]
        bar = progress(total or 0, f"evaluate (ray, {len(actors)} actors)", self.show_progress)
        try:
            pool = ActorPool(actors)
            iterator = iter(tasks)
            # Submit while an actor is free, so a stream of tasks is never held whole.
            for task in iterator:
                while not pool.has_free():
                    bar.update(1)
                    yield pool.get_next_unordered()
                pool.submit(lambda actor, t: actor.evaluate.remote(t), task)
            while pool.has_next():
                bar.update(1)
                yield pool.get_next_unordered()
        finally:
            bar.close()
            for actor in actors:
                ray.kill(actor)
            if self._started:  # a cluster this executor started ends with it
                ray.shutdown()


class _RayWorker:
    def __init__(self, evaluator: Evaluator, threads: int, cache: Path | None, wordnet: Path | None) -> None:
        apply_threads(threads)
        use_cache_dir(cache)
        use_wordnet_dir(wordnet)
        self.evaluator = evaluator

    def evaluate(self, task: Task) -> list[ResultJson]:
        return self.evaluator.evaluate(task)


def make_executor(
    name: str,
    workers: int | None = None,
    address: str | None = None,
    show_progress: bool = True,
    threads: int | None = None,
) -> Any:
    """The executor a command line names: ``local`` or ``ray``, with `threads` per worker."""
    if name == "local":
        return LocalExecutor(workers, show_progress, threads=threads)
    if name == "ray":
        return RayExecutor(address, workers, show_progress=show_progress, threads=threads or 1)
    raise ValueError(f"unknown executor {name!r}; use local or ray")
