"""Time limits for synchronous clingo solves: one thread per process interrupts late ones.

clingo's asynchronous solving starts a thread per solve call: about 0.3 ms each, and several
milliseconds when the machine is busy, for solves that themselves take a fraction of a
millisecond. Solving in the caller's thread and leaving the deadline to one shared thread keeps
the limit without that cost. clingo releases the GIL while it solves, so the watchdog runs.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import clingo


class Watchdog:
    """Interrupts each watched control once its deadline (a `time.perf_counter` value) passes."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._watched: dict[int, tuple[float, clingo.Control]] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    @contextmanager
    def watch(self, ctl: clingo.Control, deadline: float) -> Iterator[None]:
        """While inside, `ctl` is interrupted at `deadline`; never after the block is left."""
        key = next(self._ids)
        with self._changed:
            earliest = min((d for d, _ in self._watched.values()), default=None)
            self._watched[key] = (deadline, ctl)
            if self._thread is None or not self._thread.is_alive():
                # Started lazily (and again after a fork, which keeps no threads).
                self._thread = threading.Thread(target=self._run, name="clingo-watchdog", daemon=True)
                self._thread.start()
            elif earliest is None or deadline < earliest:
                self._changed.notify()
        try:
            yield
        finally:
            with self._changed:
                self._watched.pop(key, None)  # gone already when it was interrupted

    def _run(self) -> None:
        with self._changed:
            while True:
                if not self._watched:
                    self._changed.wait()
                    continue
                now = time.perf_counter()
                earliest = min(d for d, _ in self._watched.values())
                if earliest > now:
                    self._changed.wait(earliest - now)
                    continue
                for key, (deadline, ctl) in list(self._watched.items()):
                    if deadline <= now:
                        ctl.interrupt()
                        del self._watched[key]


WATCHDOG = Watchdog()


if hasattr(os, "register_at_fork"):
    # A child process has no watchdog thread and may have inherited a held lock: start afresh
    # (in place, since other modules hold the instance).
    os.register_at_fork(after_in_child=WATCHDOG.__init__)  # type: ignore[misc]  # re-initialised in place on purpose
