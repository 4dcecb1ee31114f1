"""Does the model's least likely token tell its right programs from its wrong ones better when its
probability is read among the tokens the grammar allowed than over the whole vocabulary?

Real GQA questions, all used while developing (validation): the questions the rules leave (the val
sample's and the test-dev development half's, as bench/long_tail_settings.py finds them), translated
by the default pipeline, and development-half questions of a form the bank lacks, translated by the
model alone. For each program the model writes: whether it is semantically equivalent to GQA's
(30 generated scenes), and the least likely token's log-probability read both ways. Prints, for
each reading, the area under the ROC curve (the chance that a right program's value is above a wrong
one's) alone and inside the program confidence with the shipped weights, over all the programs and
over those of questions of a form the bank lacks.

    .venv/bin/python bench/token_doubt.py [--new-forms 60]

Writes bench/results/token_doubt.json (figures and question ids); exits 1 when GQA's questions or
the local model are not found.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from long_tail_settings import gold_program, labelled_questions, new_form_sample, rules_tail  # noqa: E402
from testdev import new_form_ids  # noqa: E402

from app.config import load_settings  # noqa: E402
from app.pipeline import Pipeline, PipelineError  # noqa: E402
from theory.equivalence import equivalent  # noqa: E402
from translators.model.backends.local import LlamaCppBackend  # noqa: E402
from trust.confidence import WEIGHTS, confidence_parts  # noqa: E402
from trust.conformal import auroc  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "token_doubt.json"


def _rows(pipeline: Pipeline, questions: dict[str, dict], ids: list[str], seen: list) -> list[dict]:
    rows = []
    for qid in ids:
        record = questions[qid]
        seen.clear()
        try:
            translation = pipeline.translate(record["question"])
        except PipelineError:
            continue
        details = translation.details
        if details is None or details.source != "model" or not seen:
            continue
        generation = seen[-1]
        whole = min(generation.token_logprobs) if generation.token_logprobs else None
        allowed = min(generation.allowed_logprobs) if generation.allowed_logprobs else None
        evidence = translation.evidence
        confidences = {}
        for name, value in (("whole", whole), ("allowed", allowed)):
            parts = confidence_parts(replace(evidence, min_logprob=value)) if evidence is not None else None
            confidences[name] = round(WEIGHTS.program_confidence(parts), 4) if parts is not None else None
        rows.append(
            {
                "id": qid,
                "right": bool(equivalent(translation.program, gold_program(record), scenes=30).equivalent),
                "min_logprob_whole": whole,
                "min_logprob_allowed": allowed,
                "confidence_whole": confidences["whole"],
                "confidence_allowed": confidences["allowed"],
            }
        )
    return rows


def _areas(rows: list[dict]) -> dict[str, float | None]:
    """The AUC of each reading, alone and inside the program confidence."""
    figures = {}
    for reading in ("whole", "allowed"):
        for kind in ("min_logprob", "confidence"):
            key = f"{kind}_{reading}"
            scored = [r for r in rows if r[key] is not None]
            area = auroc([r[key] for r in scored], [r["right"] for r in scored])
            figures[key] = round(area, 4) if area is not None else None
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--new-forms", type=int, default=60, help="development questions of new forms, model alone")
    args = parser.parse_args()
    os.environ["ASPVQA_CALIBRATION"] = "off"
    questions, development = labelled_questions()
    tail = rules_tail(questions)
    seen: list = []
    generate = LlamaCppBackend.generate

    def recording(self, request):  # noqa: ANN001, ANN202
        generation = generate(self, request)
        seen.append(generation)
        return generation

    with mock.patch.object(LlamaCppBackend, "generate", recording):
        pipeline = Pipeline(load_settings())
        pipeline.warm_up()
        rows = _rows(pipeline, questions, tail, seen)
        with mock.patch.dict(os.environ, {"ASPVQA_TEMPLATE_FILL": "false"}):
            alone = Pipeline(load_settings())
            new_forms = new_form_sample(questions, development, args.new_forms)
            rows += _rows(alone, questions, [q for q in new_forms if q not in tail], seen)
    if not rows:
        print("the model wrote no program: is the local model installed (make install)?")
        sys.exit(1)
    new = new_form_ids(questions, [r["id"] for r in rows])
    report = {
        "data": "val sample and test-dev development half of ../shared/data/gqa, used while developing (validation)",
        "programs": len(rows),
        "right": sum(r["right"] for r in rows),
        "auc": _areas(rows),
        "new_forms": {
            "programs": len(new),
            "right": sum(r["right"] for r in rows if r["id"] in new),
            "auc": _areas([r for r in rows if r["id"] in new]),
        },
        "rows": rows,
    }
    RESULTS.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    for name, part in (("all", report), ("of a form the bank lacks", report["new_forms"])):
        print(f"{name}: {part['programs']} model programs, {part['right']} right")
        for key, value in part["auc"].items():
            print(f"  AUC {key}: {value}")


if __name__ == "__main__":
    main()
