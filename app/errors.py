"""The one error type of the app layer: a request the service or a command cannot serve."""

from __future__ import annotations

from typing import Final, Literal, get_args

# What went wrong, as the HTTP status and the command line's exit code see it.
ErrorKind = Literal[
    "invalid_input",
    "unsupported",  # a question no program can express (why, what if, an opinion, text in the picture)
    "too_large",
    "unsupported_media",
    "model_unavailable",
    "bad_model_reply",  # a remote model answered, but not in the form asked for
    "busy",  # a bounded queue is full: come back after Retry-After
    "worker_lost",  # the process solving the request died; others go on
    "unauthorized",
    "rate_limited",
    "timeout",
    "not_found",  # a stored scene's id that this client has no scene under (unknown, expired, evicted)
]

ERROR_KINDS: Final[tuple[ErrorKind, ...]] = get_args(ErrorKind)

HTTP_STATUS: Final[dict[ErrorKind, int]] = {
    "invalid_input": 422,
    "unsupported": 422,
    "too_large": 413,
    "unsupported_media": 415,
    "model_unavailable": 503,
    "bad_model_reply": 502,
    "busy": 503,
    "worker_lost": 503,
    "unauthorized": 401,
    "rate_limited": 429,
    "timeout": 504,
    "not_found": 404,
}

# Kinds answered with the service's Retry-After (a part that failed may give its own hint instead).
RETRY_LATER: Final[frozenset[ErrorKind]] = frozenset({"busy", "worker_lost"})


class AppError(Exception):
    """The root of the app layer's errors."""


class PipelineError(AppError):
    """A request the pipeline cannot serve; `kind` decides the HTTP status and exit code."""

    STATUS: Final = HTTP_STATUS

    def __init__(self, kind: ErrorKind, message: str, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        # A hint from the part that failed (a remote model's Retry-After), else the service's own.
        self.retry_after_s = retry_after_s

    @property
    def http_status(self) -> int:
        return HTTP_STATUS[self.kind]
