"""The OpenAI-compatible backend against a local stand-in server that rate-limits, fails and drops
connections: transient failures are retried with backoff, and what still fails is retryable, never final."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from theory.retry_after import retry_after_seconds
from translators.examples.bank import legacy_bank
from translators.model.backends.base import BackendError, GenerationRequest, RetryableBackendError
from translators.model.backends.openai_compat import (
    OpenAICompatBackend,
    RetryPolicy,
    is_retryable_status,
)
from translators.model.prompts import build_prompt
from translators.translate import TranslationSettings, Translator

FAST = RetryPolicy(attempts=5, initial_s=0.01, max_wait_s=0.05, budget_s=10)
ANSWER = "exist(select(scene(), cat))"


class StandIn:
    """What the server does for each request in turn: an HTTP status, ``drop`` (close the
    connection without answering) or ``ok``; after the script, ``ok``."""

    def __init__(self, script: list[str | int]) -> None:
        self.script = list(script)
        self.requests = 0
        self.lock = threading.Lock()

    def next(self) -> str | int:
        with self.lock:
            self.requests += 1
            return self.script.pop(0) if self.script else "ok"


@pytest.fixture
def server() -> Iterator[tuple[str, StandIn]]:
    stand_in = StandIn([])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            action = stand_in.next()
            if action == "drop":
                self.close_connection = True
                self.connection.shutdown(2)  # the connection ends without a response
                return
            if action == "ok":
                body = json.dumps({"choices": [{"message": {"content": ANSWER}}], "usage": {}}).encode()
                self.send_response(200)
            else:
                body = b'{"error": "try later"}'
                self.send_response(int(action))
                if action == 429:
                    self.send_header("Retry-After", "0")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", stand_in
    finally:
        httpd.shutdown()
        httpd.server_close()


def backend(url: str, policy: RetryPolicy = FAST) -> OpenAICompatBackend:
    return OpenAICompatBackend(url, "stand-in", api_key_env="NO_SUCH_KEY_VAR", retry=policy, timeout_s=5)


def request(question: str = "Is there a cat?") -> GenerationRequest:
    return GenerationRequest(prompt=build_prompt(question, [], "nested"), question=question)


def test_rate_limits_server_errors_and_dropped_connections_are_retried(server):
    url, stand_in = server
    stand_in.script = [429, 503, "drop", 502]
    assert backend(url).generate(request()).text == ANSWER
    assert stand_in.requests == 5


def test_a_failure_that_outlasts_the_retries_is_retryable(server):
    url, stand_in = server
    stand_in.script = [429] * 10
    with pytest.raises(RetryableBackendError, match="5 attempt"):
        backend(url).generate(request())
    assert stand_in.requests == FAST.attempts


def test_a_permanent_error_is_not_retried(server):
    url, stand_in = server
    stand_in.script = [400]
    with pytest.raises(BackendError, match="HTTP 400") as raised:
        backend(url).generate(request())
    assert not isinstance(raised.value, RetryableBackendError)
    assert stand_in.requests == 1


def test_a_refused_connection_is_retryable():
    with pytest.raises(RetryableBackendError, match="ConnectError"):
        backend("http://127.0.0.1:9/v1", RetryPolicy(attempts=2, initial_s=0.01, max_wait_s=0.01)).generate(request())


def test_a_translation_the_server_never_answered_is_retryable_not_a_formulation_failure(server):
    url, stand_in = server
    stand_in.script = ["drop"] * 10
    # The stand-in's one program leaves out the zebra: meaning is not what this test is about.
    settings = TranslationSettings(
        llm="stand-in", sampling="jaccard", examples=1, schema_decoding=False, meaning_check=False
    )
    translator = Translator(settings, legacy_bank(), backend(url))
    result = translator.translate("Does a cat sit beside the zebra?")  # a form the bank lacks
    assert result.retryable and result.program is None and "attempt" in (result.error or "")
    stand_in.script = []
    again = translator.translate("Does a cat sit beside the zebra?")
    assert not again.retryable and again.program is not None


@pytest.mark.parametrize(("status", "retry"), [(429, True), (500, True), (503, True), (408, True), (400, False),
                                               (401, False), (404, False), (422, False)])  # fmt: skip
def test_statuses_are_classified(status, retry):
    assert is_retryable_status(status) is retry


def test_retry_after_in_seconds_or_as_a_date():
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past: now
