"""POST /translate, POST /answer and POST /verify."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from fastapi import APIRouter, Request
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from app.api.deps import PipelineDep, QueuesDep, StoredScenesDep
from app.api.error_responses import ADMISSION_ERRORS
from app.api.request_body import fields_and_image, form_body, validated
from app.api.schemas import AnswerRequest, TranslateRequest, VerifyRequest, chosen_llm, named_llms
from app.config import Settings
from app.errors import PipelineError
from app.outcomes import AnswerOutcome, VerifyOutcome
from app.views.convert import answer_response, translation_response, verify_response
from app.views.models import AnswerResponse, ErrorBody, TranslateResponse, VerifyResponse

P = ParamSpec("P")
T = TypeVar("T")

router = APIRouter(tags=["questions"])

ERRORS: dict[int | str, dict[str, Any]] = ADMISSION_ERRORS | {
    413: {"model": ErrorBody, "description": "request, image, question or scene too large"},
    415: {"model": ErrorBody, "description": "unsupported content or image type"},
    422: {
        "model": ErrorBody,
        "description": "invalid request, program or scene; or a question no program can express (status unsupported)",
    },
    502: {"model": ErrorBody, "description": "the scene's vision-language model replied, but not with a scene"},
    503: {
        "model": ErrorBody,
        "description": "a model is not available (the message names the setting), a queue is full, or a solver "
        "process was lost; see Retry-After",
    },
    504: {"model": ErrorBody, "description": "translation or solving took too long"},
}
# The routes that take a scene may name a stored one.
SCENE_ERRORS: dict[int | str, dict[str, Any]] = ERRORS | {
    404: {
        "model": ErrorBody,
        "description": "scene_id names no scene stored for this client: unknown, expired, evicted or deleted "
        "(the message says which); store it again with POST /scenes",
    }
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


# The request models whose routes read JSON or a form by hand: app.api.main lists them in the schema.
FORM_MODELS: tuple[type[BaseModel], ...] = (AnswerRequest, VerifyRequest)


@router.post("/answer", response_model=AnswerResponse, responses=SCENE_ERRORS, openapi_extra=form_body(AnswerRequest))
async def answer(request: Request, pipeline: PipelineDep, queues: QueuesDep, stored: StoredScenesDep) -> AnswerResponse:
    """Answer a question on an image (multipart), a GQA scene graph, scene facts or a stored scene (JSON)."""
    settings = pipeline.settings
    fields, image = await fields_and_image(request, settings)
    body = validated(AnswerRequest, fields)
    _offered(body, settings)
    translated = body.program is None
    budget = settings.solve_timeout_s + (settings.translate_timeout_s if translated else 0) + 60

    def answered() -> AnswerOutcome:
        # The scene is read here, in a worker thread: a scene graph's objects take a few hundred
        # microseconds that the event loop, serving every other request, should not spend.
        scene = body.scene(image, settings.max_scene_facts, stored)
        return pipeline.answer(body.query(), scene, body.answer_options())

    with queues.for_request(translated).slot():
        # An answer a stored scene kept is a lookup: given here, without the trip to a worker
        # thread, which costs more than the lookup (a third of such a request's time).
        kept = None
        if body.scene_id is not None:
            scene = body.scene(image, settings.max_scene_facts, stored)  # a lookup: no scene is read
            kept = pipeline.kept_answer(body.query(), scene, body.answer_options())
        outcome = kept if kept is not None else await _within(budget, "answering", answered)
    return answer_response(outcome, body.question)


@router.post(
    "/verify",
    response_model=VerifyResponse,
    responses=SCENE_ERRORS,
    openapi_extra=form_body(VerifyRequest),
    tags=["claims"],
)
async def verify(request: Request, pipeline: PipelineDep, queues: QueuesDep, stored: StoredScenesDep) -> VerifyResponse:
    """Verify a claim, or another model's answer to a question, on an image, a GQA scene graph, scene facts
    or a stored scene.

    The claim becomes a yes/no program, split into sub-claims (each object, attribute, relation
    and count it states); each is solved and judged supported, refuted or unverifiable with the
    facts behind it, and the claim is judged from them.
    """
    settings = pipeline.settings
    fields, image = await fields_and_image(request, settings)
    body = validated(VerifyRequest, fields)
    _offered(body, settings)
    translated = body.program is None
    budget = 4 * settings.solve_timeout_s + (settings.translate_timeout_s if translated else 0) + 60

    def verified() -> VerifyOutcome:
        # The scene first: a request without one is refused for that whatever else it lacks.
        scene = body.scene(image, settings.max_scene_facts, stored)
        return pipeline.verify(body.to_verify(), scene, llm=chosen_llm(body))

    with queues.for_request(translated).slot():
        outcome = await _within(budget, "verifying", verified)
    return verify_response(outcome, body.claim or body.question or "")


def _offered(body: TranslateRequest | AnswerRequest | VerifyRequest, settings: Settings) -> None:
    """Every language model the request names (`llm`, `model`) is one this service offers, whether
    or not the request is translated: the schema allows no other."""
    for field, name in named_llms(body).items():
        if name not in settings.offered_llms:
            choices = ", ".join(settings.offered_llms)
            raise PipelineError("invalid_input", f"{field}: model {name!r} is not offered here (offered: {choices})")
