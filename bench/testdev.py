"""Translation, confidence and abstention on real GQA test-dev questions, as `POST /translate` gives them.

The 800 questions of ``../shared/data/gqa/questions/testdev_balanced_sample800.json`` were split by
image before any of them was read (``evaluation/testdev_split.py``, ids in
``bench/data/testdev_split.json``):

- ``--half development`` (442 questions on 76 images) is used freely while the rules are written:
  every figure it prints is a *development* figure.
- ``--half test`` (358 questions on 76 images) is scored once, at the end: the first run writes
  ``bench/results/testdev_test.json`` and later runs refuse unless ``--again`` is given, which
  writes ``bench/results/testdev_test_again.json`` instead (the single score stays as it was),
  records how many times the half was scored and calls the figure a validation figure.

Each question is translated with the default settings (template fill, composition, then the
language model), scored by the program's confidence, kept or held back by the bundled calibration
(the threshold the service uses), and labelled right or wrong by semantic equivalence with GQA's own
program (theory.equivalence, 30 generated scenes). A question GQA's program does not convert for is
counted but not labelled. `--rules-only` gives the model a recording with no outputs, so every
question the rules leave is counted as left, without waiting for the model. `--rethreshold` keeps or
holds back the last run's rows by today's bundled threshold, translating nothing (for the test half,
only its `--again` file, and the count of scores stays as it was).

Prints, and writes to ``bench/results/testdev_<half>.json`` (ids, never question text): coverage
(kept among all), wrong among kept, programs right overall, the same three on the questions of a
form the bank lacks (`--new-forms` adds them to a stored run without translating anything), each writer's share and right %, the
long-tail writer's p50, and coverage at 1 % and 5 % risk. Exits 1 when a target is missed:
coverage >= 90 %, wrong among kept <= 5 %, programs right >= 88 %.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _questions import gqa_dir  # noqa: E402
from tqdm import tqdm  # noqa: E402
from translation_accuracy import is_new_form  # noqa: E402

from app.components import bundled_calibration_path  # noqa: E402
from app.config import load_settings  # noqa: E402
from app.pipeline import Pipeline, PipelineError  # noqa: E402
from evaluation.testdev_split import TESTDEV_FILE_NAME, load_split  # noqa: E402
from theory.equivalence import equivalent  # noqa: E402
from theory.program import Program, ProgramError  # noqa: E402
from translators.examples.bundled import default_bank  # noqa: E402
from translators.gqa.gqa_program import GQAProgramError, gqa_to_program  # noqa: E402
from translators.rules.template_fill import TemplateFiller  # noqa: E402
from translators.wording.ontology import bundled_ontology  # noqa: E402
from trust.calibration import Calibration  # noqa: E402
from trust.confidence import confidence_parts, program_confidence  # noqa: E402
from trust.conformal import coverage_at_risk  # noqa: E402

TARGETS = {"coverage": 0.90, "wrong_among_answered": 0.05, "programs_right": 0.88}
RULE_SOURCES = ("template", "composed")


@dataclass(frozen=True)
class Row:
    """One question's outcome (the id names it; no text)."""

    id: str
    status: str  # ok, unsupported, error
    source: str | None  # which writer gave the program (None: none did)
    confidence: float | None
    kept: bool
    gold: bool  # whether GQA's own program converts (only such questions are scored)
    wrong: bool | None  # None: no program, or GQA's program does not convert
    seconds: float


def _gold(semantic: list) -> Program | None:
    try:
        return gqa_to_program(semantic)
    except (GQAProgramError, ProgramError):
        return None


def _row(pipeline: Pipeline, threshold: float, qid: str, record: dict) -> Row:
    gold = _gold(record["semantic"])
    started = time.perf_counter()
    try:
        translation = pipeline.translate(record["question"])
    except PipelineError as exc:
        if exc.kind == "model_unavailable":
            print(exc.message)
            sys.exit(1)
        status = "unsupported" if exc.kind == "unsupported" else "error"
        return Row(qid, status, None, None, False, gold is not None, None, time.perf_counter() - started)
    seconds = time.perf_counter() - started
    score = round(program_confidence(confidence_parts(translation.evidence)), 6)
    source = str(translation.details.source) if translation.details is not None else None
    wrong = None if gold is None else not equivalent(translation.program, gold, scenes=30).equivalent
    return Row(qid, "ok", source, score, score >= threshold, gold is not None, wrong, seconds)


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def accuracy(rows: list[Row]) -> dict:
    """Coverage, wrong among the answered and programs right, on the rows GQA's program converts for."""
    scored_rows = [r for r in rows if r.gold]
    labelled = [r for r in scored_rows if r.wrong is not None]
    kept = [r for r in labelled if r.kept]
    return {
        "questions": len(rows),
        "coverage": _share(len(kept), len(scored_rows)),
        "wrong_among_answered": _share(sum(bool(r.wrong) for r in kept), len(kept)),
        "programs_right": _share(sum(not r.wrong for r in labelled), len(scored_rows)),
    }


def new_form_ids(records: dict, ids: list[str]) -> set[str]:
    """The questions whose form the bank the service uses has no example of (as bench/translation_accuracy.py)."""
    bank = default_bank()
    filler = TemplateFiller(bank, bundled_ontology())
    return {qid for qid in ids if is_new_form(filler, records[qid]["question"])}


def summary(rows: list[Row], new_forms: set[str]) -> dict:
    """The figures of one run (see the module docstring)."""
    scored_rows = [r for r in rows if r.gold]
    labelled = [r for r in scored_rows if r.wrong is not None]
    by_source: dict[str, dict] = {}
    for source in sorted({r.source or "none" for r in rows}):
        mine = [r for r in rows if (r.source or "none") == source]
        mine_labelled = [r for r in mine if r.wrong is not None]
        by_source[source] = {
            "questions": len(mine),
            "share": _share(len(mine), len(rows)),
            "right": _share(sum(not r.wrong for r in mine_labelled), len(mine_labelled)),
            "p50_s": round(statistics.median(r.seconds for r in mine), 4),
        }
    tail = [r for r in rows if r.source not in RULE_SOURCES]
    scored = labelled
    ok_scores, ok_wrong = [r.confidence or 0.0 for r in scored], [bool(r.wrong) for r in scored]
    return {
        **accuracy(rows),
        "scored": len(scored_rows),
        "not_scored": len(rows) - len(scored_rows),
        "declined": sum(r.status == "unsupported" for r in rows),
        "errors": sum(r.status == "error" for r in rows),
        "new_forms": accuracy([r for r in rows if r.id in new_forms]),
        "coverage_at_1pct_risk": round(coverage_at_risk(ok_scores, ok_wrong, 0.01) * len(scored) / len(scored_rows), 4),
        "coverage_at_5pct_risk": round(coverage_at_risk(ok_scores, ok_wrong, 0.05) * len(scored) / len(scored_rows), 4),
        "by_source": by_source,
        "long_tail": {
            "questions": len(tail),
            "share": _share(len(tail), len(rows)),
            "p50_s": round(statistics.median(r.seconds for r in tail), 4) if tail else None,
        },
    }


def _misses(figures: dict) -> list[str]:
    misses = []
    if (figures["coverage"] or 0) < TARGETS["coverage"]:
        misses.append(f"coverage {figures['coverage']} < {TARGETS['coverage']}")
    if (figures["wrong_among_answered"] or 0) > TARGETS["wrong_among_answered"]:
        misses.append(f"wrong among answered {figures['wrong_among_answered']} > {TARGETS['wrong_among_answered']}")
    if (figures["programs_right"] or 0) < TARGETS["programs_right"]:
        misses.append(f"programs right {figures['programs_right']} < {TARGETS['programs_right']}")
    return misses


def empty_recording() -> str:
    """A replay model with no outputs: every question the rules leave is counted as left, at once."""
    handle = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
    handle.close()
    return f"replay:{handle.name}"


def _add_new_forms(results: Path) -> None:
    """The last run's figures on the questions of a form the bank lacks, from its rows: nothing is
    translated, so a test half's single score stays its single score."""
    report = json.loads(results.read_text(encoding="utf-8"))
    records = json.loads((gqa_dir() / "questions" / TESTDEV_FILE_NAME).read_text(encoding="utf-8"))
    rows = [Row(**r) for r in report["rows"]]
    report["new_forms"] = accuracy([r for r in rows if r.id in new_form_ids(records, [r.id for r in rows])])
    results.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report["new_forms"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("development", "test"), default="development")
    parser.add_argument("--again", action="store_true", help="score the test half again (recorded as such)")
    parser.add_argument("--rules-only", action="store_true", help="no model: count what the rules leave")
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions (a quick look)")
    parser.add_argument(
        "--rethreshold",
        action="store_true",
        help="keep or hold back the last run's rows by today's bundled threshold (the test half: with --again)",
    )
    parser.add_argument(
        "--new-forms",
        action="store_true",
        help="add the figures on forms the bank lacks to the last run's results, translating nothing (test half too)",
    )
    args = parser.parse_args()
    results = ROOT / "bench" / "results" / f"testdev_{args.half}{'_rules' if args.rules_only else ''}.json"
    scored_before = 0
    if args.new_forms:
        _add_new_forms(results)
        return
    if args.half == "test" and results.exists():
        scored_before = json.loads(results.read_text(encoding="utf-8")).get("times_scored", 1)
        if not args.again:
            print(f"the test half was scored already ({results.relative_to(ROOT)}); --again scores it again, recorded")
            sys.exit(2)
        # The single score stays as it was; a later one is a validation figure, in a file of its own.
        again = ROOT / "bench" / "results" / "testdev_test_again.json"
        if again.exists():
            scored_before = json.loads(again.read_text(encoding="utf-8")).get("times_scored", scored_before)
        results = again
    path = gqa_dir() / "questions" / TESTDEV_FILE_NAME
    if not path.is_file():
        print(f"GQA test-dev questions not found in {path.parent}; set ASPVQA_GQA_DIR")
        sys.exit(1)
    records = json.loads(path.read_text(encoding="utf-8"))
    ids = list(load_split().half(args.half))[: args.limit]
    os.environ["ASPVQA_CALIBRATION"] = "off"  # the confidence is scored here against the bundled threshold
    if args.rules_only:
        os.environ["ASPVQA_LLM"] = empty_recording()
    threshold = Calibration.load(bundled_calibration_path()).threshold_fit().threshold
    if args.rethreshold:
        # The test half's single score is never re-read; its later (validation) run may be, like the development half's.
        last = json.loads(results.read_text(encoding="utf-8"))["rows"]
        rows = [Row(**(r | {"kept": r["confidence"] is not None and r["confidence"] >= threshold})) for r in last]
    else:
        pipeline = Pipeline(load_settings())
        pipeline.warm_up()
        rows = [_row(pipeline, threshold, qid, records[qid]) for qid in tqdm(ids, desc=args.half, unit="q")]
    figures = summary(rows, new_form_ids(records, [r.id for r in rows]))
    report = {
        "data": f"{len(ids)} questions of the {args.half} half of ../shared/data/gqa/questions/{TESTDEV_FILE_NAME}",
        "used_while_developing": args.half == "development" or scored_before > 0,
        "figure_kind": "development" if args.half == "development" else "test" if scored_before == 0 else "validation",
        "times_scored": scored_before + (not args.rethreshold) if args.half == "test" else None,
        "rules_only": args.rules_only,
        "threshold": round(threshold, 6),
        **figures,
        "sources": dict(Counter(r.source or r.status for r in rows)),
        "rows": [asdict(r) for r in rows],
    }
    if args.limit is None:
        results.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k not in {"rows"}}, indent=1))
    misses = _misses(figures)
    for miss in misses:
        print(f"target missed: {miss}")
    sys.exit(1 if misses else 0)


if __name__ == "__main__":
    main()
