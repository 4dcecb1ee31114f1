"""Request and response models of the REST API."""

from __future__ import annotations

import sys
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.config import TopK
from app.inputs import AnswerOptions, Query, ToVerify, query_of, what_to_verify
from app.scene_input import FactsScene, Perception, SceneInput, StoredScenes, one_scene
from theory.operations import ProgramRepresentation
from translators.checks.question_scope import word_pattern
from translators.model.retrieval import Sampling
from translators.options import Examples, TranslationOptions

Schema = dict[str, Any]  # a JSON Schema object, as pydantic writes it

# The language model a request asks for, and `model`, its older name: read when `llm` is not given
# and checked as it is (the schema publishes it as deprecated, with the same choices).
Llm = Annotated[str | None, Field(description="language model: one of the configured choices (ASPVQA_LLM_CHOICES)")]
OlderLlm = Annotated[str | None, Field(description="the older name of llm, read when llm is not given")]


# How an image of the request becomes its scene (None: the service's setting).
PerceptionChoice = Annotated[
    Perception | None,
    Field(
        description="how an image becomes the scene: detector (OWL-ViT and CLIP) or vlm (ASPVQA_SCENE_VLM's "
        "vision-language model); default vlm where one is configured, else detector. Only with an image",
    ),
]


# A stored scene's id: the SHA-256 of its content in lower-case hex (app.scene_store.content_id).
SCENE_ID_PATTERN = "^[0-9a-f]{64}$"
SceneId = Annotated[
    str | None,
    Field(
        pattern=SCENE_ID_PATTERN,
        description="the id of a scene stored with POST /scenes (by this client, when API keys are on)",
    ),
]


@cache
def text_pattern() -> str:
    """A character that is not white space as `str.strip` reads it: a claim or an answer without one
    is refused as empty. Spelt as `\\uXXXX` escapes, which Python's `re` and ECMA-262 read alike."""
    spaces = "".join(f"\\u{ord(c):04x}" for c in map(chr, range(sys.maxunicode + 1)) if c.isspace())
    return f"[^{spaces}]"


def _worded(schema: Schema) -> None:
    """A question's field: a word of two letters or more, as the service declines a question without one."""
    schema["pattern"] = word_pattern()


# What a request body must give, as the routes check it: each rule a JSON Schema object, made for a
# JSON body (a field not given is absent or null) or for a form (a form has no null: a field not
# given is absent or empty, as empty fields are left out; the image is a file part).
class _Fields:
    def __init__(self, form: bool) -> None:
        self.form = form

    def given(self, name: str, kind: str = "string", **value: Any) -> Schema:
        """`name` is given (not null, in a form not empty), and its value is `value`'s schema."""
        if self.form and kind == "file":
            return {"required": [name]}
        shape = {"minLength": 1} if self.form else {"type": kind}
        return {"required": [name], "properties": {name: shape | value}}

    def absent(self, name: str, kind: str = "string") -> Schema:
        """`name` is not given (in a form, a text field may be empty; a file or a number is left out)."""
        if not self.form:
            return {"properties": {name: {"type": "null"}}}
        return {"properties": {name: {"maxLength": 0} if kind == "string" else False}}

    def one_scene(self, stored: bool = True) -> list[Schema]:
        """Exactly one scene (one_scene; `stored`: a stored one's id is one), and a perception only with
        an image (which JSON cannot send) or a stored scene's id."""
        scenes = [self.given("scene_graph", "object"), self.given("scene_facts")]
        perceived: list[Schema] = []  # the scenes a perception may go with
        if stored:
            scene_id = self.given("scene_id", pattern=SCENE_ID_PATTERN)
            scenes.append(scene_id)
            perceived.append(scene_id)
        if self.form:
            image = self.given("image", "file")
            scenes.insert(0, image)
            perceived.insert(0, image)
        return [{"oneOf": scenes}, {"anyOf": [*perceived, self.absent("perception")]}]


def body_rules(model: type[BaseModel], *, form: bool = False) -> Schema:
    """What `model`'s body must give beyond its fields' own types, as `allOf` (nothing for another model)."""
    fields = _Fields(form)
    question = fields.given("question", pattern=word_pattern())
    rules: list[Schema] = []
    if model is AnswerRequest:
        # A program is used when given (the question is then only echoed); else the question is translated.
        # A risk applies to a translated question, not to a given program.
        rules = [
            {"anyOf": [question, fields.given("program")]},
            {"anyOf": [fields.absent("risk", "number"), fields.absent("program")]},
            *fields.one_scene(),
        ]
    elif model is VerifyRequest:
        # A claim on its own, or an answer with its question or program (Pipeline.verify).
        claim = [fields.given("claim", pattern=text_pattern())] + [
            fields.absent(name) for name in ("answer", "question", "program")
        ]
        answer = [fields.given("answer", pattern=text_pattern()), fields.absent("claim")]
        rules = [
            {"oneOf": [{"allOf": claim}, {"allOf": [*answer, {"anyOf": [question, fields.given("program")]}]}]},
            *fields.one_scene(),
        ]
    elif model is SceneRequest:
        rules = fields.one_scene(stored=False)[:1]  # a stored image is perceived as each request asks
    return {"allOf": rules} if rules else {}


def _with_rules(schema: Schema, model: type[BaseModel]) -> None:
    schema.update(body_rules(model))


class TranslateRequest(BaseModel):
    """A question to turn into a logic program."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(
        ...,
        min_length=1,
        description="the question in English, with a word of two letters or more",
        json_schema_extra=_worded,
    )
    # The translation options (translators.options), each optional: None keeps the service's setting.
    representation: ProgramRepresentation | None = Field(
        None, description="syntax the model writes (default from settings)"
    )
    examples: Examples | None = None
    sampling: Sampling | None = None
    cover_operators: bool | None = None
    llm: Llm = None
    model: OlderLlm = None

    def options(self, defaults: TranslationOptions) -> TranslationOptions:
        """The translation options of this request: its own where given, else `defaults`."""
        return defaults.with_overrides(
            representation=self.representation,
            examples=self.examples,
            sampling=self.sampling,
            cover_operators=self.cover_operators,
        )


class AnswerRequest(BaseModel):
    """JSON form of /answer: a question (or program) and one scene (graph or facts).

    Images are sent as multipart/form-data with the same field names plus `image`.
    """

    model_config = ConfigDict(extra="forbid", json_schema_extra=_with_rules)

    question: str | None = Field(
        None,
        description="the question; translated unless `program` is given (then with a word of two letters or more)",
    )
    program: str | None = Field(None, description="a program in `representation` (skips translation)")
    representation: ProgramRepresentation | None = Field(
        None,
        description="syntax of `program` (detected from its first characters when omitted), "
        "or the syntax the model writes for `question` (default from settings)",
    )
    scene_graph: dict[str, Any] | None = Field(None, description="one image's GQA scene graph object")
    scene_facts: str | None = Field(None, description="scene facts in ASP")
    scene_id: SceneId = None
    perception: PerceptionChoice = None
    top_k: TopK | None = Field(None, description="ranked answers to return (default from settings)")
    llm: Llm = None
    model: OlderLlm = None
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

    def query(self) -> Query:
        """The question, or the given program in its syntax."""
        return query_of(self.question, self.program, self.representation)

    def scene(self, image: bytes | None, max_facts: int, stored: StoredScenes | None = None) -> SceneInput:
        """The one scene of the request (`image` from a form's file, `stored` the client's stored
        scenes); raises `PipelineError` otherwise."""
        return _scene_of(self, image, max_facts, stored)

    def answer_options(self) -> AnswerOptions:
        """How to answer."""
        representation = self.representation if self.program is None else None
        return AnswerOptions(
            representation=representation, top_k=self.top_k, llm=chosen_llm(self), exact=self.exact, risk=self.risk
        )


class Health(BaseModel):
    status: Literal["ok"] = "ok"


class Readiness(BaseModel):
    ready: bool
    parts: dict[str, str]


class VerifyRequest(BaseModel):
    """JSON form of /verify: a claim, or another model's answer with its question (or program), and one scene.

    Images are sent as multipart/form-data with the same field names plus `image`.
    """

    model_config = ConfigDict(extra="forbid", json_schema_extra=_with_rules)

    claim: str | None = Field(None, description="a statement about the picture, e.g. 'The red bus is left of the car.'")
    question: str | None = Field(None, description="the question `answer` answers (translated unless `program`)")
    answer: str | None = Field(None, description="the answer to verify (with `question` or `program`)")
    program: str | None = Field(None, description="the question's program in `representation` (skips translation)")
    representation: ProgramRepresentation | None = Field(None, description="syntax of `program` (default flat)")
    scene_graph: dict[str, Any] | None = Field(None, description="one image's GQA scene graph object")
    scene_facts: str | None = Field(None, description="scene facts in ASP")
    scene_id: SceneId = None
    perception: PerceptionChoice = None
    llm: Llm = None
    model: OlderLlm = None

    def to_verify(self) -> ToVerify:
        """The claim, or the answer with its question or program; raises `PipelineError` for any other mix."""
        return what_to_verify(self.claim, self.question, self.answer, self.program, self.representation)

    def scene(self, image: bytes | None, max_facts: int, stored: StoredScenes | None = None) -> SceneInput:
        """The one scene of the request (`image` from a form's file, `stored` the client's stored
        scenes); raises `PipelineError` otherwise."""
        return _scene_of(self, image, max_facts, stored)


def chosen_llm(request: TranslateRequest | AnswerRequest | VerifyRequest) -> str | None:
    """The language model the request names: `llm`, else its older name `model` (None: the default)."""
    return request.llm if request.llm is not None else request.model


def named_llms(request: TranslateRequest | AnswerRequest | VerifyRequest) -> dict[str, str]:
    """Each language model the request names, by field (both are checked, though `llm` is used)."""
    return {field: name for field, name in (("llm", request.llm), ("model", request.model)) if name is not None}


def _scene_of(
    request: AnswerRequest | VerifyRequest, image: bytes | None, max_facts: int, stored: StoredScenes | None
) -> SceneInput:
    return one_scene(
        image=image,
        scene_graph=request.scene_graph,
        scene_facts=request.scene_facts,
        scene_id=request.scene_id,
        max_facts=max_facts,
        perception=request.perception,
        stored=stored,
    )


class SceneRequest(BaseModel):
    """JSON form of POST /scenes: one scene to store, a GQA scene graph or scene facts.

    An image is sent as multipart/form-data with `image`; each question on it says how to perceive
    it (`perception`), and each concept set is perceived once.
    """

    model_config = ConfigDict(extra="forbid", json_schema_extra=_with_rules)

    scene_graph: dict[str, Any] | None = Field(None, description="one image's GQA scene graph object")
    scene_facts: str | None = Field(None, description="scene facts in ASP")

    def scene(self, image: bytes | None, max_facts: int) -> SceneInput:
        """The one scene to store (`image` from a form's file), read and held to the size limits;
        raises `PipelineError` otherwise."""
        scene = one_scene(image=image, scene_graph=self.scene_graph, scene_facts=self.scene_facts, max_facts=max_facts)
        # Facts are read where they are solved; stored, they are held to the size limit now.
        return FactsScene.read(scene.text, max_facts) if isinstance(scene, FactsScene) else scene


class StoredSceneView(BaseModel):
    """A stored scene: its id and what it takes in the store."""

    id: str = Field(description="the scene's id: the SHA-256 of its content; name it as scene_id")
    kind: Literal["image", "scene_graph", "scene_facts"]
    bytes: int = Field(description="the memory it takes, as counted against ASPVQA_SCENE_STORE_MAX_BYTES")
    objects: int | None = Field(None, description="a scene graph's objects")
    readings: int | None = Field(
        None, description="an image's readings kept so far: each concept set asked of it is perceived once"
    )
    answers: int = Field(0, description="answers kept so far: a program asked of it again is answered without solving")
    expires_in_s: float = Field(description="seconds until it is forgotten unless it is used again")


class StoreUsageView(BaseModel):
    """How full the scene store is (every client's scenes)."""

    scenes: int
    bytes: int
    max_scenes: int
    max_bytes: int
    ttl_s: float


class StoredScenesView(BaseModel):
    """This client's stored scenes, least recently used first, and the store's fill."""

    ids: list[str]
    store: StoreUsageView
