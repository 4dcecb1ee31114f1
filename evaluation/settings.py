"""The evaluation settings: a registry of name -> one function from a `Case` to an `SettingOutcome`.

- ``oracle``: the GQA interpreter on the question's GQA program and scene graph (the answerability
  filter: a question counts as answerable when the interpreter reproduces the gold answer);
- ``asp-oracle``: the GQA program converted to ASP (`gqa_to_program`), solved on the
  perfect-information scene of the scene graph;
- ``isolated``: the translated program on the perfect-information scene;
- ``base-pipeline``: the GQA program itself (converted to ASP) on the weighted scene read from the
  image with its own concepts: perception alone, the base of the thesis' Table 10;
- ``pipeline`` / ``pipeline-blind``: the translated program on the weighted scene read from the
  image, the detector asked for the GQA program's concepts (oracle) or the translated program's
  (blind);
- ``translation``: the translated program against the converted GQA program, canonically equal
  and equivalent on generated scenes (`theory.equivalence`); needs no scene graph. A question
  without a GQA program (GQA's test files) gets its translation recorded without scores.

Settings that read the GQA program (`Setting.needs_program`) skip questions that have none.

A wrong or missing answer gets a failure category (`evaluation.records.FailureCategory`).
Adding a setting is one function here and one line in `SETTINGS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evaluation.context import NO_PROGRAM, Case, OracleVerdict
from evaluation.oracle import concepts_from_gqa
from evaluation.records import Failure, FailureCategory, SettingOutcome
from evaluation.runs import REFERENCE_RUN, Run
from scene.concepts import Concepts, concepts_from_program
from scene.scene_graph import SceneGraphError
from theory.equivalence import equivalent
from theory.flat import format_flat
from theory.program import Program, ProgramError
from theory.scene_facts import SceneFacts
from theory.solver import solve


@dataclass(frozen=True)
class Setting:
    """One way of answering a question, and what it needs."""

    compute: Callable[[Case], SettingOutcome]
    translated: bool = False  # reads the run's translation (so one result per run, not per job)
    needs_graph: bool = False
    needs_image: bool = False
    needs_program: bool = False  # reads the question's GQA program


# -- shared steps ----------------------------------------------------------------------------


def skipped(kind: str, message: str) -> SettingOutcome:
    """A question the setting cannot try: its scene graph or image is missing."""
    return SettingOutcome("skipped", failure=Failure("input", kind, message))


def failed(
    case: Case, category: FailureCategory, kind: str, message: str | None, program: str | None = None
) -> SettingOutcome:
    """A question that got no answer."""
    scores = case.context.scores([], case.question.answer)
    return SettingOutcome("failed", scores=scores, failure=Failure(category, kind, message), program=program)


def dataset_failure(verdict: OracleVerdict) -> Failure | None:
    """The dataset's fault when the interpreter cannot reproduce the gold answer."""
    if verdict.answerable is False:
        return Failure("dataset", verdict.failure or "GoldMismatch", verdict.message)
    return None


def no_graph(case: Case) -> SettingOutcome:
    return skipped("MissingSceneGraph", f"no scene graph for image {case.question.image_id}")


def on_true_scene(case: Case, program: Program, failure: Failure) -> SettingOutcome:
    """Solve on the perfect-information scene; a wrong answer is a dataset error or `failure`."""
    try:
        scene = case.context.true_scene(case.question, program)
    except SceneGraphError as exc:
        return skipped("InvalidSceneGraph", str(exc))
    return case.context.answer(case.question, program, scene, lambda: dataset_failure(case.verdict) or failure)


WRONG_ON_TRUE_SCENE = Failure(
    "translation", "WrongOnTrueScene", "the translated program answers wrongly on the scene graph"
)


# -- the settings ----------------------------------------------------------------------------


def oracle(case: Case) -> SettingOutcome:
    verdict, gold = case.verdict, case.question.answer
    if verdict.answerable is None and verdict.answer is None:
        return skipped(verdict.failure or "MissingSceneGraph", verdict.message or "")
    answers = [verdict.answer] if verdict.answer is not None else []
    scores = case.context.scores(answers, gold)
    correct = bool(scores and scores["strict@1"])
    failure = None if correct or gold is None else dataset_failure(verdict)
    return SettingOutcome("answered" if answers else "failed", answers, scores, correct, failure)


def asp_oracle(case: Case) -> SettingOutcome:
    if case.context.graph(case.question) is None:
        return no_graph(case)
    try:
        program = case.context.reference(case.question)
    except ProgramError as exc:
        return failed(case, "formulation", type(exc).__name__, str(exc))
    failure = Failure("reasoning", "InterpreterDisagrees", f"the interpreter answers {case.verdict.answer!r}")
    return on_true_scene(case, program, failure)


def isolated(case: Case) -> SettingOutcome:
    if case.context.graph(case.question) is None:
        return no_graph(case)
    if case.program is None:
        return failed(case, "formulation", "NoProgram", case.translation_error)
    return on_true_scene(case, case.program, WRONG_ON_TRUE_SCENE)


def _image_missing(case: Case) -> SettingOutcome | None:
    """Why the question's image cannot be read (no image file, no image models), else None."""
    q, context = case.question, case.context
    if context.image_path(q) is None:
        return skipped("MissingImage", f"no image for {q.image_id} in {context.config.images}")
    if case.parts.image_scene is None:
        return skipped("NoImageModels", "no image scene builder configured")
    return None


def _image_scene(case: Case, concepts_of: Callable[[], Concepts], program: Program) -> SceneFacts | SettingOutcome:
    """The weighted scene read from the question's image for the concepts `concepts_of` gives, or
    the outcome that says why there is none (call `_image_missing` first)."""
    q, image, build = case.question, case.context.image_path(case.question), case.parts.image_scene
    assert image is not None and build is not None, "checked by _image_missing"
    try:
        concepts = concepts_of()
    except ProgramError as exc:
        return failed(case, "formulation", type(exc).__name__, str(exc))
    try:
        return build(image, concepts, q.image_id or "")
    except Exception as exc:  # noqa: BLE001 - one unreadable image fails its question, not the job
        return failed(case, "perception", type(exc).__name__, str(exc), program=format_flat(program))


def _on_image(case: Case, blind: bool) -> SettingOutcome:
    q, context = case.question, case.context
    missing = _image_missing(case)
    if missing is not None:
        return missing
    program = case.program
    if program is None:
        return failed(case, "formulation", "NoProgram", case.translation_error)

    def concepts() -> Concepts:
        if blind:
            return concepts_from_program(program, context.taxonomy, context.vocabulary)
        return concepts_from_gqa(q.semantic, context.taxonomy, context.vocabulary)

    scene = _image_scene(case, concepts, program)
    if isinstance(scene, SettingOutcome):
        return scene

    def wrong() -> Failure:
        dataset = dataset_failure(case.verdict)
        if dataset is not None:
            return dataset
        if context.graph(q) is None:
            return Failure("unattributed", "NoSceneGraph", "no scene graph to separate translation from perception")
        try:
            true_scene = context.true_scene(q, program)
        except SceneGraphError as exc:  # a broken scene graph fails this question, not the job
            return Failure("unattributed", "InvalidSceneGraph", str(exc))
        true = solve(program, true_scene, top_k=1, limits=context.limits)
        if true.answers and context.matcher.matches(true.answers[0].answer, q.answer or ""):
            return Failure("perception", "WrongOnImageScene", "right on the scene graph, wrong on the image")
        return WRONG_ON_TRUE_SCENE

    return context.answer(q, program, scene, wrong)


def base_pipeline(case: Case) -> SettingOutcome:
    q, context = case.question, case.context
    missing = _image_missing(case)
    if missing is not None:
        return missing
    try:
        program = context.reference(q)
    except ProgramError as exc:
        return failed(case, "dataset", type(exc).__name__, str(exc))
    scene = _image_scene(case, lambda: concepts_from_gqa(q.semantic, context.taxonomy, context.vocabulary), program)
    if isinstance(scene, SettingOutcome):
        return scene

    def wrong() -> Failure:
        return dataset_failure(case.verdict) or Failure(
            "perception", "WrongOnImageScene", "the GQA program answers wrongly on the image's scene"
        )

    return context.answer(q, program, scene, wrong)


def pipeline(case: Case) -> SettingOutcome:
    return _on_image(case, blind=False)


def pipeline_blind(case: Case) -> SettingOutcome:
    return _on_image(case, blind=True)


def translation(case: Case) -> SettingOutcome:
    if not case.question.has_program:  # translation only: nothing to compare with
        if case.program is None:
            return SettingOutcome("failed", failure=Failure("formulation", "NoProgram", case.translation_error))
        return SettingOutcome("translated", program=format_flat(case.program))
    try:
        reference = case.context.reference(case.question)
    except ProgramError as exc:
        return SettingOutcome("failed", failure=Failure("dataset", type(exc).__name__, str(exc)))
    if case.program is None:
        failure = Failure("formulation", "NoProgram", case.translation_error)
        scores = {"canonical": False, "semantic": False}
        return SettingOutcome("failed", scores=scores, failure=failure, reference=format_flat(reference))
    # `equivalent` compares canonical forms first and says so.
    verdict = equivalent(case.program, reference, scenes=case.context.config.equivalence_scenes)
    mismatch = None if verdict.equivalent else Failure("translation", "NotEquivalent", verdict.message)
    scores = {"canonical": verdict.same_canonical, "semantic": verdict.equivalent}
    program, shown_reference = format_flat(case.program), format_flat(reference)
    return SettingOutcome(
        "translated", [], scores, verdict.equivalent, mismatch, program=program, reference=shown_reference
    )


def always_yes(case: Case) -> SettingOutcome:
    """A floor for the tables: "yes" to every yes/no question, no answer otherwise (reads no scene)."""
    answers = ["yes"] if case.question.types.get("structural") in ("verify", "logical") else []
    scores = case.context.scores(answers, case.question.answer)
    correct = bool(scores and scores["strict@1"])
    return SettingOutcome("answered" if answers else "no_answer", answers, scores, correct)


SETTINGS: dict[str, Setting] = {
    "oracle": Setting(oracle, needs_graph=True, needs_program=True),
    "asp-oracle": Setting(asp_oracle, needs_graph=True, needs_program=True),
    "isolated": Setting(isolated, translated=True, needs_graph=True),
    "base-pipeline": Setting(base_pipeline, needs_image=True, needs_program=True),
    "pipeline": Setting(pipeline, translated=True, needs_image=True, needs_program=True),
    "pipeline-blind": Setting(pipeline_blind, translated=True, needs_image=True),
    "translation": Setting(translation, translated=True),
    "always-yes": Setting(always_yes),
}
TRANSLATED = frozenset(name for name, s in SETTINGS.items() if s.translated)
NEEDS_GRAPH = frozenset(name for name, s in SETTINGS.items() if s.needs_graph)
NEEDS_IMAGE = frozenset(name for name, s in SETTINGS.items() if s.needs_image)
NEEDS_PROGRAM = frozenset(name for name, s in SETTINGS.items() if s.needs_program)


def no_program(case: Case) -> SettingOutcome:
    """What a setting that reads the GQA program records for a question without one."""
    return skipped("NoProgram", NO_PROGRAM)


def record_run(run: Run, setting: str) -> str:
    """The run name a setting's records carry: ``reference`` for settings independent of the run."""
    return run.name if SETTINGS[setting].translated else REFERENCE_RUN
