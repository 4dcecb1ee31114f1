"""GQA questions as the evaluation job reads them: GQA's layouts, in memory or streamed from a file.

Questions without a ``semantic`` program (GQA's test and challenge files) are read too; the
settings that need the program skip them (`Question.has_program`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluation.errors import EvaluationError
from evaluation.gqa_json import SemanticStep
from translators.gqa.gqa_files import RecordsError, count_json_records, iter_json_records


class JobError(EvaluationError, ValueError):
    """The job cannot start: bad settings, inputs or output folder."""


@dataclass(frozen=True)
class Question:
    """One GQA question with what the job reads of it."""

    id: str
    question: str
    image_id: str | None
    answer: str | None
    semantic: list[SemanticStep]
    types: dict[str, str] = field(default_factory=dict)
    entailed: tuple[str, ...] = ()

    @property
    def has_program(self) -> bool:
        """Whether the question carries its GQA program (test and challenge questions do not)."""
        return bool(self.semantic)


def question_items(data: Any) -> list[tuple[str, Any]] | None:
    """(questionId, record) pairs of GQA's formats: ``{questionId: record}`` or a list of records
    with an id field; None for any other JSON value."""
    if isinstance(data, Mapping):
        return [(str(k), v) for k, v in data.items()]
    if isinstance(data, list):
        return [
            (str(r.get("questionId", r.get("question_id", i))) if isinstance(r, Mapping) else str(i), r)
            for i, r in enumerate(data)
        ]
    return None


def question_from_record(question_id: str, record: Any) -> Question:
    """One question from its GQA record; `JobError` names the question when the record is unusable."""
    if not isinstance(record, Mapping) or not isinstance(record.get("question"), str):
        raise JobError(f"question {question_id} has no 'question' text")
    semantic = record.get("semantic")
    if semantic is None:
        semantic = []
    if not isinstance(semantic, list):
        raise JobError(f"question {question_id}: 'semantic' is not a GQA program (a list of steps)")
    image = record.get("imageId", record.get("image"))
    answer = record.get("answer")
    types: Mapping[object, object] = record["types"] if isinstance(record.get("types"), Mapping) else {}
    return Question(
        id=question_id,
        question=record["question"],
        image_id=None if image is None else str(image),
        answer=None if answer is None else str(answer),
        semantic=list(semantic),
        types={k: v for k, v in {"structural": structural_type(semantic)}.items() if v}
        | {str(k): str(v) for k, v in types.items() if v is not None},
        entailed=tuple(str(e) for e in record.get("entailed") or ()),
    )


def load_questions(data: Any) -> list[Question]:
    """Questions in GQA's formats: ``{questionId: record}`` or a list of records with an id field."""
    items = question_items(data)
    if items is None:
        raise JobError("the questions file must hold a JSON object or a list of GQA questions")
    return [question_from_record(question_id, record) for question_id, record in items]


@dataclass(frozen=True)
class QuestionFile:
    """The questions of a GQA file, read incrementally each time it is iterated (so a job over
    the 132,062 val questions never holds them all); at most `limit` of them."""

    path: Path
    limit: int | None = None
    description: str | None = None

    def __iter__(self) -> Iterator[Question]:
        try:
            pairs = iter_json_records(self.path, self.description)
            for question_id, record in itertools.islice(pairs, self.limit):
                yield question_from_record(question_id, record)
        except (RecordsError, OSError) as exc:
            raise JobError(f"cannot read the questions: {exc}") from None

    def count(self, description: str | None = None) -> int:
        """How many questions iterating gives (one pass of the parser, no records built)."""
        try:
            total = count_json_records(self.path, description)
        except (RecordsError, OSError) as exc:
            raise JobError(f"cannot read the questions: {exc}") from None
        return total if self.limit is None else min(total, self.limit)


def structural_type(semantic: Sequence[SemanticStep]) -> str | None:
    """GQA's structural type from the last operation (verify, query, choose, logical, compare),
    for questions that do not carry their ``types``."""
    if not semantic or not isinstance(semantic[-1], Mapping):
        return None
    last = semantic[-1]
    head = " ".join(str(last.get("operation", "")).split()).partition(" ")[0]
    if head in ("and", "or"):
        return "logical"
    if head in ("verify", "exist"):
        return "verify"
    if head in ("same", "different", "common") or (head == "choose" and len(last.get("dependencies") or ()) == 2):
        return "compare"
    return head if head in ("query", "choose") else None
