"""The pipeline: question -> program, image / scene graph / facts -> scene, then solve.

Heavy parts (language model, detector, classifier, WordNet) come from `app.components`, built
once, on first use or at service start (`warm_up`), and shared by every request; each part says
plainly when it is missing.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.components import (
    Components,
    ImageReader,
    QuestionTranslator,
    SceneGraphEncoder,
    TranslationOutcome,
)
from app.config import Settings
from app.errors import PipelineError
from theory import Program, ProgramError, SceneFacts, SolveLimits, SolveStatus, solve
from theory.operations import OPERATIONS
from theory.representations import TEXT_REPRESENTATIONS, format_program
from translators.options import TranslationOptions
from translators.program_text import ReadProgram, read_program

__all__ = ["AnswerOutcome", "Pipeline", "PipelineError", "TranslationOutcome", "concepts_by_role", "show_program"]


@dataclass
class AnswerOutcome:
    """Everything `/answer` reports."""

    status: str
    message: str | None
    answers: list[dict[str, Any]]
    program: Program
    program_text: str
    representation: str
    concepts: dict[str, list[str]]
    detections: list[dict[str, Any]]
    support: dict[str, Any]
    timings: dict[str, float]
    translation: TranslationOutcome | None = None


def show_program(program: Program, representation: str) -> str:
    """The program in a textual representation; GQA programs are JSON, so those show as flat ASP."""
    return format_program(program, representation if representation in TEXT_REPRESENTATIONS else "flat")


def concepts_by_role(program: Program) -> dict[str, list[str]]:
    """The words a program mentions, by role (classes, categories, values, relations)."""
    roles: dict[str, set[str]] = {"classes": set(), "categories": set(), "values": set(), "relations": set()}
    role_of = {"class": "classes", "category": "categories", "value": "values", "relation": "relations"}
    for step in program.steps:
        for name, value in zip(OPERATIONS[step.operation].arguments, step.arguments):
            if name in role_of:
                roles[role_of[name]].add(value)
    return {k: sorted(v) for k, v in roles.items()}


class Pipeline:
    """Composes translation, scene construction and solving, configured by `Settings`."""

    def __init__(
        self,
        settings: Settings,
        *,
        translator: QuestionTranslator | None = None,
        image_reader: ImageReader | None = None,
        scene_graph_encoder: SceneGraphEncoder | None = None,
        components: Components | None = None,
    ) -> None:
        self.settings = settings
        self.components = components or Components(
            settings, question_translator=translator, image_reader=image_reader, scene_graph_encoder=scene_graph_encoder
        )
        self._solve_slots = threading.BoundedSemaphore(settings.max_concurrent_solves)

    def readiness(self) -> dict[str, str]:
        """Each part: 'ready', 'not loaded' or why it cannot load."""
        return self.components.status()

    def warm_up(self) -> None:
        """Load every part now (service start)."""
        self.components.warm_up()

    # --- steps -------------------------------------------------------------------------

    def translate(
        self, question: str, options: TranslationOptions | None = None, *, model: str | None = None
    ) -> TranslationOutcome:
        """The question as a program (validated flat form inside); `options` default to the settings'."""
        self._check_question(question)
        return self.components.question_translator(question, options=options or self.settings.options(), model=model)

    def parse_given_program(self, text: str, representation: str | None) -> ReadProgram:
        """A program supplied by the user in any syntax; None: the syntax its first characters show."""
        if len(text) > self.settings.max_program_chars:
            raise PipelineError(
                "too_large", f"program has {len(text)} characters, limit {self.settings.max_program_chars}"
            )
        try:
            return read_program(text, representation)
        except ProgramError as exc:
            raise PipelineError("invalid_input", f"program: {exc}") from None

    def answer(
        self,
        question: str | None,
        *,
        program: str | None = None,
        representation: str | None = None,
        image: bytes | None = None,
        scene_graph: Mapping[str, Any] | None = None,
        scene_facts: str | None = None,
        top_k: int | None = None,
        model: str | None = None,
    ) -> AnswerOutcome:
        """Answer a question (or a given program) on exactly one kind of scene."""
        timings: dict[str, float] = {}
        given = [
            k
            for k, v in (("image", image), ("scene_graph", scene_graph), ("scene_facts", scene_facts))
            if v is not None
        ]
        if len(given) != 1:
            raise PipelineError(
                "invalid_input",
                "give exactly one of: image, scene_graph, scene_facts"
                + (f" (got {', '.join(given)})" if given else ""),
            )
        if program is None and not question:
            raise PipelineError("invalid_input", "give a question or a program")
        if question is not None and len(question) > self.settings.max_question_chars:
            raise PipelineError(
                "too_large", f"question has {len(question)} characters, limit {self.settings.max_question_chars}"
            )

        started = time.perf_counter()
        translation = None
        if program is not None:
            read = self.parse_given_program(program, representation)
            parsed, shown_repr = read.program, read.representation
        else:
            options = self.settings.options().with_overrides(representation=representation)
            translation = self.translate(question or "", options, model=model)
            parsed = translation.program
            shown_repr = representation or self.settings.representation
        timings["translate"] = time.perf_counter() - started

        started = time.perf_counter()
        detections: list[dict[str, Any]] = []
        if scene_facts is not None:
            try:
                scene = SceneFacts.from_asp(scene_facts)
            except ProgramError as exc:
                raise PipelineError("invalid_input", f"scene_facts: {exc}") from None
        elif scene_graph is not None:
            try:
                scene = self.components.scene_graph_encoder(scene_graph, parsed)
            except (ValueError, TypeError, KeyError) as exc:
                raise PipelineError("invalid_input", f"scene_graph: {exc}") from None
        else:
            built = self.components.image_reader(image or b"", parsed)
            scene, detections = built.facts, built.detections
            timings.update({f"scene.{k}": v for k, v in built.timings.items()})
        timings["scene"] = time.perf_counter() - started

        started = time.perf_counter()
        limits = SolveLimits(timeout_s=self.settings.solve_timeout_s, max_scene_facts=self.settings.max_scene_facts)
        with self._solve_slots:
            result = solve(parsed, scene, top_k=top_k or self.settings.top_k, limits=limits)
        timings["solve"] = time.perf_counter() - started
        if result.status is SolveStatus.TIMEOUT and not result.answers:
            raise PipelineError("timeout", f"solving took longer than {self.settings.solve_timeout_s} s")
        if result.status is SolveStatus.TOO_LARGE:
            raise PipelineError("too_large", result.message or "scene too large")
        if result.status in (SolveStatus.INVALID_PROGRAM, SolveStatus.INVALID_SCENE):
            raise PipelineError("invalid_input", result.message or "invalid input")

        answers = [
            {"answer": a.answer, "cost": list(a.cost), "score": _score(a.cost, result.answers[0].cost)}
            for a in result.answers
        ]
        return AnswerOutcome(
            status=result.status.value,
            message=result.message,
            answers=answers,
            program=parsed,
            program_text=show_program(parsed, shown_repr),
            representation=shown_repr,
            concepts=concepts_by_role(parsed),
            detections=detections,
            support=result.answers[0].support.to_json() if result.answers else {},
            timings={k: round(v, 6) for k, v in timings.items()},
            translation=translation,
        )

    def _check_question(self, question: str) -> None:
        if not question or not question.strip():
            raise PipelineError("invalid_input", "question is empty")
        try:
            question.encode("utf-8")
        except UnicodeEncodeError:
            raise PipelineError("invalid_input", "question is not valid text (an unpaired surrogate)") from None
        if len(question) > self.settings.max_question_chars:
            raise PipelineError(
                "too_large", f"question has {len(question)} characters, limit {self.settings.max_question_chars}"
            )


def _score(cost: tuple[int, ...], best: tuple[int, ...]) -> float:
    """Relative confidence in (0, 1]: exp of the extra cost over the best answer, in weight units.

    Costs are -1000 ln p, so the difference maps back to a likelihood ratio.
    """
    extra = (cost[0] if cost else 0) - (best[0] if best else 0)
    return round(math.exp(-extra / 1000.0), 6)
