"""A part built on first use, once, and the reason it could not be built."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from app.errors import PipelineError

T = TypeVar("T")


class Lazy(Generic[T]):
    """One part, built on first `get` (thread-safe); remembers why it could not be built."""

    def __init__(self, build: Callable[[], T], value: T | None = None) -> None:
        self._build = build
        self._value = value
        self._lock = threading.Lock()
        self.error: str | None = None

    def get(self) -> T:
        with self._lock:
            if self._value is None:
                try:
                    self._value = self._build()
                except PipelineError as exc:
                    self.error = exc.message
                    raise
                self.error = None
            return self._value

    @property
    def status(self) -> str:
        """'ready', 'not loaded' or why it cannot load."""
        return "ready" if self._value is not None else self.error or "not loaded"
