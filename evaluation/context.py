"""What every setting reads: the scene graphs, taxonomy and matcher of one process, and per question
the interpreter's verdict, the GQA program in ASP and the perfect-information scene."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluation.interpreter import Interpreter, InterpreterFailure, Scene, sanitise_answer
from evaluation.matching import DEFAULT_HYPERNYM_LEVELS, Matcher
from evaluation.questions import JobError, Question
from evaluation.records import KS, Failure, FailureCategory, SettingOutcome
from evaluation.runs import RunParts
from scene.scene_graph import SceneGraphError, default_attributes, program_constants, scene_graph_facts
from scene.taxonomy import AttributeCategories, load_taxonomy
from theory.flat import format_flat
from theory.program import Program, ProgramError
from theory.scene_facts import SceneFacts, asp_constant
from theory.solver import SolveLimits, SolveStatus, solve
from translators.gqa_program import gqa_to_program

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")


@dataclass
class EvaluatorConfig:
    """Everything that changes a result apart from the run (picklable: paths, not loaded data)."""

    scene_graphs: str | None = None
    images: str | None = None
    taxonomy: str | None = None
    hypernym_levels: int = DEFAULT_HYPERNYM_LEVELS
    top_k: int = 5
    solve_timeout_s: float = 10.0
    equivalence_scenes: int = 40


@dataclass(frozen=True)
class OracleVerdict:
    """The interpreter's answer to a question and whether it reproduces the gold answer."""

    answer: str | None
    failure: str | None
    message: str | None
    answerable: bool | None


class Context:
    """The data of one process, loaded once, and per-question results shared by the settings."""

    def __init__(self, config: EvaluatorConfig) -> None:
        self.config = c = config
        self.graphs: dict[str, Any] = {}
        if c.scene_graphs:
            data = json.loads(Path(c.scene_graphs).read_text(encoding="utf-8"))
            if not isinstance(data, Mapping):
                raise JobError("the scene graphs file must map image ids to GQA scene graphs")
            self.graphs = {str(k): v for k, v in data.items()}
        self.taxonomy = load_taxonomy(c.taxonomy)
        self.attributes = default_attributes(self.taxonomy)
        self.vocabulary = attribute_vocabulary(self.attributes)
        self.interpreter = Interpreter(self.taxonomy, self.attributes)
        self.matcher = Matcher(hypernym_levels=c.hypernym_levels)
        self.limits = SolveLimits(timeout_s=c.solve_timeout_s)
        self._scenes: dict[str, Scene | SceneGraphError] = {}
        # Per question, whatever the run: the interpreter's verdict and the GQA program in ASP.
        self._verdicts: dict[str, OracleVerdict] = {}
        self._references: dict[str, Program | ProgramError] = {}

    def graph(self, question: Question) -> Mapping[str, Any] | None:
        return self.graphs.get(question.image_id) if question.image_id is not None else None

    def image_path(self, question: Question) -> Path | None:
        if not self.config.images or question.image_id is None:
            return None
        for suffix in IMAGE_SUFFIXES:
            path = Path(self.config.images) / f"{question.image_id}{suffix}"
            if path.is_file():
                return path
        return None

    def _prepared(self, image_id: str) -> Scene | SceneGraphError:
        if image_id not in self._scenes:
            try:
                self._scenes[image_id] = self.interpreter.prepare(self.graphs[image_id])
            except SceneGraphError as exc:
                self._scenes[image_id] = exc
        return self._scenes[image_id]

    def verdict(self, question: Question) -> OracleVerdict:
        """The interpreter's answer and whether it reproduces the gold answer (computed once per question)."""
        if question.id not in self._verdicts:
            self._verdicts[question.id] = self._interpret(question)
        return self._verdicts[question.id]

    def _interpret(self, question: Question) -> OracleVerdict:
        if self.graph(question) is None:
            return OracleVerdict(None, "MissingSceneGraph", f"no scene graph for image {question.image_id}", None)
        scene = self._prepared(question.image_id or "")
        if isinstance(scene, SceneGraphError):
            return OracleVerdict(None, "InvalidSceneGraph", str(scene), None)
        try:
            answer = self.interpreter.run(question.semantic, scene)
        except InterpreterFailure as exc:
            return OracleVerdict(None, exc.kind, str(exc), False)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            return OracleVerdict(None, "InvalidProgram", str(exc), False)
        if question.answer is None:
            return OracleVerdict(answer, None, None, None)
        right = self.matcher.matches(answer, question.answer)
        return OracleVerdict(
            answer, None if right else "GoldMismatch", None if right else f"interpreter says {answer!r}", right
        )

    def reference(self, question: Question) -> Program:
        """The question's GQA program as an ASP program (raises `ProgramError`; converted once per question)."""
        if question.id not in self._references:
            try:
                self._references[question.id] = gqa_to_program(
                    question.semantic, value_categories(question.semantic, self.attributes)
                )
            except ProgramError as exc:
                self._references[question.id] = exc
        found = self._references[question.id]
        if isinstance(found, ProgramError):
            raise found
        return found

    def true_scene(self, question: Question, program: Program) -> SceneFacts:
        return scene_graph_facts(
            self.graph(question) or {},
            taxonomy=self.taxonomy,
            attributes=self.attributes,
            concepts=program_constants(program),
        )

    def scores(self, answers: Sequence[str], gold: str | None) -> dict[str, bool] | None:
        return None if gold is None else self.matcher.scores(list(answers), gold, KS)

    def answer(
        self, question: Question, program: Program, scene: SceneFacts, wrong: Callable[[], Failure | None]
    ) -> SettingOutcome:
        """Solve `program` on `scene` and score the answers; `wrong()` says why a wrong answer is wrong."""
        result = solve(program, scene, top_k=self.config.top_k, limits=self.limits)
        answers = [sanitise_answer(a.answer) for a in result.answers]
        flat, solver = format_flat(program), result.status.value
        if result.status not in (SolveStatus.OK, SolveStatus.NO_ANSWER):
            category: FailureCategory = "formulation" if result.status is SolveStatus.INVALID_PROGRAM else "solver"
            failure = Failure(category, result.status.value, result.message)
            return SettingOutcome(
                "failed", answers, self.scores([], question.answer), False, failure, program=flat, solver=solver
            )
        scores = self.scores(answers, question.answer)
        correct = bool(scores and scores["strict@1"])
        wrong_answer = None if correct or question.answer is None else wrong()
        return SettingOutcome(
            "answered" if answers else "no_answer", answers, scores, correct, wrong_answer, program=flat, solver=solver
        )


@dataclass(frozen=True)
class Case:
    """One question of one run as a setting sees it."""

    context: Context
    question: Question
    verdict: OracleVerdict
    parts: RunParts
    program: Program | None  # the run's translation, None when it failed
    translation_error: str | None


def attribute_vocabulary(attributes: AttributeCategories) -> dict[str, set[str]] | None:
    """category -> values of a curated attribute mapping (None for open vocabularies)."""
    index = getattr(attributes, "index", None)
    if not isinstance(index, Mapping):
        return None
    vocabulary: dict[str, set[str]] = {}
    for value, categories in index.items():
        for category in categories:
            vocabulary.setdefault(category, set()).add(value)
    return vocabulary


def value_categories(semantic: Sequence[Mapping[str, Any]], attributes: AttributeCategories) -> dict[str, str]:
    """value -> category for the words of a GQA program whose category is unambiguous (what
    `gqa_to_program` needs for bare ``verify``/``choose``)."""
    found: dict[str, str] = {}
    for step in semantic:
        for part in str(step.get("argument") or "").replace("|", ",").split(","):
            word = part.split("(")[0].strip()
            if word and word not in ("_", "?"):
                categories = attributes.categories_of(word)
                if len(categories) == 1:
                    try:
                        found[asp_constant(word)] = asp_constant(next(iter(categories)))
                    except ValueError:
                        continue
    return found
