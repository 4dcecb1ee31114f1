"""What a request asks, checked at the edge: a question or a given program, and the answer's options;
or what to verify: a claim, or an answer to a question or a given program."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from app.errors import PipelineError
from theory.operations import REPRESENTATIONS, ProgramRepresentation


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


@dataclass(frozen=True)
class ClaimToVerify:
    """A statement about the picture, translated into a yes/no program and verified on its own."""

    text: str


@dataclass(frozen=True)
class AnswerToVerify:
    """Another model's answer to a query: a question (translated) or the question's given program."""

    query: Query
    answer: str


ToVerify = ClaimToVerify | AnswerToVerify


def what_to_verify(
    claim: str | None, question: str | None, answer: str | None, program: str | None, representation: str | None
) -> ToVerify:
    """What a verify request's fields ask: a claim alone, or an answer with its question or program
    (the program is used when both are given); any other combination raises `PipelineError`."""
    if claim is not None and answer is None:
        if question is not None or program is not None:
            raise PipelineError("invalid_input", "a claim is verified on its own: leave out question and program")
        return ClaimToVerify(claim)
    if claim is not None or answer is None:
        raise PipelineError("invalid_input", "give either a claim, or an answer with its question or program")
    if program is not None:
        return AnswerToVerify(GivenProgram(program, _syntax(representation)), answer)
    if question is None:
        raise PipelineError("invalid_input", "an answer needs its question (or the question's program)")
    return AnswerToVerify(AskedQuestion(question), answer)


def _syntax(name: str | None) -> ProgramRepresentation | None:
    # The REST schema allows only the syntaxes; the command line passes --repr as it was typed, and
    # a wrong one is refused as the program's reader refuses it.
    if name is None:
        return None
    for syntax in get_args(ProgramRepresentation):
        if name == syntax:
            return syntax
    raise PipelineError(
        "invalid_input", f"program: unknown representation {name!r}; known: {', '.join(REPRESENTATIONS)}"
    )
