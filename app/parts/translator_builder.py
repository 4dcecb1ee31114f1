"""Question and claim translators built from `Settings`, sharing the heavy pieces: the bank, the
ontology, the retrievers (their indexes and embedding matrices), the sentence encoder and the models."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.config import Settings
from app.devices import DeviceChoice
from app.errors import PipelineError
from app.parts.lazy import Lazy, PerKey
from app.parts.shared import word_kinship
from theory.errors import ModelNotAvailableError
from translators.cache import TranslationCache
from translators.examples.bank import ExampleBank, load_bank
from translators.examples.bundled import default_bank
from translators.model.backends.base import Backend, BackendError
from translators.model.backends.registry import get_backend
from translators.model.backends.replay import RecordingBackend
from translators.model.embeddings import Embedder, load_embedder
from translators.model.retrieval import Retriever, Sampling
from translators.translate import TranslationSettings, Translator
from translators.wording.ontology import Ontology, load_ontology
from translators.wording.templating import Templater
from translators.wording.vocabulary import Grounder
from trust.claim_bank import claim_bank
from trust.routing import RoutedTranslator


@dataclass(frozen=True)
class EmbedderLoad:
    """The sentence encoder, or why it could not load (it matters only to embedding retrieval)."""

    embedder: Embedder | None
    error: str | None = None


class TranslatorBuilder:
    """The one place a `translators.translate.Translator` (plain, routed or of claims) is built."""

    def __init__(self, settings: Settings, device: Callable[[], DeviceChoice]) -> None:
        self.settings = settings
        self._device = device
        self._bank: Lazy[ExampleBank] = Lazy(self._load_bank)
        self._ontology: Lazy[Ontology] = Lazy(self._load_ontology)
        self._embedder: Lazy[EmbedderLoad] = Lazy(self._load_embedder)
        self._retrievers: PerKey[tuple[bool, bool], Retriever] = PerKey(self._build_retriever)
        self._recorders: PerKey[tuple[str, str], Backend] = PerKey(self._build_recorder)
        self._translators: PerKey[tuple[TranslationSettings, str | None], Translator] = PerKey(self._build_shared)
        self._routed: PerKey[TranslationSettings, RoutedTranslator] = PerKey(self._build_routed)
        self._claims: PerKey[TranslationSettings, Translator] = PerKey(self._build_claims)

    @property
    def bank(self) -> ExampleBank:
        return self._bank.get()

    @property
    def ontology(self) -> Ontology:
        return self._ontology.get()

    def backend(self, name: str, record: str | None = None) -> Backend:
        """The language model `name` (loaded once per process); with `record`, its outputs are saved there."""
        try:
            backend = get_backend(
                name, gpu_layers=self._device().llama_gpu_layers, default_grammar=self.settings.llm_grammar
            )
        except (BackendError, OSError, ImportError, ModelNotAvailableError) as exc:
            raise PipelineError("model_unavailable", f"language model {name!r} (ASPVQA_LLM): {exc}") from None
        return backend if record is None else self._recorders.get((name, record))

    def embedder(self) -> Embedder:
        """The sentence encoder of embedding retrieval."""
        found = self._embedder.get()
        if found.embedder is None:
            raise PipelineError("model_unavailable", f"sentence encoder: {found.error}")
        return found.embedder

    def translator(
        self,
        options: TranslationSettings,
        *,
        record: str | None = None,
        cache: TranslationCache | None = None,
        grounder: Grounder | None = None,
    ) -> Translator:
        """The question translator for `options`; those without a cache or grounder are kept per
        options and shared."""
        if cache is None and grounder is None:
            return self._translators.get((options, record))
        return self._build(options, record, cache, grounder)

    def routed_translator(self, options: TranslationSettings) -> RoutedTranslator:
        """The question translator for `options` that routes each question by its predicted type (built once)."""
        return self._routed.get(options)

    def claim_translator(self, options: TranslationSettings) -> Translator:
        """The translator of claims (statements -> yes/no programs) over the claim pool (built once per options)."""
        return self._claims.get(options.model_copy(update={"prompt_version": "claim-v1", "representation": "nested"}))

    # --- builders ---------------------------------------------------------------------------

    def _build_shared(self, key: tuple[TranslationSettings, str | None]) -> Translator:
        return self._build(*key, None, None)

    def _build(
        self,
        options: TranslationSettings,
        record: str | None,
        cache: TranslationCache | None,
        grounder: Grounder | None,
    ) -> Translator:
        backend = self.backend(options.llm, record)
        if not backend.writes_programs:  # the rules alone: no examples retrieved, no encoder loaded
            return Translator(
                options,
                self.bank,
                backend,
                cache=cache,
                grounder=grounder,
                ontology=self.ontology,
                kinship=word_kinship(),
            )
        if options.sampling is Sampling.BERT:
            self.embedder()  # fails now, with the loader's message, when the encoder is missing
        return Translator(
            options,
            self.bank,
            backend,
            embedder=self._optional_embedder(),
            retriever=self._retrievers.get((options.representation == "gqa", options.template_retrieval)),
            cache=cache,
            grounder=grounder,
            ontology=self.ontology,
            kinship=word_kinship(),
        )

    def _build_routed(self, options: TranslationSettings) -> RoutedTranslator:
        return RoutedTranslator(
            options,
            self.bank,
            self.backend(options.llm),
            retriever=self._retrievers.get((False, options.template_retrieval)),
            embedder=self.embedder(),
            ontology=self.ontology,
            kinship=word_kinship(),
        )

    def _build_claims(self, settings: TranslationSettings) -> Translator:
        bank = claim_bank()
        embedder = self.embedder() if settings.sampling is Sampling.BERT else self._optional_embedder()
        templater = Templater(self.ontology) if settings.template_retrieval else None
        return Translator(
            settings,
            bank,
            self.backend(settings.llm),
            embedder=embedder,
            retriever=Retriever(bank, embedder, templater=templater),
            ontology=self.ontology,
        )

    def _build_retriever(self, key: tuple[bool, bool]) -> Retriever:
        # One retriever per bank view for every translator: its indexes and matrices are built once.
        semantic_only, templates = key
        bank = self.bank.with_semantic if semantic_only else self.bank
        templater = Templater(self.ontology) if templates else None
        return Retriever(bank, self._optional_embedder(), templater=templater)

    def _build_recorder(self, key: tuple[str, str]) -> Backend:
        name, record = key
        return RecordingBackend(self.backend(name), record)

    def _optional_embedder(self) -> Embedder | None:
        return self._embedder.get().embedder

    def _load_embedder(self) -> EmbedderLoad:
        # Tried once; a missing encoder matters only to embedding retrieval, so it is not an error here.
        try:
            return EmbedderLoad(load_embedder(device=self._device().torch_device, runtime=self.settings.embedder))
        except Exception as exc:  # noqa: BLE001 - the loader's message names the missing package
            return EmbedderLoad(None, str(exc))

    def _load_bank(self) -> ExampleBank:
        try:
            return load_bank(self.settings.bank_dir) if self.settings.bank_dir else default_bank()
        except (OSError, ValueError) as exc:
            raise PipelineError(
                "model_unavailable", f"example bank {self.settings.bank_dir} (ASPVQA_BANK_DIR): {exc}"
            ) from None

    def _load_ontology(self) -> Ontology:
        try:
            return load_ontology(self.settings.ontology_dir)
        except (OSError, ValueError) as exc:
            raise PipelineError(
                "model_unavailable", f"ontology {self.settings.ontology_dir} (ASPVQA_ONTOLOGY_DIR): {exc}"
            ) from None
