"""The one error type of the app layer: a request the service or a command cannot serve."""

from __future__ import annotations


class PipelineError(Exception):
    """A request the pipeline cannot serve; `kind` decides the HTTP status and exit code."""

    STATUS = {
        "invalid_input": 422,
        "unsupported": 422,  # a question no program can express (why, what if, an opinion, text in the picture)
        "too_large": 413,
        "unsupported_media": 415,
        "model_unavailable": 503,
        "busy": 503,  # a bounded queue is full: come back after Retry-After
        "worker_lost": 503,  # the process solving the request died; others go on
        "unauthorized": 401,
        "rate_limited": 429,
        "timeout": 504,
    }

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    @property
    def http_status(self) -> int:
        return self.STATUS.get(self.kind, 500)
