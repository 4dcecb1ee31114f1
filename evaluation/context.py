"""What every setting reads: the scene graphs, taxonomy and matcher of one process, and per question
the interpreter's verdict, the GQA program in ASP and the perfect-information scene."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from evaluation.gqa_json import SceneGraph, SemanticStep
from evaluation.graph_index import SceneGraphIndex, open_scene_graphs
from evaluation.interpreter import Interpreter, InterpreterFailure, Scene, sanitise_answer
from evaluation.matching import DEFAULT_HYPERNYM_LEVELS, Matcher
from evaluation.questions import Question
from evaluation.records import KS, Failure, FailureCategory, SettingOutcome
from evaluation.runs import RunParts
from scene.scene_graph import SceneGraphError, default_attributes, program_constants, scene_graph_facts
from scene.taxonomy import AttributeCategories, load_taxonomy
from theory.flat import format_flat
from theory.program import Program, ProgramError
from theory.scene_facts import SceneFacts, asp_constant
from theory.solver import SolveLimits, SolveStatus, solve
from translators.gqa.gqa_program import gqa_to_program

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
# How many prepared scenes and per-question results a process keeps: a job streams through
# 132,062 questions, and GQA's files keep each image's questions close together.
SCENES_KEPT = 512
QUESTIONS_KEPT = 4096

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """The most recently used `size` entries (a dict that forgets; written here because
    functools.lru_cache cannot key on unhashable questions nor hold exceptions as values)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K, compute: Callable[[], V]) -> V:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = self._items[key] = compute()
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return value


NO_PROGRAM = "the question has no GQA program (GQA's test and challenge questions have none)"


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
    calibration: str | None = None  # a calibration file (trust.calibration): records say when they abstain


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
        # The scene graphs stay on disk (an index built once); each is read when a question needs it.
        self.graphs: SceneGraphIndex | None = open_scene_graphs(c.scene_graphs) if c.scene_graphs else None
        self.taxonomy = load_taxonomy(c.taxonomy)
        self.attributes = default_attributes(self.taxonomy)
        self.vocabulary = attribute_vocabulary(self.attributes)
        self.interpreter = Interpreter(self.taxonomy, self.attributes)
        self.matcher = Matcher(hypernym_levels=c.hypernym_levels)
        self.limits = SolveLimits(timeout_s=c.solve_timeout_s)
        self._graphs: Recent[str, SceneGraph | None] = Recent(SCENES_KEPT)
        self._scenes: Recent[str, Scene | SceneGraphError] = Recent(SCENES_KEPT)
        # Per question, whatever the run: the interpreter's verdict and the GQA program in ASP.
        self._verdicts: Recent[str, OracleVerdict] = Recent(QUESTIONS_KEPT)
        self._references: Recent[str, Program | ProgramError] = Recent(QUESTIONS_KEPT)

    def graph(self, question: Question) -> SceneGraph | None:
        """The scene graph of the question's image (None: no image id or no scene graphs)."""
        image, graphs = question.image_id, self.graphs
        if image is None or graphs is None:
            return None
        return self._graphs.get(image, lambda: graphs.get(image))

    def image_path(self, question: Question) -> Path | None:
        if not self.config.images or question.image_id is None:
            return None
        for suffix in IMAGE_SUFFIXES:
            path = Path(self.config.images) / f"{question.image_id}{suffix}"
            if path.is_file():
                return path
        return None

    def _prepared(self, question: Question, graph: SceneGraph) -> Scene | SceneGraphError:
        def prepare() -> Scene | SceneGraphError:
            try:
                return self.interpreter.prepare(graph)
            except SceneGraphError as exc:
                return exc

        return self._scenes.get(question.image_id or "", prepare)

    def verdict(self, question: Question) -> OracleVerdict:
        """The interpreter's answer and whether it reproduces the gold answer (computed once per question)."""
        return self._verdicts.get(question.id, lambda: self._interpret(question))

    def _interpret(self, question: Question) -> OracleVerdict:
        if not question.has_program:
            return OracleVerdict(None, "NoProgram", NO_PROGRAM, None)
        graph = self.graph(question)
        if graph is None:
            return OracleVerdict(None, "MissingSceneGraph", f"no scene graph for image {question.image_id}", None)
        scene = self._prepared(question, graph)
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

        def convert() -> Program | ProgramError:
            if not question.has_program:
                return ProgramError(NO_PROGRAM)
            try:
                return gqa_to_program(question.semantic, value_categories(question.semantic, self.attributes))
            except ProgramError as exc:
                return exc

        found = self._references.get(question.id, convert)
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
    index = attributes.index
    if index is None:
        return None
    vocabulary: dict[str, set[str]] = {}
    for value, categories in index.items():
        for category in categories:
            vocabulary.setdefault(category, set()).add(value)
    return vocabulary


def value_categories(semantic: Sequence[SemanticStep], attributes: AttributeCategories) -> dict[str, str]:
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
