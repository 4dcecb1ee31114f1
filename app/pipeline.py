"""The pipeline: question -> program, image / scene graph / facts -> scene, then solve.

Heavy parts (language model, detector, classifier, WordNet) come from `app.components`, built
once, on first use or at service start (`warm_up`), and shared by every request; each part says
plainly when it is missing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from app.components import (
    Components,
    ImageReader,
    QuestionTranslator,
    SceneGraphEncoder,
    TranslationOutcome,
)
from app.config import Settings
from app.errors import PipelineError
from scene.scene_graph import scene_graph_size
from theory import Program, ProgramError, SceneFacts, SolveLimits, SolveResult, SolveStatus, solve
from theory.clingo_lock import CLINGO_LOCK
from theory.data_text import SceneText
from theory.entailment import bundled_entailments
from theory.explain import Explanation, explain_no_answer
from theory.program_words import program_words
from theory.representations import TEXT_REPRESENTATIONS, format_program
from theory.solver import Answer, Support, read_scene
from translators.options import TranslationOptions
from translators.program_text import ReadProgram, read_program
from trust.abstention import decide, program_decision
from trust.calibration import Abstention, Calibration, CalibrationError
from trust.claims import ClaimError, as_claim, claim_from_answer
from trust.confidence import ConfidenceParts, confidence, confidence_parts
from trust.verify import ClaimVerifier, SubClaimVerdict, Verdict, VerificationError

__all__ = [
    "AnswerOutcome",
    "Pipeline",
    "PipelineError",
    "TranslationOutcome",
    "VerifyOutcome",
    "concepts_by_role",
    "show_program",
]


@dataclass
class AnswerOutcome:
    """Everything `/answer` and `aspvqa answer` report, typed until the edge (app.api.responses)."""

    status: SolveStatus
    message: str | None
    answers: tuple[Answer, ...]
    program: Program
    program_text: str
    representation: str
    concepts: dict[str, list[str]]
    detections: list[dict[str, Any]]
    timings: dict[str, float]
    translation: TranslationOutcome | None = None
    explanation: Explanation | None = None
    confidence: float | None = None
    confidence_parts: ConfidenceParts | None = None
    abstention: Abstention | None = None  # None without a calibration

    @property
    def support(self) -> Support | None:
        """The facts behind the top answer."""
        return self.answers[0].support if self.answers else None

    def score(self, answer: Answer) -> float:
        """Relative confidence in (0, 1]: exp of the extra cost over the top answer, in weight units.

        Every priority level's cost is -1000 ln p (the scene's likelihoods, and above them the cost
        of approximate readings), so the difference of the sums maps back to a likelihood ratio.
        """
        extra = sum(answer.cost) - sum(self.answers[0].cost)
        return round(math.exp(-extra / 1000.0), 6)


@dataclass
class VerifyOutcome:
    """Everything `/verify` and `aspvqa verify` report."""

    verdict: Verdict
    holds: bool
    program: Program
    subclaims: list[SubClaimVerdict]
    detections: list[dict[str, Any]]
    timings: dict[str, float]
    translation: TranslationOutcome | None = None
    representation: str = "flat"  # the syntax the program is shown in


# What reading scene facts gives: objects (`SceneFacts.from_asp`) or, for `solve`, text (`read_scene`).
SceneT = TypeVar("SceneT", bound="SceneFacts | SceneText")


@dataclass(frozen=True)
class SceneAnswer:
    """What solving a program on one scene gives: plain data, so that it may come from a worker process."""

    result: SolveResult
    explanation: Explanation | None
    detections: list[dict[str, Any]]
    timings: dict[str, float]


class SceneSolver(Protocol):
    """Solves a program on a scene graph or scene facts elsewhere (a worker process) for `Pipeline`."""

    def __call__(
        self,
        program: Program,
        *,
        scene_graph: Mapping[str, Any] | None,
        scene_facts: str | None,
        top_k: int,
        exact: bool,
    ) -> SceneAnswer: ...


def show_representation(representation: str) -> str:
    """The textual syntax a program is shown in: GQA programs are JSON, so those show as flat ASP."""
    return representation if representation in TEXT_REPRESENTATIONS else "flat"


def show_program(program: Program, representation: str) -> str:
    """The program in a textual representation; GQA programs are JSON, so those show as flat ASP."""
    return format_program(program, show_representation(representation))


def concepts_by_role(program: Program) -> dict[str, list[str]]:
    """The words a program mentions, by role (classes, categories, values, relations)."""
    return program_words(program).by_role()


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
        # Set by the service to solve in worker processes (`app.solver_pool`); None: in this thread.
        self.scene_solver: SceneSolver | None = None

    def readiness(self) -> dict[str, str]:
        """Each part: 'ready', 'not loaded' or why it cannot load."""
        return self.components.status()

    def warm_up(self) -> None:
        """Load every part now (service start)."""
        self.components.warm_up()

    # --- steps -------------------------------------------------------------------------

    def translate(
        self, question: str, options: TranslationOptions | None = None, *, llm: str | None = None
    ) -> TranslationOutcome:
        """The question as a program (validated flat form inside); `options` default to the settings'."""
        self._check_question(question)
        return self.components.question_translator(question, options=options or self.settings.options(), llm=llm)

    def translation_decision(self, translation: TranslationOutcome) -> tuple[float | None, Abstention | None]:
        """(the program's confidence, the configured calibration's decision on it) for a translation alone."""
        return program_decision(translation.evidence, self.components.calibration, translation.calibration_settings)

    def parse_given_program(self, text: str, representation: str | None) -> ReadProgram:
        """A program supplied by the user in any syntax; None: the syntax its first characters show."""
        if len(text) > self.settings.max_program_chars:
            raise PipelineError(
                "too_large", f"program has {len(text)} characters, limit {self.settings.max_program_chars}"
            )
        try:
            with CLINGO_LOCK:  # a program in an unusual form is read by clingo's parser
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
        llm: str | None = None,
        exact: bool = False,
        risk: float | None = None,
    ) -> AnswerOutcome:
        """Answer a question (or a given program) on exactly one kind of scene.

        Unless `exact`, the configured entailment table may answer through a more general scene
        word (marked approximate, ranked below exact answers). A `no_answer` says why.
        """
        timings: dict[str, float] = {}
        self._check_one_scene(image, scene_graph, scene_facts)
        if program is None and not question:
            raise PipelineError("invalid_input", "give a question or a program")
        if risk is not None and program is not None:
            raise PipelineError("invalid_input", "risk applies to translated questions, not to a given program")
        calibration = self.components.calibration if program is None else None
        if risk is not None:
            if calibration is None:
                raise PipelineError(
                    "invalid_input", "risk needs a calibration: none is configured (ASPVQA_CALIBRATION)"
                )
            try:
                calibration.check_risk(risk)
            except CalibrationError as exc:
                raise PipelineError("invalid_input", str(exc)) from None
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
            translation = self.translate(question or "", options, llm=llm)
            parsed = translation.program
            shown_repr = representation or self.settings.representation
        timings["translate"] = time.perf_counter() - started

        solved = self.solve_on_scene(
            parsed, image=image, scene_graph=scene_graph, scene_facts=scene_facts, top_k=top_k, exact=exact
        )
        result, detections = solved.result, solved.detections
        timings.update(solved.timings)
        if result.status is SolveStatus.TIMEOUT and not result.answers:
            raise PipelineError("timeout", f"solving took longer than {self.settings.solve_timeout_s} s")
        if result.status is SolveStatus.TOO_LARGE:
            raise PipelineError("too_large", result.message or "scene too large")
        if result.status in (SolveStatus.INVALID_PROGRAM, SolveStatus.INVALID_SCENE):
            raise PipelineError("invalid_input", result.message or "invalid input")
        explanation = solved.explanation

        answers = result.answers
        parts = confidence_parts(translation.evidence if translation else None, [a.cost for a in answers])
        score = confidence(parts) if translation is not None else round(parts.answer_share, 6)
        return AnswerOutcome(
            confidence=score,
            confidence_parts=parts,
            abstention=_abstention(calibration, translation, score, risk),
            status=result.status,
            message=result.message,
            answers=answers,
            program=parsed,
            program_text=show_program(parsed, shown_repr),
            representation=shown_repr,
            concepts=concepts_by_role(parsed),
            detections=detections,
            timings={k: round(v, 6) for k, v in timings.items()},
            translation=translation,
            explanation=explanation,
        )

    def solve_limits(self, timeout_s: float | None = None) -> SolveLimits:
        """The time and size limits of one solve, from the settings (`timeout_s`: what is left of it)."""
        return SolveLimits(
            timeout_s=self.settings.solve_timeout_s if timeout_s is None else timeout_s,
            max_scene_facts=self.settings.max_scene_facts,
        )

    def solve_on_scene(
        self,
        program: Program,
        *,
        image: bytes | None = None,
        scene_graph: Mapping[str, Any] | None = None,
        scene_facts: str | None = None,
        top_k: int | None = None,
        exact: bool = False,
    ) -> SceneAnswer:
        """The scene, the ranked answers and, without one, why: through `scene_solver` when one is
        set (an image is read here, where the vision models are, and solved there as text), else
        in this process."""
        if self.scene_solver is None:
            return self.solve_here(
                program, image=image, scene_graph=scene_graph, scene_facts=scene_facts, top_k=top_k, exact=exact
            )
        timings: dict[str, float] = {}
        detections: list[dict[str, Any]] = []
        if image is not None:
            with CLINGO_LOCK:
                scene, detections = self.scene(program, image=image, timings=timings)
                scene_facts = scene.to_asp()
        solved = self.scene_solver(
            program, scene_graph=scene_graph, scene_facts=scene_facts, top_k=top_k or self.settings.top_k, exact=exact
        )
        return replace(solved, detections=detections or solved.detections, timings=timings | solved.timings)

    def solve_here(
        self,
        program: Program,
        *,
        image: bytes | None = None,
        scene_graph: Mapping[str, Any] | None = None,
        scene_facts: str | None = None,
        top_k: int | None = None,
        exact: bool = False,
    ) -> SceneAnswer:
        """`solve_on_scene` in this process and thread; the scene's reading counts against the solve's time.

        Threads of one process take turns (`CLINGO_LOCK`): clingo is not safe for two at once.
        """
        started = time.perf_counter()
        timings: dict[str, float] = {}
        with CLINGO_LOCK:
            scene: SceneFacts | SceneText
            detections: list[dict[str, Any]] = []
            if scene_facts is not None:
                scene = self.scene_text(scene_facts, timings)
            else:
                scene, detections = self.scene(program, image=image, scene_graph=scene_graph, timings=timings)
            table = self.components.entailments
            entailments = None if exact else table
            solve_started = time.perf_counter()
            left = self.settings.solve_timeout_s - (solve_started - started)
            if left <= 0:
                raise PipelineError("timeout", f"solving took longer than {self.settings.solve_timeout_s} s")
            result = solve(
                program,
                scene,
                top_k=top_k or self.settings.top_k,
                limits=self.solve_limits(left),
                entailments=entailments,
            )
            explanation = None
            if result.status is SolveStatus.NO_ANSWER:
                # A scene graph was encoded for the program's words only; the scene's other words
                # are what the explanation offers instead.
                whole = self.components.scene_graph_encoder(scene_graph, None) if scene_graph is not None else None
                # A scene graph was encoded with the taxonomy, so ranking by it loads nothing new.
                alike = self.components.taxonomy.similarity if scene_graph is not None else None
                explanation = explain_no_answer(
                    program, scene, entailments, nearness=table or bundled_entailments(), whole=whole, similarity=alike
                )
        timings["solve"] = time.perf_counter() - solve_started
        return SceneAnswer(result, explanation, detections, timings)

    def scene(
        self,
        program: Program,
        *,
        image: bytes | None = None,
        scene_graph: Mapping[str, Any] | None = None,
        scene_facts: str | None = None,
        timings: dict[str, float],
        complete: bool = False,
    ) -> tuple[SceneFacts, list[dict[str, Any]]]:
        """The scene facts (and detections) from the one scene given; an image is read for the
        program's concepts, a scene graph for them too unless `complete`. Adds the times to `timings`."""
        started = time.perf_counter()
        detections: list[dict[str, Any]] = []
        if scene_facts is not None:
            scene = self._read_scene_facts(scene_facts, SceneFacts.from_asp)
        elif scene_graph is not None:
            self._check_graph_size(scene_graph)
            try:
                scene = self.components.scene_graph_encoder(scene_graph, None if complete else program)
            except (ValueError, TypeError, KeyError) as exc:
                raise PipelineError("invalid_input", f"scene_graph: {exc}") from None
        else:
            built = self.components.image_reader(image or b"", program)
            scene, detections = built.facts, built.detections
            timings.update({f"scene.{k}": v for k, v in built.timings.items()})
        timings["scene"] = time.perf_counter() - started
        return scene, detections

    def scene_text(self, scene_facts: str, timings: dict[str, float]) -> SceneFacts | SceneText:
        """Scene facts as `solve` reads them: text in the plain form reaches clingo as it is (a
        third less time than building the symbols of a whole scene graph's facts, half for a
        weighted scene's), other text through the reader that explains errors."""
        started = time.perf_counter()
        scene = self._read_scene_facts(scene_facts, read_scene)
        timings["scene"] = time.perf_counter() - started
        return scene

    def _read_scene_facts(self, text: str, reader: Callable[[str], SceneT]) -> SceneT:
        """`reader` on scene facts within the size limit; its errors as the API's invalid input."""
        self._check_text_size(text)
        try:
            return reader(text)
        except ProgramError as exc:
            raise PipelineError("invalid_input", f"scene_facts: {exc}") from None

    def _check_graph_size(self, graph: Mapping[str, Any]) -> None:
        # Counted before encoding: a graph of 600 objects related to each other takes minutes to
        # encode and ground, and its size alone says it is over the limit.
        facts = scene_graph_size(graph)
        if facts > self.settings.max_scene_facts:
            raise PipelineError(
                "too_large", f"scene_graph has at least {facts} facts, limit {self.settings.max_scene_facts}"
            )

    def _check_text_size(self, text: str) -> None:
        # Without strings and comments each statement ends at its one period, and a weighted atom
        # is one choice and its weak constraints: counted in C before the slow exact reader runs.
        if '"' in text or "%" in text:
            return
        facts = text.count(".") - text.count(":~")
        if facts > self.settings.max_scene_facts:
            raise PipelineError(
                "too_large", f"scene_facts has about {facts} facts, limit {self.settings.max_scene_facts}"
            )

    def _check_one_scene(self, image: object, scene_graph: object, scene_facts: object) -> None:
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

    def verify(
        self,
        *,
        claim: str | None = None,
        question: str | None = None,
        answer: str | None = None,
        program: str | None = None,
        representation: str | None = None,
        image: bytes | None = None,
        scene_graph: Mapping[str, Any] | None = None,
        scene_facts: str | None = None,
        llm: str | None = None,
    ) -> VerifyOutcome:
        """Verify a claim, or an answer to a question (or to a given question program), on one scene."""
        timings: dict[str, float] = {}
        self._check_one_scene(image, scene_graph, scene_facts)
        if (claim is None) == (answer is None):
            raise PipelineError("invalid_input", "give either a claim, or an answer with its question or program")
        if answer is not None and question is None and program is None:
            raise PipelineError("invalid_input", "an answer needs its question (or the question's program)")
        if claim is not None and (question is not None or program is not None):
            raise PipelineError("invalid_input", "a claim is verified on its own: leave out question and program")
        started = time.perf_counter()
        translation = None
        try:
            if claim is not None:
                self._check_question(claim, "claim")
                options = self.settings.options().with_overrides(representation="nested")
                translation = self.components.question_translator.claim(claim, options=options, llm=llm)
                stated = as_claim(translation.program)
            else:
                if program is not None:
                    parsed = self.parse_given_program(program, representation).program
                else:
                    translation = self.translate(question or "", llm=llm)
                    parsed = translation.program
                if not (answer or "").strip():
                    raise PipelineError("invalid_input", "answer is empty")
                stated = claim_from_answer(parsed, answer or "")
        except ClaimError as exc:
            raise PipelineError("invalid_input", str(exc)) from None
        timings["translate"] = time.perf_counter() - started
        with CLINGO_LOCK:
            scene, detections = self.scene(
                stated.program,
                image=image,
                scene_graph=scene_graph,
                scene_facts=scene_facts,
                timings=timings,
                complete=True,
            )
            started = time.perf_counter()
            try:
                verifier = ClaimVerifier(
                    scene, limits=self.solve_limits(), min_confidence=self.settings.verify_min_confidence
                )
                result = verifier.verify(stated)
            except VerificationError as exc:
                raise PipelineError("invalid_input", str(exc)) from None
            timings["verify"] = time.perf_counter() - started
        # A given program in its own syntax, a claim in the nested one it is translated in, a
        # question in the service's.
        shown = (representation or "flat") if program is not None else self.settings.representation
        if claim is not None:
            shown = "nested"
        return VerifyOutcome(
            verdict=result.verdict,
            holds=stated.holds,
            program=stated.program,
            subclaims=list(result.subclaims),
            detections=detections,
            timings={k: round(v, 6) for k, v in timings.items()},
            translation=translation,
            representation=show_representation(shown),
        )

    def _check_question(self, question: str, what: str = "question") -> None:
        if not question or not question.strip():
            raise PipelineError("invalid_input", f"{what} is empty")
        try:
            question.encode("utf-8")
        except UnicodeEncodeError:
            raise PipelineError("invalid_input", f"{what} is not valid text (an unpaired surrogate)") from None
        if len(question) > self.settings.max_question_chars:
            raise PipelineError(
                "too_large", f"{what} has {len(question)} characters, limit {self.settings.max_question_chars}"
            )


def _abstention(
    calibration: Calibration | None, translation: TranslationOutcome | None, score: float, risk: float | None
) -> Abstention | None:
    if translation is None:
        return None
    try:
        return decide(calibration, translation.calibration_settings, score, risk)
    except CalibrationError as exc:
        raise PipelineError("invalid_input", str(exc)) from None
