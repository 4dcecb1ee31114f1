"""The pipeline: question -> program, image / scene graph / facts -> scene, then solve.

Heavy parts (language model, detector, classifier, WordNet) are built once, on first use or at
service start (`warm_up`), and shared by every request; each part says plainly when it is missing.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

from app.config import Settings
from theory import Program, ProgramError, SceneFacts, SolveLimits, SolveStatus, solve
from theory.operations import OPERATIONS
from theory.representations import format_program, parse_program


class PipelineError(Exception):
    """A request the pipeline cannot serve; `kind` decides the HTTP status and exit code."""

    STATUS = {"invalid_input": 422, "too_large": 413, "unsupported_media": 415, "model_unavailable": 503, "timeout": 504}

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    @property
    def http_status(self) -> int:
        return self.STATUS.get(self.kind, 500)


@dataclass
class Translation:
    """A question translated into a program, with what was shown to the model."""

    program: Program
    raw: str = ""
    examples: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)


class Translator(Protocol):
    """Anything that turns a question into a `Translation`."""

    def __call__(
        self, question: str, *, representation: str, examples: int, sampling: str, cover_operators: bool, model: str | None = None
    ) -> Translation: ...


@dataclass
class ImageScene:
    """The scene read from an image, with the detections behind it."""

    facts: SceneFacts
    detections: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


class ImageSceneBuilder(Protocol):
    """Anything that turns image bytes and a program's concepts into an `ImageScene`."""

    def __call__(self, image: bytes, program: Program) -> ImageScene: ...


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
    translation: Translation | None = None


def show_program(program: Program, representation: str) -> str:
    """The program in a textual representation; GQA programs are JSON, so those show as flat ASP."""
    return format_program(program, representation if representation in ("flat", "nested", "code") else "flat")


def program_concepts(program: Program) -> dict[str, list[str]]:
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
        translator: Translator | None = None,
        image_scene_builder: ImageSceneBuilder | None = None,
        scene_graph_encoder: Callable[[Mapping[str, Any], Program], SceneFacts] | None = None,
    ) -> None:
        self.settings = settings
        self._translator = translator
        self._image_scene_builder = image_scene_builder
        self._scene_graph_encoder = scene_graph_encoder
        self._lock = threading.Lock()
        self.load_errors: dict[str, str] = {}
        self._solve_slots = threading.BoundedSemaphore(settings.max_concurrent_solves)

    # --- parts, built once -------------------------------------------------------------

    def _part(self, attribute: str, builder_name: str) -> Any:
        """The part stored in `attribute`, built by `app.parts.<builder_name>` on first use."""
        with self._lock:
            if getattr(self, attribute) is None:
                from app import parts

                setattr(self, attribute, getattr(parts, builder_name)(self.settings))
            return getattr(self, attribute)

    @property
    def translator(self) -> Translator:
        return self._part("_translator", "build_translator")

    @property
    def image_scene_builder(self) -> ImageSceneBuilder:
        return self._part("_image_scene_builder", "build_image_scene_builder")

    @property
    def scene_graph_encoder(self) -> Callable[[Mapping[str, Any], Program], SceneFacts]:
        return self._part("_scene_graph_encoder", "build_scene_graph_encoder")

    def readiness(self) -> dict[str, str]:
        """Each part: 'ready', 'not loaded' or why it cannot load."""
        from app.parts import part_status

        return part_status(self)

    # --- steps -------------------------------------------------------------------------

    def translate(
        self,
        question: str,
        *,
        representation: str | None = None,
        examples: int | None = None,
        sampling: str | None = None,
        cover_operators: bool | None = None,
        model: str | None = None,
    ) -> Translation:
        """The question as a program (validated flat form inside)."""
        self._check_question(question)
        s = self.settings
        return self.translator(
            question,
            representation=representation or s.representation,
            examples=s.examples if examples is None else examples,
            sampling=sampling or s.sampling,
            cover_operators=s.cover_operators if cover_operators is None else cover_operators,
            model=model,
        )

    def parse_given_program(self, text: str, representation: str | None) -> Program:
        """A program supplied by the user in any representation (default: flat)."""
        if len(text) > self.settings.max_program_chars:
            raise PipelineError("too_large", f"program has {len(text)} characters, limit {self.settings.max_program_chars}")
        if representation == "gqa":
            raise PipelineError("invalid_input", "give GQA programs as JSON to /translate's converter, not as text")
        try:
            return parse_program(text, representation or "flat")
        except ProgramError as exc:
            raise PipelineError("invalid_input", f"program: {exc}") from None
        except ValueError as exc:
            raise PipelineError("invalid_input", f"representation: {exc}") from None

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
        given = [k for k, v in (("image", image), ("scene_graph", scene_graph), ("scene_facts", scene_facts)) if v is not None]
        if len(given) != 1:
            raise PipelineError("invalid_input", "give exactly one of: image, scene_graph, scene_facts" + (f" (got {', '.join(given)})" if given else ""))
        if program is None and not question:
            raise PipelineError("invalid_input", "give a question or a program")
        if question is not None and len(question) > self.settings.max_question_chars:
            raise PipelineError("too_large", f"question has {len(question)} characters, limit {self.settings.max_question_chars}")

        started = time.perf_counter()
        translation = None
        if program is not None:
            parsed = self.parse_given_program(program, representation)
            shown_repr = representation or "flat"
        else:
            translation = self.translate(question or "", representation=representation, model=model)
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
                scene = self.scene_graph_encoder(scene_graph, parsed)
            except (ValueError, TypeError, KeyError) as exc:
                raise PipelineError("invalid_input", f"scene_graph: {exc}") from None
        else:
            built = self.image_scene_builder(image or b"", parsed)
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

        answers = [{"answer": a.answer, "cost": list(a.cost), "score": _score(a.cost, result.answers[0].cost)} for a in result.answers]
        return AnswerOutcome(
            status=result.status.value,
            message=result.message,
            answers=answers,
            program=parsed,
            program_text=show_program(parsed, shown_repr),
            representation=shown_repr,
            concepts=program_concepts(parsed),
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
            raise PipelineError("too_large", f"question has {len(question)} characters, limit {self.settings.max_question_chars}")


def _score(cost: tuple[int, ...], best: tuple[int, ...]) -> float:
    """Relative confidence in (0, 1]: exp of the extra cost over the best answer, in weight units.

    Costs are -1000 ln p, so the difference maps back to a likelihood ratio.
    """
    extra = (cost[0] if cost else 0) - (best[0] if best else 0)
    return round(math.exp(-extra / 1000.0), 6)
