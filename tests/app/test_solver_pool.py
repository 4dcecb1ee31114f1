"""The solver worker processes: the same answers as in-process, a late job's worker ended at the
deadline, a killed worker costing only its own request, a pool that stops taking jobs replaced."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from app.config import Settings
from app.demo_scenes import demo_scenes
from app.errors import PipelineError
from app.inputs import GivenProgram
from app.pipeline import Pipeline
from app.scene_input import FactsScene, GraphScene, ImageScene
from app.solver_pool import SolverPool
from tests.support import related_graph
from theory.flat import parse_flat

KITCHEN = GraphScene.read(demo_scenes()["kitchen"], max_facts=10_000)
MUG_COLOR = parse_flat("scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3).")
NO_SKY = parse_flat("scene(0). select(1, 0, sky). unique(2, 1). query(3, 2, color). end(3).")
LIMIT_S = 1.0
# A replacement worker starts in 4-5 s here (imports, WordNet); the tests of a worker that died
# are about the next request being answered, not about the stall check (tested on its own below),
# so they give the new worker more room than the service's default margin.
WORKER_START_S = 20.0


# Reads and grounds for far longer than the limit (tens of seconds): 150 relate steps over 200
# objects each near every other.
SLOW = parse_flat(
    " ".join(
        ["scene(0). select(1, 0, thing)."]
        + [f"relate({i + 1}, {i}, thing, near, subject)." for i in range(1, 151)]
        + ["exist(152, 151). end(152)."]
    )
)
SLOW_SCENE = GraphScene.read(related_graph(200), max_facts=10**6)


def worker_pids() -> list[int]:
    # Each thread's children are listed under it: pebble starts replacement workers from its own thread.
    children = [
        p for task in Path(f"/proc/{os.getpid()}/task").iterdir() for p in (task / "children").read_text().split()
    ]
    return [int(p) for p in children if "spawn_main" in Path(f"/proc/{p}/cmdline").read_text(errors="replace")]


@pytest.fixture(scope="module")
def pool():
    settings = Settings(solve_timeout_s=LIMIT_S)
    solver = SolverPool(settings, workers=1, stall_s=WORKER_START_S)
    solver.warm_up()
    yield solver
    solver.close()


def test_worker_answers_as_this_process_does(pool):
    here = Pipeline(Settings()).solve_here(MUG_COLOR, KITCHEN, top_k=5)
    there = pool(MUG_COLOR, KITCHEN, top_k=5, exact=False)
    assert [a.answer for a in there.result.answers] == [a.answer for a in here.result.answers] != []
    assert [a.cost for a in there.result.answers] == [a.cost for a in here.result.answers]


def test_worker_explains_a_missing_answer(pool):
    there = pool(NO_SKY, KITCHEN, top_k=5, exact=False)
    assert there.result.status.value == "no_answer"
    assert there.explanation is not None and there.explanation.step == 1


def test_worker_errors_come_back_as_pipeline_errors(pool):
    with pytest.raises(PipelineError) as caught:
        pool(MUG_COLOR, FactsScene('object(1). #include "x".'), top_k=5, exact=False)
    assert caught.value.kind == "invalid_input"


def test_late_job_is_stopped_at_the_deadline_and_its_worker_ended(pool):
    before = worker_pids()
    started = time.perf_counter()
    with pytest.raises(PipelineError) as caught:
        pool(SLOW, SLOW_SCENE, top_k=5, exact=False)
    seconds = time.perf_counter() - started
    assert caught.value.kind == "timeout" and caught.value.http_status == 504
    assert seconds < LIMIT_S + 1.5
    time.sleep(0.5)
    assert not set(before) & set(worker_pids())  # the late worker is gone, not working on
    again = pool(MUG_COLOR, KITCHEN, top_k=5, exact=False)
    assert again.result.answers


def test_killed_worker_costs_only_its_request(pool):
    pool(MUG_COLOR, KITCHEN, top_k=5, exact=False)  # a worker is up
    failures: list[PipelineError] = []

    def slow() -> None:
        try:
            pool(SLOW, SLOW_SCENE, top_k=5, exact=False)
        except PipelineError as exc:
            failures.append(exc)

    job = threading.Thread(target=slow)
    job.start()
    time.sleep(0.7)  # the job is running (reading the scene takes over a second), not waiting for a worker
    for pid in worker_pids():
        os.kill(pid, signal.SIGKILL)
    job.join(timeout=10)
    assert not job.is_alive()
    assert [f.kind for f in failures] == ["worker_lost"] and failures[0].http_status == 503
    again = pool(MUG_COLOR, KITCHEN, top_k=5, exact=False)
    assert again.result.answers


def test_image_scene_is_read_here_and_solved_in_a_worker(pool):
    from app.outcomes import Detected, SceneReading
    from tests.theory.test_solver import weighted_ball

    detections = (Detected(1, "ball", 0.9, (0, 0, 10, 10), ("toy",), "left", "top"),)

    def read(image: bytes, program) -> SceneReading:  # the vision models' part, here
        return SceneReading(weighted_ball(0.9, 0.2), detections, {"detect": 0.001})

    ball = "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3)."
    here = Pipeline(Settings(), image_reader=read).answer(GivenProgram(ball), ImageScene(b"image"))
    pipeline = Pipeline(Settings(), image_reader=read)
    pipeline.scene_solver = pool
    there = pipeline.answer(GivenProgram(ball), ImageScene(b"image"))
    assert [a.answer for a in there.answers] == [a.answer for a in here.answers] == ["red", "blue"]
    assert [a.cost for a in there.answers] == [a.cost for a in here.answers]
    assert there.detections == detections and "worker" in there.timings


def test_request_over_the_memory_limit_is_too_large():
    # A warmed worker maps about 0.6 GB: the limit leaves it room to start threads, not to ground SLOW.
    # The time limit is far off: on a busy machine grounding SLOW reached 10 s before 1,000 MiB.
    solver = SolverPool(Settings(solve_timeout_s=30, solve_worker_memory_mb=1000), workers=1, stall_s=WORKER_START_S)
    try:
        with pytest.raises(PipelineError) as caught:
            solver(SLOW, SLOW_SCENE, top_k=5, exact=False)
        assert caught.value.kind == "too_large" and caught.value.http_status == 413
        assert "1000 MiB" in caught.value.message
        again = solver(MUG_COLOR, KITCHEN, top_k=5, exact=False)
        assert again.result.answers
    finally:
        solver.close()


def test_a_pool_whose_channel_stays_locked_is_replaced_and_the_next_request_answered():
    """A worker killed while it holds the lock of pebble's shared channel (it takes it to read a
    job and to send a result) leaves it locked: no worker takes a job again. Held here from this
    process, as such a dead worker would hold it (pebble's own lock, reached through its internals)."""
    solver = SolverPool(Settings(solve_timeout_s=0.5), workers=1, stall_s=1.0)
    try:
        solver.warm_up()
        assert solver._ready  # a pool whose first job ended: stall_s counts from here on
        poisoned = solver._pool
        channel = poisoned._pool_manager.worker_manager.workers_channel
        assert channel.mutex.reader_mutex.acquire(timeout=5)
        started = time.perf_counter()
        with pytest.raises(PipelineError) as caught:
            solver(MUG_COLOR, KITCHEN, top_k=5, exact=False)
        assert caught.value.kind == "worker_lost"
        assert 1.8 <= time.perf_counter() - started < 10  # the solve limit, the grace and stall_s, not forever
        assert solver._pool is not poisoned
        # The new pool's workers start (seconds, WordNet): the next request waits for them, not refused.
        there = solver(MUG_COLOR, KITCHEN, top_k=5, exact=False)
        assert [a.answer for a in there.result.answers][:1] == ["white"]
    finally:
        solver.close()
