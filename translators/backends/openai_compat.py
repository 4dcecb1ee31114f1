"""Any OpenAI-compatible chat endpoint: hosted GPT-4-class models, vLLM, llama.cpp server, Ollama.

The key is read from an environment variable (never from a file or argument), and may be absent
for local servers. Servers that accept a GBNF grammar get it in the request field their kind
names in `GRAMMAR_FIELDS` (`grammar_field`); others are asked without one, as hosted APIs must be.
"""

from __future__ import annotations

import os
import time

import httpx

from translators.backends.base import BackendError, Generation, GenerationRequest

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


class OpenAICompatBackend:
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
    ) -> None:
        self.name = model
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
        try:
            response = self._client.post("/chat/completions", json=body)
        except httpx.HTTPError as exc:
            raise BackendError(f"{self.model}: request failed: {exc}") from exc
        if response.status_code != 200:
            raise BackendError(f"{self.model}: HTTP {response.status_code}: {response.text[:200]}")
        try:
            data = response.json()
            text = data["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise BackendError(f"{self.model}: unexpected response: {response.text[:200]}") from exc
        usage = data.get("usage") or {}
        return Generation(
            text, time.perf_counter() - start, self.model, usage.get("prompt_tokens"), usage.get("completion_tokens")
        )

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()
