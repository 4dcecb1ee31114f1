"""What declining and abstaining are worth on real GQA questions, and the shipped calibration.

Every GQA question of the shared sample (../shared/data/gqa or $ASPVQA_GQA_DIR: the 1,358 val
questions and the 50 train questions) is translated as `POST /translate` translates it (the
default settings, the bundled model; `Pipeline.translate`). A question declined as `unsupported`
is a false decline: every GQA question is about the scene. Each val question whose GQA program
converts is labelled right or wrong by semantic equivalence of the programs (theory.equivalence,
30 generated scenes), and scored by the program's confidence (trust.confidence).

- `--write-calibration`: the validation part of the split (evaluation.splits; rules were written
  against it, so it is not a test part) fits the shipped calibration, app/data/calibration.json:
  conformal risk control (trust.conformal) at a 4 % risk, so that in expectation at most 4 % of
  questions like these get a program that is kept and wrong (at 90 % kept, at most 4.4 % of those
  kept are wrong). (Learn then Test at 5 % wrong among
  the kept, with probability 0.9, finds no threshold on these 391 questions: the confidence ties
  many right and wrong programs at its top values.)
- `--refit`: fit (and with `--write-calibration`, write) from the rows of the last run's results
  file instead of translating again.
- `--with-development`: fit on the development half of the test-dev sample too (its rows in
  bench/results/testdev_development.json, written by `bench/testdev.py --half development`): the
  questions the service meets are more like test-dev's than like the val sample's.
- `--with-test-half`: fit on the test half's rows too (bench/results/testdev_test_again.json, written
  by `bench/testdev.py --half test --again`). That half was scored more than once, so it is
  validation data, not a test set; it is the only labelled data whose questions no rule was written
  against, and so the most like the questions the service meets. Its figures are then in sample;
  `bench/calibration_folds.py` gives each part's figures with a threshold fitted on the other two.
- The report, on the validation part, with the default declines and that calibration: how many
  questions get a program that is kept, and how many of those are wrong (also on its questions of a
  form the bank has no example of, as bench/translation_accuracy.py counts them); the coverage at 1 % and
  5 % risk (the most questions a threshold keeps with at most that share wrong among them, on these
  very questions: in sample); and Effective Reliability Phi_c (Whitehead et al., ECCV 2022: +1
  right, -c wrong, 0 declined or held back) for c = 1 and 10, with and without declining.

Writes bench/results/declines.json (question ids, never question text) and exits 1 when more than
1 % of the GQA questions are declined.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402
from translation_accuracy import is_new_form  # noqa: E402

from app.components import bundled_calibration_path  # noqa: E402
from app.config import load_settings  # noqa: E402
from app.pipeline import Pipeline, PipelineError  # noqa: E402
from evaluation.splits import split_questions  # noqa: E402
from theory.equivalence import equivalent  # noqa: E402
from theory.program import ProgramError  # noqa: E402
from translators.examples.bundled import default_bank  # noqa: E402
from translators.gqa.gqa_program import GQAProgramError, gqa_to_program  # noqa: E402
from translators.rules.template_fill import TemplateFiller  # noqa: E402
from translators.wording.ontology import bundled_ontology  # noqa: E402
from trust.calibration import Calibration, data_digest  # noqa: E402
from trust.confidence import confidence_parts, program_confidence  # noqa: E402
from trust.conformal import coverage_at_risk, effective_reliability  # noqa: E402

GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR", ROOT / "../shared/data/gqa"))
RESULTS = ROOT / "bench" / "results" / "declines.json"
MAX_FALSE_DECLINES = 0.01
# crc bounds the share of all questions that are answered and wrong; the service promises at most one
# answer in twenty wrong among those it gives, at 90 % or more answered, so the bound is 0.05 x 0.9 =
# 0.045, rounded down to 0.04 for a margin (at 0.045 the validation part's in-sample figure was 5.2 %).
RISK, METHOD = 0.04, "crc"


@dataclass(frozen=True)
class Row:
    """One question's outcome (no text: the id names it)."""

    id: str
    part: str  # tuning, validation, dropped (val questions the split leaves out) or train
    status: str  # ok, unsupported, error
    confidence: float | None
    wrong: bool | None  # None: no GQA program to compare with, or no program
    source: str | None
    seconds: float


def _questions() -> tuple[list[tuple[str, str, str, list | None]], dict]:
    val_path = GQA_DIR / "questions" / "val_balanced_sample.json"
    train_path = GQA_DIR / "questions" / "train_balanced_sample50.json"
    if not val_path.is_file():
        print(f"GQA questions not found in {val_path.parent}; set ASPVQA_GQA_DIR")
        sys.exit(1)
    val = json.loads(val_path.read_text(encoding="utf-8"))
    split = split_questions(val)
    parts = {q: "tuning" for q in split.tuning} | {q: "validation" for q in split.test}
    items = [(qid, parts.get(qid, "dropped"), r["question"], r.get("semantic")) for qid, r in val.items()]
    if train_path.is_file():
        train = json.loads(train_path.read_text(encoding="utf-8"))
        items += [(str(r["question_id"]), "train", r["question"], None) for r in train]
    return items, {"questions": data_digest(val_path)}


def _row(pipeline: Pipeline, qid: str, part: str, text: str, semantic: list | None) -> Row:
    started = time.perf_counter()
    try:
        translation = pipeline.translate(text)
    except PipelineError as exc:
        if exc.kind == "model_unavailable":
            print(exc.message)
            sys.exit(1)
        status = "unsupported" if exc.kind == "unsupported" else "error"
        return Row(qid, part, status, None, None, None, time.perf_counter() - started)
    seconds = time.perf_counter() - started
    score = round(program_confidence(confidence_parts(translation.evidence)), 6)
    wrong = None
    if semantic is not None:
        try:
            gold = gqa_to_program(semantic)
            wrong = not equivalent(translation.program, gold, scenes=30).equivalent
        except (GQAProgramError, ProgramError):
            wrong = None
    source = translation.details.source if translation.details is not None else None
    return Row(qid, part, "ok", score, wrong, str(source), seconds)


TESTDEV_RUNS = {
    "development": ("testdev_development.json", "bench/testdev.py --half development"),
    "test": ("testdev_test_again.json", "bench/testdev.py --half test --again"),
}


def testdev_report(half: str) -> tuple[dict, str]:
    """A test-dev half's last default run (`bench/testdev.py`'s report) and its file's digest."""
    name, command = TESTDEV_RUNS[half]
    path = ROOT / "bench" / "results" / name
    if not path.is_file():
        print(f"{path.relative_to(ROOT)} is missing: run {command} first")
        sys.exit(1)
    report = json.loads(path.read_text(encoding="utf-8"))
    if report.get("rules_only") or report.get("used_while_developing") is not True:
        print(f"{path.relative_to(ROOT)} is not a run with the default settings on data used while developing")
        sys.exit(1)
    return report, data_digest(path)


def testdev_rows(half: str) -> tuple[list[tuple[float, bool]], str]:
    """(confidence, wrong) of each labelled program of a test-dev half's last default run, and its file's digest."""
    report, digest = testdev_report(half)
    rows = [
        (r["confidence"], bool(r["wrong"])) for r in report["rows"] if r["status"] == "ok" and r["wrong"] is not None
    ]
    return rows, digest


def _coverage_at(rows: list[Row], risk: float) -> float:
    """The largest share of `rows` (declined ones included) a threshold keeps with at most `risk` wrong among the kept."""
    scored = [r for r in rows if r.status == "ok"]
    share = coverage_at_risk([r.confidence or 0.0 for r in scored], [bool(r.wrong) for r in scored], risk)
    return share * len(scored) / len(rows) if rows else 0.0


def _answered(rows: list[Row], kept: set[str]) -> dict:
    """How many of `rows` are answered (kept) and the share wrong among those."""
    answered = [r for r in rows if r.id in kept]
    return {
        "questions": len(rows),
        "answered_share": round(len(answered) / len(rows), 4) if rows else None,
        "wrong_among_answered": round(sum(bool(r.wrong) for r in answered) / len(answered), 4) if answered else None,
    }


def _phi(rows: list[Row], c: float, kept: set[str]) -> float:
    """Effective Reliability: +1 a kept right program, -c a kept wrong one, 0 declined or held back."""
    return effective_reliability([(not r.wrong) if r.id in kept else None for r in rows], c)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions (a quick look)")
    parser.add_argument("--write-calibration", action="store_true", help="fit and write app/data/calibration.json")
    parser.add_argument("--refit", action="store_true", help="fit from the last results file, translating nothing")
    parser.add_argument(
        "--with-development", action="store_true", help="fit on the test-dev development half's rows too"
    )
    parser.add_argument(
        "--with-test-half",
        action="store_true",
        help="fit on the test-dev test half's rows too (scored more than once: validation data)",
    )
    args = parser.parse_args()
    os.environ["ASPVQA_CALIBRATION"] = "off"  # the confidences are the calibration's input, not its output
    items, digests = _questions()
    items = items[: args.limit]
    pipeline = Pipeline(load_settings())
    if args.refit:
        rows = [Row(**r) for r in json.loads(RESULTS.read_text(encoding="utf-8"))["rows"]]
    else:
        started = time.perf_counter()
        pipeline.warm_up()
        print(f"ready in {time.perf_counter() - started:.1f} s; {len(items)} GQA questions")
        rows = [_row(pipeline, *item) for item in tqdm(items, desc="translating", unit="q")]
    declined = [r for r in rows if r.status == "unsupported"]
    # Validation questions with a label, or with no program at all (declined or failed).
    validation = [r for r in rows if r.part == "validation" and (r.wrong is not None or r.status != "ok")]
    labelled = [r for r in validation if r.status == "ok"]
    components = pipeline.components
    settings = components.confidence_settings(components.translation_settings())
    fitted_on = [(r.confidence or 0.0, bool(r.wrong)) for r in labelled]
    fitted_parts = ["validation part"]
    for half, wanted in (("development", args.with_development), ("test", args.with_test_half)):
        if wanted:
            half_rows, digests[f"testdev_{half}"] = testdev_rows(half)
            fitted_on += half_rows
            fitted_parts.append(f"test-dev {half} half")
    calibration = Calibration.fit(
        [score for score, _ in fitted_on],
        [wrong for _, wrong in fitted_on],
        risk=RISK,
        settings=settings,
        data=digests,
        method=METHOD,
        label="program",
    )
    fit = calibration.threshold_fit()
    if args.write_calibration:
        calibration.save(bundled_calibration_path())
        print(f"calibration written to {bundled_calibration_path().relative_to(ROOT)}")
    kept = {r.id for r in labelled if (r.confidence or 0.0) >= fit.threshold}
    answered_all = {r.id for r in validation if r.status == "ok"}
    kept_wrong = sum(1 for r in labelled if r.id in kept and r.wrong)
    # The questions of a form the bank has no example of (as bench/translation_accuracy.py counts them).
    filler = TemplateFiller(default_bank(), bundled_ontology())
    texts = {qid: text for qid, _, text, _ in items}
    new_forms = [r for r in validation if is_new_form(filler, texts[r.id])]
    seconds = [r.seconds for r in rows]
    report: dict = {
        "data": "the 1,358 val and 50 train GQA questions of ../shared/data/gqa (the val questions' validation "
        "part was used while writing rules; none of these questions is unseen)",
        "questions": len(rows),
        "declined": len(declined),
        "declined_share": round(len(declined) / len(rows), 4),
        "declined_ids": [r.id for r in declined],
        "errors": sum(r.status == "error" for r in rows),
        "translation_p50_s": round(statistics.median(seconds), 4),
        "translation_p90_s": round(statistics.quantiles(seconds, n=10)[-1], 4) if len(seconds) > 1 else None,
        "validation": {
            "questions": len(validation),
            "with_program": len(labelled),
            "wrong_programs": sum(bool(r.wrong) for r in labelled),
            "calibration": {
                "method": METHOD,
                "risk": RISK,
                "threshold": round(fit.threshold, 6),
                "fitted_on": ", ".join(fitted_parts),
                "fitted_questions": len(fitted_on),
            },
            "answered_share": round(len(kept) / len(validation), 4),
            "wrong_among_answered": round(kept_wrong / len(kept), 4) if kept else None,
            "new_forms": _answered(new_forms, kept),
            "coverage_at_1pct_risk": round(_coverage_at(validation, 0.01), 4),
            "coverage_at_5pct_risk": round(_coverage_at(validation, 0.05), 4),
            "phi_1": {
                "declines_and_abstention": round(_phi(validation, 1, kept), 4),
                "always_answer": round(_phi(validation, 1, answered_all), 4),
            },  # fmt: skip
            "phi_10": {
                "declines_and_abstention": round(_phi(validation, 10, kept), 4),
                "always_answer": round(_phi(validation, 10, answered_all), 4),
            },  # fmt: skip
            "in_sample": "the threshold is fitted on these very questions",
        },
        "rows": [r.__dict__ for r in rows],
    }
    v = report["validation"]
    print(
        f"declined {len(declined)} of {len(rows)} GQA questions ({report['declined_share']:.1%}; target <= 1 %); "
        f"translation p50 {report['translation_p50_s']} s"
    )
    print(
        f"validation part ({v['questions']}): programs for {v['with_program']}, {v['wrong_programs']} wrong; "
        f"kept above {fit.threshold:.3f}: {v['answered_share']:.1%} answered, "
        f"{v['wrong_among_answered']} wrong among them (in sample); on its {v['new_forms']['questions']} of a form "
        f"the bank lacks: {v['new_forms']['answered_share']:.1%} answered, {v['new_forms']['wrong_among_answered']} wrong"
    )
    print(
        f"coverage at 1 % / 5 % risk: {v['coverage_at_1pct_risk']:.1%} / {v['coverage_at_5pct_risk']:.1%}; "
        f"Phi_1 {v['phi_1']}; Phi_10 {v['phi_10']}"
    )
    RESULTS.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if report["declined_share"] > MAX_FALSE_DECLINES:
        print(f"target missed: {report['declined_share']:.1%} of GQA questions declined")
        sys.exit(1)


if __name__ == "__main__":
    main()
