"""The shipped calibration's recipe judged on data it was not fitted on: three folds, one per labelled part.

The calibration (`bench/declines.py --refit --write-calibration --with-development --with-test-half`)
is fitted on three parts of real GQA questions, each labelled right or wrong by semantic equivalence
with GQA's program:

- the val sample's validation part (`bench/results/declines.json`; rules were written against it:
  validation);
- the test-dev development half (`bench/results/testdev_development.json`; development);
- the test-dev test half (`bench/results/testdev_test_again.json`; scored more than once: validation).

Here each part in turn is held out: the threshold is fitted by the same method and risk on the other
two parts' programs, and the held-out part's questions (declined and untranslated ones included) are
kept or held back by it, and so are its questions of a form the bank lacks (`bench/testdev.py`'s
definition). Prints and writes bench/results/calibration_folds.json (figures only, no question text
or ids); exits 1 when a fold answers fewer than 90 % of its questions or more than 5 %
of its answers are wrong. Translates nothing: run the three scripts above first.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _questions import gqa_dir, val_sample_path  # noqa: E402
from declines import METHOD, RESULTS, RISK, testdev_report  # noqa: E402
from testdev import new_form_ids  # noqa: E402

from evaluation.testdev_split import TESTDEV_FILE_NAME  # noqa: E402
from trust.conformal import fit_threshold  # noqa: E402

FOLDS_RESULTS = ROOT / "bench" / "results" / "calibration_folds.json"
MIN_COVERAGE, MAX_WRONG = 0.90, 0.05


def _parts() -> dict[str, tuple[str, list[dict], dict]]:
    """Each part's use while developing, its rows (id, status, confidence, wrong) and its questions by id."""
    if not RESULTS.is_file():
        print(f"{RESULTS.relative_to(ROOT)} is missing: run bench/declines.py first")
        sys.exit(1)
    declines = json.loads(RESULTS.read_text(encoding="utf-8"))["rows"]
    # As bench/declines.py counts it: labelled programs, and questions with no program at all.
    validation = [r for r in declines if r["part"] == "validation" and (r["wrong"] is not None or r["status"] != "ok")]
    val = json.loads(val_sample_path().read_text(encoding="utf-8"))
    testdev = json.loads((gqa_dir() / "questions" / TESTDEV_FILE_NAME).read_text(encoding="utf-8"))
    return {
        "val validation part": ("validation", validation, val),
        "test-dev development half": ("development", testdev_report("development")[0]["rows"], testdev),
        "test-dev test half": ("validation", testdev_report("test")[0]["rows"], testdev),
    }


def _labelled(rows: list[dict]) -> list[tuple[float, bool]]:
    return [(r["confidence"] or 0.0, bool(r["wrong"])) for r in rows if r["status"] == "ok" and r["wrong"] is not None]


def fold(held_out: list[dict], fitted_on: list[tuple[float, bool]]) -> dict:
    """The held-out rows kept or held back by a threshold fitted on `fitted_on`."""
    fit = fit_threshold([score for score, _ in fitted_on], [wrong for _, wrong in fitted_on], RISK, method=METHOD)
    kept = [r for r in held_out if r["status"] == "ok" and (r["confidence"] or 0.0) >= fit.threshold]
    wrong = sum(bool(r["wrong"]) for r in kept)
    return {
        "questions": len(held_out),
        "fitted_on_programs": len(fitted_on),
        "threshold": round(fit.threshold, 6),
        "answered_share": round(len(kept) / len(held_out), 4) if held_out else None,
        "wrong_among_answered": round(wrong / len(kept), 4) if kept else None,
    }


def main() -> None:
    parts = _parts()
    report: dict = {
        "data": "real GQA questions of ../shared/data/gqa in three labelled parts, each used while developing",
        "method": METHOD,
        "risk": RISK,
        "folds": {},
    }
    misses = []
    for name, (use, rows, questions) in parts.items():
        others = [
            pair for other, (_, other_rows, _) in parts.items() if other != name for pair in _labelled(other_rows)
        ]
        figures = fold(rows, others) | {"held_out_use": use}
        new_forms = new_form_ids(questions, [r["id"] for r in rows])
        figures["new_forms"] = fold([r for r in rows if r["id"] in new_forms], others)
        report["folds"][name] = figures
        new = figures["new_forms"]
        print(
            f"{name} ({use}, {figures['questions']} questions), threshold {figures['threshold']:.3f} fitted on the "
            f"other parts' {figures['fitted_on_programs']} programs: {figures['answered_share']:.1%} answered, "
            f"{figures['wrong_among_answered']:.1%} of them wrong; on its {new['questions']} of a form the bank "
            f"lacks {new['answered_share']:.1%} answered, {new['wrong_among_answered']:.1%} wrong"
        )
        if figures["answered_share"] < MIN_COVERAGE or (figures["wrong_among_answered"] or 0.0) > MAX_WRONG:
            misses.append(name)
    FOLDS_RESULTS.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    for name in misses:
        print(f"target missed on {name}: at least {MIN_COVERAGE:.0%} answered, at most {MAX_WRONG:.0%} wrong")
    sys.exit(1 if misses else 0)


if __name__ == "__main__":
    main()
