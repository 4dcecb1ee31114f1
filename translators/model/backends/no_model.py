"""No language model: template fill and composition alone write programs (``ASPVQA_LLM=none``).

A question the rules cannot write is declined, saying that no model is configured, instead of
waiting for a model; nothing of the model path (the sentence encoder, llama.cpp) is loaded.
"""

from __future__ import annotations

from translators.model.backends.base import Backend, BackendError, Generation, GenerationRequest

NO_MODEL = "none"
NO_MODEL_MESSAGE = (
    "the rules cannot write a program for this question, and no language model is configured "
    "(ASPVQA_LLM=none); with a model (the default, or --llm) it may be answered"
)


class NoModel(Backend):
    """The backend of ``none``: never asked, since the translator does not call a backend that
    writes no programs; asked anyway, it says why."""

    name = NO_MODEL
    supports_grammar = False
    writes_programs = False

    def generate(self, request: GenerationRequest) -> Generation:
        raise BackendError(NO_MODEL_MESSAGE)
