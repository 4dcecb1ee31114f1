"""The worker plan: workers x threads within the cores, the model's memory, explicit values first."""

from __future__ import annotations

import os

import pytest

from evaluation.workers import GIB, Footprint, Machine, apply_threads, plan_workers

MODEL = Footprint(uses_model=True, shared_bytes=GIB, per_worker_bytes=2 * GIB)


def test_on_two_cores_a_model_job_runs_two_single_threaded_workers():
    plan = plan_workers(Machine(cores=2, memory_bytes=24 * GIB), MODEL)
    assert (plan.workers, plan.threads) == (2, 1)
    assert plan.memory_per_worker_bytes == 2 * GIB and plan.shared_bytes == GIB


def test_on_sixteen_cores_four_workers_of_four_threads():
    plan = plan_workers(Machine(cores=16, memory_bytes=64 * GIB), MODEL)
    assert (plan.workers, plan.threads) == (4, 4)
    assert plan.workers * plan.threads <= 16


@pytest.mark.parametrize("cores", [1, 2, 3, 4, 6, 8, 12, 16, 32, 96])
def test_never_more_threads_than_cores(cores):
    for footprint in (MODEL, Footprint()):
        plan = plan_workers(Machine(cores=cores, memory_bytes=None), footprint)
        assert plan.workers >= 1 and plan.threads >= 1
        assert plan.workers * plan.threads <= cores


def test_without_a_model_one_single_threaded_worker_per_core():
    assert (lambda p: (p.workers, p.threads))(plan_workers(Machine(16), Footprint())) == (16, 1)


def test_memory_limits_the_workers():
    plan = plan_workers(Machine(cores=16, memory_bytes=6 * GIB), MODEL)
    # 6 GiB - 1 GiB reserved - 1 GiB shared model = 4 GiB: two workers of 2 GiB
    assert plan.workers == 2 and "fit in memory" in plan.reason


def test_a_gpu_gets_one_worker_with_the_cores():
    offloaded = Footprint(uses_model=True, shared_bytes=GIB, per_worker_bytes=GIB, offloaded=True)
    plan = plan_workers(Machine(cores=16, memory_bytes=64 * GIB, gpus=1), offloaded)
    assert (plan.workers, plan.threads) == (1, 16) and "GPU" in plan.reason


def test_explicit_values_win():
    machine = Machine(cores=16, memory_bytes=64 * GIB)
    assert (lambda p: (p.workers, p.threads))(plan_workers(machine, MODEL, workers=8)) == (8, 2)
    assert (lambda p: (p.workers, p.threads))(plan_workers(machine, MODEL, threads=8)) == (2, 8)
    both = plan_workers(machine, MODEL, workers=16, threads=4)
    assert (both.workers, both.threads) == (16, 4) and "more threads than cores" in both.reason
    assert both.describe().startswith("16 workers x 4 threads (64 of 16 cores)")


def test_threads_are_applied_to_llama_cpp_and_openmp(monkeypatch):
    for name in ("ASPVQA_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    apply_threads(3)
    assert os.environ["ASPVQA_THREADS"] == "3" and os.environ["OMP_NUM_THREADS"] == "3"
