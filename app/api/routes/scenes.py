"""POST /scenes, GET /scenes, GET and DELETE /scenes/{scene_id}: scenes sent once and asked by id.

A stored scene is read once, here: a scene graph into its objects, scene facts held to the size
limit, an image checked as an upload is. Its id is the SHA-256 of its content, so storing the same
scene again finds it without reading it again. /answer and /verify name it as `scene_id`. What
a stored scene gave (an image's readings, the answers to the programs asked of it) is kept with it,
counted against the store's bound.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response
from starlette.concurrency import run_in_threadpool

from app.api.deps import ClientScopeDep, PipelineDep, QueuesDep, SceneStoreDep
from app.api.error_responses import ADMISSION_ERRORS
from app.api.request_body import fields_and_image, form_body, validated
from app.api.schemas import (
    SCENE_ID_PATTERN,
    SceneRequest,
    StoredScenesView,
    StoredSceneView,
    StoreUsageView,
)
from app.config import Settings
from app.perception_memo import READINGS_PER_IMAGE
from app.scene_input import GraphScene, ImageScene, SceneInput
from app.scene_memo import SceneMemo
from app.scene_store import SceneStore, StoredScene, content_id, scene_bytes
from app.views.models import ErrorBody

router = APIRouter(tags=["scenes"])

# The request models whose routes read JSON or a form by hand: app.api.main lists them in the schema.
FORM_MODELS = (SceneRequest,)

STORE_ERRORS: dict[int | str, dict[str, Any]] = ADMISSION_ERRORS | {
    413: {
        "model": ErrorBody,
        "description": "request, image or scene too large, or the scene alone is over the store's bytes",
    },
    415: {"model": ErrorBody, "description": "unsupported content or image type"},
    422: {"model": ErrorBody, "description": "not exactly one scene, or a scene graph that does not read"},
    503: {
        "model": ErrorBody,
        "description": "as many scenes are being stored as requests may wait to solve (ASPVQA_MAX_QUEUED_SOLVES); "
        "see Retry-After",
    },
}
ENTRY_ERRORS: dict[int | str, dict[str, Any]] = ADMISSION_ERRORS | {
    404: {
        "model": ErrorBody,
        "description": "no scene is stored under this id for this client: unknown, expired, evicted or deleted "
        "(the message says which)",
    },
    422: {"model": ErrorBody, "description": "an id that is not 64 lower-case hex digits"},
}

_LOCATION = {"description": "the stored scene's path, /scenes/{id}", "schema": {"type": "string"}}

SceneIdPath = Annotated[str, Path(pattern=SCENE_ID_PATTERN, description="the id POST /scenes returned")]


@router.post(
    "/scenes",
    status_code=201,
    response_model=StoredSceneView,
    responses=STORE_ERRORS
    | {
        201: {"description": "stored", "headers": {"Location": _LOCATION}},
        200: {
            "model": StoredSceneView,
            "description": "this client had stored it already: the same id",
            "headers": {"Location": _LOCATION},
        },
    },
    openapi_extra=form_body(SceneRequest),
)
async def store_scene(
    request: Request,
    response: Response,
    pipeline: PipelineDep,
    queues: QueuesDep,
    store: SceneStoreDep,
    scope: ClientScopeDep,
) -> StoredSceneView:
    """Store a scene (a GQA scene graph or scene facts as JSON, an image as a form) to ask about by its id.

    201 with `Location: /scenes/{id}` when it is new, 200 when this client has stored it already;
    either way its time to live starts again.
    """
    with queues.scene_reads.slot():
        await request.body()  # received before its turn: a slow sender holds up no one
        # Read one at a time: reading a scene of megabytes is Python work that holds the service
        # process's interpreter, and two at once would leave other requests little of it.
        async with queues.scene_reads.turn():
            entry, new = await _stored(request, pipeline.settings, store, scope)
    response.status_code = 201 if new else 200
    response.headers["Location"] = f"/scenes/{entry.id}"
    return _view(entry, store)


async def _stored(request: Request, settings: Settings, store: SceneStore, scope: str) -> tuple[StoredScene, bool]:
    """The request's scene, found stored already (by its content's id) or read and stored now."""
    fields, image = await fields_and_image(request, settings)
    body = validated(SceneRequest, fields)

    def stored() -> tuple[StoredScene, bool]:
        # Read in a worker thread: a large scene graph takes long enough to hold up the event loop.
        kind, content = _content(body, image)
        found = store.find(scope, content_id(kind, content)) if content is not None else None
        if found is not None:
            return found, False
        scene = body.scene(image, settings.max_scene_facts)  # not exactly one scene: raised here
        if isinstance(scene, ImageScene):
            scene = ImageScene(scene.data, readings=SceneMemo(READINGS_PER_IMAGE))
        if settings.scene_store_answers:
            scene = replace(scene, answers=SceneMemo(settings.scene_store_answers))
        return _put(store, scope, content_id(kind, content or b""), scene)

    return await run_in_threadpool(stored)


@router.get("/scenes", response_model=StoredScenesView, responses=ADMISSION_ERRORS)
def list_scenes(store: SceneStoreDep, scope: ClientScopeDep) -> StoredScenesView:
    """This client's stored scenes (least recently used first) and how full the store is."""
    usage = store.usage()
    return StoredScenesView(
        ids=store.ids(scope),
        store=StoreUsageView(
            scenes=usage.scenes,
            bytes=usage.bytes,
            max_scenes=usage.max_scenes,
            max_bytes=usage.max_bytes,
            ttl_s=usage.ttl_s,
        ),
    )


@router.get("/scenes/{scene_id}", response_model=StoredSceneView, responses=ENTRY_ERRORS)
def stored_scene(scene_id: SceneIdPath, store: SceneStoreDep, scope: ClientScopeDep) -> StoredSceneView:
    """A stored scene's entry (reading it counts as a use: its time to live starts again)."""
    return _view(store.get(scope, scene_id), store)


@router.delete("/scenes/{scene_id}", status_code=204, response_class=Response, responses=ENTRY_ERRORS)
def delete_scene(scene_id: SceneIdPath, store: SceneStoreDep, scope: ClientScopeDep) -> Response:
    """Forget a stored scene now."""
    store.delete(scope, scene_id)
    return Response(status_code=204)


def _content(body: SceneRequest, image: bytes | None) -> tuple[str, bytes | None]:
    """The scene's kind and the bytes its id is made of (None unless exactly one scene is given)."""
    given = [value for value in (image, body.scene_graph, body.scene_facts) if value is not None]
    if len(given) != 1:
        return "", None
    if image is not None:
        return "image", image
    if body.scene_graph is not None:
        # Keys sorted, no spaces: the same graph however its JSON was written.
        return "scene_graph", json.dumps(body.scene_graph, sort_keys=True, separators=(",", ":")).encode()
    return "scene_facts", (body.scene_facts or "").encode("utf-8", "surrogatepass")


def _put(store: SceneStore, scope: str, scene_id: str, scene: SceneInput) -> tuple[StoredScene, bool]:
    # What perceiving it finds and the answers found on it count against the store's bound too,
    # from its first request on (it may come before `put` returns): counted for this very record,
    # not for one stored again under its id after it was evicted.
    # By a weak reference: the memo is the record's, and a closure holding the record would make a
    # cycle that keeps an evicted scene in memory until the cyclic collector runs.
    record = weakref.ref(scene)

    def accept(extra: int) -> bool:
        kept = record()
        return kept is not None and store.grow(scope, scene_id, extra, of=kept)

    for memo in (scene.answers, scene.readings if isinstance(scene, ImageScene) else None):
        if memo is not None:
            memo.accept = accept
    return store.put(scope, scene_id, scene, scene_bytes(scene))


def _view(entry: StoredScene, store: SceneStore) -> StoredSceneView:
    scene = entry.scene
    return StoredSceneView(
        id=entry.id,
        kind=scene.kind,
        bytes=entry.size,
        objects=len(scene.objects) if isinstance(scene, GraphScene) else None,
        readings=len(scene.readings) if isinstance(scene, ImageScene) and scene.readings is not None else None,
        answers=len(scene.answers) if scene.answers is not None else 0,
        expires_in_s=round(max(0.0, entry.expires_at - store.clock()), 3),
    )
