"""Backends by name, as the command line and configuration spell them.

``qwen2.5-coder-1.5b`` / ``smollm2-135m`` / ``local:/path/model.gguf``: a local llama.cpp model;
``openai:MODEL@BASE_URL[#grammar=KIND]``: an OpenAI-compatible endpoint (key from OPENAI_API_KEY),
grammar-constrained when KIND (else the caller's default, the setting ASPVQA_LLM_GRAMMAR, else
``none``) names how its server takes a grammar: ``llama.cpp``, ``vllm``, ``vllm-guided`` or ``none``;
``replay:/path/recording.jsonl``: recorded outputs; ``student``: the small trained program writer
(`translators.model.student`); ``none``: no model, the rules alone.
"""

from __future__ import annotations

from functools import lru_cache

from translators.model.backends.base import Backend, BackendError
from translators.model.backends.models import LOCAL_MODELS
from translators.model.backends.no_model import NO_MODEL, NoModel

STUDENT = "student"
# The program writer of the questions the rules leave, unless a setting names another: the student
# writes as many right programs the abstention keeps as the bundled 1.5B model, in a twentieth of its
# time (bench/student.py).
DEFAULT_WRITER = STUDENT

GRAMMAR_VARIABLE = "ASPVQA_LLM_GRAMMAR"
OPENAI_SYNTAX = "openai:MODEL@BASE_URL or openai:MODEL@BASE_URL#grammar=KIND"


def get_backend(name: str = DEFAULT_WRITER, gpu_layers: int = 0, default_grammar: str = "") -> Backend:
    """The backend a name stands for (local models stay loaded between calls); `gpu_layers` of a
    local model go to the GPU (-1: all; ignored by llama.cpp builds without GPU support);
    `default_grammar` is how an openai: server without ``#grammar=`` takes a grammar."""
    # The default is part of the cache key, so changing it never returns a backend built without it.
    grammar = default_grammar if name.startswith("openai:") else ""
    return _backend(name, grammar, gpu_layers if is_local_model(name) else 0)


def is_local_model(name: str) -> bool:
    """Whether `name` is a model run in this process by llama.cpp (a bundled one or local:PATH)."""
    return name in LOCAL_MODELS or name.startswith("local:")


@lru_cache(maxsize=8)
def _backend(name: str, default_grammar: str, gpu_layers: int = 0) -> Backend:
    if is_local_model(name):
        from translators.model.backends.local import LlamaCppBackend

        return LlamaCppBackend(name.removeprefix("local:"), gpu_layers=gpu_layers)
    if name.startswith("openai:"):
        return _openai_backend(name.removeprefix("openai:"), default_grammar)
    if name == NO_MODEL:
        return NoModel()
    if name == STUDENT:
        from translators.model.backends.student import StudentBackend

        return StudentBackend()
    if name.startswith("replay:"):
        from translators.model.backends.replay import ReplayBackend

        return ReplayBackend.from_file(name.removeprefix("replay:"))
    known = f"{', '.join(LOCAL_MODELS)}, local:PATH.gguf, openai:MODEL@URL, replay:FILE, {STUDENT} or {NO_MODEL}"
    raise BackendError(f"unknown language model {name!r}; use {known}")


def _openai_backend(spec: str, default_grammar: str) -> Backend:
    """``MODEL@BASE_URL[#grammar=KIND]``; a KIND in the name wins over the environment's."""
    from translators.model.backends.openai_compat import OpenAICompatBackend, grammar_field

    target, hash_sign, option = spec.partition("#")
    model, sep, base_url = target.partition("@")
    if not sep or not model or not base_url:
        raise BackendError(f"an OpenAI-compatible backend is written {OPENAI_SYNTAX}")
    if hash_sign:
        key, equals, kind = option.partition("=")
        if key != "grammar" or not equals:
            raise BackendError(f"unknown option {option!r} after '#'; write {OPENAI_SYNTAX}")
    else:
        kind = default_grammar or "none"
    field = grammar_field(kind, "after #grammar=" if hash_sign else f"from {GRAMMAR_VARIABLE}")
    return OpenAICompatBackend(base_url, model, grammar_field=field)
