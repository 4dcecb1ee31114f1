"""The offline GQA evaluation job: every question under every setting, one JSON line each.

The parts: `evaluation.questions` (GQA questions), `evaluation.runs` (runs, tasks and the parts a
run needs), `evaluation.settings` (the registry of settings), `evaluation.context` and
`evaluation.evaluator` (computing a task's records), `evaluation.records` (the typed result
record) and `evaluation.store` (the results file). This module plans and runs a job.

Answers are matched strict / generous / generous+ at top-1/3/5 (`evaluation.matching`). Results
are appended to ``results.jsonl`` and flushed as each question completes; a rerun skips the
(run, setting, questionId) triples already there with a final result, so a killed job resumes
without losing or repeating work, and results marked ``retryable`` (the model's server failed
past its retries) are computed again. Questions may be a stream (`QuestionFile`): the tasks are
planned as they are run, never all held at once. The heavy parts (translator, image scene
builder) are injected by a picklable `PartsFactory`, built once per worker process and run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from evaluation.context import EvaluatorConfig
from evaluation.evaluator import Evaluator
from evaluation.manifest import JobManifest
from evaluation.questions import JobError, Question, QuestionFile, load_questions, structural_type
from evaluation.records import KS, RETRYABLE, ResultJson, ResultRecord, result_key
from evaluation.runs import REFERENCE_RUN, PartsFactory, Run, RunParts, Task, no_parts, run_name
from evaluation.settings import NEEDS_GRAPH, NEEDS_IMAGE, SETTINGS, TRANSLATED, record_run
from evaluation.store import MANIFEST_FILE, RESULTS_FILE, final_keys, read_results, write_manifest

# The names other modules and the tests import from here.
__all__ = [
    "KS",
    "MANIFEST_FILE",
    "NEEDS_GRAPH",
    "NEEDS_IMAGE",
    "REFERENCE_RUN",
    "RESULTS_FILE",
    "SETTINGS",
    "TRANSLATED",
    "Evaluator",
    "EvaluatorConfig",
    "Executor",
    "JobError",
    "JobManifest",
    "JobSummary",
    "PartsFactory",
    "Question",
    "QuestionFile",
    "ResultJson",
    "ResultRecord",
    "Run",
    "RunParts",
    "Task",
    "load_questions",
    "no_parts",
    "pending_tasks",
    "plan",
    "read_results",
    "record_run",
    "result_key",
    "run_job",
    "run_name",
    "structural_type",
    "validate_settings",
]


class Executor(Protocol):
    """Runs tasks on an evaluator and yields each task's records as it completes."""

    def run(
        self, evaluator: Evaluator, tasks: Iterable[Task], total: int | None = None
    ) -> Iterator[list[ResultJson]]: ...


def validate_settings(settings: Iterable[str]) -> tuple[str, ...]:
    """The settings, checked and de-duplicated in order."""
    chosen = tuple(dict.fromkeys(s.strip() for s in settings if s.strip()))
    unknown = [s for s in chosen if s not in SETTINGS]
    if unknown:
        raise JobError(f"unknown setting(s) {', '.join(unknown)}; use {', '.join(SETTINGS)}")
    if not chosen:
        raise JobError(f"no settings given; use {', '.join(SETTINGS)}")
    return chosen


def pending_tasks(
    questions: Iterable[Question], runs: Sequence[Run], settings: Sequence[str], done: set[tuple[str, str, str]]
) -> Iterator[Task]:
    """The tasks still to do, one at a time: per run and question, the settings without a final
    result yet. Settings that read no translation (oracle, asp-oracle) are done once, under the run
    name ``reference``. `questions` is iterated once per run (a list, or a `QuestionFile`)."""
    for index, run in enumerate(runs):
        for question in questions:
            pending = tuple(
                s
                for s in settings
                if (s in TRANSLATED or index == 0) and (record_run(run, s), s, question.id) not in done
            )
            if pending:
                yield Task(run, question, pending)


def plan(
    questions: Iterable[Question], runs: Sequence[Run], settings: Sequence[str], done: set[tuple[str, str, str]]
) -> list[Task]:
    """Every task still to do (`pending_tasks` as a list)."""
    return list(pending_tasks(questions, runs, settings, done))


@dataclass
class JobSummary:
    """What a job did."""

    tasks: int
    written: int
    skipped_done: int
    seconds: float
    results: Path
    retryable: int = 0  # records written as retryable: a rerun computes them again


def run_job(
    questions: Iterable[Question],
    runs: Sequence[Run],
    settings: Sequence[str],
    evaluator: Evaluator,
    executor: Executor,
    out_dir: str | Path,
    manifest: JobManifest | None = None,
) -> JobSummary:
    """Evaluate every pending (run, setting, question), appending each record as it completes.

    `questions` is read twice per run (once to count the pending tasks for the progress bar):
    pass a list or a `QuestionFile`, not a one-shot iterator.
    """
    settings = validate_settings(settings)
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise JobError(f"run names must differ: {names}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = out / RESULTS_FILE
    done = final_keys(results)
    pending = 0
    settings_pending = 0
    question_count = 0
    for index, run in enumerate(runs):
        for question in questions:
            question_count += index == 0
            missing = sum(
                (s in TRANSLATED or index == 0) and (record_run(run, s), s, question.id) not in done for s in settings
            )
            pending += missing > 0
            settings_pending += missing
    write_manifest(out / MANIFEST_FILE, runs, settings, manifest or {})
    start = time.perf_counter()
    written = retryable = 0
    with results.open("a", encoding="utf-8") as handle:
        for records in executor.run(evaluator, pending_tasks(questions, runs, settings, done), total=pending):
            for record in records:
                key = result_key(record)
                if key in done:  # a task's records are unique, but a retried task must not repeat one
                    continue
                if record.get("status") == RETRYABLE:
                    retryable += 1
                else:
                    done.add(key)
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                written += 1
            handle.flush()
    translated = sum(1 for s in settings if s in TRANSLATED)
    total = question_count * (len(runs) * translated + len(settings) - translated)
    return JobSummary(pending, written, total - settings_pending, time.perf_counter() - start, results, retryable)
