"""The translator's settings, derived from `Settings`: the service's, a grid run's, a request's, and
what a calibration must have been made with to hold for them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property, lru_cache
from typing import Any

from pydantic import JsonValue

from app.config import Settings
from app.parts.lazy import PerKey
from translators.examples.bank import ExampleBank
from translators.options import TranslationOptions
from translators.rules.template_fill import FILL_RULES_VERSION
from translators.settings import TranslationSettings
from trust.confidence import calibration_settings

# A request's options as a key: its fields in order.
OptionItems = tuple[tuple[str, Any], ...]


class TranslationSettingsSource:
    """Every `TranslationSettings` the app uses, made from one `Settings` (each kind made once)."""

    def __init__(self, settings: Settings, bank: Callable[[], ExampleBank]) -> None:
        self.settings = settings
        self._bank = bank
        # Kept per options and model, as the translators are; bounded, as requests choose them.
        self._per_request = lru_cache(maxsize=64)(self._copy_for_request)
        self._confidence: PerKey[TranslationSettings, dict[str, JsonValue]] = PerKey(self._calibrated_with)

    @cached_property
    def base(self) -> TranslationSettings:
        """The service's translation settings (computing them twice is harmless: the same value)."""
        s = self.settings
        base = s.options().model_dump() | {
            "llm": s.default_llm,
            "schema_decoding": s.schema_decoding,
            "template_fill": s.template_fill,
            "meaning_check": s.meaning_check,
            "samples": s.confidence_samples,
        }
        return TranslationSettings.model_validate(base)

    def translation_settings(self, overrides: Mapping[str, Any] | None = None) -> TranslationSettings:
        """The translator's settings, with `overrides` (a grid run's parameters) on top."""
        if not overrides:
            return self.base
        return TranslationSettings.model_validate(self.base.model_dump() | dict(overrides))

    def request_settings(self, options: TranslationOptions, llm: str) -> TranslationSettings:
        """The translator's settings for one request's (already validated) options and model."""
        return self._per_request(tuple(dict(options).items()), llm)

    def confidence_settings(self, translation: TranslationSettings) -> dict[str, JsonValue]:
        """What a calibration must have been made with to hold for translations with `translation`
        (made once per translation settings: every answer of a request carries them)."""
        return self._confidence.get(translation)

    def _copy_for_request(self, options: OptionItems, llm: str) -> TranslationSettings:
        # Both parts were validated where they were made: a request's settings are a copy, not a
        # second validation.
        return self.base.model_copy(update=dict(options) | {"llm": llm})

    def _calibrated_with(self, translation: TranslationSettings) -> dict[str, JsonValue]:
        settings = translation.model_dump(mode="json")
        if translation.template_fill:
            settings["fill_rules"] = FILL_RULES_VERSION  # other rules fill other questions: other confidences
        return calibration_settings(settings, self._bank().fingerprint())
