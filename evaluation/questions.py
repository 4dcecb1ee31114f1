"""GQA questions as the evaluation job reads them (both of GQA's file layouts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


class JobError(ValueError):
    """The job cannot start: bad settings, inputs or output folder."""


@dataclass(frozen=True)
class Question:
    """One GQA question with what the job reads of it."""

    id: str
    question: str
    image_id: str | None
    answer: str | None
    semantic: list[dict[str, Any]]
    types: dict[str, str] = field(default_factory=dict)
    entailed: tuple[str, ...] = ()


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


def load_questions(data: Any) -> list[Question]:
    """Questions in GQA's formats: ``{questionId: record}`` or a list of records with an id field."""
    items = question_items(data)
    if items is None:
        raise JobError("the questions file must hold a JSON object or a list of GQA questions")
    questions = []
    for question_id, record in items:
        if not isinstance(record, Mapping) or not isinstance(record.get("question"), str):
            raise JobError(f"question {question_id} has no 'question' text")
        semantic = record.get("semantic")
        if not isinstance(semantic, list):
            raise JobError(f"question {question_id} has no 'semantic' program")
        image = record.get("imageId", record.get("image"))
        answer = record.get("answer")
        types: Mapping[str, Any] = record["types"] if isinstance(record.get("types"), Mapping) else {}
        questions.append(
            Question(
                id=question_id,
                question=record["question"],
                image_id=None if image is None else str(image),
                answer=None if answer is None else str(answer),
                semantic=list(semantic),
                types={k: v for k, v in {"structural": structural_type(semantic)}.items() if v}
                | {str(k): str(v) for k, v in types.items() if v is not None},
                entailed=tuple(str(e) for e in record.get("entailed") or ()),
            )
        )
    return questions


def structural_type(semantic: Sequence[Mapping[str, Any]]) -> str | None:
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
