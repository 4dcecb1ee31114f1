"""The evaluation report: tables in Markdown and JSON, plots in PNG, from a job's output folder.

Tables: accuracy by run and setting at every generosity and top-k (all evaluated questions, and
the answerable ones: where the interpreter reproduces the gold answer), by GQA structural and
semantic type, failure attribution, translation equivalence, accuracy by number of examples.
GQA's official metrics where the inputs allow: accuracy by type; validity and plausibility when a
choices file (``{questionId: {"valid": [...], "plausible": [...]}}``) is given; consistency over
the ``entailed`` questions that were evaluated too. GQA's distribution metric needs the training
set's answer statistics and grounding needs attention maps: neither is computed.

Example:
    >>> write_report("runs/val")   # doctest: +SKIP
    [PosixPath('runs/val/report.md'), PosixPath('runs/val/report.json'), ...]
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import cast

from pydantic import JsonValue

from evaluation.interpreter import sanitise_answer
from evaluation.records import RETRYABLE, ResultJson, ResultRecord
from evaluation.report_markdown import markdown
from evaluation.report_plots import plot_by_examples, plot_by_type, plot_risk_coverage
from evaluation.report_types import (
    MODES,
    SCORE_KEYS,
    TYPE_FIELDS,
    Accuracy,
    Choices,
    ConfidenceTable,
    ExampleSeries,
    FailureCounts,
    GqaMetrics,
    ReportJson,
    ReportTable,
    TranslationTable,
    TypeAccuracy,
)
from evaluation.store import MANIFEST_FILE, RESULTS_FILE, read_manifest, read_results
from trust.conformal import auroc, coverage_at_risk, effective_reliability, risk_coverage

# The names other modules and the tests import from here.
__all__ = [
    "MODES",
    "PLOT_EXAMPLES",
    "PLOT_RISK",
    "PLOT_TYPES",
    "REPORT_JSON",
    "REPORT_MD",
    "SCORE_KEYS",
    "TYPE_FIELDS",
    "accuracy_table",
    "by_examples",
    "by_type",
    "confidence_table",
    "failures",
    "gqa_metrics",
    "markdown",
    "plot_by_examples",
    "plot_by_type",
    "plot_risk_coverage",
    "records_of",
    "summarise",
    "translation_table",
    "write_report",
]

REPORT_MD = "report.md"
REPORT_JSON = "report.json"
PLOT_TYPES = "accuracy_by_{field}_type.png"
PLOT_EXAMPLES = "accuracy_by_examples.png"
PLOT_RISK = "risk_coverage.png"


def _ratio(hits: float, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def records_of(rows: Iterable[ResultRecord | ResultJson]) -> list[ResultRecord]:
    """Typed records from records or their JSON form."""
    return [r if isinstance(r, ResultRecord) else ResultRecord.from_json(r) for r in rows]


def _evaluated(rows: Iterable[ResultRecord]) -> list[ResultRecord]:
    # Skipped rows (a missing scene graph, image or program) say nothing about the method, and
    # retryable ones (the model's server failed) are no result yet.
    return [r for r in rows if r.outcome.status not in ("skipped", RETRYABLE)]


def accuracy_table(rows: Sequence[ResultRecord]) -> Accuracy:
    """Fraction of rows right at each ``mode@k`` (rows without a gold answer left out)."""
    scored = [r.outcome.scores for r in rows if r.outcome.scores]
    return {key: _ratio(sum(bool(s.get(key)) for s in scored), len(scored)) for key in SCORE_KEYS}


def translation_table(rows: Sequence[ResultRecord]) -> TranslationTable:
    """Fractions of translations canonically equal to / equivalent with the GQA program, and valid."""
    scored = [r for r in rows if r.outcome.scores]
    return {
        "valid": _ratio(sum(r.outcome.program is not None for r in scored), len(scored)),
        "canonical": _ratio(
            sum(bool(r.outcome.scores and r.outcome.scores.get("canonical")) for r in scored), len(scored)
        ),
        "semantic": _ratio(
            sum(bool(r.outcome.scores and r.outcome.scores.get("semantic")) for r in scored), len(scored)
        ),
    }


def by_type(rows: Sequence[ResultRecord], field: str) -> dict[str, TypeAccuracy]:
    """Accuracy (strict@1, or semantic equivalence for translations) per GQA type in `field`."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        kind = row.types.get(field)
        if kind and row.outcome.scores is not None:
            groups[kind].append(row.outcome.correct)
    return {k: {"n": len(v), "accuracy": _ratio(sum(v), len(v))} for k, v in sorted(groups.items())}


def failures(rows: Sequence[ResultRecord]) -> FailureCounts:
    """Counts of failure categories and of their kinds among the rows."""
    categories: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for row in rows:
        if row.outcome.failure is not None:
            categories[row.outcome.failure.category] += 1
            kinds[f"{row.outcome.failure.category}:{row.outcome.failure.kind}"] += 1
    return {"categories": dict(categories.most_common()), "kinds": dict(kinds.most_common())}


def _validity(scored: Sequence[ResultRecord], choices: Mapping[str, Choices]) -> tuple[float | None, float | None]:
    """(validity, plausibility): the shares of top answers among GQA's valid and plausible ones."""
    valid = plausible = counted = 0
    for row in scored:
        options = choices.get(row.question_id)
        if not isinstance(options, Mapping):  # a choices file may lack a question or hold junk
            continue
        counted += 1
        answer = sanitise_answer(row.outcome.answers[0]) if row.outcome.answers else None
        valid += answer in {sanitise_answer(a) for a in options.get("valid", ())}
        plausible += answer in {sanitise_answer(a) for a in options.get("plausible", ())}
    return _ratio(valid, counted), _ratio(plausible, counted)


def gqa_metrics(records: Sequence[ResultRecord | ResultJson], choices: Mapping[str, Choices] | None) -> GqaMetrics:
    """GQA's official accuracy, validity, plausibility (with `choices`) and consistency."""
    scored = [r for r in records_of(records) if r.gold is not None]
    correct = {r.question_id: r.outcome.correct for r in scored}
    # Consistency as GQA's eval.py: over questions answered correctly that have evaluated
    # entailed questions, the mean fraction of those answered correctly.
    per_question = []
    for row in scored:
        if not correct[row.question_id]:
            continue
        entailed = [e for e in row.entailed if e in correct and e != row.question_id]
        if entailed:
            per_question.append(sum(correct[e] for e in entailed) / len(entailed))
    consistency = round(sum(per_question) / len(per_question), 4) if per_question else None
    accuracy = _ratio(sum(correct.values()), len(correct))
    if choices is None:
        return {"accuracy": accuracy, "consistency": consistency, "consistency_questions": len(per_question)}
    validity, plausibility = _validity(scored, choices)
    return {
        "accuracy": accuracy,
        "validity": validity,
        "plausibility": plausibility,
        "consistency": consistency,
        "consistency_questions": len(per_question),
    }


def confidence_table(rows: Sequence[ResultRecord]) -> ConfidenceTable | None:
    """AUROC of the confidence for "wrong", the abstentions and the risk-coverage curve (None: no confidences)."""
    scored = [r for r in rows if r.confidence is not None]
    if not scored:
        return None
    scores, wrong = [r.confidence or 0.0 for r in scored], [not r.outcome.correct for r in scored]
    decided = [r for r in scored if r.abstained is not None]
    kept = [r for r in decided if not r.abstained]
    held = [None if r.abstained else r.outcome.correct for r in decided]
    return {
        "n": len(scored),
        "auroc_wrong": auroc([-s for s in scores], wrong),
        "abstained": sum(bool(r.abstained) for r in decided) if decided else None,
        "coverage": _ratio(len(kept), len(decided)) if decided else None,
        "wrong_among_kept": _ratio(sum(not r.outcome.correct for r in kept), len(kept)) if kept else None,
        # The most a threshold keeps at 1 % and 5 % wrong among the kept, on these questions (in sample).
        "coverage_at_1pct_risk": round(coverage_at_risk(scores, wrong, 0.01), 4),
        "coverage_at_5pct_risk": round(coverage_at_risk(scores, wrong, 0.05), 4),
        # Effective Reliability with the run's abstentions (+1 right, -c wrong, 0 held back); None without them.
        "phi_1": round(effective_reliability(held, 1.0), 4) if decided else None,
        "phi_10": round(effective_reliability(held, 10.0), 4) if decided else None,
        "curve": [{"threshold": t, "coverage": c, "risk": r} for t, c, r in risk_coverage(scores, wrong)],
    }


def summarise(
    records: Sequence[ResultRecord | ResultJson],
    runs: Mapping[str, Mapping[str, JsonValue]],
    choices: Mapping[str, Choices] | None = None,
) -> ReportJson:
    """Every table of the report, as JSON-ready data."""
    grouped: dict[tuple[str, str], list[ResultRecord]] = defaultdict(list)
    for record in records_of(records):
        grouped[(record.run, record.setting)].append(record)
    tables = [_table(run, setting, rows, runs, choices) for (run, setting), rows in sorted(grouped.items())]
    return {"tables": tables, "by_examples": by_examples(tables)}


def _table(
    run: str,
    setting: str,
    rows: Sequence[ResultRecord],
    runs: Mapping[str, Mapping[str, JsonValue]],
    choices: Mapping[str, Choices] | None,
) -> ReportTable:
    """The numbers of one (run, setting)."""
    evaluated = _evaluated(rows)
    answerable = [r for r in evaluated if r.answerable]
    entry: ReportTable = {
        "run": run,
        "setting": setting,
        "parameters": dict(runs.get(run, {})),
        "questions": len(rows),
        "evaluated": len(evaluated),
        "skipped": sum(r.outcome.status == "skipped" for r in rows),
        "retryable": sum(r.outcome.status == RETRYABLE for r in rows),
        "answerable": len(answerable),
        "seconds_per_question": _ratio(sum(r.seconds for r in evaluated), len(evaluated)),
        "failures": failures(evaluated),
        "by_type": {f: by_type(evaluated, f) for f in TYPE_FIELDS},
    }
    if (trust := confidence_table(evaluated)) is not None:
        entry["confidence"] = trust
    if setting == "translation":
        entry["translation"] = translation_table(evaluated)
    else:
        entry["accuracy"] = accuracy_table(evaluated)
        entry["accuracy_answerable"] = accuracy_table(answerable)
        entry["gqa"] = gqa_metrics(evaluated, choices)
    return entry


def _headline(entry: ReportTable) -> float | None:
    if entry["setting"] == "translation":
        return entry["translation"]["semantic"]
    return entry["accuracy"]["strict@1"]


def by_examples(tables: Sequence[ReportTable]) -> list[ExampleSeries]:
    """Headline accuracy per number of examples, one series per setting and other parameters."""
    series: dict[str, ExampleSeries] = {}
    for entry in tables:
        params = entry.get("parameters") or {}
        if "examples" not in params:
            continue
        others = {k: v for k, v in sorted(params.items()) if k != "examples"}
        label = entry["setting"] + " | " + ", ".join(f"{k}={v}" for k, v in others.items())
        line = series.setdefault(
            label, {"label": label, "setting": entry["setting"], "parameters": others, "points": []}
        )
        # A run's parameters passed `TranslationSettings`, which holds the number of examples as an integer.
        examples = cast(int, params["examples"])
        line["points"].append({"examples": examples, "accuracy": _headline(entry), "n": entry["evaluated"]})
    for line in series.values():
        line["points"].sort(key=lambda p: p["examples"])
    return [series[k] for k in sorted(series)]


def write_report(
    out_dir: str | Path,
    choices: str | Path | None = None,
    target: str | Path | None = None,
    title: str = "Evaluation report",
) -> list[Path]:
    """Read ``results.jsonl`` and ``job.json`` from `out_dir`; write the report files into `target`
    (default `out_dir`); return their paths."""
    folder = Path(out_dir)
    records = read_results(folder / RESULTS_FILE, repair=False)
    manifest = read_manifest(folder / MANIFEST_FILE)
    choice_data: dict[str, Choices] | None = json.loads(Path(choices).read_text(encoding="utf-8")) if choices else None
    summary = summarise(records, manifest.get("runs", {}), choice_data)
    inputs: dict[str, object] = {k: v for k, v in manifest.items() if k != "runs"}
    if choices:
        inputs["choices"] = str(choices)
    summary["inputs"] = inputs
    destination = Path(target) if target is not None else folder
    destination.mkdir(parents=True, exist_ok=True)
    paths = [destination / REPORT_MD, destination / REPORT_JSON]
    paths[0].write_text(markdown(summary, title), encoding="utf-8")
    paths[1].write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    plots = [plot_by_type(summary, destination / PLOT_TYPES.format(field=f), f) for f in TYPE_FIELDS]
    plots += [
        plot_by_examples(summary, destination / PLOT_EXAMPLES),
        plot_risk_coverage(summary, destination / PLOT_RISK),
    ]
    for plot in plots:
        if plot is not None:
            paths.append(plot)
    return paths
