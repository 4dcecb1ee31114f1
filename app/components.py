"""The composition root: every part built once from `Settings` and handed out typed.

The service (`app.pipeline.Pipeline`), each command and each evaluation worker ask one
`Components` for what they need; nothing else assembles a translator, an image scene builder or
a taxonomy. Parts are built on first use (or by `warm_up`) and shared by every caller; a part that
cannot load raises `PipelineError("model_unavailable", ...)` naming the setting to change. The
parts themselves live in `app.parts`; this module only builds and holds them.
"""

from __future__ import annotations

import contextlib
import threading
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from app.config import Settings
from app.errors import PipelineError
from app.parts.lazy import Lazy
from app.parts.roles import ImageReader, QuestionTranslator, SceneGraphEncoder
from app.parts.shared import bundled_calibration_path, keep_loaded, load_taxonomy_once, word_kinship
from theory.cache import use_cache_dir
from theory.entailment import Entailments, EntailmentTableError, bundled_entailments, load_entailments
from theory.errors import ModelNotAvailableError
from translators.options import TranslationOptions
from trust.calibration import Calibration, CalibrationError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from app.devices import DeviceChoice
    from app.parts.vlm_reader import VLMSceneReader
    from app.scene_input import Perception
    from scene.image_scene import ImageSceneBuilder
    from scene.taxonomy import CuratedTaxonomy, WordNetTaxonomy
    from translators.cache import TranslationCache
    from translators.examples.bank import ExampleBank
    from translators.model.backends.base import Backend
    from translators.model.embeddings import Embedder
    from translators.model.retrieval import Retriever
    from translators.translate import TranslationSettings, Translator
    from translators.wording.ontology import Ontology
    from translators.wording.vocabulary import Grounder
    from trust.routing import RoutedTranslator

__all__ = ["Components", "bundled_calibration_path", "keep_loaded", "load_taxonomy_once", "word_kinship"]


class Components:
    """Every part of the app, built from one `Settings`; parts given here are used instead."""

    def __init__(
        self,
        settings: Settings,
        *,
        question_translator: QuestionTranslator | None = None,
        image_reader: ImageReader | None = None,
        scene_graph_encoder: SceneGraphEncoder | None = None,
    ) -> None:
        self.settings = settings
        # A worker process gets the settings pickled, without their start-up: hand the folder over again.
        use_cache_dir(settings.cache_dir)
        self._lock = threading.Lock()
        self._bank: Lazy[ExampleBank] = Lazy(self._load_bank)
        self._ontology: Lazy[Ontology] = Lazy(self._load_ontology)
        self._image_scene_builder: Lazy[ImageSceneBuilder] = Lazy(self._load_image_scene_builder)
        self._entailments: Lazy[Entailments | None] = Lazy(self._load_entailments)
        self._calibration: Lazy[Calibration | bool] = Lazy(self._load_calibration)
        self.calibration_note: str | None = None  # why the bundled calibration is not used, when it is not
        self._retrievers: dict[tuple[bool, bool], Retriever] = {}
        self._translators: dict[tuple[TranslationSettings, str | None], Translator] = {}
        self._recorders: dict[tuple[str, str], Backend] = {}
        self._routed: dict[TranslationSettings, RoutedTranslator] = {}
        self._claim_translators: dict[TranslationSettings, Translator] = {}
        self._embedder: Embedder | None = None
        self._embedder_error: str | None = None
        self._embedder_tried = False
        self._confidence_settings: dict[TranslationSettings, dict[str, Any]] = {}
        # The three parts the service reports on /ready.
        self._question_translator: Lazy[QuestionTranslator] = Lazy(self._make_question_translator, question_translator)
        self._scene_graph_encoder: Lazy[SceneGraphEncoder] = Lazy(self._make_scene_graph_encoder, scene_graph_encoder)
        self._image_reader: Lazy[ImageReader] = Lazy(self._make_image_reader, image_reader)
        self._vlm_reader: Lazy[VLMSceneReader] = Lazy(self._make_vlm_reader)

    # --- the service's parts --------------------------------------------------------------

    @property
    def question_translator(self) -> QuestionTranslator:
        return self._question_translator.get()

    @property
    def scene_graph_encoder(self) -> SceneGraphEncoder:
        return self._scene_graph_encoder.get()

    @property
    def image_reader(self) -> ImageReader:
        return self._image_reader.get()

    def image_reader_for(self, perception: Perception | None) -> ImageReader:
        """The reader of images for `perception` (None: the settings'); raises `PipelineError`."""
        if (perception or self.settings.perception) == "detector":
            return self.image_reader
        if not self.settings.scene_vlm:
            raise PipelineError(
                "invalid_input", "perception vlm needs a vision-language model: none is configured (ASPVQA_SCENE_VLM)"
            )
        return self._vlm_reader.get()

    def status(self) -> dict[str, str]:
        """Readiness of each service part without loading anything new."""
        return {
            "translator": self._question_translator.status,
            "scene_graphs": self._scene_graph_encoder.status,
            "images": self._image_status(),
            "perception": self._perception_status(),
        } | (self._calibration_status() if self.settings.calibration not in (None, "", "off") else {})

    def _calibration_status(self) -> dict[str, str]:
        # A bundled calibration that does not hold for these settings is not an error: the service is
        # ready and does not abstain, and says why.
        status = {"calibration": self._calibration.status}
        if self.calibration_note:
            status["abstention"] = f"off: {self.calibration_note}"
        elif self._calibration.status == "ready":
            status["abstention"] = "on"
        return status

    def _perception_status(self) -> str:
        # Which perception images get by default, and for a vision-language model whether its server answers.
        if not self.settings.scene_vlm:
            return "detector"
        try:
            reader = self._vlm_reader.get()
        except PipelineError as exc:
            return f"vlm {self.settings.scene_vlm}: {exc.message}"
        return f"vlm {self.settings.scene_vlm}: {reader.probe.status()}"

    def _image_status(self) -> str:
        # Before the first image: whether the vision weights are on this machine, and how to get them.
        status = self._image_reader.status
        if status != "not loaded":
            return status
        from scene.models import missing_weights_note

        s = self.settings
        note = missing_weights_note(s.detector_model, s.classifier_model, s.models_offline)
        return f"not loaded: {note}" if note else status

    def warm_up(self) -> None:
        """Load every service part now; a part that fails keeps its reason for `status`."""
        with contextlib.suppress(PipelineError):
            self._question_translator.get().warm_up()
        for part in (self._scene_graph_encoder, self._image_reader):
            with contextlib.suppress(PipelineError):
                part.get()
        if self.settings.calibration not in (None, "", "off"):
            # A configured calibration that does not load makes the service not ready, not silent.
            with contextlib.suppress(PipelineError):
                self._calibration.get()
        keep_loaded()

    # --- shared pieces ----------------------------------------------------------------------

    @cached_property
    def device(self) -> DeviceChoice:
        """Where the models run: a GPU when present (llama.cpp offload, torch on CUDA), else the CPU."""
        from app.devices import choose_device

        return choose_device(self.settings.device)

    @property
    def taxonomy(self) -> CuratedTaxonomy | WordNetTaxonomy:
        return load_taxonomy_once(self.settings.taxonomy_dir)

    @property
    def bank(self) -> ExampleBank:
        return self._bank.get()

    @property
    def entailments(self) -> Entailments | None:
        """The vocabulary entailment table for approximate answers (None: exact words only)."""
        return self._entailments.get()

    @property
    def calibration(self) -> Calibration | None:
        """The configured calibration, checked against these settings (None: none configured)."""
        found = self._calibration.get()
        return found if isinstance(found, Calibration) else None

    def confidence_settings(self, translation: TranslationSettings) -> dict[str, Any]:
        """What a calibration must have been made with to hold for translations with `translation`."""
        # Made once per translation settings: every answer of a request carries them.
        found = self._confidence_settings.get(translation)
        if found is None:
            from translators.rules.template_fill import FILL_RULES_VERSION
            from trust.confidence import calibration_settings

            settings = translation.model_dump(mode="json")
            if translation.template_fill:
                settings["fill_rules"] = FILL_RULES_VERSION  # other rules fill other questions: other confidences
            found = self._confidence_settings.setdefault(
                translation, calibration_settings(settings, self.bank.fingerprint())
            )
        return found

    @property
    def ontology(self) -> Ontology:
        return self._ontology.get()

    @property
    def image_scene_builder(self) -> ImageSceneBuilder:
        """OWL-ViT and CLIP from the configured weights, with the per-image cache."""
        return self._image_scene_builder.get()

    def backend(self, name: str, record: str | None = None) -> Backend:
        """The language model `name` (loaded once per process); with `record`, its outputs are saved there."""
        from translators.model.backends.base import BackendError
        from translators.model.backends.registry import get_backend

        try:
            backend = get_backend(
                name, gpu_layers=self.device.llama_gpu_layers, default_grammar=self.settings.llm_grammar
            )
        except (BackendError, OSError, ImportError, ModelNotAvailableError) as exc:
            raise PipelineError("model_unavailable", f"language model {name!r} (ASPVQA_LLM): {exc}") from None
        if record is None:
            return backend
        from translators.model.backends.replay import RecordingBackend

        with self._lock:
            if (name, record) not in self._recorders:
                self._recorders[(name, record)] = RecordingBackend(backend, record)
            return self._recorders[(name, record)]

    def embedder(self) -> Embedder:
        """The sentence encoder of embedding retrieval."""
        found = self._optional_embedder()
        if found is None:
            raise PipelineError("model_unavailable", f"sentence encoder: {self._embedder_error}")
        return found

    def translator(
        self,
        options: TranslationSettings,
        *,
        record: str | None = None,
        cache: TranslationCache | None = None,
        grounder: Grounder | None = None,
    ) -> Translator:
        """The question translator for `options`: the one place a `translators.translate.Translator` is built.

        Translators without a cache or grounder are kept per options and shared; all share the
        bank, the ontology, the retrievers (their indexes and embedding matrices) and the models.
        """
        from translators.model.retrieval import Sampling
        from translators.translate import Translator

        key = (options, record)
        shared = cache is None and grounder is None
        with self._lock:
            if shared and key in self._translators:
                return self._translators[key]
        if options.sampling is Sampling.BERT:
            self.embedder()  # fails now, with the loader's message, when the encoder is missing
        translator = Translator(
            options,
            self.bank,
            self.backend(options.llm, record),
            embedder=self._optional_embedder(),
            retriever=self._retriever(
                semantic_only=options.representation == "gqa", templates=options.template_retrieval
            ),
            cache=cache,
            grounder=grounder,
            ontology=self.ontology,
            kinship=word_kinship(),
        )
        if shared:
            with self._lock:
                translator = self._translators.setdefault(key, translator)
        return translator

    def routed_translator(self, options: TranslationSettings) -> RoutedTranslator:
        """The question translator for `options` that routes each question by its predicted type (built once)."""
        from trust.routing import RoutedTranslator

        with self._lock:
            found = self._routed.get(options)
        if found is not None:
            return found
        routed = RoutedTranslator(
            options,
            self.bank,
            self.backend(options.llm),
            retriever=self._retriever(semantic_only=False, templates=options.template_retrieval),
            embedder=self.embedder(),
            ontology=self.ontology,
            kinship=word_kinship(),
        )
        with self._lock:
            return self._routed.setdefault(options, routed)

    def claim_translator(self, options: TranslationSettings) -> Translator:
        """The translator of claims (statements -> yes/no programs) over the claim pool (built once per options)."""
        from translators.model.retrieval import Retriever
        from translators.translate import Translator
        from translators.wording.templating import Templater
        from trust.claim_bank import claim_bank

        settings = options.model_copy(update={"prompt_version": "claim-v1", "representation": "nested"})
        with self._lock:
            found = self._claim_translators.get(settings)
        if found is not None:
            return found
        bank = claim_bank()
        embedder = self.embedder() if settings.sampling.value == "bert" else self._optional_embedder()
        templater = Templater(self.ontology) if settings.template_retrieval else None
        translator = Translator(
            settings,
            bank,
            self.backend(settings.llm),
            embedder=embedder,
            retriever=Retriever(bank, embedder, templater=templater),
            ontology=self.ontology,
        )
        with self._lock:
            return self._claim_translators.setdefault(settings, translator)

    def translation_settings(self, overrides: Mapping[str, Any] | None = None) -> TranslationSettings:
        """The translator's settings from these settings, with `overrides` (a grid run's parameters) on top."""
        if not overrides:
            return self._base_translation_settings
        from translators.translate import TranslationSettings

        return TranslationSettings.model_validate(self._base_translation_settings.model_dump() | dict(overrides))

    def request_settings(self, options: TranslationOptions, llm: str) -> TranslationSettings:
        """The translator's settings for one request's (already validated) options and model."""
        return self._request_settings(tuple(dict(options).items()), llm)

    @cached_property
    def _base_translation_settings(self) -> TranslationSettings:
        from translators.translate import TranslationSettings

        s = self.settings
        base = s.options().model_dump() | {
            "llm": s.default_llm,
            "schema_decoding": s.schema_decoding,
            "template_fill": s.template_fill,
            "meaning_check": s.meaning_check,
            "samples": s.confidence_samples,
        }
        return TranslationSettings.model_validate(base)

    @cached_property
    def _request_settings(self) -> Callable[[tuple[tuple[str, Any], ...], str], TranslationSettings]:
        # Both parts were validated where they were made: a request's settings are a copy, not a
        # second validation (kept per options and model, as the translators are).
        @lru_cache(maxsize=64)
        def settings(options: tuple[tuple[str, Any], ...], llm: str) -> TranslationSettings:
            return self._base_translation_settings.model_copy(update=dict(options) | {"llm": llm})

        return settings

    # --- builders ---------------------------------------------------------------------------

    def _load_entailments(self) -> Entailments | None:
        choice = self.settings.entailments
        if choice == "off":
            return None
        if choice == "bundled":
            return bundled_entailments()
        try:
            return load_entailments(choice)
        except (OSError, UnicodeDecodeError, EntailmentTableError) as exc:
            raise PipelineError("model_unavailable", f"entailment table {choice}: {exc}") from None

    def _load_calibration(self) -> Calibration | bool:
        # False stands for "none configured" (a Lazy part is built once and must not be None).
        path = self.settings.calibration
        if not path or path == "off":
            return False
        bundled = path == "bundled"
        try:
            calibration = Calibration.load(bundled_calibration_path() if bundled else path)
            calibration.check_settings(self.confidence_settings(self.translation_settings()))
        except CalibrationError as exc:
            if bundled:
                # The shipped calibration holds for the default settings only: with others the
                # service answers without abstaining, as with none configured, and says so.
                self.calibration_note = f"bundled calibration not used: {exc}"
                return False
            raise PipelineError("model_unavailable", f"{exc} (ASPVQA_CALIBRATION)") from None
        return calibration

    def _load_bank(self) -> ExampleBank:
        from translators.examples.bank import load_bank
        from translators.examples.bundled import default_bank

        try:
            return load_bank(self.settings.bank_dir) if self.settings.bank_dir else default_bank()
        except (OSError, ValueError) as exc:
            raise PipelineError(
                "model_unavailable", f"example bank {self.settings.bank_dir} (ASPVQA_BANK_DIR): {exc}"
            ) from None

    def _load_ontology(self) -> Ontology:
        from translators.wording.ontology import load_ontology

        try:
            return load_ontology(self.settings.ontology_dir)
        except (OSError, ValueError) as exc:
            raise PipelineError(
                "model_unavailable", f"ontology {self.settings.ontology_dir} (ASPVQA_ONTOLOGY_DIR): {exc}"
            ) from None

    def _optional_embedder(self) -> Embedder | None:
        # Built once; a missing encoder matters only to embedding retrieval, so it is not an error here.
        with self._lock:
            if not self._embedder_tried:
                self._embedder_tried = True
                from translators.model.embeddings import load_embedder

                try:
                    self._embedder = load_embedder(device=self.device.torch_device, runtime=self.settings.embedder)
                except Exception as exc:  # noqa: BLE001 - the loader's message names the missing package
                    self._embedder_error = str(exc)
            return self._embedder

    def _retriever(self, *, semantic_only: bool, templates: bool) -> Retriever:
        # One retriever per bank view for every translator: its indexes and matrices are built once.
        from translators.model.retrieval import Retriever
        from translators.wording.templating import Templater

        bank = self.bank.with_semantic if semantic_only else self.bank
        embedder = self._optional_embedder()
        with self._lock:
            key = (semantic_only, templates)
            if key not in self._retrievers:
                templater = Templater(self.ontology) if templates else None
                self._retrievers[key] = Retriever(bank, embedder, templater=templater)
            return self._retrievers[key]

    def _load_image_scene_builder(self) -> ImageSceneBuilder:
        from scene.classifier import ClipClassifier
        from scene.detector import OwlViTDetector
        from scene.image_scene import ImageSceneBuilder
        from scene.models import load_classifier, load_detector

        s = self.settings
        try:
            device = self.device.torch_device
            # Hub ids not in the hub's local cache are downloaded here, unless offline mode is on.
            detector = OwlViTDetector(
                load_detector(s.detector_model, s.models_offline, device=device), taxonomy=self.taxonomy
            )
            classifier = ClipClassifier(load_classifier(s.classifier_model, s.models_offline, device=device))
        except ModelNotAvailableError as exc:
            raise PipelineError("model_unavailable", str(exc)) from None
        return ImageSceneBuilder(detector, classifier)

    def _make_scene_graph_encoder(self) -> SceneGraphEncoder:
        from app.parts.scene_graphs import GraphEncoder

        return GraphEncoder(self.taxonomy, self.entailments)

    def _make_question_translator(self) -> QuestionTranslator:
        from app.parts.service_translator import ServiceTranslator

        return ServiceTranslator(self)

    def _make_vlm_reader(self) -> VLMSceneReader:
        from app.parts.vlm_reader import VLMSceneReader

        s = self.settings
        assert s.scene_vlm is not None  # only built where one is configured (image_reader_for)
        return VLMSceneReader(s.scene_vlm, self.taxonomy, api_key=s.scene_vlm_api_key, timeout_s=s.scene_vlm_timeout_s)

    def _make_image_reader(self) -> ImageReader:
        from app.parts.image_reader import ImageSceneReader

        return ImageSceneReader(self.image_scene_builder, self.taxonomy)
