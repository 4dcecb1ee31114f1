"""What a request asks, checked at the edge: a question or a given program, and the answer's options."""

from __future__ import annotations

from dataclasses import dataclass

from app.errors import PipelineError
from theory.operations import ProgramRepresentation


@dataclass(frozen=True)
class AskedQuestion:
    """A question in English, to be translated into a program."""

    text: str


@dataclass(frozen=True)
class GivenProgram:
    """A program the user wrote, in `representation` (None: the syntax its first characters show)."""

    text: str
    representation: ProgramRepresentation | None = None


Query = AskedQuestion | GivenProgram


@dataclass(frozen=True)
class AnswerOptions:
    """How to answer: the syntax the model writes (a question's), ranked answers, model, exact words, risk."""

    representation: ProgramRepresentation | None = None
    top_k: int | None = None
    llm: str | None = None
    exact: bool = False  # only exact scene words: no approximate answers through the entailment table
    risk: float | None = None  # abstention risk for this request (needs a calibration and a question)


def query_of(question: str | None, program: str | None, representation: ProgramRepresentation | None) -> Query:
    """The query of a request's fields: the given program when there is one, else the question."""
    if program is not None:
        return GivenProgram(program, representation)
    if not question:
        raise PipelineError("invalid_input", "give a question or a program")
    return AskedQuestion(question)
