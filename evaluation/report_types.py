"""The layout of ``report.json``: every table of the evaluation report, as the report writes it.

The Markdown and the plots are drawn from this one summary, so a table is computed once.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from pydantic import JsonValue

from evaluation.records import KS

MODES = ("strict", "generous", "generous+")
SCORE_KEYS = tuple(f"{m}@{k}" for m in MODES for k in KS)
TYPE_FIELDS = ("structural", "semantic")

# Fraction right at each ``mode@k`` (None: no scored row).
Accuracy = dict[str, float | None]


class Choices(TypedDict, total=False):
    """One question of GQA's choices file: the valid and the plausible answers."""

    valid: list[str]
    plausible: list[str]


class TypeAccuracy(TypedDict):
    """Accuracy on the questions of one GQA type."""

    n: int
    accuracy: float | None


class FailureCounts(TypedDict):
    """Counts of failure categories and of ``category:kind`` among the rows, most common first."""

    categories: dict[str, int]
    kinds: dict[str, int]


class TranslationTable(TypedDict):
    """Fractions of translations valid, canonically equal to and equivalent with the GQA program."""

    valid: float | None
    canonical: float | None
    semantic: float | None


class GqaMetrics(TypedDict):
    """GQA's official metrics; validity and plausibility only with a choices file."""

    accuracy: float | None
    validity: NotRequired[float | None]
    plausibility: NotRequired[float | None]
    consistency: float | None
    consistency_questions: int


class CurvePoint(TypedDict):
    """One threshold of the risk-coverage curve."""

    threshold: float
    coverage: float
    risk: float


class ConfidenceTable(TypedDict):
    """How well the confidence tells wrong from right, and what the abstentions kept."""

    n: int
    auroc_wrong: float | None
    abstained: int | None
    coverage: float | None
    wrong_among_kept: float | None
    coverage_at_1pct_risk: float
    coverage_at_5pct_risk: float
    phi_1: float | None
    phi_10: float | None
    curve: list[CurvePoint]


class ReportTable(TypedDict):
    """Every number of one (run, setting); translation settings have `translation`, others accuracy."""

    run: str
    setting: str
    parameters: dict[str, JsonValue]
    questions: int
    evaluated: int
    skipped: int
    retryable: int
    answerable: int
    seconds_per_question: float | None
    failures: FailureCounts
    by_type: dict[str, dict[str, TypeAccuracy]]
    confidence: NotRequired[ConfidenceTable]
    translation: NotRequired[TranslationTable]
    accuracy: NotRequired[Accuracy]
    accuracy_answerable: NotRequired[Accuracy]
    gqa: NotRequired[GqaMetrics]


class ExamplePoint(TypedDict):
    """The headline accuracy at one number of examples."""

    examples: int
    accuracy: float | None
    n: int


class ExampleSeries(TypedDict):
    """Headline accuracy against the number of examples, for one setting and other parameters."""

    label: str
    setting: str
    parameters: dict[str, JsonValue]
    points: list[ExamplePoint]


class ReportJson(TypedDict):
    """``report.json``: the tables, the series by number of examples and the job's inputs."""

    tables: list[ReportTable]
    by_examples: list[ExampleSeries]
    inputs: NotRequired[dict[str, object]]
