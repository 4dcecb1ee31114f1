"""Language-model backends behind one interface: local llama.cpp, OpenAI-compatible HTTP, replay."""

from translators.model.backends.base import Backend, BackendError, Generation, GenerationRequest

__all__ = ["Backend", "BackendError", "Generation", "GenerationRequest"]
