"""POST /translate, POST /answer and POST /verify."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from fastapi import APIRouter, Request
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from app.api.deps import PipelineDep, QueuesDep
from app.api.openapi import form_field
from app.api.schemas import AnswerRequest, TranslateRequest, VerifyRequest, body_rules, chosen_llm, named_llms
from app.config import Settings, first_error
from app.errors import PipelineError
from app.outcomes import AnswerOutcome, VerifyOutcome
from app.views.convert import answer_response, translation_response, verify_response
from app.views.models import AnswerResponse, ErrorBody, TranslateResponse, VerifyResponse

P = ParamSpec("P")
T = TypeVar("T")

router = APIRouter(tags=["questions"])

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "an API key is configured and the request has none, or another"},
    413: {"model": ErrorBody, "description": "request, image, question or scene too large"},
    415: {"model": ErrorBody, "description": "unsupported content or image type"},
    422: {
        "model": ErrorBody,
        "description": "invalid request, program or scene; or a question no program can express (status unsupported)",
    },
    429: {"model": ErrorBody, "description": "this client's requests per minute are used up (see Retry-After)"},
    502: {"model": ErrorBody, "description": "the scene's vision-language model replied, but not with a scene"},
    503: {
        "model": ErrorBody,
        "description": "a model is not available (the message names the setting), a queue is full, or a solver "
        "process was lost; see Retry-After",
    },
    504: {"model": ErrorBody, "description": "translation or solving took too long"},
}


async def _within(seconds: float, what: str, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    # The work runs in a worker thread so the event loop keeps serving other requests.
    try:
        return await asyncio.wait_for(run_in_threadpool(fn, *args, **kwargs), timeout=seconds)
    except TimeoutError:
        raise PipelineError("timeout", f"{what} took longer than {seconds:g} s") from None


@router.post("/translate", response_model=TranslateResponse, responses=ERRORS)
async def translate(body: TranslateRequest, pipeline: PipelineDep, queues: QueuesDep) -> TranslateResponse:
    """Turn a question into a logic program (no image needed)."""
    settings = pipeline.settings
    _offered(body, settings)
    options, llm = body.options(settings), chosen_llm(body)
    with queues.translations.slot():
        translation = await _within(
            settings.translate_timeout_s, "translation", pipeline.translate, body.question, options, llm=llm
        )
    return translation_response(
        body.question,
        options.representation,
        translation,
        {"translate": round(translation.seconds, 6)},
        pipeline.translation_decision(translation),
    )


def form_body(request_model: type[BaseModel]) -> dict[str, Any]:
    """The OpenAPI request body of a route taking `request_model` as JSON or as a form with an image.

    Made from the request model, so the form's fields cannot drift from the JSON's: the same
    fields and limits, a scene graph as JSON text, and the image as a file.
    """
    schema = request_model.model_json_schema(ref_template="#/components/schemas/{model}")
    image = {"type": "string", "format": "binary", "description": "the picture (JPEG, PNG or WebP)"}
    properties: dict[str, Any] = {"image": image}
    for name, field in schema["properties"].items():
        scene_graph = {"type": "string", "description": "JSON of one GQA scene graph"}
        properties[name] = scene_graph if name == "scene_graph" else form_field(field)
    # Models the fields refer to are listed under components by app.api.main, with the request model.
    # A field the model does not know is refused, as in JSON; the rules are the JSON body's, said of a form.
    form = {"type": "object", "properties": properties, "additionalProperties": False}
    form |= body_rules(request_model, form=True)
    return {
        "requestBody": {
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{request_model.__name__}"}},
                "multipart/form-data": {"schema": form},
            },
            "required": True,
        }
    }


# The request models whose routes read JSON or a form by hand: app.api.main lists them in the schema.
FORM_MODELS: tuple[type[BaseModel], ...] = (AnswerRequest, VerifyRequest)


async def _fields_and_image(request: Request, settings: Settings) -> tuple[Any, bytes | None]:
    """The request's fields (JSON, or a form whose `scene_graph` is JSON text) and its uploaded image."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    image: bytes | None = None
    if content_type == "application/json":
        try:
            raw = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise PipelineError("invalid_input", "body is not valid JSON") from None
        fields = raw
    elif content_type in ("multipart/form-data", "application/x-www-form-urlencoded"):
        form = await request.form(max_files=1, max_fields=16, max_part_size=settings.max_image_bytes + 1)
        fields = {k: v for k, v in form.items() if not isinstance(v, UploadFile) and v != ""}
        upload = form.get("image")
        if isinstance(upload, UploadFile):
            image = await _read_image(upload, settings.max_image_bytes, settings.max_image_pixels, settings.image_types)
        if "scene_graph" in fields:
            try:
                fields["scene_graph"] = json.loads(fields["scene_graph"])
            except json.JSONDecodeError:
                raise PipelineError("invalid_input", "scene_graph: not valid JSON") from None
    else:
        raise PipelineError(
            "unsupported_media",
            f"send application/json or a form (multipart/form-data), not {content_type or 'nothing'}",
        )
    return fields, image


@router.post("/answer", response_model=AnswerResponse, responses=ERRORS, openapi_extra=form_body(AnswerRequest))
async def answer(request: Request, pipeline: PipelineDep, queues: QueuesDep) -> AnswerResponse:
    """Answer a question on an image (multipart), a GQA scene graph or scene facts (JSON)."""
    settings = pipeline.settings
    fields, image = await _fields_and_image(request, settings)
    body = _validated(AnswerRequest, fields)
    _offered(body, settings)
    translated = body.program is None
    budget = settings.solve_timeout_s + (settings.translate_timeout_s if translated else 0) + 60

    def answered() -> AnswerOutcome:
        # The scene is read here, in a worker thread: a scene graph's objects take a few hundred
        # microseconds that the event loop, serving every other request, should not spend.
        scene = body.scene(image, settings.max_scene_facts)
        return pipeline.answer(body.query(), scene, body.answer_options())

    with queues.for_request(translated).slot():
        outcome = await _within(budget, "answering", answered)
    return answer_response(outcome, body.question)


@router.post(
    "/verify", response_model=VerifyResponse, responses=ERRORS, openapi_extra=form_body(VerifyRequest), tags=["claims"]
)
async def verify(request: Request, pipeline: PipelineDep, queues: QueuesDep) -> VerifyResponse:
    """Verify a claim, or another model's answer to a question, on an image, a GQA scene graph or scene facts.

    The claim becomes a yes/no program, split into sub-claims (each object, attribute, relation
    and count it states); each is solved and judged supported, refuted or unverifiable with the
    facts behind it, and the claim is judged from them.
    """
    settings = pipeline.settings
    fields, image = await _fields_and_image(request, settings)
    body = _validated(VerifyRequest, fields)
    _offered(body, settings)
    translated = body.program is None
    budget = 4 * settings.solve_timeout_s + (settings.translate_timeout_s if translated else 0) + 60

    def verified() -> VerifyOutcome:
        # The scene first: a request without one is refused for that whatever else it lacks.
        scene = body.scene(image, settings.max_scene_facts)
        return pipeline.verify(body.to_verify(), scene, llm=chosen_llm(body))

    with queues.for_request(translated).slot():
        outcome = await _within(budget, "verifying", verified)
    return verify_response(outcome, body.claim or body.question or "")


M = TypeVar("M", bound=BaseModel)


def _validated(model: type[M], fields: Any) -> M:
    """The request's fields as `model`; a validation error as the API's invalid input."""
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        raise PipelineError("invalid_input", first_error(exc.errors())) from None


def _offered(body: TranslateRequest | AnswerRequest | VerifyRequest, settings: Settings) -> None:
    """Every language model the request names (`llm`, `model`) is one this service offers, whether
    or not the request is translated: the schema allows no other."""
    for field, name in named_llms(body).items():
        if name not in settings.offered_llms:
            choices = ", ".join(settings.offered_llms)
            raise PipelineError("invalid_input", f"{field}: model {name!r} is not offered here (offered: {choices})")


async def _read_image(upload: UploadFile, max_bytes: int, max_pixels: int, types: tuple[str, ...]) -> bytes:
    """The uploaded image's bytes after checking size, declared type and actual format."""
    data = await upload.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise PipelineError("too_large", f"image larger than {max_bytes} bytes")
    if not data:
        raise PipelineError("invalid_input", "image: empty file")
    declared = (upload.content_type or "").lower()
    if declared and declared not in types and declared != "application/octet-stream":
        raise PipelineError("unsupported_media", f"image type {declared} not accepted (accepted: {', '.join(types)})")
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:  # pragma: no cover - pillow is part of the service extra
        raise PipelineError("model_unavailable", "image support needs pillow: pip install '.[service]'") from None
    try:
        with Image.open(io.BytesIO(data)) as img:
            actual = Image.MIME.get(img.format or "", "")
            width, height = img.size
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError):
        raise PipelineError("unsupported_media", "image: not a readable JPEG, PNG or WebP file") from None
    if actual not in types:
        raise PipelineError(
            "unsupported_media", f"image format {actual or 'unknown'} not accepted (accepted: {', '.join(types)})"
        )
    if width * height > max_pixels:
        raise PipelineError("too_large", f"image has {width}x{height} pixels, limit {max_pixels}")
    return data
