"""What translating one question gives: the model calls made (`Attempt`) and the result (`Translation`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from theory.flat import format_flat
from theory.program import Program
from translators.evidence import TranslationEvidence
from translators.records import (
    AttemptRecord,
    CostName,
    ExampleRecord,
    FillShown,
    FixShown,
    MappingShown,
    Source,
    TranslationRecord,
    UnknownShown,
)

USAGE_FIELDS: tuple[CostName, ...] = ("prompt_tokens", "evaluated_tokens", "output_tokens", "prompt_s", "output_s")
# What an attempt's JSON carries beside its text.
ATTEMPT_COST_FIELDS: tuple[CostName, ...] = (*USAGE_FIELDS, "min_logprob")


@dataclass
class Attempt:
    """One model call: raw output, and the error when it was not a valid program."""

    raw: str
    error: str | None
    seconds: float
    # What the call cost, where the backend reports it (see `Generation`).
    prompt_tokens: int | None = None
    evaluated_tokens: int | None = None
    output_tokens: int | None = None
    prompt_s: float | None = None
    output_s: float | None = None
    # The lowest log-probability the model gave a token it wrote (None: not reported): how unsure
    # it was at its least sure step.
    min_logprob: float | None = None

    def costs(self) -> dict[CostName, float | int | None]:
        """The call's costs by name (None: not reported), in `ATTEMPT_COST_FIELDS` order."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "evaluated_tokens": self.evaluated_tokens,
            "output_tokens": self.output_tokens,
            "prompt_s": self.prompt_s,
            "output_s": self.output_s,
            "min_logprob": self.min_logprob,
        }

    def to_json(self) -> AttemptRecord:
        """The attempt as the command line prints it (costs the backend did not report are left out)."""
        record: AttemptRecord = {"raw": self.raw, "error": self.error, "seconds": round(self.seconds, 4)}
        for name, value in self.costs().items():
            if value is not None:
                record[name] = round(value, 4) if isinstance(value, float) else value
        return record

    @classmethod
    def from_json(cls, record: AttemptRecord) -> Attempt:
        """Rebuild a cached attempt."""
        return cls(
            record["raw"],
            record["error"],
            record["seconds"],
            _count(record.get("prompt_tokens")),
            _count(record.get("evaluated_tokens")),
            _count(record.get("output_tokens")),
            record.get("prompt_s"),
            record.get("output_s"),
            record.get("min_logprob"),
        )


def _count(value: float | None) -> int | None:
    # Token counts are written as JSON integers; the record's type is the costs' common one.
    return int(value) if value is not None else None


@dataclass
class Translation:
    """The result for one question. `program` is None when every attempt failed (`error` says why)."""

    question: str
    question_id: str | None
    program: Program | None
    error: str | None
    attempts: list[Attempt]
    examples: list[ExampleRecord]
    timings: dict[str, float]
    mappings: list[MappingShown] = field(default_factory=list)
    unknown: list[UnknownShown] = field(default_factory=list)
    schema_fixes: list[FixShown] = field(default_factory=list)
    samples: list[str | None] = field(default_factory=list)
    agreement: float | None = None
    cached: bool = False
    # The model could not be asked for a while (rate limit, server error, dropped connection): no
    # verdict on the question, to be asked again later.
    retryable: bool = False
    route: dict[str, str] | None = None  # the predicted question types, when the translator routes
    # A question outside what the programs express (translators.checks.question_scope): its kind, and no program.
    unsupported: str | None = None
    # Where the program came from (see `Source`); a filled one's `fill` holds the form and its vote.
    source: Source = "model"
    fill: FillShown | None = None

    @classmethod
    def declined(cls, question: str, question_id: str | None, kind: str, message: str, seconds: float) -> Translation:
        """No program, and why: a question no program can mean, or one left with no model to ask."""
        return cls(question, question_id, None, message, [], [], {"total_s": seconds}, unsupported=kind)

    @property
    def flat(self) -> str | None:
        """The program in flat ASP (what clingo sees)."""
        return format_flat(self.program) if self.program is not None else None

    @property
    def raw(self) -> str:
        """The raw text of the last model call."""
        return self.attempts[-1].raw if self.attempts else ""

    @property
    def seconds(self) -> float:
        return self.timings.get("total_s", 0.0)

    @property
    def min_logprob(self) -> float | None:
        """The last model call's least likely written token (None: filled, or not reported)."""
        return self.attempts[-1].min_logprob if self.attempts else None

    @property
    def evidence(self) -> TranslationEvidence | None:
        """What this translation shows about how sure it is (None when it has no program)."""
        if self.program is None:
            return None
        samples = max(1, len(self.samples))
        return TranslationEvidence.of(
            self.program,
            question=self.question,
            examples=self.examples,
            samples=samples,
            attempts=(len(self.attempts) or 1) - (samples - 1),  # the calls of the other samples are not retries
            schema_fixes=len(self.schema_fixes),
            agreement=self.agreement,
            source=self.source,
            fill=self.fill,
            min_logprob=self.min_logprob,
        )

    @property
    def usage(self) -> dict[str, float | int]:
        """Tokens and seconds summed over the model calls (only what the backend reported)."""
        totals: dict[str, float | int] = {}
        for attempt in self.attempts:
            costs = attempt.costs()
            for name in USAGE_FIELDS:
                value = costs[name]
                if value is not None:
                    totals[name] = totals.get(name, 0) + value
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in totals.items()}

    def to_json(self) -> TranslationRecord:
        """The JSON record the command line prints."""
        record: TranslationRecord = {
            "questionId": self.question_id,
            "question": self.question,
            "program": self.flat,
            "raw": self.raw,
            "examples": self.examples,
            "seconds": round(self.seconds, 4),
            "attempts": [a.to_json() for a in self.attempts],
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }
        if self.error:
            record["error"] = self.error
        if usage := self.usage:
            record["usage"] = usage
        if self.mappings or self.unknown:
            record["mappings"], record["unknown"] = self.mappings, self.unknown
        if self.schema_fixes:
            record["schema_fixes"] = self.schema_fixes
        if self.samples:
            record["samples"], record["agreement"] = self.samples, self.agreement
        if self.cached:
            record["cached"] = True
        if self.route is not None:
            record["route"] = self.route
        if self.unsupported is not None:
            record["unsupported"] = self.unsupported
        record["source"] = self.source
        if self.fill is not None:
            record["fill"] = self.fill
        return record

    @classmethod
    def from_json(cls, record: TranslationRecord) -> Translation:
        """Rebuild a cached translation."""
        from theory.flat import parse_flat

        program = record.get("program")
        return cls(
            question=record["question"],
            question_id=record.get("questionId"),
            program=parse_flat(program) if program else None,
            error=record.get("error"),
            attempts=[Attempt.from_json(a) for a in record.get("attempts", [])],
            examples=record.get("examples", []),
            timings=record.get("timings", {}),
            mappings=record.get("mappings", []),
            unknown=record.get("unknown", []),
            schema_fixes=record.get("schema_fixes", []),
            samples=record.get("samples", []),
            agreement=record.get("agreement"),
            cached=True,
            route=record.get("route"),
            unsupported=record.get("unsupported"),
            source=record.get("source", "model"),
            fill=record.get("fill"),
        )
