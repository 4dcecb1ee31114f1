"""The long-tail writer on questions it never learnt from: the trained student (``ASPVQA_LLM=student``)
beside the bundled language model, on the test-dev development half.

The student learns from the bank and from GQA's val and train samples (`translators.model.student.pairs`),
never from test-dev; the development half has been used while writing the rules, so every figure
here is a development figure. Three sets, each translated as `POST /translate` translates it, with
the calibration off:

- ``tail``: the development questions the rules alone leave (found with a model that has no
  outputs), translated with the default pipeline and the writer;
- ``new forms, writer alone``: 60 development questions of a form the bank lacks (the seeded shuffle
  of bench/long_tail_settings.py), template fill and composition off;
- ``development half, writer alone`` (``--whole``): every labelled development question, the writer alone;
- ``val validation part, writer alone`` (``--validation``): the val sample's validation part
  (evaluation.splits), which the student never learnt from but the rules were written against
  (validation).

For each: how many programs the writer wrote, how many are semantically equivalent to GQA's
(30 generated scenes), the p50 seconds a question, how well the program confidence (the shipped
weights) tells its right programs from its wrong ones (AUROC), and how many the shipped threshold
keeps, with how many of those wrong. Adds the writer's figures to
bench/results/student.json (figures only, no question text or ids). Exits 1 when the student misses
part 1's targets on the tail: >= 75 % right, p50 <= 1 s.

    .venv/bin/python bench/student.py                 # the student
    .venv/bin/python bench/student.py --llm qwen2.5-coder-1.5b
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from long_tail_settings import (  # noqa: E402
    gold_program,
    labelled_questions,
    new_form_sample,
    rules_tail,
    writer_programs,
)

from app.components import bundled_calibration_path  # noqa: E402
from evaluation.splits import split_questions  # noqa: E402
from trust.calibration import Calibration  # noqa: E402
from trust.confidence import confidence_parts, program_confidence  # noqa: E402
from trust.conformal import auroc  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "student.json"
TARGET_RIGHT, TARGET_P50_S = 0.75, 1.0


def _measure(questions: dict[str, dict], ids: list[str], threshold: float) -> dict:
    """The writer's programs among `ids`: how many, how many right, the p50 seconds a question, the
    confidence's AUROC on them, and how many the threshold keeps (and how many of those are wrong)."""
    seconds, programs = writer_programs(questions, ids)
    scores = [program_confidence(confidence_parts(t.evidence)) for _, t, _ in programs]
    right = [r for _, _, r in programs]
    kept = [r for s, r in zip(scores, right) if s >= threshold]
    area = auroc(scores, right)
    return {
        "questions": len(ids),
        "model_programs": len(right),
        "right": sum(right),
        "right_share": round(sum(right) / len(right), 4) if right else None,
        "p50_s": round(statistics.median(seconds), 3) if seconds else None,
        "confidence_auroc": round(area, 3) if area is not None else None,
        "kept": len(kept),
        "kept_wrong": kept.count(False),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="student", help="the long-tail writer (ASPVQA_LLM)")
    parser.add_argument("--whole", action="store_true", help="also the whole development half, writer alone")
    parser.add_argument("--validation", action="store_true", help="also the val validation part, writer alone")
    args = parser.parse_args()
    os.environ["ASPVQA_CALIBRATION"] = "off"
    questions, development = labelled_questions()
    mine = {qid: questions[qid] for qid in development}
    tail = rules_tail(mine)
    threshold = Calibration.load(bundled_calibration_path()).threshold_fit().threshold
    figures = {}
    with mock.patch.dict(os.environ, {"ASPVQA_LLM": args.llm}):
        figures["tail"] = _measure(questions, tail, threshold)
        with mock.patch.dict(os.environ, {"ASPVQA_TEMPLATE_FILL": "false"}):
            figures["new forms, writer alone"] = _measure(questions, new_form_sample(questions, development), threshold)
            if args.whole:
                labelled = [qid for qid in development if gold_program(questions[qid]) is not None]
                figures["development half, writer alone"] = _measure(questions, labelled, threshold)
            if args.validation:
                val = {qid: record for qid, record in questions.items() if not qid.startswith("dev-")}
                validation = [q for q in split_questions(val).test if gold_program(val[q]) is not None]
                figures["val validation part, writer alone"] = _measure(questions, validation, threshold)
    report = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.is_file() else {}
    report["data"] = (
        "the test-dev development half of ../shared/data/gqa (used while developing; the student never learnt from it)"
    )
    report.setdefault("writers", {})[args.llm] = figures
    RESULTS.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    for name, f in figures.items():
        print(
            f"{args.llm}, {name}: {f['model_programs']} of {f['questions']} written, {f['right']} right; "
            f"p50 {f['p50_s']} s; confidence AUROC {f['confidence_auroc']}; "
            f"kept {f['kept']} at {threshold:.3f}, {f['kept_wrong']} of them wrong"
        )
    tail_figures = figures["tail"]
    missed = (tail_figures["right_share"] or 0) < TARGET_RIGHT or (tail_figures["p50_s"] or 0) > TARGET_P50_S
    if missed:
        print(f"target missed on the tail: >= {TARGET_RIGHT:.0%} right at p50 <= {TARGET_P50_S} s")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
