"""The evaluator: computes the result records of one task (one question of one run), setting by setting."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TypedDict

from evaluation.context import Case, Context, EvaluatorConfig
from evaluation.records import RETRYABLE, Failure, ResultJson, ResultRecord, SettingOutcome
from evaluation.runs import PartsFactory, Run, RunParts, Task, TranslationLike, no_parts
from evaluation.settings import NEEDS_IMAGE, SETTINGS, TRANSLATED, no_program, record_run
from translators.model.backends.base import RetryableBackendError
from trust.calibration import Calibration
from trust.confidence import confidence_parts, program_confidence


class _Recipe(TypedDict):
    """What of an evaluator travels to a worker process."""

    config: EvaluatorConfig
    factory: PartsFactory


class Evaluator:
    """Computes the result records of tasks; loads its data lazily, once per process."""

    def __init__(self, config: EvaluatorConfig, factory: PartsFactory = no_parts) -> None:
        self.config = config
        self.factory = factory
        self._context: Context | None = None
        self._parts: dict[tuple[Run, bool, bool], RunParts] = {}
        self._calibration: Calibration | None = None

    def __getstate__(self) -> _Recipe:
        # Only the recipe travels to workers; each builds its own models and caches.
        return {"config": self.config, "factory": self.factory}

    def __setstate__(self, state: _Recipe) -> None:
        self.__init__(state["config"], state["factory"])  # type: ignore[misc]

    @property
    def context(self) -> Context:
        """The scene graphs, taxonomy and WordNet (read on first use)."""
        if self._context is None:
            self._context = Context(self.config)
        return self._context

    def load(self) -> None:
        """Read the scene graphs, taxonomy and WordNet now (otherwise on first use)."""
        self.context  # noqa: B018

    @property
    def calibration(self) -> Calibration | None:
        """The configured calibration (read on first use)."""
        if self._calibration is None and self.config.calibration:
            self._calibration = Calibration.load(self.config.calibration)
        return self._calibration

    def parts(self, run: Run, settings: Sequence[str]) -> RunParts:
        """The run's translator and image scene builder (built on first use)."""
        # Keyed by what the settings need: a resumed task may need less than a later one.
        key = (run, bool(TRANSLATED & set(settings)), bool(NEEDS_IMAGE & set(settings)))
        if key not in self._parts:
            self._parts[key] = self.factory(run, settings)
        return self._parts[key]

    def results(self, task: Task) -> list[ResultRecord]:
        """The result records of one task, one per pending setting."""
        context = self.context
        q = task.question
        verdict = context.verdict(q)
        parts = self.parts(task.run, task.settings)
        translation: TranslationLike | None = None
        translation_s = 0.0
        error: str | None = None
        retry = False
        if TRANSLATED & set(task.settings):
            if parts.translate is None:
                error = "no translator configured"
            else:
                start = time.perf_counter()
                try:
                    translation = parts.translate(q.question, q.id)
                except RetryableBackendError as exc:
                    error, retry = str(exc), True
                except Exception as exc:  # noqa: BLE001 - a backend failure is this question's formulation error
                    error = f"{type(exc).__name__}: {exc}"
                translation_s = time.perf_counter() - start
        program = translation.program if translation is not None else None
        if translation is not None and program is None:
            error = translation.error or "no program"
            retry = translation.retryable
        case = Case(context, q, verdict, parts, program, error)
        trust = confidence_parts(translation.evidence) if translation is not None and program is not None else None
        score = program_confidence(trust) if trust is not None else None
        abstained = self.calibration.decide(score).abstained if score is not None and self.calibration else None
        records = []
        for name in task.settings:
            setting = SETTINGS[name]
            start = time.perf_counter()
            if setting.needs_program and not q.has_program:
                outcome = no_program(case)
            elif setting.translated and retry:
                # Not the setting's answer: the model could not be asked. A resumed job asks again.
                outcome = SettingOutcome(RETRYABLE, failure=Failure("transient", "BackendUnavailable", error))
            else:
                outcome = setting.compute(case)
            seconds = time.perf_counter() - start + (translation_s if setting.translated else 0.0)
            records.append(
                ResultRecord(
                    run=record_run(task.run, name),
                    setting=name,
                    question_id=q.id,
                    image_id=q.image_id,
                    question=q.question,
                    gold=q.answer,
                    types=q.types,
                    entailed=list(q.entailed),
                    answerable=verdict.answerable,
                    outcome=outcome,
                    seconds=round(seconds, 6),
                    confidence=round(score, 6) if setting.translated and score is not None else None,
                    confidence_parts=trust.to_json() if setting.translated and trust is not None else None,
                    abstained=abstained if setting.translated else None,
                )
            )
        return records

    def evaluate(self, task: Task) -> list[ResultJson]:
        """The records of one task in their JSON form (what travels back from workers and is written)."""
        return [record.to_json() for record in self.results(task)]
