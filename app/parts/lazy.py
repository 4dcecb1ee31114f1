"""Parts built on first use, once, and the reason one could not be built."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from functools import partial
from typing import Generic, TypeVar

from app.errors import PipelineError

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


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
    def built(self) -> T | None:
        """The part when it is built already (None: not yet, or it could not be); builds nothing."""
        return self._value

    @property
    def status(self) -> str:
        """'ready', 'not loaded' or why it cannot load."""
        return "ready" if self._value is not None else self.error or "not loaded"


class PerKey(Generic[K, T]):
    """One part per key, each built on its key's first `get` and shared after (thread-safe: a second
    caller of the same key waits for the first instead of building another; keys build side by side)."""

    def __init__(self, build: Callable[[K], T]) -> None:
        self._build = build
        self._parts: dict[K, Lazy[T]] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> T:
        with self._lock:
            part = self._parts.get(key)
            if part is None:
                part = self._parts[key] = Lazy(partial(self._build, key))
        return part.get()
