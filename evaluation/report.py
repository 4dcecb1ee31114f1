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
from typing import Any

from evaluation.interpreter import sanitise_answer
from evaluation.records import KS, RETRYABLE, ResultRecord
from evaluation.store import MANIFEST_FILE, RESULTS_FILE, read_results
from trust.conformal import auroc, coverage_at_risk, effective_reliability, risk_coverage

MODES = ("strict", "generous", "generous+")
SCORE_KEYS = tuple(f"{m}@{k}" for m in MODES for k in KS)
TYPE_FIELDS = ("structural", "semantic")
REPORT_MD = "report.md"
REPORT_JSON = "report.json"
PLOT_TYPES = "accuracy_by_{field}_type.png"
PLOT_EXAMPLES = "accuracy_by_examples.png"
PLOT_RISK = "risk_coverage.png"


def _ratio(hits: float, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def records_of(rows: Iterable[ResultRecord | Mapping[str, Any]]) -> list[ResultRecord]:
    """Typed records from records or their JSON form."""
    return [r if isinstance(r, ResultRecord) else ResultRecord.from_json(r) for r in rows]


def _evaluated(rows: Iterable[ResultRecord]) -> list[ResultRecord]:
    # Skipped rows (a missing scene graph, image or program) say nothing about the method, and
    # retryable ones (the model's server failed) are no result yet.
    return [r for r in rows if r.status not in ("skipped", RETRYABLE)]


def accuracy_table(rows: Sequence[ResultRecord]) -> dict[str, float | None]:
    """Fraction of rows right at each ``mode@k`` (rows without a gold answer left out)."""
    scored = [r.scores for r in rows if r.scores]
    return {key: _ratio(sum(bool(s.get(key)) for s in scored), len(scored)) for key in SCORE_KEYS}


def translation_table(rows: Sequence[ResultRecord]) -> dict[str, float | None]:
    """Fractions of translations canonically equal to / equivalent with the GQA program, and valid."""
    scored = [r for r in rows if r.scores]
    return {
        "valid": _ratio(sum(r.program is not None for r in scored), len(scored)),
        "canonical": _ratio(sum(bool(r.scores and r.scores.get("canonical")) for r in scored), len(scored)),
        "semantic": _ratio(sum(bool(r.scores and r.scores.get("semantic")) for r in scored), len(scored)),
    }


def by_type(rows: Sequence[ResultRecord], field: str) -> dict[str, dict[str, Any]]:
    """Accuracy (strict@1, or semantic equivalence for translations) per GQA type in `field`."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        kind = row.types.get(field)
        if kind and row.scores is not None:
            groups[kind].append(row.correct)
    return {k: {"n": len(v), "accuracy": _ratio(sum(v), len(v))} for k, v in sorted(groups.items())}


def failures(rows: Sequence[ResultRecord]) -> dict[str, Any]:
    """Counts of failure categories and of their kinds among the rows."""
    categories: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for row in rows:
        if row.failure is not None:
            categories[row.failure.category] += 1
            kinds[f"{row.failure.category}:{row.failure.kind}"] += 1
    return {"categories": dict(categories.most_common()), "kinds": dict(kinds.most_common())}


def gqa_metrics(
    records: Sequence[ResultRecord | Mapping[str, Any]], choices: Mapping[str, Any] | None
) -> dict[str, float | None]:
    """GQA's official accuracy, validity, plausibility (with `choices`) and consistency."""
    scored = [r for r in records_of(records) if r.gold is not None]
    correct = {r.question_id: r.correct for r in scored}
    metrics: dict[str, float | None] = {"accuracy": _ratio(sum(correct.values()), len(correct))}
    if choices is not None:
        valid = plausible = counted = 0
        for row in scored:
            options = choices.get(row.question_id)
            if not isinstance(options, Mapping):
                continue
            counted += 1
            answer = sanitise_answer(row.answers[0]) if row.answers else None
            valid += answer in {sanitise_answer(a) for a in options.get("valid", ())}
            plausible += answer in {sanitise_answer(a) for a in options.get("plausible", ())}
        metrics["validity"] = _ratio(valid, counted)
        metrics["plausibility"] = _ratio(plausible, counted)
    # Consistency as GQA's eval.py: over questions answered correctly that have evaluated
    # entailed questions, the mean fraction of those answered correctly.
    per_question = []
    for row in scored:
        if not correct[row.question_id]:
            continue
        entailed = [e for e in row.entailed if e in correct and e != row.question_id]
        if entailed:
            per_question.append(sum(correct[e] for e in entailed) / len(entailed))
    metrics["consistency"] = round(sum(per_question) / len(per_question), 4) if per_question else None
    metrics["consistency_questions"] = len(per_question)
    return metrics


def confidence_table(rows: Sequence[ResultRecord]) -> dict[str, Any] | None:
    """AUROC of the confidence for "wrong", the abstentions and the risk-coverage curve (None: no confidences)."""
    scored = [r for r in rows if r.confidence is not None]
    if not scored:
        return None
    scores, wrong = [r.confidence or 0.0 for r in scored], [not r.correct for r in scored]
    decided = [r for r in scored if r.abstained is not None]
    kept = [r for r in decided if not r.abstained]
    held = [None if r.abstained else r.correct for r in decided]
    return {
        "n": len(scored),
        "auroc_wrong": auroc([-s for s in scores], wrong),
        "abstained": sum(bool(r.abstained) for r in decided) if decided else None,
        "coverage": _ratio(len(kept), len(decided)) if decided else None,
        "wrong_among_kept": _ratio(sum(not r.correct for r in kept), len(kept)) if kept else None,
        # The most a threshold keeps at 1 % and 5 % wrong among the kept, on these questions (in sample).
        "coverage_at_1pct_risk": round(coverage_at_risk(scores, wrong, 0.01), 4),
        "coverage_at_5pct_risk": round(coverage_at_risk(scores, wrong, 0.05), 4),
        # Effective Reliability with the run's abstentions (+1 right, -c wrong, 0 held back); None without them.
        "phi_1": round(effective_reliability(held, 1.0), 4) if decided else None,
        "phi_10": round(effective_reliability(held, 10.0), 4) if decided else None,
        "curve": [{"threshold": t, "coverage": c, "risk": r} for t, c, r in risk_coverage(scores, wrong)],
    }


def summarise(
    records: Sequence[ResultRecord | Mapping[str, Any]],
    runs: Mapping[str, Mapping[str, Any]],
    choices: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Every table of the report, as JSON-ready data."""
    grouped: dict[tuple[str, str], list[ResultRecord]] = defaultdict(list)
    for record in records_of(records):
        grouped[(record.run, record.setting)].append(record)
    tables: list[dict[str, Any]] = []
    for (run, setting), rows in sorted(grouped.items()):
        evaluated = _evaluated(rows)
        answerable = [r for r in evaluated if r.answerable]
        entry: dict[str, Any] = {
            "run": run,
            "setting": setting,
            "parameters": dict(runs.get(run, {})),
            "questions": len(rows),
            "evaluated": len(evaluated),
            "skipped": sum(r.status == "skipped" for r in rows),
            "retryable": sum(r.status == RETRYABLE for r in rows),
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
        tables.append(entry)
    return {"tables": tables, "by_examples": by_examples(tables)}


def _headline(entry: Mapping[str, Any]) -> float | None:
    if entry["setting"] == "translation":
        return entry["translation"]["semantic"]
    return entry["accuracy"]["strict@1"]


def by_examples(tables: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Headline accuracy per number of examples, one series per setting and other parameters."""
    series: dict[str, dict[str, Any]] = {}
    for entry in tables:
        params = entry.get("parameters") or {}
        if "examples" not in params:
            continue
        others = {k: v for k, v in sorted(params.items()) if k != "examples"}
        label = entry["setting"] + " | " + ", ".join(f"{k}={v}" for k, v in others.items())
        line = series.setdefault(label, {"setting": entry["setting"], "parameters": others, "points": []})
        line["points"].append({"examples": params["examples"], "accuracy": _headline(entry), "n": entry["evaluated"]})
    for line in series.values():
        line["points"].sort(key=lambda p: p["examples"])
    return [dict(label=k) | v for k, v in sorted(series.items())]


# -- Markdown ----------------------------------------------------------------------------------


def _pair(first: Any, second: Any) -> str:
    return f"{_fmt(first)} / {_fmt(second)}"


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{100 * value:.1f}"
    return str(value)


def _cell(entry: Mapping[str, Any]) -> str:
    return f"{_fmt(entry['accuracy'])} ({entry['n']})"


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return lines


def markdown(summary: Mapping[str, Any], title: str = "Evaluation report") -> str:
    """The report as Markdown (percentages with one decimal)."""
    tables = summary["tables"]
    answer = [t for t in tables if t["setting"] != "translation"]
    translation = [t for t in tables if t["setting"] == "translation"]
    out = [f"# {title}", "", "Percentages; `–`: not applicable or no data.", ""]
    inputs = {k: v for k, v in (summary.get("inputs") or {}).items() if v not in (None, [], "")}
    if inputs:
        out += ["## Inputs", ""] + [f"- {k}: `{v}`" for k, v in sorted(inputs.items())] + [""]
    runs = {t["run"]: t["parameters"] for t in tables if t["parameters"]}
    if runs:
        out += (
            ["## Runs", ""]
            + [f"- `{name}`: {json.dumps(params, sort_keys=True)}" for name, params in sorted(runs.items())]
            + [""]
        )
    if answer:
        out += ["## Accuracy by setting (all evaluated questions)", ""]
        out += _table(
            ["run", "setting", "n", "answerable", *SCORE_KEYS],
            [
                [t["run"], t["setting"], t["evaluated"], t["answerable"], *(t["accuracy"][k] for k in SCORE_KEYS)]
                for t in answer
            ],
        )
        out += ["", "## Accuracy on answerable questions (the interpreter reproduces the gold answer)", ""]
        out += _table(
            ["run", "setting", "n", *SCORE_KEYS],
            [
                [t["run"], t["setting"], t["answerable"], *(t["accuracy_answerable"][k] for k in SCORE_KEYS)]
                for t in answer
            ],
        )
        out += ["", "## GQA metrics", ""]
        out += _table(
            ["run", "setting", "accuracy", "validity", "plausibility", "consistency", "consistency n"],
            [
                [t["run"], t["setting"], t["gqa"]["accuracy"], t["gqa"].get("validity"), t["gqa"].get("plausibility"),
                 t["gqa"]["consistency"], t["gqa"]["consistency_questions"]]
                for t in answer
            ],
        )  # fmt: skip
    if translation:
        out += ["", "## Translation (translated program vs the GQA program in ASP)", ""]
        out += _table(
            ["run", "n", "valid program", "canonically equal", "equivalent", "s/question"],
            [
                [t["run"], t["evaluated"], t["translation"]["valid"], t["translation"]["canonical"],
                 t["translation"]["semantic"], f"{t['seconds_per_question'] or 0:.2f}"]
                for t in translation
            ],
        )  # fmt: skip
    for field in TYPE_FIELDS:
        kinds = sorted({k for t in tables for k in t["by_type"][field]})
        if not kinds:
            continue
        out += ["", f"## Accuracy by GQA {field} type (strict@1; translations: equivalent)", ""]
        out += _table(
            ["run", "setting", *kinds],
            [
                [t["run"], t["setting"], *(
                    _cell(t["by_type"][field][k]) if k in t["by_type"][field] else "–"
                    for k in kinds)]
                for t in tables
            ],
        )  # fmt: skip
    categories = sorted({c for t in tables for c in t["failures"]["categories"]})
    if categories:
        out += ["", "## Failure attribution (questions)", ""]
        out += _table(
            ["run", "setting", *categories],
            [[t["run"], t["setting"], *(t["failures"]["categories"].get(c, 0) for c in categories)] for t in tables],
        )
        out += ["", "Kinds:", ""]
        for t in tables:
            if t["failures"]["kinds"]:
                listed = ", ".join(f"{k} {v}" for k, v in t["failures"]["kinds"].items())
                out.append(f"- {t['run']} / {t['setting']}: {listed}")
    trusted = [t for t in tables if t.get("confidence")]
    if trusted:
        out += ["", "## Confidence and abstention (translated settings; wrong = not correct)", ""]
        out += _table(
            ["run", "setting", "n", "AUROC for wrong", "abstained", "coverage", "wrong among kept",
             "coverage at 1 % / 5 % risk", "Phi_1", "Phi_10"],
            [
                [t["run"], t["setting"], t["confidence"]["n"], t["confidence"]["auroc_wrong"],
                 t["confidence"]["abstained"], t["confidence"]["coverage"], t["confidence"]["wrong_among_kept"],
                 _pair(t["confidence"].get("coverage_at_1pct_risk"), t["confidence"].get("coverage_at_5pct_risk")),
                 t["confidence"].get("phi_1"), t["confidence"].get("phi_10")]
                for t in trusted
            ],
        )  # fmt: skip
    if summary["by_examples"] and any(len(s["points"]) > 1 for s in summary["by_examples"]):
        out += ["", "## Accuracy by number of examples", ""]
        for line in summary["by_examples"]:
            points = ", ".join(f"k={p['examples']}: {_fmt(p['accuracy'])}" for p in line["points"])
            out.append(f"- {line['label']}: {points}")
    return "\n".join(out) + "\n"


# -- plots -------------------------------------------------------------------------------------


def plot_by_type(summary: Mapping[str, Any], path: Path, field: str = "structural") -> Path | None:
    """Grouped bars: accuracy per GQA type, one bar per run and setting."""
    tables = [t for t in summary["tables"] if t["by_type"][field]]
    kinds = sorted({k for t in tables for k in t["by_type"][field]})
    if not kinds:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(kinds) + 2), 4.5 + 0.2 * len(tables)))
    width = 0.8 / len(tables)
    for index, t in enumerate(tables):
        values = [100 * (t["by_type"][field].get(k, {}).get("accuracy") or 0) for k in kinds]
        positions = [i + index * width for i in range(len(kinds))]
        ax.bar(positions, values, width, label=f"{t['setting']} ({t['run']})"[:60])
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(kinds))], kinds)
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 100)
    ax.set_title(f"Accuracy by GQA {field} type")
    ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_by_examples(summary: Mapping[str, Any], path: Path) -> Path | None:
    """Lines: headline accuracy against the number of in-context examples."""
    series = summary["by_examples"]
    if not any(len(line["points"]) > 1 for line in series):
        return None  # one k: nothing to compare
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5 + 0.2 * len(series)))
    for line in series:
        xs = [p["examples"] for p in line["points"]]
        ys = [100 * (p["accuracy"] or 0) for p in line["points"]]
        ax.plot(xs, ys, marker="o", label=line["label"][:120])
    ax.set_xlabel("number of examples (k)")
    ax.set_ylabel("accuracy (%) / equivalent translations (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Accuracy by number of examples")
    ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.15))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_risk_coverage(summary: Mapping[str, Any], path: Path) -> Path | None:
    """Lines: the share wrong among the answers kept against the share kept, per translated setting."""
    tables = [t for t in summary["tables"] if t.get("confidence")]
    if not tables:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for t in tables:
        curve = t["confidence"]["curve"]
        label = f"{t['setting']} ({t['run']}), AUROC {_fmt(t['confidence']['auroc_wrong'])}"[:100]
        ax.plot([p["coverage"] for p in curve], [100 * p["risk"] for p in curve], label=label)
    ax.set_xlabel("coverage (share of questions kept, most confident first)")
    ax.set_ylabel("wrong among kept (%)")
    ax.set_title("Risk-coverage of the confidence")
    ax.legend(fontsize="x-small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


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
    manifest_file = folder / MANIFEST_FILE
    manifest = json.loads(manifest_file.read_text(encoding="utf-8")) if manifest_file.is_file() else {}
    choice_data = json.loads(Path(choices).read_text(encoding="utf-8")) if choices else None
    summary = summarise(records, manifest.get("runs", {}), choice_data)
    summary["inputs"] = {k: v for k, v in manifest.items() if k != "runs"}
    if choices:
        summary["inputs"]["choices"] = str(choices)
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
