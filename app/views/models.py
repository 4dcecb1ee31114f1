"""The response bodies of the service and the command line's `--json` output: one shape for both.

`POST /answer` and `aspvqa answer --json` print the same `AnswerResponse`, `POST /verify` and
`aspvqa verify --json` the same `VerifyResponse`, `POST /translate` and `aspvqa translate --json`
a `TranslateResponse`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from app.errors import ERROR_KINDS


class DetectionShown(BaseModel):
    """One object the detector found in the image."""

    id: int
    label: str
    score: float = Field(..., description="the detector's confidence")
    box: tuple[float, float, float, float] = Field(..., description="x0, y0, x1, y1 in pixels of the image")
    categories: list[str] = Field(..., description="the categories its class belongs to")
    hposition: str
    vposition: str


class PerceptionShown(BaseModel):
    """How the image became the scene."""

    method: Literal["detector", "vlm"]
    model: str | None = Field(None, description="the vision-language model asked (method vlm)")
    likelihoods: dict[str, int] = Field(
        default_factory=dict,
        description="facts by where their likelihood came from: logprobs (the model's token log-probabilities "
        "of the value), stated (the confidence the model wrote), default (neither; 0.75)",
    )
    logprobs: str | None = Field(
        None, description="used, absent (the server sent none) or unaligned (its tokens did not match the reply)"
    )
    dropped: int = Field(0, description="objects, attributes and relations whose words map to nothing asked")


class SupportShown(BaseModel):
    """The facts behind an answer: each step's objects and values, and the scene facts the steps used."""

    steps: dict[str, list[str]] = Field(..., description="step id -> the objects or values it gives")
    facts: list[str]


class ExampleShown(BaseModel):
    question: str
    program: str
    score: float | None = None


class TranslateResponse(BaseModel):
    """The program in the requested representation and in flat ASP, with how sure it is.

    A question no program can express is declined with 422 and `status: unsupported` (`ErrorBody`).
    """

    question: str
    status: Literal["ok", "abstained"] = Field(
        "ok",
        description="abstained: the program's confidence is below the configured calibration's threshold, so an "
        "answer from it would be held back as not sure (the program is still given)",
    )
    confidence: float | None = Field(
        None, description="how likely the program is right (trust.confidence; the scene's doubt is not in it)"
    )
    reason: str | None = Field(None, description="why the program is held back as not sure (status abstained)")
    reads_as: str | None = Field(None, description="the program read back in plain words, for checking")
    representation: str
    program: str
    flat: str
    raw: str
    examples: list[dict[str, Any]]
    timings: dict[str, float]
    details: dict[str, Any] = Field(
        default_factory=dict,
        description="how the program was made: model, attempts, source (template: filled from the bank's "
        "examples of the question's form, without a model call; composed: from the question's object references "
        "and a form the bank has, without a model call; model), fill (form, votes, voters, similarity: the best "
        "retrieval score of the question's examples), usage "
        "(prompt_tokens, evaluated_tokens: those not taken from the cached prompt prefix, output_tokens, "
        "prompt_s, output_s), schema_fixes, mappings, samples, agreement",
    )


class ApproximationShown(BaseModel):
    asked: str = Field(..., description="the fact the program asked for, e.g. has_rel(4,sitting_on,2)")
    scene: str = Field(..., description="the more general scene fact read in its place, e.g. has_rel(4,on,2)")


class RankedAnswer(BaseModel):
    answer: str
    cost: list[int] = Field(..., description="cost per priority level, highest first (-1000 ln p each)")
    score: float = Field(..., description="exp(-(cost - best cost) / 1000): likelihood ratio to the top answer")
    approximate: bool = Field(False, description="read through a more general scene word (see approximations)")
    approximations: list[ApproximationShown] = Field(default_factory=list)


class ExplanationShown(BaseModel):
    """Why there is no answer: the first step whose result is empty and the nearest scene words."""

    step: int | None = Field(..., description="the empty step (null: no single step is empty)")
    operation: str | None
    message: str = Field(..., description="e.g. step 2 (relate sitting_on) is empty: ...; the scene has `on` ...")
    nearest: list[str] = Field(..., description="the scene's words nearest to the missing one")
    objects: list[str] = Field(
        default_factory=list,
        description="the scene's objects with those words, nearest first, as name (ids), e.g. pipe (722335)",
    )


class ConfidencePartsShown(BaseModel):
    """The evidence behind `confidence` (trust.confidence)."""

    samples: int = Field(..., description="translations made of the question (n)")
    agreement: float | None = Field(..., description="share of the n translations that mean the chosen program")
    source: str = Field(
        "model",
        description="template: the program was filled from the example bank's questions of the same form "
        "(no model call); composed: from the question's object references and a form the bank has (no model "
        "call); model: the language model wrote it",
    )
    fill_agreement: float | None = Field(
        None,
        description="with source template or composed, the share of the examples of that form whose filled "
        "program it is",
    )
    min_token_probability: float | None = Field(
        None, description="the probability the model gave the least likely token it wrote (local models only)"
    )
    retrieval_similarity: float | None = Field(..., description="retrieval score of the most similar example shown")
    skeleton_agreement: float | None = Field(
        ..., description="share of the examples shown whose program skeleton is the chosen program's"
    )
    retries: int = Field(..., description="failed model attempts before a valid program")
    schema_fixes: int = Field(..., description="deterministic fixes made to the program")
    cost_margin: float | None = Field(..., description="cost between the first and the second answer (weighted scenes)")
    answer_share: float = Field(..., description="the top answer's share of exp(-cost) over the ranked answers")


class AbstentionShown(BaseModel):
    """The calibrated decision: keep the answer or hold it back."""

    abstained: bool | None = Field(..., description="null: the calibration does not hold for this request's options")
    reason: str
    threshold: float | None = Field(..., description="the confidence needed at this risk (null: none reaches it)")
    risk: float | None
    method: str = Field(..., description="crc (kept and wrong) or ltt (wrong among kept)")


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
    detections: list[DetectionShown]
    support: SupportShown | dict[str, list[str]] = Field(
        ..., description="the facts behind the top answer ({} without an answer)"
    )
    timings: dict[str, float]
    translation: TranslateResponse | None = None
    explanation: ExplanationShown | None = Field(None, description="why not, when status is no_answer")
    confidence: float | None = Field(
        None,
        ge=0,
        le=1,
        description="how sure the top answer is: the translated program's calibrated score times the answer's "
        "share on the scene (a given program: the share only)",
    )
    confidence_parts: ConfidencePartsShown | None = None
    abstained: bool | None = Field(
        None, description="with a calibration configured: the answer is held back (see abstention.reason)"
    )
    abstention: AbstentionShown | None = None
    perception: PerceptionShown | None = Field(None, description="with an image: how it became the scene")


class ErrorBody(BaseModel):
    detail: str
    status: str | None = Field(
        None,
        description=f"the kind of error: {', '.join(ERROR_KINDS)} or error (an unexpected one); "
        "unsupported: a question no program can express (why, what if, an opinion, text in the picture, or a word "
        "no program can say, such as a brand or a price; the detail names it)",
    )


class CheckShown(BaseModel):
    program: str = Field(..., description="the yes/no program solved (flat ASP)")
    expected: Literal["yes", "no"]


class SubClaimShown(BaseModel):
    """One object, attribute, relation, count or comparison the claim states, and its verdict."""

    id: int
    kind: Literal["object", "attribute", "relation", "count", "comparison"]
    text: str
    verdict: Literal["supported", "refuted", "unverifiable"]
    confidence: float | None = Field(None, description="likelihood of what the scene says (1 on a certain scene)")
    facts: list[str] = Field(..., description="the scene facts behind the verdict")
    reason: str
    checks: list[CheckShown]


class VerifyResponse(BaseModel):
    """The claim's verdict, each sub-claim's with its facts, and the claim's program."""

    verdict: Literal["supported", "refuted", "unverifiable"]
    holds: bool = Field(..., description="whether the claim says the program answers yes (false: no)")
    program: ProgramShown
    subclaims: list[SubClaimShown]
    detections: list[DetectionShown]
    timings: dict[str, float]
    translation: TranslateResponse | None = None
