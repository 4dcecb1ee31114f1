"""Time limits for synchronous clingo solves: one thread per process interrupts late ones.

clingo's asynchronous solving starts a thread per solve call: about 0.3 ms each, and several
milliseconds when the machine is busy, for solves that themselves take a fraction of a
millisecond. Solving in the caller's thread and leaving the deadline to one shared thread keeps
the limit without that cost. clingo releases the GIL while it solves, so the watchdog runs.
"""

from __future__ import annotations

import itertools
import math
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
        # When the thread looks at the deadlines next; a later deadline needs no wake-up call.
        self._wake_at = math.inf

    @contextmanager
    def watch(self, ctl: clingo.Control, deadline: float) -> Iterator[None]:
        """While inside, `ctl` is interrupted at `deadline`; never after the block is left."""
        key = next(self._ids)
        with self._changed:
            self._watched[key] = (deadline, ctl)
            if self._thread is None or not self._thread.is_alive():
                # Started lazily (and again after a fork, which keeps no threads).
                self._wake_at = math.inf
                self._thread = threading.Thread(target=self._run, name="clingo-watchdog", daemon=True)
                self._thread.start()
            elif deadline < self._wake_at:
                # Waking the thread costs the solve about 0.2 ms on a busy machine: back-to-back
                # solves with the same limit find it due to wake at an earlier deadline already.
                self._changed.notify()
        try:
            yield
        finally:
            with self._changed:
                self._watched.pop(key, None)  # gone already when it was interrupted

    def _run(self) -> None:
        with self._changed:
            while True:
                now = time.perf_counter()
                for key, (deadline, ctl) in list(self._watched.items()):
                    if deadline <= now:
                        ctl.interrupt()
                        del self._watched[key]
                # Once all are done, wait out the last deadline anyway (see `watch`).
                self._wake_at = min((d for d, _ in self._watched.values()), default=self._wake_at)
                if self._wake_at <= now:
                    self._wake_at = math.inf
                self._changed.wait(None if self._wake_at == math.inf else self._wake_at - now)


WATCHDOG = Watchdog()


if hasattr(os, "register_at_fork"):
    # A child process has no watchdog thread and may have inherited a held lock: start afresh
    # (in place, since other modules hold the instance).
    os.register_at_fork(after_in_child=WATCHDOG.__init__)  # type: ignore[misc]  # re-initialised in place on purpose
