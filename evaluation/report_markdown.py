"""The evaluation report as Markdown: one section per table of the summary (`evaluation.report`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from evaluation.report_types import SCORE_KEYS, TYPE_FIELDS, ReportJson, ReportTable, TypeAccuracy


def fmt(value: object) -> str:
    """A cell: a fraction as a percentage with one decimal, `–` for none."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{100 * value:.1f}"
    return str(value)


def _pair(first: object, second: object) -> str:
    return f"{fmt(first)} / {fmt(second)}"


def _cell(entry: TypeAccuracy) -> str:
    return f"{fmt(entry['accuracy'])} ({entry['n']})"


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in rows]
    return lines


def _section(heading: str, lines: list[str]) -> list[str]:
    # Every section after the first ones starts with a blank line, then its heading.
    return ["", f"## {heading}", "", *lines]


def _inputs(summary: ReportJson) -> list[str]:
    inputs = {k: v for k, v in (summary.get("inputs") or {}).items() if v not in (None, [], "")}
    if not inputs:
        return []
    return ["## Inputs", ""] + [f"- {k}: `{v}`" for k, v in sorted(inputs.items())] + [""]


def _runs(tables: Sequence[ReportTable]) -> list[str]:
    runs = {t["run"]: t["parameters"] for t in tables if t["parameters"]}
    if not runs:
        return []
    listed = [f"- `{name}`: {json.dumps(params, sort_keys=True)}" for name, params in sorted(runs.items())]
    return ["## Runs", "", *listed, ""]


def _answers(answer: Sequence[ReportTable]) -> list[str]:
    if not answer:
        return []
    out = ["## Accuracy by setting (all evaluated questions)", ""]
    out += _table(
        ["run", "setting", "n", "answerable", *SCORE_KEYS],
        [[t["run"], t["setting"], t["evaluated"], t["answerable"], *(t["accuracy"][k] for k in SCORE_KEYS)]
         for t in answer],
    )  # fmt: skip
    out += _section(
        "Accuracy on answerable questions (the interpreter reproduces the gold answer)",
        _table(
            ["run", "setting", "n", *SCORE_KEYS],
            [[t["run"], t["setting"], t["answerable"], *(t["accuracy_answerable"][k] for k in SCORE_KEYS)]
             for t in answer],
        ),
    )  # fmt: skip
    out += _section(
        "GQA metrics",
        _table(
            ["run", "setting", "accuracy", "validity", "plausibility", "consistency", "consistency n"],
            [
                [t["run"], t["setting"], t["gqa"]["accuracy"], t["gqa"].get("validity"), t["gqa"].get("plausibility"),
                 t["gqa"]["consistency"], t["gqa"]["consistency_questions"]]
                for t in answer
            ],
        ),
    )  # fmt: skip
    return out


def _translations(translation: Sequence[ReportTable]) -> list[str]:
    if not translation:
        return []
    return _section(
        "Translation (translated program vs the GQA program in ASP)",
        _table(
            ["run", "n", "valid program", "canonically equal", "equivalent", "s/question"],
            [
                [t["run"], t["evaluated"], t["translation"]["valid"], t["translation"]["canonical"],
                 t["translation"]["semantic"], f"{t['seconds_per_question'] or 0:.2f}"]
                for t in translation
            ],
        ),
    )  # fmt: skip


def _by_type(tables: Sequence[ReportTable]) -> list[str]:
    out: list[str] = []
    for field in TYPE_FIELDS:
        kinds = sorted({k for t in tables for k in t["by_type"][field]})
        if not kinds:
            continue
        rows = [
            [
                t["run"],
                t["setting"],
                *(_cell(t["by_type"][field][k]) if k in t["by_type"][field] else "–" for k in kinds),
            ]
            for t in tables
        ]
        heading = f"Accuracy by GQA {field} type (strict@1; translations: equivalent)"
        out += _section(heading, _table(["run", "setting", *kinds], rows))
    return out


def _failures(tables: Sequence[ReportTable]) -> list[str]:
    categories = sorted({c for t in tables for c in t["failures"]["categories"]})
    if not categories:
        return []
    out = _section(
        "Failure attribution (questions)",
        _table(
            ["run", "setting", *categories],
            [[t["run"], t["setting"], *(t["failures"]["categories"].get(c, 0) for c in categories)] for t in tables],
        ),
    )
    out += ["", "Kinds:", ""]
    for t in tables:
        if t["failures"]["kinds"]:
            listed = ", ".join(f"{k} {v}" for k, v in t["failures"]["kinds"].items())
            out.append(f"- {t['run']} / {t['setting']}: {listed}")
    return out


def _confidence(tables: Sequence[ReportTable]) -> list[str]:
    trusted = [t for t in tables if t.get("confidence")]
    if not trusted:
        return []
    return _section(
        "Confidence and abstention (translated settings; wrong = not correct)",
        _table(
            ["run", "setting", "n", "AUROC for wrong", "abstained", "coverage", "wrong among kept",
             "coverage at 1 % / 5 % risk", "Phi_1", "Phi_10"],
            [
                [t["run"], t["setting"], t["confidence"]["n"], t["confidence"]["auroc_wrong"],
                 t["confidence"]["abstained"], t["confidence"]["coverage"], t["confidence"]["wrong_among_kept"],
                 _pair(t["confidence"].get("coverage_at_1pct_risk"), t["confidence"].get("coverage_at_5pct_risk")),
                 t["confidence"].get("phi_1"), t["confidence"].get("phi_10")]
                for t in trusted
            ],
        ),
    )  # fmt: skip


def _examples(summary: ReportJson) -> list[str]:
    series = summary["by_examples"]
    if not (series and any(len(s["points"]) > 1 for s in series)):
        return []
    lines = []
    for line in series:
        points = ", ".join(f"k={p['examples']}: {fmt(p['accuracy'])}" for p in line["points"])
        lines.append(f"- {line['label']}: {points}")
    return _section("Accuracy by number of examples", lines)


def markdown(summary: ReportJson, title: str = "Evaluation report") -> str:
    """The report as Markdown (percentages with one decimal)."""
    tables = summary["tables"]
    answer = [t for t in tables if t["setting"] != "translation"]
    translation = [t for t in tables if t["setting"] == "translation"]
    out = [f"# {title}", "", "Percentages; `–`: not applicable or no data.", ""]
    out += _inputs(summary) + _runs(tables) + _answers(answer) + _translations(translation)
    out += _by_type(tables) + _failures(tables) + _confidence(tables) + _examples(summary)
    return "\n".join(out) + "\n"
