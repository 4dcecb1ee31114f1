"""The result record: one question under one setting of one run, as the job writes it and the report reads it.

A record is one JSON line of ``results.jsonl``; `ResultRecord.to_json` and `from_json` are the only
code that knows the field names on disk.

Example:
    >>> record = ResultRecord("default", "oracle", "q1", question="Is it red?", gold="yes",
    ...                       outcome=SettingOutcome("answered", ["yes"], correct=True))
    >>> ResultRecord.from_json(record.to_json()) == record
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NotRequired, TypedDict

from trust.confidence import ConfidencePartsJson

# Why a question went wrong, declared once: the job assigns them and the report counts them.
FailureCategory = Literal[
    "formulation",  # no program parsed and validated
    "dataset",  # the interpreter cannot reproduce the gold answer
    "translation",  # a valid program, wrong on the true scene
    "perception",  # right on the true scene, wrong on the image's scene
    "reasoning",  # the ASP route disagrees with a correct interpreter
    "solver",  # timeout, size limit
    "input",  # scene graph, image or GQA program missing
    "transient",  # the model could not be asked (rate limit, server error): run again on resume
    "unattributed",  # wrong on the image and no scene graph to tell why
]
Status = Literal["answered", "no_answer", "failed", "skipped", "translated", "retryable"]
# A record with this status is not a result: a resumed job computes it again.
RETRYABLE: Status = "retryable"
KS = (1, 3, 5)  # the top-k of the answer scores


class FailureJson(TypedDict):
    """A failure as a results line holds it."""

    category: FailureCategory
    kind: str
    message: NotRequired[str | None]


class ResultJson(TypedDict):
    """One line of ``results.jsonl``: only the key is required (older files lack later fields)."""

    run: NotRequired[str]
    setting: str
    questionId: str
    imageId: NotRequired[str | None]
    question: NotRequired[str | None]
    gold: NotRequired[str | None]
    types: NotRequired[dict[str, str] | None]
    entailed: NotRequired[list[str] | None]
    answerable: NotRequired[bool | None]
    status: NotRequired[Status]
    answers: NotRequired[list[str] | None]
    program: NotRequired[str | None]
    reference: NotRequired[str | None]
    solver: NotRequired[str | None]
    scores: NotRequired[dict[str, bool] | None]
    correct: NotRequired[bool]
    failure: NotRequired[FailureJson | None]
    seconds: NotRequired[float | None]
    confidence: NotRequired[float | None]
    confidence_parts: NotRequired[ConfidencePartsJson | None]
    abstained: NotRequired[bool | None]


@dataclass(frozen=True)
class Failure:
    """Why a record is wrong: a category, the precise kind and a message."""

    category: FailureCategory
    kind: str
    message: str | None = None

    def to_json(self) -> FailureJson:
        """The failure as a results line holds it."""
        return {"category": self.category, "kind": self.kind, "message": self.message}

    @classmethod
    def from_json(cls, data: FailureJson | None) -> Failure | None:
        """A failure read back (None: the record has none)."""
        return None if data is None else cls(data["category"], data["kind"], data.get("message"))


@dataclass(frozen=True)
class SettingOutcome:
    """What a setting computes for one question (the record without the question's fields)."""

    status: Status
    answers: list[str] = field(default_factory=list)
    scores: dict[str, bool] | None = None
    correct: bool = False
    failure: Failure | None = None
    program: str | None = None
    reference: str | None = None
    solver: str | None = None


@dataclass(frozen=True)
class ResultRecord:
    """One result: the question's fields, the setting's outcome (as itself) and the time it took."""

    run: str
    setting: str
    question_id: str
    image_id: str | None = None
    question: str = ""
    gold: str | None = None
    types: dict[str, str] = field(default_factory=dict)
    entailed: list[str] = field(default_factory=list)
    answerable: bool | None = None
    outcome: SettingOutcome = field(default_factory=lambda: SettingOutcome("answered"))
    seconds: float = 0.0
    # Translated settings: the program's confidence (trust.confidence), its parts, and with a
    # calibration whether the answer is held back.
    confidence: float | None = None
    confidence_parts: ConfidencePartsJson | None = None
    abstained: bool | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """What identifies a result: (run, setting, questionId)."""
        return (self.run, self.setting, self.question_id)

    def to_json(self) -> ResultJson:
        """The JSON line of this record (the outcome's fields among the question's, as files have them)."""
        outcome = self.outcome
        return {
            "run": self.run,
            "setting": self.setting,
            "questionId": self.question_id,
            "imageId": self.image_id,
            "question": self.question,
            "gold": self.gold,
            "types": self.types,
            "entailed": self.entailed,
            "answerable": self.answerable,
            "status": outcome.status,
            "answers": outcome.answers,
            "program": outcome.program,
            "reference": outcome.reference,
            "solver": outcome.solver,
            "scores": outcome.scores,
            "correct": outcome.correct,
            "failure": None if outcome.failure is None else outcome.failure.to_json(),
            "seconds": self.seconds,
            "confidence": self.confidence,
            "confidence_parts": self.confidence_parts,
            "abstained": self.abstained,
        }

    @classmethod
    def from_json(cls, data: ResultJson) -> ResultRecord:
        """A record read back (fields a file does not have take their defaults)."""
        return cls(
            run=str(data.get("run", "default")),
            setting=str(data["setting"]),
            question_id=str(data["questionId"]),
            image_id=data.get("imageId"),
            question=data.get("question") or "",
            gold=data.get("gold"),
            types=dict(data.get("types") or {}),
            entailed=list(data.get("entailed") or ()),
            answerable=data.get("answerable"),
            outcome=SettingOutcome(
                status=data.get("status", "answered"),
                answers=list(data.get("answers") or ()),
                scores=data.get("scores"),
                correct=bool(data.get("correct")),
                failure=Failure.from_json(data.get("failure")),
                program=data.get("program"),
                reference=data.get("reference"),
                solver=data.get("solver"),
            ),
            seconds=float(data.get("seconds") or 0.0),
            confidence=data.get("confidence"),
            confidence_parts=data.get("confidence_parts"),
            abstained=data.get("abstained"),
        )


def result_key(record: ResultJson) -> tuple[str, str, str]:
    """What identifies a result in its JSON form: (run, setting, questionId)."""
    return (str(record.get("run", "default")), str(record["setting"]), str(record["questionId"]))
