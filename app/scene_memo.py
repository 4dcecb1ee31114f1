"""What a stored scene was found to give, kept with it: an image's readings, a program's answers.

A stored scene is asked many times, often the same thing: the same concepts of one image (each
reading costs the vision models), the same question or program with the same options (each
answer costs a translation, a solver process's turn and the trip there). Its id is the hash of
its content, so what it gave once it gives again. Only stored scenes keep such results: a scene
sent in a request lives for that request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import Generic, Protocol, TypeVar

from app.memory_size import estimated_bytes


class Timed(Protocol):
    """A result with the times of the stages that made it (a frozen dataclass)."""

    @property
    def timings(self) -> dict[str, float]: ...


ResultT = TypeVar("ResultT", bound=Timed)


class SceneMemo(Generic[ResultT]):
    """One stored scene's results by key, at most `limit` (later ones are not kept).

    `accept(bytes)` is asked before a result is kept (the store counts it against its bound and may
    refuse it); without it every result is kept.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.accept: Callable[[int], bool] | None = None
        self._lock = threading.Lock()
        self._results: dict[Hashable, ResultT] = {}

    def read(
        self, key: Hashable, make: Callable[[], ResultT], keep: Callable[[ResultT], bool] | None = None
    ) -> ResultT:
        """The result under `key`, made now (by `make`) when there is none yet; kept unless `keep` says no."""
        kept = self.peek(key)
        if kept is not None:
            return kept
        result = make()
        if (keep is not None and not keep(result)) or key in self._results or len(self._results) >= self.limit:
            return result
        # The key counts too: a question's text may be most of it. Sized and offered to the store
        # outside the lock: the store's accounting (evicting others) holds the store's own lock.
        if self.accept is not None and not self.accept(estimated_bytes((key, result))):
            return result
        with self._lock:
            # Two requests that made the same result at once are both counted, one kept: the store
            # errs on the full side until the scene goes.
            if key not in self._results and len(self._results) < self.limit:
                self._results[key] = result
        return result

    def peek(self, key: Hashable) -> ResultT | None:
        """The result kept under `key`, or None."""
        kept = self._results.get(key)  # one dictionary read: atomic, no lock to wait for
        if kept is None:
            return None
        # Nothing was done for this request: the first one's stage times are not its own.
        # (Each result is a dataclass, which a Protocol cannot say.)
        return replace(kept, timings={})  # type: ignore[type-var]

    def __len__(self) -> int:
        return len(self._results)
