"""A stand-in OpenAI-compatible vision-language model server on 127.0.0.1, for the scene tests.

A real HTTP server (``http.server.ThreadingHTTPServer`` in a thread, random port) that answers
``POST /v1/chat/completions`` as its `mode` says and keeps every request body it was sent:

- ``logprobs``: the scene as JSON, with each token's log-probability (`value_logprobs` by token);
- ``no_logprobs``: the scene as JSON, without log-probabilities (as Ollama's endpoint);
- ``prose``: a sentence instead of JSON;
- ``oversize``: a body without Content-Length that never ends (until the client goes);
- ``slow``: the scene after `delay_s` seconds;
- ``status``: HTTP `status` with `headers` and a short error body.

`content`, when set, is sent as the message instead of the scene (for wrong fields, bad ids).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

MODEL = "stand-in-vlm"

# A white mug on a brown table in a 640 x 480 picture.
SCENE: dict[str, object] = {
    "objects": [
        {
            "id": "o1",
            "name": "mug",
            "box": [100, 100, 200, 220],
            "confidence": 0.9,
            "attributes": [{"category": "color", "value": "white", "confidence": 0.8}],
        },
        {
            "id": "o2",
            "name": "table",
            "box": [0, 200, 640, 480],
            "attributes": [{"category": "color", "value": "brown"}],
        },
    ],
    "relations": [{"subject": "o1", "relation": "on", "object": "o2", "confidence": 0.7}],
}

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


@dataclass
class StandInVLM:
    """What the server answers, and what it was asked."""

    mode: str = "logprobs"
    scene: dict[str, object] = field(default_factory=lambda: json.loads(json.dumps(SCENE)))
    content: str | None = None
    # log-probability of a token by its text; other tokens get -0.001
    value_logprobs: dict[str, float] = field(default_factory=dict)
    # send log-probabilities of tokens that do not spell the message (the first one left out)
    spoil_tokens: bool = False
    delay_s: float = 2.0
    status: int = 503
    headers: dict[str, str] = field(default_factory=dict)
    requests: list[dict[str, object]] = field(default_factory=list)
    base_url: str = ""
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def spec(self) -> str:
        return f"openai:{MODEL}@{self.base_url}"

    def message(self) -> str:
        if self.content is not None:
            return self.content
        if self.mode == "prose":
            return "I can see a white mug standing on a wooden table."
        return json.dumps(self.scene)

    def completion(self) -> dict[str, object]:
        text = self.message()
        choice: dict[str, object] = {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "stop",
        }
        if self.mode == "logprobs":
            tokens = _TOKEN.findall(text)[1 if self.spoil_tokens else 0 :]
            choice["logprobs"] = {
                "content": [
                    {
                        "token": t,
                        "logprob": self.value_logprobs.get(t, -0.001),
                        "bytes": list(t.encode()),
                        "top_logprobs": [],
                    }
                    for t in tokens
                ]
            }
        else:
            choice["logprobs"] = None
        return {"id": "chatcmpl-1", "object": "chat.completion", "model": MODEL, "choices": [choice]}


def _handler(state: StandInVLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # quiet test output
            pass

        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            # The model list, which a service's readiness check may ask for.
            if self.path != "/v1/models" or state.mode == "status":
                return self._send(state.status if state.mode == "status" else 404, b'{"error": "no"}')
            self._send(200, json.dumps({"object": "list", "data": [{"id": MODEL, "object": "model"}]}).encode())

        def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
            length = int(self.headers.get("Content-Length", "0"))
            state.requests.append({"path": self.path, "body": json.loads(self.rfile.read(length))})
            if self.path != "/v1/chat/completions":
                return self._send(404, b'{"error": "not found"}')
            if state.mode == "status":
                return self._send(state.status, b'{"error": {"message": "the model is loading"}}', state.headers)
            if state.mode == "oversize":
                return self._endless()
            if state.mode == "slow" and state.stop.wait(state.delay_s):
                return None
            self._send(200, json.dumps(state.completion()).encode())

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def _endless(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = b" " * 65536
            try:
                self.wfile.write(b'{"choices": [{"message": {"content": "')
                for _ in range(2000):  # 128 MiB at most, far past any limit a test sets
                    if state.stop.is_set():
                        return
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


@pytest.fixture
def vlm_server() -> Iterator[StandInVLM]:
    """A running stand-in server; set its fields to choose what it answers."""
    state = StandInVLM()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
