"""What a route needs from the running service, as FastAPI dependencies (`Annotated` types)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from app.api.admission import CLIENT_SCOPE, OneAtATime, Queue
from app.pipeline import Pipeline
from app.scene_input import SceneInput, StoredScenes
from app.scene_store import SceneStore


@dataclass(frozen=True)
class Queues:
    """The bounded queues: translated requests, those with a given program (solving only), and
    scenes being stored (read one at a time: a large one holds the service process for a while)."""

    translations: Queue
    solves: Queue
    scene_reads: OneAtATime

    def for_request(self, translated: bool) -> Queue:
        """The queue a request waits in."""
        return self.translations if translated else self.solves


def service_pipeline(request: Request) -> Pipeline:
    """The service's one pipeline (built by `app.api.main.create_app`)."""
    pipeline: Pipeline = request.app.state.pipeline
    return pipeline


def service_queues(request: Request) -> Queues:
    """The service's bounded queues."""
    queues: Queues = request.app.state.queues
    return queues


def scene_store(request: Request) -> SceneStore:
    """The service's stored scenes (every client's)."""
    store: SceneStore = request.app.state.scene_store
    return store


def client_scope(request: Request) -> str:
    """The scope of this client's stored scenes: its API key's, or "" (one for all) without keys."""
    scope: str = request.scope.get(CLIENT_SCOPE, "")
    return scope


def stored_scenes(request: Request) -> StoredScenes:
    """This client's stored scenes by id, as a request's `scene_id` names them."""
    store, scope = scene_store(request), client_scope(request)

    def stored(scene_id: str) -> SceneInput:
        return store.get(scope, scene_id).scene

    return stored


PipelineDep = Annotated[Pipeline, Depends(service_pipeline)]
QueuesDep = Annotated[Queues, Depends(service_queues)]
SceneStoreDep = Annotated[SceneStore, Depends(scene_store)]
ClientScopeDep = Annotated[str, Depends(client_scope)]
StoredScenesDep = Annotated[StoredScenes, Depends(stored_scenes)]
