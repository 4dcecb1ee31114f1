"""The bundled model on the questions the rules leave, by prompt setting: is its accuracy a matter of
the prompt (how many examples, which program syntax), or of the model?

Two sets of real GQA questions, both used while developing (validation):

- ``tail``: the val sample's questions and the test-dev development half's that the rules alone do
  not translate (found with a model that has no outputs), each then translated with the default
  pipeline and the setting, as `POST /translate` translates it;
- ``new forms``: 60 development-half questions of a form the bank lacks (a seeded shuffle), each
  translated by the model alone (template fill and composition off).

For each, how many programs the model wrote, how many are semantically equivalent to GQA's
(30 generated scenes), and the p50 seconds a question. No abstention: the calibration is off.

    .venv/bin/python bench/long_tail_settings.py --examples 3 --representation nested

Adds the setting's figures to bench/results/long_tail_settings.json (figures only, no question
text or ids); exits 1 when GQA's questions are not found.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _questions import gqa_dir, val_sample_path  # noqa: E402
from testdev import empty_recording, new_form_ids  # noqa: E402

from app.config import load_settings  # noqa: E402
from app.pipeline import Pipeline, PipelineError  # noqa: E402
from evaluation.testdev_split import TESTDEV_FILE_NAME, load_split  # noqa: E402
from theory.equivalence import equivalent  # noqa: E402
from translators.gqa.gqa_program import GQAProgramError, gqa_to_program  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "long_tail_settings.json"
NEW_FORMS, SEED = 60, 7


def labelled_questions() -> tuple[dict[str, dict], list[str]]:
    """Every labelled question by id (val ids as they are, development ids prefixed), and the development ids."""
    testdev_path = gqa_dir() / "questions" / TESTDEV_FILE_NAME
    if not val_sample_path().is_file() or not testdev_path.is_file():
        print(f"GQA questions not found in {gqa_dir() / 'questions'}; set ASPVQA_GQA_DIR")
        sys.exit(1)
    testdev = json.loads(testdev_path.read_text(encoding="utf-8"))
    development = sorted(load_split().half("development"))
    questions = dict(json.loads(val_sample_path().read_text(encoding="utf-8")))
    questions |= {f"dev-{qid}": testdev[qid] for qid in development}
    return questions, [f"dev-{qid}" for qid in development]


def gold_program(record: dict):  # noqa: ANN202 - a Program or None
    try:
        return gqa_to_program(record["semantic"])
    except GQAProgramError:
        return None


def rules_tail(questions: dict[str, dict]) -> list[str]:
    """The labelled questions the rules alone do not translate."""
    with mock.patch.dict(os.environ, {"ASPVQA_LLM": empty_recording()}):
        pipeline = Pipeline(load_settings())
    left = []
    for qid, record in questions.items():
        if gold_program(record) is None:
            continue
        try:
            pipeline.translate(record["question"])
        except PipelineError:
            left.append(qid)
    return left


def new_form_sample(questions: dict[str, dict], development: list[str], count: int = NEW_FORMS) -> list[str]:
    """`count` labelled development questions of a form the bank lacks, in a seeded shuffle."""
    labelled = [qid for qid in development if gold_program(questions[qid]) is not None]
    new_forms = sorted(new_form_ids(questions, labelled))
    random.Random(SEED).shuffle(new_forms)
    return new_forms[:count]


def writer_programs(
    questions: dict[str, dict], ids: list[str], every_source: bool = False
) -> tuple[list[float], list[tuple[str, Any, bool]]]:
    """Each question of `ids` translated as `POST /translate` does: the seconds each took, and each
    program the writer (not the rules; with `every_source`, whatever wrote it) wrote, as its
    question's id, the translation and whether it is equivalent to GQA's."""
    pipeline = Pipeline(load_settings())
    pipeline.warm_up()
    seconds, written = [], []
    for qid in ids:
        record = questions[qid]
        started = time.perf_counter()
        try:
            translation = pipeline.translate(record["question"])
        except PipelineError:
            seconds.append(time.perf_counter() - started)
            continue
        seconds.append(time.perf_counter() - started)
        if translation.details is not None and (every_source or translation.details.source == "model"):
            written.append(
                (qid, translation, equivalent(translation.program, gold_program(record), scenes=30).equivalent)
            )
    return seconds, written


def _measure(questions: dict[str, dict], ids: list[str]) -> dict:
    """The model's programs among `ids`, how many are right, and the p50 seconds a question."""
    seconds, programs = writer_programs(questions, ids)
    written, right = len(programs), sum(r for _, _, r in programs)
    return {
        "questions": len(ids),
        "model_programs": written,
        "right": right,
        "right_share": round(right / written, 4) if written else None,
        "p50_s": round(statistics.median(seconds), 3) if seconds else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=3, help="worked examples shown (k)")
    parser.add_argument("--representation", default="nested", help="program syntax the model writes")
    args = parser.parse_args()
    os.environ["ASPVQA_CALIBRATION"] = "off"
    os.environ["ASPVQA_EXAMPLES"] = str(args.examples)
    os.environ["ASPVQA_REPRESENTATION"] = args.representation
    questions, development = labelled_questions()
    tail = rules_tail(questions)
    figures = {"tail": _measure(questions, tail)}
    with mock.patch.dict(os.environ, {"ASPVQA_TEMPLATE_FILL": "false"}):
        figures["new forms, model alone"] = _measure(questions, new_form_sample(questions, development))
    setting = f"examples={args.examples} representation={args.representation}"
    report = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.is_file() else {}
    report.setdefault(
        "data",
        "the val sample and the test-dev development half of ../shared/data/gqa, both used while developing",
    )
    report.setdefault("settings", {})[setting] = figures
    RESULTS.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    for name, f in figures.items():
        print(
            f"{setting}, {name}: {f['model_programs']} of {f['questions']} written by the model, {f['right']} right; p50 {f['p50_s']} s"
        )


if __name__ == "__main__":
    main()
