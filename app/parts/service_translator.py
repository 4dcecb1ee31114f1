"""Questions into programs for the service: options and model per request, translators from the
`TranslatorBuilder`, their settings from the `TranslationSettingsSource`."""

from __future__ import annotations

from typing import Protocol

from app.config import Settings
from app.errors import PipelineError
from app.outcomes import TranslationOutcome
from app.parts.roles import QuestionTranslator
from app.parts.translation_settings import TranslationSettingsSource
from app.parts.translator_builder import TranslatorBuilder
from translators.details import TranslationDetails
from translators.model.backends.base import BackendError
from translators.model.backends.models import ModelFileError
from translators.options import TranslationOptions
from translators.translate import Translation, TranslationSettings


class TextTranslator(Protocol):
    """A translator of one text (the plain `Translator` or the routed one)."""

    def translate(self, question: str) -> Translation: ...


class ServiceTranslator(QuestionTranslator):
    """The service's `QuestionTranslator`."""

    def __init__(
        self, settings: Settings, translators: TranslatorBuilder, translation: TranslationSettingsSource
    ) -> None:
        self.settings = settings
        self.translators = translators
        self.translation = translation
        self.default_model = settings.default_llm
        translators.bank  # noqa: B018 - the bank, the ontology and the default model fail at start, not at the first question
        translators.ontology  # noqa: B018
        translators.backend(self.default_model)

    def warm_up(self) -> None:
        """Load the default model and evaluate its prompt's fixed part (raises `PipelineError`)."""
        settings = self._settings(self.settings.options(), None)
        if self.settings.routing:
            return  # each routed prompt differs after the shared part; the first question of a type warms it
        try:
            self.translators.translator(settings).warm_up()
        except BackendError as exc:
            raise PipelineError("model_unavailable", str(exc)) from exc

    def __call__(self, question: str, *, options: TranslationOptions, llm: str | None = None) -> TranslationOutcome:
        settings = self._settings(options, llm)
        translator: TextTranslator
        if self.settings.routing and settings.representation != "gqa":
            translator = self.translators.routed_translator(settings)
        else:
            translator = self.translators.translator(settings)
        return self._outcome(self._translated(translator, question, settings), settings, "question")

    def claim(self, claim: str, *, options: TranslationOptions, llm: str | None = None) -> TranslationOutcome:
        """A statement as a yes/no program, translated with the claim pool and prompt."""
        settings = self._settings(options, llm)
        translator = self.translators.claim_translator(settings)
        return self._outcome(self._translated(translator, claim, settings), settings, "claim")

    @staticmethod
    def _translated(translator: TextTranslator, text: str, settings: TranslationSettings) -> Translation:
        try:
            return translator.translate(text)
        except ModelFileError as exc:  # the service's own model files are wrong, not the request
            raise PipelineError("model_unavailable", f"language model {settings.llm!r}: {exc}") from None

    def _settings(self, options: TranslationOptions, llm: str | None) -> TranslationSettings:
        llm = llm or self.default_model
        if llm not in self.settings.offered_llms:
            choices = ", ".join(self.settings.llm_choices) or "none"
            raise PipelineError("invalid_input", f"model {llm!r} is not offered here (ASPVQA_LLM_CHOICES: {choices})")
        return self.translation.request_settings(options, llm)

    def _outcome(self, result: Translation, settings: TranslationSettings, what: str) -> TranslationOutcome:
        if result.retryable:  # the model's server is overloaded or unreachable: try again later
            raise PipelineError("model_unavailable", f"the language model did not answer: {result.error}")
        if result.unsupported is not None:
            raise PipelineError("unsupported", result.error or "this question cannot be answered from the scene")
        if result.program is None:
            raise PipelineError("invalid_input", f"could not translate the {what} into a valid program: {result.error}")
        return TranslationOutcome(
            program=result.program,
            raw=result.raw,
            examples=[{**e} for e in result.examples],
            seconds=result.seconds,
            details=TranslationDetails.of(result, model=settings.llm, samples=settings.samples),
            calibration_settings=self.translation.confidence_settings(settings),
            evidence=result.evidence,
        )
