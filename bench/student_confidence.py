"""The program confidence's weights refitted where the student's programs are out of sample: the
test-dev development half, which the student never learnt from (the rules were written against it,
so these are development figures).

The shipped weights (trust.confidence.WEIGHTS) were fitted on the val tuning part with the 1.5B
model's programs; the student learnt from that part, so a refit there would be in sample. Here
every development question is translated twice, as `POST /translate` does (the service's program,
whatever wrote it) and with the writer alone (template fill off), each program judged equivalent
to GQA's or not (30 generated scenes). Five folds by image: for each, the weights are fitted on
the other four (bench/confidence.py's `fit_weights`, the same features) and score this one, so
every score is out of fold. Reported: the AUROC of the shipped and the refitted weights on the
writer's programs and on the service's, and the weights fitted on every fold, to put in
trust/confidence.py. Results (figures and question ids only) go to bench/results/student_confidence.json.

    .venv/bin/python bench/student_confidence.py
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent))

from confidence import features, fit_weights  # noqa: E402
from long_tail_settings import gold_program, labelled_questions, writer_programs  # noqa: E402

from trust.confidence import ConfidenceParts, Weights, confidence_parts, program_confidence  # noqa: E402
from trust.conformal import auroc  # noqa: E402

RESULTS = ROOT / "results" / "student_confidence.json"
FOLDS = 5


def _translated(questions: dict[str, dict], ids: list[str]) -> list[tuple[str, ConfidenceParts, bool, str]]:
    """(id, confidence parts, right, source) of each question the current settings translate."""
    _, programs = writer_programs(questions, ids, every_source=True)
    return [
        (qid, confidence_parts(t.evidence), right, t.details.source)
        for qid, t, right in programs
        if t.evidence is not None
    ]


def _fold(image: str) -> int:
    return sum(map(ord, image)) % FOLDS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    os.environ["ASPVQA_CALIBRATION"] = "off"
    questions, development = labelled_questions()
    labelled = [qid for qid in development if gold_program(questions[qid]) is not None]
    service = _translated(questions, labelled)
    with mock.patch.dict(os.environ, {"ASPVQA_TEMPLATE_FILL": "false"}):
        alone = [row for row in _translated(questions, labelled) if row[3] == "model"]
    rows = [(r, "service") for r in service] + [(r, "writer alone") for r in alone]
    folds = [_fold(questions[qid]["imageId"]) for (qid, _, _, _), _ in rows]
    out_of_fold: list[float] = [0.0] * len(rows)
    for fold in range(FOLDS):
        train = [i for i, f in enumerate(folds) if f != fold]
        fitted = Weights(**fit_weights([rows[i][0][1] for i in train], [not rows[i][0][2] for i in train]))
        for i, f in enumerate(folds):
            if f == fold:
                out_of_fold[i] = fitted.program_confidence(rows[i][0][1])
    everything = fit_weights([r[1] for r, _ in rows], [not r[2] for r, _ in rows])
    report: dict[str, object] = {
        "data": "test-dev development half of ../shared/data/gqa (used while developing; the student never learnt from it)",
        "programs": {"service": len(service), "writer alone": len(alone)},
        "features": len(features(ConfidenceParts())),
    }
    for name in ("service", "writer alone"):
        chosen = [i for i, (_, kind) in enumerate(rows) if kind == name]
        right = [rows[i][0][2] for i in chosen]
        shipped = [program_confidence(rows[i][0][1]) for i in chosen]
        refitted = [out_of_fold[i] for i in chosen]
        report[name] = {
            "right": sum(right),
            "auroc_shipped": round(auroc(shipped, right) or 0.0, 3),
            "auroc_refitted_out_of_fold": round(auroc(refitted, right) or 0.0, 3),
        }
        print(
            f"{name}: {len(chosen)} programs, {sum(right)} right; AUROC shipped {report[name]['auroc_shipped']}, "
            f"refitted out of fold {report[name]['auroc_refitted_out_of_fold']}"
        )
    report["weights_on_every_fold"] = everything
    report["wrong_ids"] = sorted({qid for (qid, _, right, _), _ in rows if not right})
    RESULTS.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print("weights fitted on every fold:", json.dumps(everything))


if __name__ == "__main__":
    main()
