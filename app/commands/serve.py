"""`aspvqa serve`: run the REST service with uvicorn."""

from __future__ import annotations

import faulthandler
import os
from typing import Annotated

import typer

from app.commands.io import fail
from app.config import ConfigError, load_settings


def serve_command(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535)] = 8000,
    warm_up: Annotated[
        bool, typer.Option("--warm-up/--lazy", help="Load the models at start (default) or on first use.")
    ] = True,
    workers: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=64,
            help="Solver processes (0: solve in the service process; default: the setting solve_workers, "
            "whose 0 means cores + 1).",
        ),
    ] = None,
) -> None:
    """Serve POST /answer, POST /translate, /health, /ready, the OpenAPI docs (/docs) and the web page (/)."""
    try:
        import uvicorn

        from app.api.main import create_app
    except ImportError as exc:
        fail(f"the service needs its extra: pip install '.[service]' ({exc})")
    try:
        settings = load_settings()
    except ConfigError as exc:
        fail(str(exc))
    # A crash in native code (clingo, llama.cpp) leaves a Python traceback in the log.
    faulthandler.enable()
    count = workers if workers is not None else settings.solve_workers or (os.cpu_count() or 1) + 1
    app = create_app(settings, warm_up=warm_up, solve_workers=count)
    # A bounded drain on SIGTERM: in-flight requests get this long, then the process ends.
    uvicorn.run(app, host=host, port=port, log_level="info", timeout_graceful_shutdown=5)
