"""The composition root: every part built once from `Settings` and handed out typed.

The service (`app.pipeline.Pipeline`), each command and each evaluation worker ask one
`Components` for what they need; nothing else assembles a translator, an image scene builder or
a taxonomy. Parts are built on first use (or by `warm_up`) and shared by every caller; a part that
cannot load raises `PipelineError("model_unavailable", ...)` naming the setting to change. The
parts and how each is built live in `app.parts`; this module only wires them together.

The translator's, the detector's and the vision-language model's parts are imported where they are
first built: a command that answers a given program on a scene graph loads none of them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from app.config import Settings
from app.devices import DeviceChoice, choose_device
from app.errors import PipelineError
from app.parts.lazy import Lazy
from app.parts.loaders import ChosenCalibration, load_calibration, load_entailment_table
from app.parts.roles import ImageReader, QuestionTranslator, SceneGraphEncoder
from app.parts.scene_graphs import GraphEncoder
from app.parts.shared import bundled_calibration_path, keep_loaded, load_taxonomy_once, word_kinship
from app.parts.status import ServiceParts, calibration_configured, service_status
from app.scene_input import Perception
from scene.taxonomy import CuratedTaxonomy, WordNetTaxonomy
from theory.cache import use_cache_dir
from theory.entailment import Entailments
from trust.calibration import Calibration

if TYPE_CHECKING:
    from app.parts.translation_settings import TranslationSettingsSource
    from app.parts.translator_builder import TranslatorBuilder
    from app.parts.vlm_reader import VLMSceneReader
    from scene.image_scene import ImageSceneBuilder
    from translators.cache import TranslationCache
    from translators.examples.bank import ExampleBank
    from translators.settings import TranslationSettings
    from translators.translate import Translator
    from translators.wording.ontology import Ontology
    from translators.wording.vocabulary import Grounder

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
        self._entailments: Lazy[Entailments | None] = Lazy(lambda: load_entailment_table(settings.entailments))
        self._image_scene_builder: Lazy[ImageSceneBuilder] = Lazy(self._load_image_scene_builder)
        # The parts the service reports on /ready.
        self._parts = ServiceParts(
            question_translator=Lazy(self._make_question_translator, question_translator),
            scene_graph_encoder=Lazy(lambda: GraphEncoder(self.taxonomy, self.entailments), scene_graph_encoder),
            image_reader=Lazy(self._make_image_reader, image_reader),
            vlm_reader=Lazy(self._make_vlm_reader),
            calibration=Lazy(self._load_calibration),
        )

    # --- the service's parts --------------------------------------------------------------

    @property
    def question_translator(self) -> QuestionTranslator:
        return self._parts.question_translator.get()

    @property
    def scene_graph_encoder(self) -> SceneGraphEncoder:
        return self._parts.scene_graph_encoder.get()

    @property
    def image_reader(self) -> ImageReader:
        return self._parts.image_reader.get()

    def image_reader_for(self, perception: Perception | None) -> ImageReader:
        """The reader of images for `perception` (None: the settings'); raises `PipelineError`."""
        if (perception or self.settings.perception) == "detector":
            return self.image_reader
        if not self.settings.scene_vlm:
            raise PipelineError(
                "invalid_input", "perception vlm needs a vision-language model: none is configured (ASPVQA_SCENE_VLM)"
            )
        return self._parts.vlm_reader.get()

    def status(self) -> dict[str, str]:
        """Readiness of each service part without loading anything new."""
        return service_status(self.settings, self._parts)

    def warm_up(self) -> None:
        """Load every service part now; a part that fails keeps its reason for `status`."""
        with contextlib.suppress(PipelineError):
            self._parts.question_translator.get().warm_up()
        for part in (self._parts.scene_graph_encoder, self._parts.image_reader):
            with contextlib.suppress(PipelineError):
                part.get()
        if calibration_configured(self.settings):
            # A configured calibration that does not load makes the service not ready, not silent.
            with contextlib.suppress(PipelineError):
                self._parts.calibration.get()
        keep_loaded()

    # --- shared pieces ----------------------------------------------------------------------

    @cached_property
    def device(self) -> DeviceChoice:
        """Where the models run: a GPU when present (llama.cpp offload, torch on CUDA), else the CPU."""
        return choose_device(self.settings.device)

    @property
    def taxonomy(self) -> CuratedTaxonomy | WordNetTaxonomy:
        return load_taxonomy_once(self.settings.taxonomy_dir)

    @property
    def entailments(self) -> Entailments | None:
        """The vocabulary entailment table for approximate answers (None: exact words only)."""
        return self._entailments.get()

    @property
    def calibration(self) -> Calibration | None:
        """The configured calibration, checked against these settings (None: none configured)."""
        return self._parts.calibration.get().calibration

    @property
    def image_scene_builder(self) -> ImageSceneBuilder:
        """OWL-ViT and CLIP from the configured weights, with the per-image cache."""
        return self._image_scene_builder.get()

    # --- translation --------------------------------------------------------------------------

    @cached_property
    def translators(self) -> TranslatorBuilder:
        """Every translator (plain, routed, of claims) and the pieces they share: bank, ontology, models."""
        from app.parts.translator_builder import TranslatorBuilder

        return TranslatorBuilder(self.settings, lambda: self.device)

    @cached_property
    def translation(self) -> TranslationSettingsSource:
        """The translator's settings: the service's, a grid run's, a request's, and the calibration's."""
        from app.parts.translation_settings import TranslationSettingsSource

        return TranslationSettingsSource(self.settings, lambda: self.translators.bank)

    @property
    def bank(self) -> ExampleBank:
        return self.translators.bank

    @property
    def ontology(self) -> Ontology:
        return self.translators.ontology

    def translator(
        self,
        options: TranslationSettings,
        *,
        record: str | None = None,
        cache: TranslationCache | None = None,
        grounder: Grounder | None = None,
    ) -> Translator:
        """The question translator for `options` (shared unless it has a cache or grounder)."""
        return self.translators.translator(options, record=record, cache=cache, grounder=grounder)

    def translation_settings(self, overrides: Mapping[str, Any] | None = None) -> TranslationSettings:
        """The translator's settings from these settings, with `overrides` (a grid run's parameters) on top."""
        return self.translation.translation_settings(overrides)

    def confidence_settings(self, translation: TranslationSettings) -> dict[str, JsonValue]:
        """What a calibration must have been made with to hold for translations with `translation`."""
        return self.translation.confidence_settings(translation)

    # --- builders ---------------------------------------------------------------------------

    def _load_calibration(self) -> ChosenCalibration:
        # The settings to check against are derived only when a calibration is configured.
        def expected() -> dict[str, JsonValue]:
            return self.confidence_settings(self.translation_settings())

        return load_calibration(self.settings.calibration, expected)

    def _load_image_scene_builder(self) -> ImageSceneBuilder:
        from app.parts.vision_models import load_image_scene_builder

        return load_image_scene_builder(self.settings, self.device, self.taxonomy)

    def _make_question_translator(self) -> QuestionTranslator:
        from app.parts.service_translator import ServiceTranslator

        return ServiceTranslator(self.settings, self.translators, self.translation)

    def _make_image_reader(self) -> ImageReader:
        from app.parts.image_reader import ImageSceneReader

        return ImageSceneReader(self.image_scene_builder, self.taxonomy)

    def _make_vlm_reader(self) -> VLMSceneReader:
        from app.parts.vlm_reader import VLMSceneReader

        s = self.settings
        assert s.scene_vlm is not None  # only built where one is configured (image_reader_for)
        return VLMSceneReader(s.scene_vlm, self.taxonomy, api_key=s.scene_vlm_api_key, timeout_s=s.scene_vlm_timeout_s)
