"""The FastAPI application: /answer, /verify, /translate, /scenes, /health, /ready, the web page."""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from app.api.admission import AccessControl, OneAtATime, Queue
from app.api.deps import Queues
from app.api.limits import BodySizeLimit
from app.api.openapi import service_schema
from app.api.routes import demo, health, qa, scenes
from app.config import Settings, first_error, load_settings
from app.errors import RETRY_LATER, PipelineError
from app.pipeline import Pipeline
from app.scene_store import SceneStore

log = logging.getLogger("aspvqa.api")


def create_app(
    settings: Settings | None = None,
    pipeline: Pipeline | None = None,
    *,
    warm_up: bool = False,
    solve_workers: int = 0,
    scene_store: SceneStore | None = None,
) -> FastAPI:
    """Build the service; `warm_up` loads the models at start instead of on first use;
    `solve_workers` > 0 solves scene graphs and scene facts in that many worker processes;
    `scene_store` (default: one bounded by the settings) holds the scenes of POST /scenes."""
    settings = settings or load_settings()
    pipeline = pipeline or Pipeline(settings)
    app = FastAPI(
        title="aspvqa",
        version="0.1.0",
        summary="Visual question answering with Answer Set Programming: ranked answers with the facts behind them.",
        lifespan=_lifespan(pipeline, settings, warm_up=warm_up, solve_workers=solve_workers),
    )
    app.state.settings = settings
    app.state.pipeline = pipeline
    app.state.queues = Queues(
        translations=Queue("translation", settings.max_queued_translations),
        solves=Queue("solving", settings.max_queued_solves),
        scene_reads=OneAtATime("scene store", settings.max_queued_solves),
    )
    # In the service process, not in a solver process: a solver process restarted loses no scene.
    app.state.scene_store = scene_store or SceneStore(
        settings.scene_store_max_bytes, settings.scene_store_max_scenes, settings.scene_store_ttl_s
    )
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_request_bytes)
    # Added last, so it runs first: a refused client costs no body read.
    app.add_middleware(AccessControl, api_keys=settings.all_api_keys, per_minute=settings.rate_limit_per_minute)
    app.include_router(health.router)
    app.include_router(qa.router)
    app.include_router(scenes.router)
    app.include_router(demo.router)
    app.openapi = lambda: _published_schema(app, settings)  # type: ignore[method-assign]  # FastAPI's documented way
    _add_error_handlers(app, settings)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> str:
        return (resources.files("app") / "web" / "index.html").read_text(encoding="utf-8")

    return app


def _lifespan(
    pipeline: Pipeline, settings: Settings, *, warm_up: bool, solve_workers: int
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """Start: the solver workers (when asked for) and the models (with `warm_up`); stop: the workers."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        from starlette.concurrency import run_in_threadpool

        pool = None
        if solve_workers:
            from app.solver_pool import SolverPool

            pool = SolverPool(settings, solve_workers)
            pipeline.scene_solver = pool
        try:
            if warm_up:
                await run_in_threadpool(pipeline.warm_up)
                if pool is not None:
                    await run_in_threadpool(pool.warm_up)
            yield
        finally:
            if pool is not None:
                pipeline.scene_solver = None
                await run_in_threadpool(pool.close)

    return lifespan


def _published_schema(app: FastAPI, settings: Settings) -> dict[str, Any]:
    if app.openapi_schema is None:
        app.openapi_schema = service_schema(app, settings, qa.FORM_MODELS + scenes.FORM_MODELS)
    return app.openapi_schema


def _add_error_handlers(app: FastAPI, settings: Settings) -> None:
    """Every error as a JSON body with `detail` and `status`; nothing else leaves as a bare 500."""

    @app.exception_handler(PipelineError)
    async def pipeline_error(_: Request, exc: PipelineError) -> JSONResponse:
        retry_after = exc.retry_after_s or (settings.retry_after_s if exc.kind in RETRY_LATER else None)
        headers = {"Retry-After": str(math.ceil(retry_after))} if retry_after else None
        return JSONResponse({"detail": exc.message, "status": exc.kind}, status_code=exc.http_status, headers=headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        # A body that does not parse (broken JSON or multipart) is invalid input, as every other
        # unreadable field is: 422 with the service's error body, not the framework's bare 400.
        if exc.status_code == 400:
            return JSONResponse({"detail": f"body: {exc.detail}", "status": "invalid_input"}, status_code=422)
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        body = {"detail": first_error(exc.errors()), "status": "invalid_input", "errors": _plain(exc.errors())}
        return JSONResponse(body, status_code=422)

    @app.exception_handler(ClientDisconnect)
    async def client_gone(_: Request, __: ClientDisconnect) -> Response:
        # The client closed the connection while its body was read: nobody reads this answer, and
        # it is no error of the service's (a traceback in the log for every client that gave up).
        return Response(status_code=400)

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return JSONResponse({"detail": f"internal error: {type(exc).__name__}", "status": "error"}, status_code=500)


def _plain(errors: Sequence[Any]) -> list[dict[str, Any]]:
    # Validation errors may carry exception objects in `ctx`, which JSON cannot hold.
    return [{k: (str(v) if k == "ctx" else v) for k, v in e.items() if k in ("loc", "msg", "type")} for e in errors]
