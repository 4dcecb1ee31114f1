"""Any OpenAI-compatible chat endpoint: hosted GPT-4-class models, vLLM, llama.cpp server, Ollama.

The key is read from an environment variable (never from a file or argument), and may be absent
for local servers. Servers that accept a GBNF grammar (llama.cpp's server does, as ``grammar``)
get it when `grammar_field` is set.
"""

from __future__ import annotations

import os
import time

import httpx

from translators.backends.base import BackendError, Generation, GenerationRequest


class OpenAICompatBackend:
    """Chat completions over HTTP with httpx."""

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
            body[self.grammar_field] = request.grammar
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
