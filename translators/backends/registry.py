"""Backends by name, as the command line and configuration spell them.

``qwen2.5-coder-1.5b`` / ``smollm2-135m`` / ``local:/path/model.gguf``: a local llama.cpp model;
``openai:MODEL@BASE_URL``: an OpenAI-compatible endpoint (key from OPENAI_API_KEY);
``replay:/path/recording.jsonl``: recorded outputs.
"""

from __future__ import annotations

from functools import lru_cache

from translators.backends.base import Backend, BackendError
from translators.backends.models import DEFAULT_LOCAL_MODEL, LOCAL_MODELS


@lru_cache(maxsize=8)
def get_backend(name: str = DEFAULT_LOCAL_MODEL) -> Backend:
    """The backend a name stands for (local models stay loaded between calls)."""
    if name in LOCAL_MODELS or name.startswith("local:"):
        from translators.backends.local import LlamaCppBackend

        return LlamaCppBackend(name.removeprefix("local:"))
    if name.startswith("openai:"):
        from translators.backends.openai_compat import OpenAICompatBackend

        model, sep, base_url = name.removeprefix("openai:").partition("@")
        if not sep or not model or not base_url:
            raise BackendError("an OpenAI-compatible backend is written openai:MODEL@BASE_URL")
        return OpenAICompatBackend(base_url, model)
    if name.startswith("replay:"):
        from translators.backends.replay import ReplayBackend

        return ReplayBackend.from_file(name.removeprefix("replay:"))
    raise BackendError(f"unknown language model {name!r}; use {', '.join(LOCAL_MODELS)}, local:PATH.gguf, openai:MODEL@URL or replay:FILE")
