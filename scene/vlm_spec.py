"""Which vision-language model builds scenes: the setting ``openai:MODEL@BASE_URL``.

``BASE_URL`` is the server's OpenAI-compatible root, the part before ``/chat/completions``
(``http://localhost:11434/v1`` for Ollama, ``http://localhost:8000/v1`` for vLLM). The model name
ends at the first ``@``, so a URL may carry one of its own (``user@host``). An API key, when the
server wants one, is passed separately and never written in the spec.

Example:
    >>> parse_vlm_spec("openai:qwen2.5vl:7b@http://localhost:11434/v1")
    VLMSpec(model='qwen2.5vl:7b', base_url='http://localhost:11434/v1')
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from scene.errors import VLMSpecError

PREFIX = "openai:"


@dataclass(frozen=True)
class VLMSpec:
    """A model name and the base URL of the OpenAI-compatible server that runs it."""

    model: str
    base_url: str

    def __str__(self) -> str:
        return f"{PREFIX}{self.model}@{self.base_url}"

    @property
    def chat_completions_url(self) -> str:
        return f"{self.base_url}/chat/completions"


def parse_vlm_spec(text: str) -> VLMSpec:
    """The spec ``openai:MODEL@BASE_URL`` as a `VLMSpec`; `VLMSpecError` says what is wrong with it."""
    example = "e.g. openai:qwen2.5vl:7b@http://localhost:11434/v1"
    text = text.strip()
    if not text.startswith(PREFIX):
        raise VLMSpecError(f"vision-language model {text!r} must start with {PREFIX!r} ({example})")
    model, at, url = text[len(PREFIX) :].partition("@")
    if not at:
        raise VLMSpecError(f"vision-language model {text!r} has no '@BASE_URL' ({example})")
    if not model or any(c.isspace() for c in model):
        raise VLMSpecError(f"vision-language model {text!r}: the model name is empty or has spaces ({example})")
    return VLMSpec(model, _base_url(url, text))


def _base_url(url: str, spec: str) -> str:
    if any(c.isspace() for c in url):
        raise VLMSpecError(f"vision-language model {spec!r}: the base URL has spaces")
    try:
        parsed = urlsplit(url)
        port = parsed.port  # urlsplit checks the port only when asked for it
    except ValueError as exc:
        raise VLMSpecError(f"vision-language model {spec!r}: bad base URL {url!r}: {exc}") from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise VLMSpecError(f"vision-language model {spec!r}: the base URL must be http(s)://HOST[:PORT][/PATH]")
    if port == 0:
        raise VLMSpecError(f"vision-language model {spec!r}: port 0 is out of range")
    if parsed.query or parsed.fragment or url.endswith(("?", "#")):
        raise VLMSpecError(f"vision-language model {spec!r}: the base URL may not have a query or fragment")
    return url.rstrip("/")
