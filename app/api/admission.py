"""Who may come in and how many at once: bounded queues (503 with Retry-After), optional API
keys (401; each key is a client with its own stored scenes) and a per-client rate limit (429).

Written by hand: the queues are two counters on the event loop's thread, and the key and the
token bucket are a few lines of ASGI middleware that must answer before a body is read; the rate
limiting libraries for Starlette decorate each route and keep their state behind a storage layer,
which buys nothing for one process.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import math
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from app.errors import HTTP_STATUS, ErrorKind, PipelineError

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

OPEN_PATHS = frozenset({"/health", "/ready"})
# Where the middleware leaves the scope of the client's stored scenes in the ASGI scope; absent
# without API keys, when every client shares one.
CLIENT_SCOPE = "aspvqa.client_scope"


class Queue:
    """At most `limit` requests of one kind in the service at once; the next is refused at once."""

    def __init__(self, what: str, limit: int) -> None:
        self.what = what
        self.limit = limit
        self.in_use = 0

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold a place for the request's lifetime; raises `PipelineError` ("busy") when all are taken."""
        # Only the event loop's thread enters and leaves, so a plain counter needs no lock.
        if self.in_use >= self.limit:
            raise PipelineError("busy", f"the {self.what} queue is full ({self.limit} at once); try again shortly")
        self.in_use += 1
        try:
            yield
        finally:
            self.in_use -= 1


class OneAtATime:
    """A `Queue` whose requests take turns at their work, one at a time (the others wait their turn)."""

    def __init__(self, what: str, limit: int) -> None:
        self.queue = Queue(what, limit)
        self._turn = asyncio.Semaphore(1)

    @contextmanager
    def slot(self) -> Iterator[None]:
        """A place in the queue, as `Queue.slot`; raises `PipelineError` ("busy") when all are taken."""
        with self.queue.slot():
            yield

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """This request's turn at the work (within its slot)."""
        async with self._turn:
            yield


class TokenBuckets:
    """A token bucket per client: `per_minute` a minute, in bursts of up to ten seconds' worth."""

    def __init__(self, per_minute: int, max_clients: int = 10_000) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, per_minute / 6.0)
        self.max_clients = max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, client: str, now: float | None = None) -> float:
        """0 when the client may go on (a token is spent), else the seconds until it may."""
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets.pop(client, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - last) * self.rate)
        wait = 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate
        self._buckets[client] = (tokens - 1.0 if wait == 0.0 else tokens, now)
        while len(self._buckets) > self.max_clients:  # the least recently seen client is forgotten
            self._buckets.popitem(last=False)
        return wait


class AccessControl:
    """ASGI middleware: the API keys (when set) and the rate limit (when set) before anything else."""

    def __init__(self, app: ASGIApp, api_keys: Sequence[str], per_minute: int) -> None:
        self.app = app
        self.api_keys = [key.encode() for key in api_keys if key]
        self.buckets = TokenBuckets(per_minute) if per_minute else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        if self.api_keys:
            key = self._key_given(scope)
            if key is None:
                await _refuse(
                    send, "unauthorized", "a valid API key is needed (header X-API-Key or Authorization: Bearer)"
                )
                return
            scope[CLIENT_SCOPE] = scope_of_key(key)
        if self.buckets is not None:
            client = (scope.get("client") or ("unknown", 0))[0]
            wait = self.buckets.take(client)
            if wait:
                await _refuse(send, "rate_limited", "too many requests from this client", retry_after=wait)
                return
        await self.app(scope, receive, send)

    def _key_given(self, scope: Scope) -> bytes | None:
        """The configured key the request gives, or None."""
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"x-api-key")
        if given is None:
            scheme, _, token = headers.get(b"authorization", b"").partition(b" ")
            given = token.strip() if scheme.lower() == b"bearer" else None
        if given is None:
            return None
        # Compared in constant time, and with every key, so that the answer's timing tells neither
        # how much of a key matched nor which one.
        matched = [key for key in self.api_keys if hmac.compare_digest(given, key)]
        return matched[0] if matched else None


def scope_of_key(key: bytes) -> str:
    """The scope of a client's stored scenes: a digest of its API key (the key itself is kept nowhere else)."""
    return hashlib.sha256(b"aspvqa client\0" + key).hexdigest()[:32]


async def _refuse(send: Send, kind: ErrorKind, detail: str, retry_after: float | None = None) -> None:
    status = HTTP_STATUS[kind]
    body = json.dumps({"detail": detail, "status": kind}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    if retry_after is not None:
        headers.append((b"retry-after", str(max(1, math.ceil(retry_after))).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
