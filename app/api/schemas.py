"""Request and response models of the REST API."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from translators.options import Examples, ProgramRepresentation, TranslationOptions
from translators.retrieval import Sampling


class TranslateRequest(BaseModel):
    """A question to turn into a logic program."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(..., min_length=1, description="the question in English")
    # The translation options (translators.options), each optional: None keeps the service's setting.
    representation: ProgramRepresentation | None = Field(
        None, description="syntax the model writes (default from settings)"
    )
    examples: Examples | None = None
    sampling: Sampling | None = None
    cover_operators: bool | None = None
    model: str | None = Field(None, description="language model (one of the configured choices)")

    def options(self, defaults: TranslationOptions) -> TranslationOptions:
        """The translation options of this request: its own where given, else `defaults`."""
        return defaults.with_overrides(
            representation=self.representation,
            examples=self.examples,
            sampling=self.sampling,
            cover_operators=self.cover_operators,
        )


class ExampleShown(BaseModel):
    question: str
    program: str
    score: float | None = None


class TranslateResponse(BaseModel):
    """The program in the requested representation and in flat ASP."""

    question: str
    representation: str
    program: str
    flat: str
    raw: str
    examples: list[dict[str, Any]]
    timings: dict[str, float]
    details: dict[str, Any] = Field(default_factory=dict)


class AnswerRequest(BaseModel):
    """JSON form of /answer: a question (or program) and one scene (graph or facts).

    Images are sent as multipart/form-data with the same field names plus `image`.
    """

    model_config = ConfigDict(extra="forbid")

    question: str | None = Field(None, description="the question; translated unless `program` is given")
    program: str | None = Field(None, description="a program in `representation` (skips translation)")
    representation: ProgramRepresentation | None = Field(
        None,
        description="syntax of `program` (detected from its first characters when omitted), "
        "or the syntax the model writes for `question` (default from settings)",
    )
    scene_graph: dict[str, Any] | None = Field(None, description="one image's GQA scene graph object")
    scene_facts: str | None = Field(None, description="scene facts in ASP")
    top_k: int | None = Field(None, ge=1, le=50)
    model: str | None = Field(None, description="language model (one of the configured choices)")


class RankedAnswer(BaseModel):
    answer: str
    cost: list[int]
    score: float = Field(..., description="exp(-(cost - best cost) / 1000): likelihood ratio to the top answer")


class ProgramShown(BaseModel):
    representation: str
    text: str
    flat: str


class AnswerResponse(BaseModel):
    """Ranked answers with the program, concepts, detections, supporting facts and timings."""

    status: str
    message: str | None
    answers: list[RankedAnswer]
    program: ProgramShown
    concepts: dict[str, list[str]]
    detections: list[dict[str, Any]]
    support: dict[str, Any]
    timings: dict[str, float]
    translation: TranslateResponse | None = None


class Health(BaseModel):
    status: Literal["ok"] = "ok"


class Readiness(BaseModel):
    ready: bool
    parts: dict[str, str]


class ErrorBody(BaseModel):
    detail: str
