"""The app's translator: one example bank, embedder and retriever shared by every request.

A `translators.translate.Translator` has fixed settings; requests choose representation, k,
sampling, cover_operators and model, so one is kept per distinct choice (they share the heavy
parts: the bank's embedding matrix, the sentence encoder and each loaded language model).
"""

from __future__ import annotations

import threading
from typing import Any

from app.config import Settings
from app.pipeline import PipelineError, Translation


class AppTranslator:
    """Callable as the pipeline's `Translator`; thread-safe."""

    def __init__(self, settings: Settings) -> None:
        from translators.bank import load_bank
        from translators.bundled import default_bank
        from translators.backends.models import DEFAULT_LOCAL_MODEL
        from translators.retrieval import Retriever

        self.settings = settings
        self.default_model = settings.llm or DEFAULT_LOCAL_MODEL
        try:
            self.bank = load_bank(settings.bank_dir) if settings.bank_dir else default_bank()
        except (OSError, ValueError) as exc:
            raise PipelineError("model_unavailable", f"example bank {settings.bank_dir} (ASPVQA_BANK_DIR): {exc}") from None
        from translators.ontology import load_ontology

        try:
            self.ontology = load_ontology(settings.ontology_dir)
        except (OSError, ValueError) as exc:
            raise PipelineError("model_unavailable", f"ontology {settings.ontology_dir} (ASPVQA_ONTOLOGY_DIR): {exc}") from None
        from translators.templating import Templater

        self._embedder: Any = None
        # One retriever per bank the translators read (the GQA form shows only examples with a
        # semantic program), shared by every request setting; the embedder is attached on first need.
        templater = Templater(self.ontology)
        self._retrievers = {False: Retriever(self.bank, None, templater=templater),
                            True: Retriever(self.bank.with_semantic, None, templater=templater)}
        self._translators: dict[Any, Any] = {}
        self._lock = threading.Lock()
        # Fail at start, not at the first question, when the model is missing.
        self._backend(self.default_model)

    def _backend(self, name: str) -> Any:
        from translators.backends.base import BackendError
        from translators.backends.registry import get_backend

        try:
            return get_backend(name)
        except (BackendError, OSError, ImportError) as exc:
            raise PipelineError("model_unavailable", f"language model {name!r} (ASPVQA_LLM): {exc}") from None

    def _translator_for(self, key: Any) -> Any:
        from translators.translate import TranslationSettings, Translator

        with self._lock:
            translator = self._translators.get(key)
            if translator is None:
                representation, examples, sampling, cover, model = key
                translation_settings = TranslationSettings(
                    representation=representation, examples=examples, sampling=sampling, cover_operators=cover, llm=model,
                    schema_decoding=self.settings.schema_decoding,
                )
                if sampling == "bert" and self._embedder is None:
                    from translators.embeddings import load_embedder

                    try:
                        self._embedder = load_embedder()
                    except Exception as exc:  # the loader's message names the missing package
                        raise PipelineError("model_unavailable", f"sentence encoder: {exc}") from None
                    for retriever in self._retrievers.values():
                        retriever.embedder = self._embedder
                translator = Translator(
                    translation_settings,
                    self.bank,
                    self._backend(model),
                    embedder=self._embedder,
                    retriever=self._retrievers[representation == "gqa"],
                    ontology=self.ontology,
                )
                self._translators[key] = translator
            return translator

    def __call__(
        self, question: str, *, representation: str, examples: int, sampling: str, cover_operators: bool, model: str | None = None
    ) -> Translation:
        model = model or self.default_model
        if model != self.default_model and model not in self.settings.llm_choices:
            raise PipelineError("invalid_input", f"model {model!r} is not offered here (ASPVQA_LLM_CHOICES: {', '.join(self.settings.llm_choices) or 'none'})")
        translator = self._translator_for((representation, examples, sampling, cover_operators, model))
        result = translator.translate(question)
        if result.program is None:
            raise PipelineError("invalid_input", f"could not translate the question into a valid program: {result.error}")
        return Translation(
            program=result.program,
            raw=result.raw,
            examples=result.examples,
            seconds=result.seconds,
            details={
                "model": model,
                "attempts": len(result.attempts),
                "timings": {k: round(v, 6) for k, v in result.timings.items()},
                "mappings": result.mappings,
                "schema_fixes": result.schema_fixes,
                "cached": result.cached,
            },
        )
