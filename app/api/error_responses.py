"""The error answers every guarded route may give before it reads its request: admission's."""

from __future__ import annotations

from typing import Any

from app.views.models import ErrorBody

ADMISSION_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "an API key is configured and the request has none, or another"},
    429: {"model": ErrorBody, "description": "this client's requests per minute are used up (see Retry-After)"},
}
