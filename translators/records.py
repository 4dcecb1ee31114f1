"""The JSON shapes of a translation's parts, as the command line prints them, the cache keeps them
and the service shows them: typed views of plain dicts, so every reader indexes them as before."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from translators.wording.schema import SchemaFix
from translators.wording.vocabulary import TermMapping

# Where a program came from: the model, the bank's examples of the question's form
# (`translators.rules.template_fill`) or its object references and a form (`translators.rules.compositional_fill`).
Source = Literal["model", "template", "composed"]

# The costs a backend may report for one call (see `Generation`), then the least likely token.
CostName = Literal["prompt_tokens", "evaluated_tokens", "output_tokens", "prompt_s", "output_s", "min_logprob"]


class ExampleRecord(TypedDict):
    """One example shown to the model (retrieved, with its score) or that a filled program came from."""

    id: str
    question: str
    reason: str
    score: NotRequired[float]
    program: str


class FillShown(TypedDict):
    """The form a program was filled from, how many of its examples gave that program, and how close
    the bank's examples retrieved for the question come to it (the best retrieval score)."""

    form: str
    votes: int
    voters: int
    similarity: NotRequired[float]


class FixShown(TypedDict):
    """One deterministic change to a program (a `SchemaFix`)."""

    rule: str
    step: int
    before: str
    after: str


class MappingShown(TypedDict):
    """One word the grounder replaced (a `TermMapping`)."""

    step: int
    role: str
    word: str
    term: str
    method: str
    score: float | None


class UnknownShown(TypedDict):
    """One word the grounder could not place."""

    step: int
    role: str
    word: str


class AttemptRecord(TypedDict, total=False):
    """One model call; the costs only where the backend reported them (ints for tokens)."""

    raw: str
    error: str | None
    seconds: float
    prompt_tokens: float
    evaluated_tokens: float
    output_tokens: float
    prompt_s: float
    output_s: float
    min_logprob: float


class TranslationRecord(TypedDict, total=False):
    """A translation as the command line prints it and the cache keeps it."""

    questionId: str | None
    question: str
    program: str | None
    raw: str
    examples: list[ExampleRecord]
    seconds: float
    attempts: list[AttemptRecord]
    timings: dict[str, float]
    error: str
    usage: dict[str, float | int]
    mappings: list[MappingShown]
    unknown: list[UnknownShown]
    schema_fixes: list[FixShown]
    samples: list[str | None]
    agreement: float | None
    cached: bool
    route: dict[str, str]
    unsupported: str
    source: Source
    fill: FillShown


def fix_shown(fix: SchemaFix) -> FixShown:
    """A fix as a translation shows it."""
    return {"rule": fix.rule, "step": fix.step, "before": fix.before, "after": fix.after}


def mapping_shown(mapping: TermMapping) -> MappingShown:
    """A grounder's replacement as a translation shows it."""
    return {
        "step": mapping.step,
        "role": mapping.role,
        "word": mapping.word,
        "term": mapping.term,
        "method": mapping.method,
        "score": mapping.score,
    }
