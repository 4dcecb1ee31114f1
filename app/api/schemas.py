"""Request and response models of the REST API."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from app.config import TopK
from app.errors import PipelineError
from translators.options import Examples, ProgramRepresentation, TranslationOptions
from translators.retrieval import Sampling

# The language model a request asks for; `model` is its older name, still read.
Llm = Annotated[
    str | None,
    Field(
        validation_alias=AliasChoices("llm", "model"),
        description="language model: one of the configured choices (ASPVQA_LLM_CHOICES); `model` is read too",
    ),
]


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
    llm: Llm = None

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
        "and a form the bank has, without a model call; model), fill (form, votes, voters), usage "
        "(prompt_tokens, evaluated_tokens: those not taken from the cached prompt prefix, output_tokens, "
        "prompt_s, output_s), schema_fixes, mappings, samples, agreement",
    )


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
    top_k: TopK | None = Field(None, description="ranked answers to return (default from settings)")
    llm: Llm = None
    exact: bool = Field(
        False, description="only exact scene words: no approximate answers through the entailment table"
    )
    risk: float | None = Field(
        None,
        gt=0,
        lt=1,
        description="abstention risk for this request, within the configured calibration's range "
        "(default: the calibration's own); needs a calibration (ASPVQA_CALIBRATION) and a question",
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
    detections: list[dict[str, Any]]
    support: dict[str, Any]
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


class Health(BaseModel):
    status: Literal["ok"] = "ok"


class Readiness(BaseModel):
    ready: bool
    parts: dict[str, str]


class ErrorBody(BaseModel):
    detail: str
    status: str | None = Field(
        None,
        description=f"the kind of error: {', '.join(PipelineError.STATUS)} or error (an unexpected one); "
        "unsupported: a question no program can express (why, what if, an opinion, text in the picture, or a word "
        "no program can say, such as a brand or a price; the detail names it)",
    )


class VerifyRequest(BaseModel):
    """JSON form of /verify: a claim, or another model's answer with its question (or program), and one scene.

    Images are sent as multipart/form-data with the same field names plus `image`.
    """

    model_config = ConfigDict(extra="forbid")

    claim: str | None = Field(None, description="a statement about the picture, e.g. 'The red bus is left of the car.'")
    question: str | None = Field(None, description="the question `answer` answers (translated unless `program`)")
    answer: str | None = Field(None, description="the answer to verify (with `question` or `program`)")
    program: str | None = Field(None, description="the question's program in `representation` (skips translation)")
    representation: ProgramRepresentation | None = Field(None, description="syntax of `program` (default flat)")
    scene_graph: dict[str, Any] | None = Field(None, description="one image's GQA scene graph object")
    scene_facts: str | None = Field(None, description="scene facts in ASP")
    llm: Llm = None


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
    detections: list[dict[str, Any]]
    timings: dict[str, float]
    translation: TranslateResponse | None = None
