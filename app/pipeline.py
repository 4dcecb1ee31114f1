"""The pipeline: question -> program, image / scene graph / facts -> scene, then solve.

Heavy parts (language model, detector, classifier, WordNet) come from `app.components`, built
once, on first use or at service start (`warm_up`), and shared by every request; each part says
plainly when it is missing. The edge hands the pipeline a `Query`, one `SceneInput` and
`AnswerOptions`, all checked already; the pipeline hands back an outcome (`app.outcomes`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import Protocol, TypeVar

from app.components import Components
from app.config import Settings
from app.errors import PipelineError
from app.inputs import AnswerOptions, ClaimToVerify, GivenProgram, Query, ToVerify
from app.outcomes import (
    AnswerOutcome,
    SceneAnswer,
    SceneReading,
    TranslationOutcome,
    VerifyOutcome,
)
from app.parts.roles import ImageReader, QuestionTranslator, SceneGraphEncoder
from app.scene_input import FactsScene, GraphScene, ImageScene, SceneInput, one_scene
from theory import Program, ProgramError, SceneFacts, SolveLimits, SolveStatus, solve
from theory.clingo_lock import CLINGO_LOCK
from theory.data_text import SceneText
from theory.entailment import bundled_entailments
from theory.explain import explain_no_answer
from theory.program_words import program_words
from theory.representations import TEXT_REPRESENTATIONS, format_program
from theory.scene_facts import PlainFacts
from theory.solver import read_scene
from translators.checks.question_scope import Unsupported, word_pattern
from translators.options import TranslationOptions
from translators.program_text import ReadProgram, read_program
from trust.abstention import decide, program_decision
from trust.calibration import Abstention, Calibration, CalibrationError
from trust.claims import Claim, ClaimError, as_claim, claim_from_answer
from trust.confidence import confidence, confidence_parts
from trust.verify import ClaimVerifier, VerificationError

__all__ = [
    "AnswerOutcome",
    "Pipeline",
    "PipelineError",
    "TranslationOutcome",
    "VerifyOutcome",
    "concepts_by_role",
    "show_program",
]

# What reading scene facts gives: objects (`SceneFacts.from_asp`) or, for `solve`, text (`read_scene`).
SceneT = TypeVar("SceneT", bound="SceneFacts | SceneText")
# Facts read once, where the scene arrived (an image perceived, scene facts read): a solver process
# solves them as they are, made into clingo symbols there from plain terms or taken as read text.
ReadFacts = PlainFacts | SceneText
# The scenes a solver process takes: a scene graph's objects (encoded there, once per process) or
# facts read already; `Pipeline.solve_on_scene` sends nothing else (scene facts text given to the
# pool directly is read in the worker).
SolverScene = GraphScene | ReadFacts | FactsScene


class SceneSolver(Protocol):
    """Solves a program on a scene graph or scene facts elsewhere (a worker process) for `Pipeline`."""

    def __call__(self, program: Program, scene: SolverScene, *, top_k: int, exact: bool) -> SceneAnswer: ...


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
        """The question as a program (validated flat form inside); `options` default to the settings'.
        A question without a word of two letters or more, as sent, is declined before any model runs:
        the published schema's pattern for a question (`word_pattern`)."""
        self._check_question(question)
        if re.search(word_pattern(), question) is None:
            raise PipelineError("unsupported", Unsupported("wordless").message)
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

    def scene_input(
        self, *, image: bytes | None = None, scene_graph: object | None = None, scene_facts: str | None = None
    ) -> SceneInput:
        """The one scene given (a scene graph read and held to the size limit); raises `PipelineError`."""
        return one_scene(
            image=image, scene_graph=scene_graph, scene_facts=scene_facts, max_facts=self.settings.max_scene_facts
        )

    def answer(self, query: Query, scene: SceneInput, options: AnswerOptions | None = None) -> AnswerOutcome:
        """Answer a question (or a given program) on one scene.

        Unless `options.exact`, the configured entailment table may answer through a more general
        scene word (marked approximate, ranked below exact answers). A `no_answer` says why. A
        stored scene keeps its answers (`kept_answer`).
        """
        options = options or AnswerOptions()
        if scene.answers is None:
            return self._answer(query, scene, options)
        return scene.answers.read(
            _answer_key(query, scene, options),
            lambda: self._answer(query, scene, options),
            # Not one cut short (a later ask may find them all) or failed: those are asked again.
            keep=lambda outcome: outcome.status in (SolveStatus.OK, SolveStatus.NO_ANSWER),
        )

    def kept_answer(
        self, query: Query, scene: SceneInput, options: AnswerOptions | None = None
    ) -> AnswerOutcome | None:
        """The answer a stored scene kept for the same query and options (None: there is none). It
        takes a dictionary lookup, no translation, solve or wait, so the event loop may ask."""
        if scene.answers is None:
            return None
        return scene.answers.peek(_answer_key(query, scene, options or AnswerOptions()))

    def _answer(self, query: Query, scene: SceneInput, options: AnswerOptions) -> AnswerOutcome:
        calibration = self._calibration_for(query, options.risk)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        translation, program, shown = self._program(query, options)
        timings["translate"] = time.perf_counter() - started
        solved = self.solve_on_scene(program, scene, top_k=options.top_k, exact=options.exact)
        timings.update(solved.timings)
        result = solved.result
        if result.status is SolveStatus.TIMEOUT and not result.answers:
            raise PipelineError("timeout", f"solving took longer than {self.settings.solve_timeout_s} s")
        if result.status is SolveStatus.TOO_LARGE:
            raise PipelineError("too_large", result.message or "scene too large")
        if result.status in (SolveStatus.INVALID_PROGRAM, SolveStatus.INVALID_SCENE):
            raise PipelineError("invalid_input", result.message or "invalid input")
        parts = confidence_parts(translation.evidence if translation else None, [a.cost for a in result.answers])
        score = confidence(parts) if translation is not None else round(parts.answer_share, 6)
        return AnswerOutcome(
            confidence=score,
            confidence_parts=parts,
            abstention=_abstention(calibration, translation, score, options.risk),
            status=result.status,
            message=result.message,
            answers=result.answers,
            program=program,
            program_text=show_program(program, shown),
            representation=shown,
            concepts=concepts_by_role(program),
            detections=solved.detections,
            timings={k: round(v, 6) for k, v in timings.items()},
            translation=translation,
            explanation=solved.explanation,
            perception=solved.perception,
        )

    def _calibration_for(self, query: Query, risk: float | None) -> Calibration | None:
        """The calibration that decides on this query's answer (None for a given program), `risk` checked."""
        if risk is not None and isinstance(query, GivenProgram):
            raise PipelineError("invalid_input", "risk applies to translated questions, not to a given program")
        if isinstance(query, GivenProgram):
            return None
        self._check_question(query.text)
        calibration = self.components.calibration
        if risk is not None:
            if calibration is None:
                raise PipelineError(
                    "invalid_input", "risk needs a calibration: none is configured (ASPVQA_CALIBRATION)"
                )
            try:
                calibration.check_risk(risk)
            except CalibrationError as exc:
                raise PipelineError("invalid_input", str(exc)) from None
        return calibration

    def _program(self, query: Query, options: AnswerOptions) -> tuple[TranslationOutcome | None, Program, str]:
        """(the translation, the program, the syntax it is shown in) of a query."""
        if isinstance(query, GivenProgram):
            read = self.parse_given_program(query.text, query.representation)
            return None, read.program, read.representation
        translation_options = self.settings.options().with_overrides(representation=options.representation)
        translation = self.translate(query.text, translation_options, llm=options.llm)
        return translation, translation.program, options.representation or self.settings.representation

    def solve_limits(self, timeout_s: float | None = None) -> SolveLimits:
        """The time and size limits of one solve, from the settings (`timeout_s`: what is left of it)."""
        return SolveLimits(
            timeout_s=self.settings.solve_timeout_s if timeout_s is None else timeout_s,
            max_scene_facts=self.settings.max_scene_facts,
        )

    def solve_on_scene(
        self, program: Program, scene: SceneInput, *, top_k: int | None = None, exact: bool = False
    ) -> SceneAnswer:
        """The scene, the ranked answers and, without one, why: through `scene_solver` when one is
        set, else in this process. An image is perceived here, where the vision models are, and
        scene facts are read here: either crosses to the solver as the facts read, once (a scene
        graph as its objects)."""
        if self.scene_solver is None:
            return self.solve_here(program, scene, top_k=top_k, exact=exact)
        timings: dict[str, float] = {}
        image: SceneReading | None = None
        sent: SolverScene
        with CLINGO_LOCK:
            if isinstance(scene, ImageScene):
                image = self.scene(program, scene, timings=timings)
                sent = PlainFacts.of(image.facts)
            elif isinstance(scene, FactsScene):
                read = self.scene_text(scene.text, timings)
                sent = PlainFacts.of(read) if isinstance(read, SceneFacts) else read
            else:
                sent = scene.unkept()
        solved = self.scene_solver(program, sent, top_k=top_k or self.settings.top_k, exact=exact)
        if image is None:
            return replace(solved, timings=timings | solved.timings)
        return replace(
            solved, detections=image.detections, perception=image.perception, timings=timings | solved.timings
        )

    def solve_here(
        self, program: Program, scene: SceneInput | ReadFacts, *, top_k: int | None = None, exact: bool = False
    ) -> SceneAnswer:
        """`solve_on_scene` in this process and thread; the scene's reading counts against the solve's time.

        Threads of one process take turns (`CLINGO_LOCK`): clingo is not safe for two at once.
        """
        started = time.perf_counter()
        timings: dict[str, float] = {}
        with CLINGO_LOCK:
            read: SceneFacts | SceneText
            image = SceneReading(SceneFacts())
            if isinstance(scene, PlainFacts):
                read = scene.scene_facts()
            elif isinstance(scene, SceneText):
                read = scene
            elif isinstance(scene, FactsScene):
                read = self.scene_text(scene.text, timings)
            else:
                image = self.scene(program, scene, timings=timings)
                read = image.facts
            table = self.components.entailments
            entailments = None if exact else table
            solve_started = time.perf_counter()
            left = self.settings.solve_timeout_s - (solve_started - started)
            if left <= 0:
                raise PipelineError("timeout", f"solving took longer than {self.settings.solve_timeout_s} s")
            limits = self.solve_limits(left)
            result = solve(program, read, top_k=top_k or self.settings.top_k, limits=limits, entailments=entailments)
            explanation = None
            if result.status is SolveStatus.NO_ANSWER:
                # A scene graph was encoded for the program's words only; the scene's other words
                # are what the explanation offers instead (the taxonomy ranks them, loaded already).
                graph = scene.unkept() if isinstance(scene, GraphScene) else None
                explanation = explain_no_answer(
                    program,
                    read,
                    entailments,
                    nearness=table or bundled_entailments(),
                    whole=self.components.scene_graph_encoder(graph, None) if graph is not None else None,
                    similarity=self.components.taxonomy.similarity if graph is not None else None,
                )
        timings["solve"] = time.perf_counter() - solve_started
        return SceneAnswer(result, explanation, image.detections, timings, image.perception)

    def scene(
        self, program: Program, scene: SceneInput, *, timings: dict[str, float], complete: bool = False
    ) -> SceneReading:
        """The scene facts (and an image's detections) of `scene`; an image is read for the program's
        concepts, a scene graph for them too unless `complete`. Adds the times to `timings`."""
        started = time.perf_counter()
        if isinstance(scene, FactsScene):
            read = SceneReading(self._read_scene_facts(scene.text, SceneFacts.from_asp))
        elif isinstance(scene, GraphScene):
            read = SceneReading(self.components.scene_graph_encoder(scene.unkept(), None if complete else program))
        else:
            read = self._image_reading(scene, program)
            timings.update({f"scene.{k}": v for k, v in read.timings.items()})
        timings["scene"] = time.perf_counter() - started
        return read

    def _image_reading(self, scene: ImageScene, program: Program) -> SceneReading:
        """The image's scene for the program's concepts; a stored image is perceived once per concept set."""
        reader = self.components.image_reader_for(scene.perception)
        if scene.readings is None:
            return reader(scene.data, program)
        from app.perception_memo import reading_key  # images only: the concepts' module loads on first use

        key = reading_key(scene.perception or self.settings.perception, program, self.components.taxonomy)
        return scene.readings.read(key, lambda: reader(scene.data, program))

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
        FactsScene.read(text, self.settings.max_scene_facts)  # the size rule, before the slow reader
        try:
            return reader(text)
        except ProgramError as exc:
            raise PipelineError("invalid_input", f"scene_facts: {exc}") from None

    def verify(self, subject: ToVerify, scene: SceneInput, *, llm: str | None = None) -> VerifyOutcome:
        """Verify a claim, or an answer to a question (or to a given question program), on one scene."""
        timings: dict[str, float] = {}
        started = time.perf_counter()
        translation, stated = self._stated_claim(subject, llm)
        timings["translate"] = time.perf_counter() - started
        with CLINGO_LOCK:
            seen = self.scene(stated.program, scene, timings=timings, complete=True)
            started = time.perf_counter()
            try:
                verifier = ClaimVerifier(
                    seen.facts, limits=self.solve_limits(), min_confidence=self.settings.verify_min_confidence
                )
                result = verifier.verify(stated)
            except VerificationError as exc:
                raise PipelineError("invalid_input", str(exc)) from None
            timings["verify"] = time.perf_counter() - started
        # A claim in the nested syntax it is translated in, a given program in its own, a question in
        # the service's.
        if isinstance(subject, ClaimToVerify):
            shown = "nested"
        elif isinstance(subject.query, GivenProgram):
            shown = subject.query.representation or "flat"
        else:
            shown = self.settings.representation
        return VerifyOutcome(
            verdict=result.verdict,
            holds=stated.holds,
            program=stated.program,
            subclaims=list(result.subclaims),
            detections=seen.detections,
            timings={k: round(v, 6) for k, v in timings.items()},
            translation=translation,
            representation=show_representation(shown),
        )

    def _stated_claim(self, subject: ToVerify, llm: str | None) -> tuple[TranslationOutcome | None, Claim]:
        """The claim to verify, and the translation it came from (None for a given program)."""
        translation = None
        try:
            if isinstance(subject, ClaimToVerify):
                self._check_question(subject.text, "claim")
                options = self.settings.options().with_overrides(representation="nested")
                translation = self.components.question_translator.claim(subject.text, options=options, llm=llm)
                return translation, as_claim(translation.program)
            if isinstance(subject.query, GivenProgram):
                parsed = self.parse_given_program(subject.query.text, subject.query.representation).program
            else:
                translation = self.translate(subject.query.text, llm=llm)
                parsed = translation.program
            if not subject.answer.strip():
                raise PipelineError("invalid_input", "answer is empty")
            return translation, claim_from_answer(parsed, subject.answer)
        except ClaimError as exc:
            raise PipelineError("invalid_input", str(exc)) from None

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


def _answer_key(query: Query, scene: SceneInput, options: AnswerOptions) -> Hashable:
    """What an answer depends on besides the scene's content and the process's settings."""
    return query, options, scene.perception if isinstance(scene, ImageScene) else None


def _abstention(
    calibration: Calibration | None, translation: TranslationOutcome | None, score: float, risk: float | None
) -> Abstention | None:
    if translation is None:
        return None
    try:
        return decide(calibration, translation.calibration_settings, score, risk)
    except CalibrationError as exc:
        raise PipelineError("invalid_input", str(exc)) from None
