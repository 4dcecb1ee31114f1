"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.api.deps import PipelineDep
from app.api.schemas import Health, Readiness

router = APIRouter(tags=["health"])


@router.get("/health", response_model=Health)
def health() -> Health:
    """The process is up."""
    return Health()


@router.get("/ready", response_model=Readiness, responses={503: {"model": Readiness}})
def ready(pipeline: PipelineDep) -> JSONResponse:
    """Whether the parts every question needs are loaded; 503 with each part's state otherwise.

    Image support is reported but optional: without detector weights the service still answers on
    scene graphs and scene facts. A configured calibration must load.
    """
    parts = pipeline.readiness()
    needed = ("translator", "scene_graphs", "calibration")  # calibration: only where one is configured
    is_ready = all(parts[name] == "ready" for name in needed if name in parts)
    body = Readiness(ready=is_ready, parts=parts).model_dump()
    return JSONResponse(body, status_code=200 if is_ready else 503)
