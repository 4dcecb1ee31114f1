"""The evaluation report's plots (PNG, matplotlib's Agg backend), drawn from the summary."""

from __future__ import annotations

from pathlib import Path

from evaluation.report_markdown import fmt
from evaluation.report_types import ReportJson


def plot_by_type(summary: ReportJson, path: Path, field: str = "structural") -> Path | None:
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
        found = t["by_type"][field]
        values = [100 * ((found[k]["accuracy"] if k in found else None) or 0) for k in kinds]
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


def plot_by_examples(summary: ReportJson, path: Path) -> Path | None:
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


def plot_risk_coverage(summary: ReportJson, path: Path) -> Path | None:
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
        label = f"{t['setting']} ({t['run']}), AUROC {fmt(t['confidence']['auroc_wrong'])}"[:100]
        ax.plot([p["coverage"] for p in curve], [100 * p["risk"] for p in curve], label=label)
    ax.set_xlabel("coverage (share of questions kept, most confident first)")
    ax.set_ylabel("wrong among kept (%)")
    ax.set_title("Risk-coverage of the confidence")
    ax.legend(fontsize="x-small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
