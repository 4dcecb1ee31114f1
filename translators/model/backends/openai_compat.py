"""Any OpenAI-compatible chat endpoint: hosted GPT-4-class models, vLLM, llama.cpp server, Ollama.

The key is read from an environment variable (never from a file or argument), and may be absent
for local servers. Servers that accept a GBNF grammar get it in the request field their kind
names in `GRAMMAR_FIELDS` (`grammar_field`); others are asked without one, as hosted APIs must be.

Failures are classified (`is_retryable_status`): a rate limit (429), a server error (5xx), a
timeout or a dropped connection is retried with exponential backoff and jitter (a server's
``Retry-After`` is honoured) within a `RetryPolicy` budget, and if it persists raises
`RetryableBackendError`, which a caller must not take for a final answer; any other HTTP status
or an unreadable response is permanent (`BackendError`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, stop_after_delay
from tenacity.wait import wait_random_exponential

from theory.retry_after import retry_after_seconds
from translators.model.backends.base import Backend, BackendError, Generation, GenerationRequest, RetryableBackendError

# Where each kind of server takes the GBNF grammar in a chat-completions request (a dotted name
# nests: "a.b" sends {"a": {"b": grammar}}); None sends none. A server ignores a field it does not
# know and answers 200, so a wrong kind silently gives unconstrained output: choose it per server.
GRAMMAR_FIELDS: dict[str, str | None] = {
    "none": None,
    # llama-server accepts its /completion sampling options, `grammar` among them, on /v1/chat/completions.
    "llama.cpp": "grammar",
    # vLLM's documented current form; it replaced the guided_* fields, which vLLM 0.12 removed.
    "vllm": "structured_outputs.grammar",
    # vLLM before 0.12, for servers too old to know structured_outputs.
    "vllm-guided": "guided_grammar",
}


def grammar_field(kind: str, source: str = "") -> str | None:
    """The request field for a kind of server; `BackendError` (naming `source`) for an unknown kind."""
    if kind not in GRAMMAR_FIELDS:
        where = f" ({source})" if source else ""
        raise BackendError(f"unknown grammar kind {kind!r}{where}; use {', '.join(GRAMMAR_FIELDS)}")
    return GRAMMAR_FIELDS[kind]


# Statuses worth asking again: timeout, conflict/too early, rate limit, and server-side failures.
RETRYABLE_STATUSES = frozenset({408, 409, 425, 429})


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP status may pass on a later attempt (rate limits, timeouts, 5xx)."""
    return status in RETRYABLE_STATUSES or 500 <= status <= 599


@dataclass(frozen=True)
class RetryPolicy:
    """How long a transient failure is retried: at most `attempts` requests within `budget_s`,
    waiting a random exponential backoff from `initial_s` up to `max_wait_s` (or what the server's
    Retry-After asks, capped at `max_wait_s`)."""

    attempts: int = 6
    initial_s: float = 1.0
    max_wait_s: float = 30.0
    budget_s: float = 120.0


class _Transient(Exception):
    """A failed request that may pass later; `retry_after` is the server's wish in seconds."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class OpenAICompatBackend(Backend):
    """Chat completions over HTTP with httpx; `grammar_field` is a `GRAMMAR_FIELDS` value."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 120.0,
        grammar_field: str | None = None,
        transport: httpx.BaseTransport | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.name = model
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self.model = model
        self.grammar_field = grammar_field
        self.supports_grammar = grammar_field is not None
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._client = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout_s, transport=transport
        )

    def generate(self, request: GenerationRequest) -> Generation:
        """One chat completion; HTTP and format errors become a one-line `BackendError`."""
        body: dict[str, object] = {
            "model": self.model,
            "messages": request.messages(),
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "seed": request.seed + request.sample,
        }
        if request.stop:
            body["stop"] = list(request.stop)
        if request.grammar and self.grammar_field:
            head, *rest = self.grammar_field.split(".")
            value: object = request.grammar
            for part in reversed(rest):
                value = {part: value}
            body[head] = value
        start = time.perf_counter()
        response = self._post_with_retries(body)
        try:
            data = response.json()
            text = data["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise BackendError(f"{self.model}: unexpected response: {response.text[:200]}") from exc
        usage = data.get("usage") or {}
        return Generation(
            text, time.perf_counter() - start, self.model, usage.get("prompt_tokens"), usage.get("completion_tokens")
        )

    def _post(self, body: dict[str, object]) -> httpx.Response:
        try:
            response = self._client.post("/chat/completions", json=body)
        except (httpx.TimeoutException, httpx.TransportError) as exc:  # timeouts, refused or dropped connections
            raise _Transient(f"request failed: {type(exc).__name__}: {exc}") from exc
        except httpx.HTTPError as exc:
            raise BackendError(f"{self.model}: request failed: {exc}") from exc
        if is_retryable_status(response.status_code):
            raise _Transient(
                f"HTTP {response.status_code}: {response.text[:200]}",
                retry_after_seconds(response.headers.get("Retry-After")),
            )
        if response.status_code != 200:
            raise BackendError(f"{self.model}: HTTP {response.status_code}: {response.text[:200]}")
        return response

    def _wait(self, state: RetryCallState) -> float:
        backoff = wait_random_exponential(multiplier=self.retry.initial_s, max=self.retry.max_wait_s)(state)
        failure = state.outcome.exception() if state.outcome is not None else None
        wished = failure.retry_after if isinstance(failure, _Transient) else None
        return min(self.retry.max_wait_s, wished) if wished is not None else backoff

    def _post_with_retries(self, body: dict[str, object]) -> httpx.Response:
        retrying = Retrying(
            stop=stop_after_attempt(self.retry.attempts) | stop_after_delay(self.retry.budget_s),
            wait=self._wait,
            retry=retry_if_exception_type(_Transient),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            return retrying(self._post, body)
        except _Transient as exc:
            tries = retrying.statistics.get("attempt_number", 1)
            raise RetryableBackendError(f"{self.model}: still failing after {tries} attempt(s): {exc}") from exc

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()
