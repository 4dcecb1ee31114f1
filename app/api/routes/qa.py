"""POST /translate, POST /answer and POST /verify."""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

from fastapi import APIRouter, Request
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from app.api.schemas import (
    AbstentionShown,
    AnswerRequest,
    AnswerResponse,
    ConfidencePartsShown,
    ErrorBody,
    ExplanationShown,
    ProgramShown,
    RankedAnswer,
    SubClaimShown,
    TranslateRequest,
    TranslateResponse,
    VerifyRequest,
    VerifyResponse,
)
from app.config import Settings, first_error
from app.pipeline import AnswerOutcome, Pipeline, PipelineError, TranslationOutcome, VerifyOutcome, show_program
from theory import format_flat
from theory.operations import TEXT_REPRESENTATIONS
from translators.options import REPRESENTATIONS

router = APIRouter(tags=["questions"])

ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "request, image, question or scene too large"},
    415: {"model": ErrorBody, "description": "unsupported content or image type"},
    422: {"model": ErrorBody, "description": "invalid request, program or scene"},
    503: {"model": ErrorBody, "description": "a model is not available (the message names the setting)"},
    504: {"model": ErrorBody, "description": "translation or solving took too long"},
}


def translation_body(
    question: str, representation: str, translation: TranslationOutcome, timings: dict[str, float]
) -> TranslateResponse:
    """The response body for one translation."""
    return TranslateResponse(
        question=question,
        representation=representation,
        program=show_program(translation.program, representation),
        flat=format_flat(translation.program),
        raw=translation.raw,
        examples=translation.examples,
        timings=timings,
        details=translation.details,
    )


async def _within(seconds: float, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    # The work runs in a worker thread so the event loop keeps serving other requests.
    try:
        return await asyncio.wait_for(run_in_threadpool(fn, *args, **kwargs), timeout=seconds)
    except TimeoutError:
        raise PipelineError("timeout", f"{what} took longer than {seconds:g} s") from None


@router.post("/translate", response_model=TranslateResponse, responses=ERRORS)
async def translate(body: TranslateRequest, request: Request) -> TranslateResponse:
    """Turn a question into a logic program (no image needed)."""
    pipeline: Pipeline = request.app.state.pipeline
    settings = pipeline.settings
    options = body.options(settings)
    with request.app.state.translations.slot():
        translation: TranslationOutcome = await _within(
            settings.translate_timeout_s, "translation", pipeline.translate, body.question, options, model=body.model
        )
    return translation_body(
        body.question, options.representation, translation, {"translate": round(translation.seconds, 6)}
    )


ANSWER_BODY = {
    "requestBody": {
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/AnswerRequest"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "image": {"type": "string", "format": "binary"},
                        "question": {"type": "string"},
                        "program": {"type": "string"},
                        "representation": {"type": "string", "enum": list(REPRESENTATIONS)},
                        "top_k": {"type": "integer", "minimum": 1, "maximum": 50},
                        "scene_graph": {"type": "string", "description": "JSON of one GQA scene graph"},
                        "scene_facts": {"type": "string"},
                        "risk": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                    },
                }
            },
        },
        "required": True,
    }
}


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


@router.post("/answer", response_model=AnswerResponse, responses=ERRORS, openapi_extra=ANSWER_BODY)
async def answer(request: Request) -> AnswerResponse:
    """Answer a question on an image (multipart), a GQA scene graph or scene facts (JSON)."""
    pipeline: Pipeline = request.app.state.pipeline
    settings = pipeline.settings
    fields, image = await _fields_and_image(request, settings)
    try:
        body = AnswerRequest.model_validate(fields)
    except ValidationError as exc:
        raise PipelineError("invalid_input", first_error(exc.errors())) from None

    budget = settings.solve_timeout_s + (settings.translate_timeout_s if body.program is None else 0) + 60
    queue = request.app.state.solves if body.program is not None else request.app.state.translations
    with queue.slot():
        outcome: AnswerOutcome = await _within(
            budget,
            "answering",
            pipeline.answer,
            body.question,
            program=body.program,
            representation=body.representation,
            image=image,
            scene_graph=body.scene_graph,
            scene_facts=body.scene_facts,
            top_k=body.top_k,
            model=body.model,
            exact=body.exact,
            risk=body.risk,
        )
    translation = None
    if outcome.translation is not None:
        translation = translation_body(
            body.question or "",
            outcome.representation,
            outcome.translation,
            {"translate": outcome.timings.get("translate", 0.0)},
        )
    return AnswerResponse(
        status=outcome.status,
        message=outcome.message,
        answers=[RankedAnswer(**a) for a in outcome.answers],
        program=ProgramShown(
            representation=outcome.representation, text=outcome.program_text, flat=format_flat(outcome.program)
        ),
        concepts=outcome.concepts,
        detections=outcome.detections,
        support=outcome.support,
        timings=outcome.timings,
        translation=translation,
        explanation=ExplanationShown(**outcome.explanation) if outcome.explanation else None,
        confidence=outcome.confidence,
        confidence_parts=ConfidencePartsShown(**outcome.confidence_parts) if outcome.confidence_parts else None,
        abstained=outcome.abstention["abstained"] if outcome.abstention else None,
        abstention=AbstentionShown(**outcome.abstention) if outcome.abstention else None,
    )


VERIFY_BODY = {
    "requestBody": {
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/VerifyRequest"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "image": {"type": "string", "format": "binary"},
                        "claim": {"type": "string"},
                        "question": {"type": "string"},
                        "answer": {"type": "string"},
                        "program": {"type": "string"},
                        "representation": {"type": "string", "enum": list(REPRESENTATIONS)},
                        "scene_graph": {"type": "string", "description": "JSON of one GQA scene graph"},
                        "scene_facts": {"type": "string"},
                    },
                }
            },
        },
        "required": True,
    }
}


@router.post("/verify", response_model=VerifyResponse, responses=ERRORS, openapi_extra=VERIFY_BODY, tags=["claims"])
async def verify(request: Request) -> VerifyResponse:
    """Verify a claim, or another model's answer to a question, on an image, a GQA scene graph or scene facts.

    The claim becomes a yes/no program, split into sub-claims (each object, attribute, relation
    and count it states); each is solved and judged supported, refuted or unverifiable with the
    facts behind it, and the claim is judged from them.
    """
    pipeline: Pipeline = request.app.state.pipeline
    settings = pipeline.settings
    fields, image = await _fields_and_image(request, settings)
    try:
        body = VerifyRequest.model_validate(fields)
    except ValidationError as exc:
        raise PipelineError("invalid_input", first_error(exc.errors())) from None
    translated = body.program is None
    budget = 4 * settings.solve_timeout_s + (settings.translate_timeout_s if translated else 0) + 60
    queue = request.app.state.translations if translated else request.app.state.solves
    with queue.slot():
        outcome: VerifyOutcome = await _within(
            budget,
            "verifying",
            pipeline.verify,
            claim=body.claim,
            question=body.question,
            answer=body.answer,
            program=body.program,
            representation=body.representation,
            image=image,
            scene_graph=body.scene_graph,
            scene_facts=body.scene_facts,
            model=body.model,
        )
    # Claims are translated in the nested syntax, questions in the service's; a given program keeps its own.
    shown = (body.representation or "flat") if body.program else "nested" if body.claim else settings.representation
    shown = shown if shown in TEXT_REPRESENTATIONS else "flat"
    translation = None
    if outcome.translation is not None:
        translation = translation_body(
            body.claim or body.question or "",
            shown,
            outcome.translation,
            {"translate": outcome.timings.get("translate", 0.0)},
        )
    return VerifyResponse(
        verdict=outcome.verdict,
        holds=outcome.holds,
        program=ProgramShown(
            representation=shown, text=show_program(outcome.program, shown), flat=format_flat(outcome.program)
        ),
        subclaims=[SubClaimShown(**s) for s in outcome.subclaims],
        detections=outcome.detections,
        timings=outcome.timings,
        translation=translation,
    )


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
