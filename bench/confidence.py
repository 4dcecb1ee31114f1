"""Confidence and calibrated abstention on the validation part: weights and thresholds from the tuning
part of the GQA split, every reported number on the validation part.

Reads the records of bench/confidence_data.py (~/.cache/aspvqa/bench/confidence.jsonl): per
question the default translator's program, whether it is equivalent to the GQA program, the
examples shown with their scores and programs, the attempts. For each question the confidence
parts (trust.confidence) and the program score; then

- `--fit`: a logistic regression of "the program is right" on the weighted parts, on the tuning
  part only (scikit-learn): the default translator's programs and the model's alone (`n1` records)
  of the same questions, printed as the `Weights` to put in trust/confidence.py;
- thresholds by conformal risk control (trust.conformal, crc and ltt) on the tuning part for the
  risks 0.05, 0.1, 0.2, and on the validation part: the realised risk (share kept and wrong; share
  wrong among kept), its 95 % interval, and the coverage;
- AUROC of the confidence for "wrong program" on the validation part;
- the risk-coverage curve of the validation part (bench/results/confidence_risk_coverage.png);
- with sampled records (--sampled in the data job): the same with the agreement of n=3.

    .venv/bin/python bench/confidence.py [--fit] [--write]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import load_settings  # noqa: E402
from theory.cache import cache_dir  # noqa: E402
from theory.flat import parse_flat  # noqa: E402
from translators.checks.consistency import majority_vote  # noqa: E402
from translators.evidence import FILLED_SOURCES, LEAST_LIKELY_READING  # noqa: E402
from translators.rules.template_fill import FILL_RULES_VERSION  # noqa: E402
from trust.confidence import (  # noqa: E402
    ConfidenceParts,
    TranslationEvidence,
    confidence_parts,
    program_confidence,
    token_logprob_feature,
)
from trust.conformal import auroc, fit_threshold, risk_coverage, threshold_outcome  # noqa: E402

load_settings()  # hands ASPVQA_CACHE_DIR to every layer before the first cache path is made
LOG = cache_dir() / "bench" / "confidence.jsonl"
RESULTS = ROOT / "bench" / "results"
RISKS = (0.05, 0.1, 0.2)


def read_records() -> dict[tuple[str, str], dict[str, Any]]:
    records: dict[tuple[str, str], dict[str, Any]] = {}
    for line in LOG.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            if record["kind"] == "n1fill" and record.get("fill_rules", 1) != FILL_RULES_VERSION:
                continue  # made with earlier template fill rules
            # Records made before they named the reading were all made again with the allowed-token one.
            if record.get("least_likely", "allowed") != LEAST_LIKELY_READING:
                continue  # the model's doubt read another way than the weights will read it
            records[(record["kind"], record["id"])] = record
    return records


def parts_of(record: dict[str, Any], extra: dict[str, Any] | None) -> tuple[ConfidenceParts, bool]:
    """The parts of one question (n=1, or n=3 with its extra samples) and whether the chosen program is wrong."""
    program = parse_flat(record["program"]) if record["program"] else None
    if extra is None:
        if program is None:
            return ConfidenceParts(retrieval_similarity=None), True
        evidence = TranslationEvidence.of(
            program,
            question=record["question"],
            examples=record["examples"],
            attempts=record["attempts"],
            source=record.get("source", "model"),
            fill=record.get("fill"),
            min_logprob=record.get("min_logprob"),
        )
        return confidence_parts(evidence), not record["correct"]
    samples = [record["program"], *extra["samples"]]
    verdicts = [record["correct"], *extra["correct"]]
    vote = majority_vote([parse_flat(s) if s else None for s in samples])
    if vote.majority is None:
        return ConfidenceParts(samples=len(samples), agreement=0.0), True
    # The chosen program is the first sample of the largest group; its verdict is that sample's.
    from theory.canonical import canonical
    from theory.equivalence import equivalent

    chosen = next(
        i
        for i, s in enumerate(samples)
        if s
        and (
            canonical(parse_flat(s)) == vote.majority or equivalent(parse_flat(s), vote.majority, scenes=12).equivalent
        )
    )
    evidence = TranslationEvidence.of(
        parse_flat(samples[chosen]),
        question=record["question"],
        examples=record["examples"],
        attempts=record["attempts"] if chosen == 0 else 1,
        agreement=vote.agreement,
        samples=len(samples),
    )
    return confidence_parts(evidence), not verdicts[chosen]


def features(parts: ConfidenceParts) -> list[float]:
    return [
        parts.retrieval_similarity or 0.0,
        parts.skeleton_agreement or 0.0,
        float(min(parts.retries, 3)),
        parts.word_coverage if parts.word_coverage is not None else 1.0,
        parts.word_grounding if parts.word_grounding is not None else 1.0,
        float(parts.source in FILLED_SOURCES),
        parts.fill_agreement or 0.0,
        token_logprob_feature(parts.min_token_probability),
    ]


def fit_weights(rows: list[ConfidenceParts], wrong: list[bool]) -> dict[str, float]:
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=1.0, max_iter=1000).fit([features(p) for p in rows], [not w for w in wrong])
    names = [
        "retrieval_similarity",
        "skeleton_agreement",
        "retries",
        "word_coverage",
        "word_grounding",
        "filled",
        "fill_agreement",
        "min_token_logprob",
    ]
    return {"intercept": round(float(model.intercept_[0]), 3)} | {
        n: round(float(c), 3) for n, c in zip(names, model.coef_[0])
    }


def interval(k: int, n: int) -> tuple[float, float]:
    """Wilson 95 % interval of a share k/n."""
    if n == 0:
        return 0.0, 1.0
    z, p = 1.96, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


def evaluate(name: str, tuning: list[tuple[float, bool]], test: list[tuple[float, bool]]) -> dict[str, Any]:
    t_scores, t_wrong = [s for s, _ in tuning], [w for _, w in tuning]
    scores, wrong = [s for s, _ in test], [w for _, w in test]
    rows = []
    for method in ("crc", "ltt"):
        for risk in RISKS:
            fit = fit_threshold(t_scores, t_wrong, risk, method)
            on_test = threshold_outcome(method, risk, fit.threshold, scores, wrong)
            kept = round(on_test.coverage * len(scores))
            kept_wrong = round(on_test.kept_wrong * len(scores))
            realised = on_test.kept_wrong if method == "crc" else on_test.wrong_among_kept
            k, n = (kept_wrong, len(scores)) if method == "crc" else (kept_wrong, kept)
            rows.append(
                {
                    "method": method,
                    "risk": risk,
                    "threshold": fit.threshold if math.isfinite(fit.threshold) else None,
                    "tuning_coverage": round(fit.coverage, 4),
                    "test_coverage": round(on_test.coverage, 4),
                    "test_realised_risk": None if realised is None else round(realised, 4),
                    "test_risk_interval95": interval(k, n),
                    "test_kept_and_wrong": round(on_test.kept_wrong, 4),
                    "test_wrong_among_kept": None
                    if on_test.wrong_among_kept is None
                    else round(on_test.wrong_among_kept, 4),
                    "finite_sample_margin": round(1 / (len(t_scores) + 1), 4),
                }
            )
    return {
        "name": name,
        "tuning_n": len(tuning),
        "test_n": len(test),
        "tuning_wrong": round(sum(t_wrong) / len(t_wrong), 4),
        "test_wrong": round(sum(wrong) / len(wrong), 4),
        "test_auroc_wrong": None if (a := auroc([-s for s in scores], wrong)) is None else round(a, 4),
        "tuning_auroc_wrong": None if (a := auroc([-s for s in t_scores], t_wrong)) is None else round(a, 4),
        "thresholds": rows,
        "curve": risk_coverage(scores, wrong),
    }


def plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for result in results:
        xs = [c for _, c, _ in result["curve"]]
        ys = [r for _, _, r in result["curve"]]
        ax.plot(xs, ys, label=f"{result['name']} (test n={result['test_n']}, AUROC {result['test_auroc_wrong']})")
    ax.set_xlabel("coverage (share of questions answered)")
    ax.set_ylabel("wrong programs among those answered")
    ax.set_title("Risk-coverage on the validation part of the GQA split")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


TARGET_AUROC = 0.8


def _bound_verdict(t: dict[str, Any]) -> str:
    """Whether the validation part's realised risk (crc: kept and wrong; ltt: wrong among kept) is within the
    requested risk plus the finite-sample margin; no threshold (every answer held back) meets it trivially."""
    realised = t["test_kept_and_wrong"] if t["method"] == "crc" else t["test_wrong_among_kept"]
    if t["threshold"] is None or realised is None:
        return "met (nothing kept)"
    return "met" if realised <= t["risk"] + t["finite_sample_margin"] else "MISSED"


def render(results: list[dict[str, Any]]) -> str:
    lines = []
    for r in results:
        lines += [
            f"## {r['name']}: tuning n={r['tuning_n']} ({r['tuning_wrong']:.0%} wrong), test n={r['test_n']} "
            f"({r['test_wrong']:.0%} wrong); AUROC for wrong: test {r['test_auroc_wrong']}, tuning {r['tuning_auroc_wrong']} "
            f"(target test AUROC >= {TARGET_AUROC}: "
            f"{'met' if (r['test_auroc_wrong'] or 0) >= TARGET_AUROC else 'MISSED'})",
            "",
            "| method | risk | threshold | tuning coverage | test coverage | test realised risk | 95 % interval | test kept and wrong | test wrong among kept | target: realised <= risk + margin |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for t in r["thresholds"]:
            lines.append(
                f"| {t['method']} | {t['risk']} | {t['threshold']} | {t['tuning_coverage']:.0%} | {t['test_coverage']:.0%} | "
                f"{t['test_realised_risk']} | {t['test_risk_interval95']} | {t['test_kept_and_wrong']} | {t['test_wrong_among_kept']} | "
                f"{_bound_verdict(t)} |"
            )
        lines.append("")
    return "\n".join(lines)


HEADER = """# Confidence and calibrated abstention

Thresholds fitted on the tuning part of the GQA split (evaluation/splits.py), every test number on
the validation part. Records (bench/confidence_data.py, kind n1fill): the default translator (template
fill, else the bundled bank, nested, bert, k=3, prompt v3, schema on, qwen2.5-coder-1.5b with the
log-probability of each written token), on 300 tuning-part questions and on the validation part's
questions of bench/translation_accuracy.py's run (plus a few more of the validation part).
"Wrong" = the program is not semantically equivalent to the GQA program. crc: the realised risk
is the share of all questions kept and wrong (the guarantee: its expectation <= risk);
ltt: the share wrong among the kept ones (guarantee with probability 0.9). `None`: no threshold
meets the risk on the tuning part, so every answer is held back. The 95 % interval is the
validation part's sampling interval (Wilson) of the realised risk; the finite-sample margin of crc is
1/(n+1) of the tuning part.

"""
FOOTER = """
n=3 (records made before template fill and token log-probabilities; the model alone): the same
model shown the retrieved examples in the three rotations (as `TranslationSettings.samples` does at
temperature 0); the chosen program is the largest group of equivalent samples; its confidence is
the n=1 model's times the agreement (not fitted).
The risk-coverage curve of the validation part: confidence_risk_coverage.png.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fit", action="store_true", help="fit the weights on the tuning part and print them")
    parser.add_argument("--write", action="store_true", help="write bench/results/confidence.{json,md,png}")
    args = parser.parse_args()
    if not LOG.exists():
        print(f"skipped: no records at {LOG} (run bench/confidence_data.py)")
        return 0
    records = read_records()
    results = []
    rows = (("n=1", "n1fill", None), ("n=3", "n1", "extra3"))
    for name, base, kind in rows:
        by_part: dict[str, list[tuple[ConfidenceParts, bool]]] = {"tuning": [], "test": []}
        for (record_kind, qid), record in sorted(records.items()):
            if record_kind != base:
                continue
            extra = records.get((kind, qid)) if kind else None
            if kind and extra is None:
                continue
            by_part[record["part"]].append(parts_of(record, extra))
        if not by_part["tuning"] or not by_part["test"]:
            print(f"{name}: no records on both parts yet")
            continue
        if args.fit and base == "n1fill":
            # The model alone ("n1") on the same questions as well: the default translator leaves the
            # model too few of them to weigh the model's own parts (its least likely token above all).
            alone = [parts_of(r, None) for (k, _), r in sorted(records.items()) if k == "n1" and r["part"] == "tuning"]
            print(name, "weights fitted on the tuning part:", fit_weights(*zip(*(by_part["tuning"] + alone))))  # type: ignore[arg-type]
        scored = {part: [(program_confidence(p), w) for p, w in rows] for part, rows in by_part.items()}
        results.append(evaluate(name, scored["tuning"], scored["test"]))
    text = render(results)
    print(text)
    if args.write and results:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "confidence.json").write_text(json.dumps(results, indent=1) + "\n")
        (RESULTS / "confidence.md").write_text(HEADER + text + FOOTER)
        plot(results, RESULTS / "confidence_risk_coverage.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
