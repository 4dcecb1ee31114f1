"""Answers in GQA's submission format: ``[{"questionId": ..., "prediction": ...}]``, one setting of one run.

GQA's evaluation server (test-dev, test, challenge) reads a JSON list with one prediction per
question; a question the setting left without an answer (skipped, failed, no answer) gets the
empty prediction, so the file still names every question the job evaluated.

Example:
    >>> export_submission("runs/td/results.jsonl", "submission.json", "pipeline-blind", "default")  # doctest: +SKIP
    SubmissionSummary(questions=12578, unanswered=310, path=PosixPath('submission.json'))
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from evaluation.interpreter import sanitise_answer
from evaluation.records import RETRYABLE
from evaluation.store import iter_results


@dataclass(frozen=True)
class SubmissionSummary:
    """What was exported: predictions written and how many of them are empty."""

    questions: int
    unanswered: int
    path: Path


def export_submission(results: str | Path, target: str | Path, setting: str, run: str) -> SubmissionSummary:
    """Write the top answer of every question of (`run`, `setting`) in `results` to `target` as
    GQA's submission list; the latest record of a question counts, as for the report."""
    predictions: dict[str, str] = {}
    for record in iter_results(Path(results), repair=False):
        if record.get("setting") != setting or record.get("run") != run:
            continue
        answers = record.get("answers") or []
        final = record.get("status") != RETRYABLE
        predictions[str(record["questionId"])] = sanitise_answer(str(answers[0])) if answers and final else ""
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"questionId": qid, "prediction": prediction} for qid, prediction in predictions.items()]
    path.write_text(json.dumps(rows, ensure_ascii=False) + "\n", encoding="utf-8")
    return SubmissionSummary(len(rows), sum(1 for r in rows if not r["prediction"]), path)
