"""The offline GQA evaluation job: every question under every setting, one JSON line each.

Settings:

- ``oracle``: the GQA interpreter on the question's GQA program and scene graph (the answerability
  filter: a question counts as answerable when the interpreter reproduces the gold answer);
- ``asp-oracle``: the GQA program converted to ASP (`gqa_to_program`), solved on the
  perfect-information scene of the scene graph;
- ``isolated``: the translated program on the perfect-information scene;
- ``pipeline`` / ``pipeline-blind``: the translated program on the weighted scene read from the
  image, the detector asked for the GQA program's concepts (oracle) or the translated program's
  (blind);
- ``translation``: the translated program against the converted GQA program, canonically equal
  and equivalent on generated scenes (`theory.equivalence`); needs no scene graph.

Answers are matched strict / generous / generous+ at top-1/3/5 (`evaluation.matching`). A wrong
or missing answer gets a failure category: ``formulation`` (no program parsed and validated),
``dataset`` (the interpreter cannot reproduce the gold answer: its failure class, or
``GoldMismatch``), ``translation`` (a valid program, wrong on the true scene), ``perception``
(right on the true scene, wrong on the image's scene), plus ``reasoning`` (the ASP route disagrees
with a correct interpreter), ``solver`` (timeout, size limit), ``input`` (scene graph or image
missing) and ``unattributed`` (wrong on the image and no scene graph to tell why).

Results are appended to ``results.jsonl`` and flushed as each question completes; a rerun skips
the (run, setting, questionId) triples already there, so a killed job resumes without losing or
repeating work. The heavy parts (translator, image scene builder) are injected by a picklable
`ComponentFactory`, built once per worker process and run.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Protocol, Sequence

from evaluation.interpreter import Interpreter, InterpreterFailure, Scene, sanitise_answer
from evaluation.matching import DEFAULT_HYPERNYM_LEVELS, Matcher
from evaluation.oracle import concepts_from_gqa
from scene.concepts import Concepts, concepts_from_program
from scene.scene_graph import SceneGraphError, default_attributes, program_concepts, scene_graph_facts
from scene.taxonomy import AttributeCategories, load_taxonomy
from theory.equivalence import equivalent
from theory.flat import format_flat
from theory.program import Program, ProgramError
from theory.scene_facts import SceneFacts, asp_constant
from theory.solver import SolveLimits, SolveStatus, solve
from translators.gqa_program import gqa_to_program

SETTINGS = ("oracle", "asp-oracle", "isolated", "pipeline", "pipeline-blind", "translation")
TRANSLATED = frozenset({"isolated", "pipeline", "pipeline-blind", "translation"})
NEEDS_GRAPH = frozenset({"oracle", "asp-oracle", "isolated"})
NEEDS_IMAGE = frozenset({"pipeline", "pipeline-blind"})
RESULTS_FILE = "results.jsonl"
REFERENCE_RUN = "reference"
MANIFEST_FILE = "job.json"
KS = (1, 3, 5)
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")


class JobError(ValueError):
    """The job cannot start: bad settings, inputs or output folder."""


# -- inputs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    """One GQA question with what the job reads of it."""

    id: str
    question: str
    image_id: str | None
    answer: str | None
    semantic: list[dict[str, Any]]
    types: dict[str, str] = field(default_factory=dict)
    entailed: tuple[str, ...] = ()


def load_questions(data: Any) -> list[Question]:
    """Questions in GQA's formats: ``{questionId: record}`` or a list of records with an id field."""
    if isinstance(data, Mapping):
        items = [(str(k), v) for k, v in data.items()]
    elif isinstance(data, list):
        items = [
            (str(r.get("questionId", r.get("question_id", i))) if isinstance(r, Mapping) else str(i), r)
            for i, r in enumerate(data)
        ]
    else:
        raise JobError("the questions file must hold a JSON object or a list of GQA questions")
    questions = []
    for question_id, record in items:
        if not isinstance(record, Mapping) or not isinstance(record.get("question"), str):
            raise JobError(f"question {question_id} has no 'question' text")
        semantic = record.get("semantic")
        if not isinstance(semantic, list):
            raise JobError(f"question {question_id} has no 'semantic' program")
        image = record.get("imageId", record.get("image"))
        answer = record.get("answer")
        types = record.get("types") if isinstance(record.get("types"), Mapping) else {}
        questions.append(
            Question(
                id=question_id,
                question=record["question"],
                image_id=None if image is None else str(image),
                answer=None if answer is None else str(answer),
                semantic=list(semantic),
                types={k: v for k, v in {"structural": structural_type(semantic)}.items() if v}
                | {str(k): str(v) for k, v in types.items() if v is not None},
                entailed=tuple(str(e) for e in record.get("entailed") or ()),
            )
        )
    return questions


def structural_type(semantic: Sequence[Mapping[str, Any]]) -> str | None:
    """GQA's structural type from the last operation (verify, query, choose, logical, compare),
    for questions that do not carry their ``types``."""
    if not semantic or not isinstance(semantic[-1], Mapping):
        return None
    last = semantic[-1]
    head = " ".join(str(last.get("operation", "")).split()).partition(" ")[0]
    if head in ("and", "or"):
        return "logical"
    if head in ("verify", "exist"):
        return "verify"
    if head in ("same", "different", "common") or (head == "choose" and len(last.get("dependencies") or ()) == 2):
        return "compare"
    return head if head in ("query", "choose") else None


@dataclass(frozen=True)
class Run:
    """One point of an experiment grid: translation parameters and a stable name."""

    name: str
    translation: dict[str, Any] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash((self.name, json.dumps(self.translation, sort_keys=True)))


def run_name(translation: Mapping[str, Any]) -> str:
    """A short stable name for translation parameters, e.g. ``nested-k8-bert-cover-qwen2.5-coder-1.5b``."""
    if not translation:
        return "default"
    parts = []
    if "representation" in translation:
        parts.append(str(translation["representation"]))
    if "examples" in translation:
        parts.append(f"k{translation['examples']}")
    if "sampling" in translation:
        parts.append(str(translation["sampling"]))
    if "cover_operators" in translation:
        parts.append("cover" if translation["cover_operators"] else "nocover")
    if translation.get("llm"):
        parts.append(str(translation["llm"]).replace("/", "_").replace(":", "_"))
    named = {"representation", "examples", "sampling", "cover_operators", "llm"}
    parts += [f"{k}={translation[k]}" for k in sorted(translation) if k not in named]
    return "-".join(parts)


# -- injected parts ----------------------------------------------------------------------------


class TranslationLike(Protocol):
    """What the job reads of a translation (`translators.translate.Translation` fits)."""

    program: Program | None
    error: str | None


Translate = Callable[[str, str], TranslationLike]  # (question, questionId) -> translation
ImageSceneFn = Callable[[Path, Concepts, str], SceneFacts]  # (image path, concepts, image id) -> scene


@dataclass
class Components:
    """The parts one run needs, built inside a worker process."""

    translate: Translate | None = None
    image_scene: ImageSceneFn | None = None


class ComponentFactory(Protocol):
    """Builds the components of one run; must pickle (it travels to worker processes)."""

    def __call__(self, run: Run, settings: Sequence[str]) -> Components: ...


def no_components(run: Run, settings: Sequence[str]) -> Components:
    """The factory for settings that need neither a translator nor images."""
    return Components()


@dataclass(frozen=True)
class Task:
    """One question of one run, with the settings still to compute."""

    run: Run
    question: Question
    settings: tuple[str, ...]


# -- the evaluator -----------------------------------------------------------------------------


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


@dataclass
class _Oracle:
    answer: str | None
    failure: str | None
    message: str | None
    answerable: bool | None


class Evaluator:
    """Computes the result records of tasks; loads its data lazily, once per process."""

    def __init__(self, config: EvaluatorConfig, factory: ComponentFactory = no_components) -> None:
        self.config = config
        self.factory = factory
        self._loaded = False
        self._components: dict[tuple[Run, bool, bool], Components] = {}

    def __getstate__(self) -> dict[str, Any]:
        # Only the recipe travels to workers; each builds its own models and caches.
        return {"config": self.config, "factory": self.factory}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["config"], state["factory"])  # type: ignore[misc]

    def load(self) -> None:
        """Read the scene graphs, taxonomy and WordNet now (otherwise on first use)."""
        if self._loaded:
            return
        c = self.config
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
        self._oracles: dict[str, _Oracle] = {}
        self._references: dict[str, Program | ProgramError] = {}
        self._loaded = True

    def components(self, run: Run, settings: Sequence[str]) -> Components:
        """The run's translator and image scene builder (built on first use)."""
        # Keyed by what the settings need: a resumed task may need less than a later one.
        key = (run, bool(TRANSLATED & set(settings)), bool(NEEDS_IMAGE & set(settings)))
        if key not in self._components:
            self._components[key] = self.factory(run, settings)
        return self._components[key]

    # -- helpers -------------------------------------------------------------------------------

    def _prepared(self, image_id: str) -> Scene | SceneGraphError:
        if image_id not in self._scenes:
            try:
                self._scenes[image_id] = self.interpreter.prepare(self.graphs[image_id])
            except SceneGraphError as exc:
                self._scenes[image_id] = exc
        return self._scenes[image_id]

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

    def oracle(self, question: Question) -> _Oracle:
        """The interpreter's answer and whether it reproduces the gold answer (computed once per question)."""
        if question.id not in self._oracles:
            self._oracles[question.id] = self._run_oracle(question)
        return self._oracles[question.id]

    def _run_oracle(self, question: Question) -> _Oracle:
        if self.graph(question) is None:
            return _Oracle(None, "MissingSceneGraph", f"no scene graph for image {question.image_id}", None)
        scene = self._prepared(question.image_id or "")
        if isinstance(scene, SceneGraphError):
            return _Oracle(None, "InvalidSceneGraph", str(scene), None)
        try:
            answer = self.interpreter.run(question.semantic, scene)
        except InterpreterFailure as exc:
            return _Oracle(None, exc.kind, str(exc), False)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            return _Oracle(None, "InvalidProgram", str(exc), False)
        if question.answer is None:
            return _Oracle(answer, None, None, None)
        right = self.matcher.matches(answer, question.answer)
        return _Oracle(answer, None if right else "GoldMismatch", None if right else f"interpreter says {answer!r}", right)

    def reference(self, question: Question) -> Program:
        """The question's GQA program as an ASP program (raises `ProgramError`; converted once per question)."""
        if question.id not in self._references:
            try:
                self._references[question.id] = gqa_to_program(question.semantic, value_categories(question.semantic, self.attributes))
            except ProgramError as exc:
                self._references[question.id] = exc
        found = self._references[question.id]
        if isinstance(found, ProgramError):
            raise found
        return found

    def true_scene(self, question: Question, program: Program) -> SceneFacts:
        return scene_graph_facts(
            self.graph(question) or {}, taxonomy=self.taxonomy, attributes=self.attributes, concepts=program_concepts(program)
        )

    def scores(self, answers: Sequence[str], gold: str | None) -> dict[str, bool] | None:
        return None if gold is None else self.matcher.scores(list(answers), gold, KS)

    # -- evaluation ----------------------------------------------------------------------------

    def evaluate(self, task: Task) -> list[dict[str, Any]]:
        """The result records of one task, one per pending setting."""
        self.load()
        q = task.question
        oracle = self.oracle(q)
        components = self.components(task.run, task.settings)
        translation: TranslationLike | None = None
        translation_s = 0.0
        translation_error: str | None = None
        if TRANSLATED & set(task.settings):
            if components.translate is None:
                translation_error = "no translator configured"
            else:
                start = time.perf_counter()
                try:
                    translation = components.translate(q.question, q.id)
                except Exception as exc:  # a backend failure is this question's formulation error, not the job's
                    translation_error = f"{type(exc).__name__}: {exc}"
                translation_s = time.perf_counter() - start
        program = translation.program if translation is not None else None
        if translation is not None and program is None:
            translation_error = translation.error or "no program"
        shared = {"translation_s": translation_s, "program": program, "translation_error": translation_error}
        records = []
        for setting in task.settings:
            start = time.perf_counter()
            record = self._base(task, setting, oracle)
            handler = getattr(self, "_" + setting.replace("-", "_"))
            record.update(handler(q, oracle, components, shared))
            record["seconds"] = round(time.perf_counter() - start + (translation_s if setting in TRANSLATED else 0.0), 6)
            records.append(record)
        return records

    def _base(self, task: Task, setting: str, oracle: _Oracle) -> dict[str, Any]:
        q = task.question
        return {
            "run": record_run(task.run, setting),
            "setting": setting,
            "questionId": q.id,
            "imageId": q.image_id,
            "question": q.question,
            "gold": q.answer,
            "types": q.types,
            "entailed": list(q.entailed),
            "answerable": oracle.answerable,
        }

    def _answer_record(
        self, q: Question, oracle: _Oracle, program: Program, scene: SceneFacts, wrong: Callable[[], dict[str, Any]]
    ) -> dict[str, Any]:
        result = solve(program, scene, top_k=self.config.top_k, limits=self.limits)
        answers = [sanitise_answer(a.answer) for a in result.answers]
        record: dict[str, Any] = {"program": format_flat(program), "answers": answers, "solver": result.status.value}
        if result.status not in (SolveStatus.OK, SolveStatus.NO_ANSWER):
            category = "formulation" if result.status is SolveStatus.INVALID_PROGRAM else "solver"
            record.update(status="failed", correct=False, scores=self.scores([], q.answer))
            record["failure"] = {"category": category, "kind": result.status.value, "message": result.message}
            return record
        record["status"] = "answered" if answers else "no_answer"
        record["scores"] = self.scores(answers, q.answer)
        record["correct"] = bool(record["scores"] and record["scores"]["strict@1"])
        record["failure"] = None if record["correct"] or q.answer is None else wrong()
        return record

    @staticmethod
    def _failure(category: str, kind: str, message: str | None = None) -> dict[str, Any]:
        return {"category": category, "kind": kind, "message": message}

    def _skipped(self, q: Question, kind: str, message: str) -> dict[str, Any]:
        return {"status": "skipped", "answers": [], "correct": False, "scores": None,
                "failure": self._failure("input", kind, message)}  # fmt: skip

    def _dataset(self, oracle: _Oracle) -> dict[str, Any] | None:
        if oracle.answerable is False:
            return self._failure("dataset", oracle.failure or "GoldMismatch", oracle.message)
        return None

    def _oracle(self, q: Question, oracle: _Oracle, components: Components, shared: dict[str, Any]) -> dict[str, Any]:
        if oracle.answerable is None and oracle.answer is None:
            return self._skipped(q, oracle.failure or "MissingSceneGraph", oracle.message or "")
        answers = [oracle.answer] if oracle.answer is not None else []
        scores = self.scores(answers, q.answer)
        correct = bool(scores and scores["strict@1"])
        return {
            "status": "answered" if answers else "failed",
            "answers": answers,
            "scores": scores,
            "correct": correct,
            "failure": None if correct or q.answer is None else self._dataset(oracle),
        }

    def _asp_oracle(self, q: Question, oracle: _Oracle, components: Components, shared: dict[str, Any]) -> dict[str, Any]:
        if self.graph(q) is None:
            return self._skipped(q, "MissingSceneGraph", f"no scene graph for image {q.image_id}")
        try:
            program = self.reference(q)
        except ProgramError as exc:
            return self._failed(q, "formulation", type(exc).__name__, str(exc))
        failure = self._failure("reasoning", "InterpreterDisagrees", f"the interpreter answers {oracle.answer!r}")
        return self._on_true_scene(q, oracle, program, failure)

    def _failed(self, q: Question, category: str, kind: str, message: str | None, **extra: Any) -> dict[str, Any]:
        """The record of a question that got no answer; `extra` fields go after `answers`."""
        return {"status": "failed", "answers": [], **extra, "scores": self.scores([], q.answer), "correct": False,
                "failure": self._failure(category, kind, message)}  # fmt: skip

    def _on_true_scene(self, q: Question, oracle: _Oracle, program: Program, failure: dict[str, Any]) -> dict[str, Any]:
        """Solve on the perfect-information scene; a wrong answer is a dataset error or `failure`."""
        try:
            scene = self.true_scene(q, program)
        except SceneGraphError as exc:
            return self._skipped(q, "InvalidSceneGraph", str(exc))
        return self._answer_record(q, oracle, program, scene, lambda: self._dataset(oracle) or failure)

    def _formulation(self, q: Question, shared: dict[str, Any]) -> dict[str, Any] | None:
        if shared["program"] is None:
            return self._failed(q, "formulation", "NoProgram", shared["translation_error"], program=None)
        return None

    def _isolated(self, q: Question, oracle: _Oracle, components: Components, shared: dict[str, Any]) -> dict[str, Any]:
        if self.graph(q) is None:
            return self._skipped(q, "MissingSceneGraph", f"no scene graph for image {q.image_id}")
        failed = self._formulation(q, shared)
        if failed is not None:
            return failed
        failure = self._failure("translation", "WrongOnTrueScene", "the translated program answers wrongly on the scene graph")
        return self._on_true_scene(q, oracle, shared["program"], failure)

    def _pipeline_common(self, q: Question, oracle: _Oracle, components: Components, shared: dict[str, Any], blind: bool) -> dict[str, Any]:
        image = self.image_path(q)
        if image is None:
            return self._skipped(q, "MissingImage", f"no image for {q.image_id} in {self.config.images}")
        if components.image_scene is None:
            return self._skipped(q, "NoImageModels", "no image scene builder configured")
        failed = self._formulation(q, shared)
        if failed is not None:
            return failed
        program: Program = shared["program"]
        try:
            if blind:
                concepts = concepts_from_program(program, self.taxonomy, self.vocabulary)
            else:
                concepts = concepts_from_gqa(q.semantic, self.taxonomy, self.vocabulary)
        except ProgramError as exc:
            return self._failed(q, "formulation", type(exc).__name__, str(exc))
        try:
            scene = components.image_scene(image, concepts, q.image_id or "")
        except Exception as exc:  # one unreadable image fails its question, not the job
            return self._failed(q, "perception", type(exc).__name__, str(exc), program=format_flat(program))

        def wrong() -> dict[str, Any]:
            dataset = self._dataset(oracle)
            if dataset is not None:
                return dataset
            if self.graph(q) is None:
                return self._failure("unattributed", "NoSceneGraph", "no scene graph to separate translation from perception")
            try:
                true_scene = self.true_scene(q, program)
            except SceneGraphError as exc:  # a broken scene graph fails this question, not the job
                return self._failure("unattributed", "InvalidSceneGraph", str(exc))
            true = solve(program, true_scene, top_k=1, limits=self.limits)
            right = bool(true.answers) and self.matcher.matches(true.answers[0].answer, q.answer or "")
            if right:
                return self._failure("perception", "WrongOnImageScene", "right on the scene graph, wrong on the image")
            return self._failure("translation", "WrongOnTrueScene", "the translated program answers wrongly on the scene graph")

        return self._answer_record(q, oracle, program, scene, wrong)

    def _pipeline(self, q: Question, oracle: _Oracle, components: Components, shared: dict[str, Any]) -> dict[str, Any]:
        return self._pipeline_common(q, oracle, components, shared, blind=False)

    def _pipeline_blind(self, q: Question, oracle: _Oracle, components: Components, shared: dict[str, Any]) -> dict[str, Any]:
        return self._pipeline_common(q, oracle, components, shared, blind=True)

    def _translation(self, q: Question, oracle: _Oracle, components: Components, shared: dict[str, Any]) -> dict[str, Any]:
        try:
            reference = self.reference(q)
        except ProgramError as exc:
            return {"status": "failed", "answers": [], "program": None, "reference": None, "scores": None,
                    "correct": False, "failure": self._failure("dataset", type(exc).__name__, str(exc))}  # fmt: skip
        failed = self._formulation(q, shared)
        if failed is not None:
            failed.update(reference=format_flat(reference), scores={"canonical": False, "semantic": False})
            return failed
        program: Program = shared["program"]
        # `equivalent` compares canonical forms first and says so.
        verdict = equivalent(program, reference, scenes=self.config.equivalence_scenes)
        canonical = verdict.same_canonical
        record: dict[str, Any] = {
            "status": "translated",
            "answers": [],
            "program": format_flat(program),
            "reference": format_flat(reference),
            "scores": {"canonical": canonical, "semantic": verdict.equivalent},
            "correct": verdict.equivalent,
            "failure": None,
        }
        if not verdict.equivalent:
            record["failure"] = self._failure("translation", "NotEquivalent", verdict.message)
        return record


# -- the job -----------------------------------------------------------------------------------


class Executor(Protocol):
    """Runs tasks on an evaluator and yields each task's records as it completes."""

    def run(self, evaluator: Evaluator, tasks: Sequence[Task]) -> Iterator[list[dict[str, Any]]]: ...


def result_key(record: Mapping[str, Any]) -> tuple[str, str, str]:
    """What identifies a result: (run, setting, questionId)."""
    return (str(record.get("run", "default")), str(record["setting"]), str(record["questionId"]))


def read_results(path: Path, repair: bool = True) -> list[dict[str, Any]]:
    """The complete records of a results file; with `repair`, a torn last line (a killed write) is cut off.

    Readers that do not own the file (a report written while a job runs) pass ``repair=False``.
    """
    if not path.is_file():
        return []
    data = path.read_bytes()
    records: list[dict[str, Any]] = []
    good = 0
    offset = 0
    for line in data.splitlines(keepends=True):
        offset += len(line)
        if not line.endswith(b"\n"):
            break
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            break
        if isinstance(record, dict) and "setting" in record and "questionId" in record:
            records.append(record)
        good = offset
    if repair and good < len(data):
        with path.open("r+b") as handle:
            handle.truncate(good)
    return records


def validate_settings(settings: Iterable[str]) -> tuple[str, ...]:
    """The settings, checked and de-duplicated in order."""
    chosen = tuple(dict.fromkeys(s.strip() for s in settings if s.strip()))
    unknown = [s for s in chosen if s not in SETTINGS]
    if unknown:
        raise JobError(f"unknown setting(s) {', '.join(unknown)}; use {', '.join(SETTINGS)}")
    if not chosen:
        raise JobError(f"no settings given; use {', '.join(SETTINGS)}")
    return chosen


def plan(
    questions: Sequence[Question], runs: Sequence[Run], settings: Sequence[str], done: set[tuple[str, str, str]]
) -> list[Task]:
    """The tasks still to do: per run and question, the settings without a result yet. Settings
    that read no translation (oracle, asp-oracle) are done once, under the run name ``reference``."""
    tasks = []
    for index, run in enumerate(runs):
        for question in questions:
            pending = tuple(
                s
                for s in settings
                if (s in TRANSLATED or index == 0) and (record_run(run, s), s, question.id) not in done
            )
            if pending:
                tasks.append(Task(run, question, pending))
    return tasks


def record_run(run: Run, setting: str) -> str:
    """The run name a setting's records carry: ``reference`` for settings independent of the run."""
    return run.name if setting in TRANSLATED else REFERENCE_RUN


@dataclass
class JobSummary:
    """What a job did."""

    tasks: int
    written: int
    skipped_done: int
    seconds: float
    results: Path


def run_job(
    questions: Sequence[Question],
    runs: Sequence[Run],
    settings: Sequence[str],
    evaluator: Evaluator,
    executor: Executor,
    out_dir: str | Path,
    manifest: Mapping[str, Any] | None = None,
) -> JobSummary:
    """Evaluate every pending (run, setting, question), appending each record as it completes."""
    settings = validate_settings(settings)
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise JobError(f"run names must differ: {names}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = out / RESULTS_FILE
    done = {result_key(r) for r in read_results(results)}
    tasks = plan(questions, runs, settings, done)
    _write_manifest(out / MANIFEST_FILE, runs, settings, manifest or {})
    start = time.perf_counter()
    written = 0
    with results.open("a", encoding="utf-8") as handle:
        for records in executor.run(evaluator, tasks):
            for record in records:
                key = result_key(record)
                if key in done:  # a task's records are unique, but a retried task must not repeat one
                    continue
                done.add(key)
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                written += 1
            handle.flush()
    translated = sum(1 for s in settings if s in TRANSLATED)
    total = len(questions) * (len(runs) * translated + len(settings) - translated)
    return JobSummary(len(tasks), written, total - sum(len(t.settings) for t in tasks), time.perf_counter() - start, results)


def _write_manifest(path: Path, runs: Sequence[Run], settings: Sequence[str], extra: Mapping[str, Any]) -> None:
    # Runs accumulate: a later invocation with other runs keeps the earlier runs' parameters.
    previous: dict[str, Any] = {}
    if path.is_file():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            previous = {}
    known = dict(previous.get("runs", {}))
    known.update({r.name: r.translation for r in runs})
    manifest = dict(previous) | dict(extra)
    manifest["runs"] = known
    manifest["settings"] = list(dict.fromkeys(list(previous.get("settings", [])) + list(settings)))
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
