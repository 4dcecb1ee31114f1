"""What a route needs from the running service, as FastAPI dependencies (`Annotated` types)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from app.api.admission import Queue
from app.pipeline import Pipeline


@dataclass(frozen=True)
class Queues:
    """The bounded queues: translated requests, and those with a given program (solving only)."""

    translations: Queue
    solves: Queue

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


PipelineDep = Annotated[Pipeline, Depends(service_pipeline)]
QueuesDep = Annotated[Queues, Depends(service_queues)]
