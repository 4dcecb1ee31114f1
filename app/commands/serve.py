"""`aspvqa serve`: run the REST service with uvicorn."""

from __future__ import annotations

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
    uvicorn.run(create_app(settings, warm_up=warm_up), host=host, port=port, log_level="info")
