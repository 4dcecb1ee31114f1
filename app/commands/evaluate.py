"""`aspvqa evaluate`: the offline GQA evaluation job, resumable, on local cores or a Ray cluster.

The job (`evaluation.job`) gets its translator and image scene builder from `app.components`,
built from `Settings` (defaults, ASPVQA_CONFIG file, ASPVQA_* variables, then these options) once
in each worker process. Questions and scene graphs are read incrementally; the workers and their
threads are planned from the machine (`evaluation.workers`); the manifest records what a rerun
needs (`evaluation.provenance`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypedDict

import typer
from pydantic import JsonValue

from app.commands.io import fail, read_input
from app.components import Components, bundled_calibration_path
from app.config import ConfigError, Settings, load_settings
from app.errors import PipelineError
from evaluation.graph_index import open_scene_graphs
from evaluation.job import (
    NEEDS_GRAPH,
    NEEDS_IMAGE,
    SETTINGS,
    TRANSLATED,
    Evaluator,
    EvaluatorConfig,
    JobError,
    JobManifest,
    JobSummary,
    Question,
    QuestionFile,
    Run,
    RunParts,
    load_questions,
    record_run,
    run_job,
    run_name,
    validate_settings,
)
from evaluation.matching import DEFAULT_HYPERNYM_LEVELS
from evaluation.provenance import job_footprint, job_provenance
from evaluation.submission import export_submission as export_submission_file
from evaluation.workers import WorkerPlan, apply_threads, plan_workers, this_machine
from scene.concepts import Concepts
from theory.scene_facts import SceneFacts
from translators.model.threads import threads_setting
from translators.options import OPTION_NAMES
from trust.calibration import Calibration, CalibrationError

if TYPE_CHECKING:
    from evaluation.grids import Grid


class _PartsRecipe(TypedDict):
    """What of `SettingsParts` travels to a worker process."""

    settings: dict[str, JsonValue]
    record: str | None


@dataclass(frozen=True)
class SettingsParts:
    """A run's translator and image scene builder from `app.components`; the recipe that travels to
    worker processes is the settings (plain data) and the recording file."""

    settings: dict[str, JsonValue]
    record: str | None = None
    _built: dict[str, Components] = field(default_factory=dict, compare=False, repr=False)

    def __getstate__(self) -> _PartsRecipe:
        return {"settings": self.settings, "record": self.record}

    def __setstate__(self, state: _PartsRecipe) -> None:
        object.__setattr__(self, "settings", state["settings"])
        object.__setattr__(self, "record", state["record"])
        object.__setattr__(self, "_built", {})

    def components(self) -> Components:
        """The worker's parts, built once per process."""
        if "components" not in self._built:
            # Through __init__, not model_validate: BaseSettings reads its sources there, as in the parent.
            settings = Settings(**self.settings)  # type: ignore[arg-type]  # JSON values of Settings' own dump
            self._built["components"] = Components(settings)
        return self._built["components"]

    def translation_parameters(self) -> dict[str, JsonValue]:
        """The translation parameters the settings give (what a grid run overrides)."""
        options = self.components().translation_settings()
        parameters: dict[str, JsonValue] = options.model_dump(mode="json", include={*OPTION_NAMES, "llm"})
        return parameters

    def __call__(self, run: Run, settings: Sequence[str]) -> RunParts:
        components = self.components()
        parts = RunParts()
        if TRANSLATED & set(settings):
            options = components.translation_settings(run.translation)
            parts.translate = components.translator(options, record=self.record).translate
        if NEEDS_IMAGE & set(settings):
            builder = components.image_scene_builder

            def image_scene(path: Path, concepts: Concepts, image_id: str) -> SceneFacts:
                return builder.build(path, concepts, image_id).scene

            parts.image_scene = image_scene
        return parts


@dataclass(frozen=True)
class JobInputs:
    """The input files and folders the command line names (None: not given)."""

    questions: str
    scene_graphs: str | None
    images: str | None
    taxonomy: str | None
    choices: str | None


@dataclass(frozen=True)
class JobChoice:
    """What the options resolve to: the questions, the grid (if any), its runs and the settings."""

    source: list[Question] | QuestionFile
    grid: Grid | None
    runs: list[Run]
    settings: tuple[str, ...]

    @property
    def translated(self) -> bool:
        """Whether a setting reads the run's translation (so models and a calibration may be needed)."""
        return bool(TRANSLATED & set(self.settings))

    @property
    def needs_images(self) -> bool:
        """Whether a setting reads the question's image."""
        return bool(NEEDS_IMAGE & set(self.settings))


def _existing_file(path: str | None, what: str) -> str | None:
    if path is not None and not Path(path).is_file():
        fail(f"{what} file not found: {path}")
    return path


def _existing_dir(path: str | None, what: str) -> str | None:
    if path is not None and not Path(path).is_dir():
        fail(f"{what} folder not found: {path}")
    return path


def _check_options(inputs: JobInputs, executor: str, record: str | None, workers: int | None) -> None:
    """Fail in one line on an unknown executor, a missing input or a recording with several workers."""
    if executor not in ("local", "ray"):
        fail(f"unknown executor {executor!r}; use local or ray")
    _existing_file(inputs.scene_graphs, "scene graphs")
    _existing_file(inputs.choices, "choices")
    _existing_dir(inputs.images, "images")
    _existing_dir(inputs.taxonomy, "taxonomy")
    if record and (executor != "local" or workers != 1):
        fail("--record needs --executor local --workers 1 (one process writes the recording)")


def _load_config(llm: str | None, taxonomy: str | None) -> Settings:
    try:
        return load_settings(llm=llm, taxonomy_dir=taxonomy)
    except ConfigError as exc:
        fail(str(exc))


def _question_source(questions: str, limit: int | None) -> list[Question] | QuestionFile:
    """The questions from standard input (``-``, read whole) or a file (streamed)."""
    if questions == "-":
        try:
            return load_questions(json.loads(read_input(questions, "questions")))[:limit]
        except json.JSONDecodeError as exc:
            fail(f"questions file is not JSON: {exc}")
    if not Path(questions).is_file():
        fail(f"questions file not found: {questions}")
    return QuestionFile(Path(questions), limit)


def _choose_job(
    factory: SettingsParts, questions: str, limit: int | None, grid: str | None, settings: str | None
) -> JobChoice:
    """The questions, runs and settings the options name; a bad grid or setting fails in one line."""
    from evaluation.grids import GridError, load_grid

    try:
        source = _question_source(questions, limit)
        chosen = load_grid(grid) if grid else None
        names = settings.split(",") if settings else (chosen.settings if chosen else [])
        chosen_settings = validate_settings(names)
        base = factory.translation_parameters()
        runs = chosen.expand(base) if chosen is not None else [Run(run_name(base), base)]
    except (GridError, JobError) as exc:
        fail(str(exc))
    return JobChoice(source, chosen, runs, chosen_settings)


def _check_settings_inputs(job: JobChoice, inputs: JobInputs, submission_setting: str | None) -> None:
    """Fail in one line when a setting lacks the images or scene graphs it reads."""
    if job.needs_images and inputs.images is None:
        fail(f"settings {', '.join(s for s in job.settings if s in NEEDS_IMAGE)} need --images")
    if NEEDS_GRAPH & set(job.settings) and inputs.scene_graphs is None:
        fail(f"settings {', '.join(s for s in job.settings if s in NEEDS_GRAPH)} need --scene-graphs")
    if submission_setting is not None and submission_setting not in job.settings:
        fail(f"--submission-setting {submission_setting} is not one of the job's settings")


def _load_models(factory: SettingsParts, job: JobChoice) -> None:
    """Build the parts once here so a missing model fails now, in one line, not in every worker."""
    if not (job.translated or job.needs_images):
        return
    try:
        factory(job.runs[0], job.settings)
    except Exception as exc:  # loaders raise their own types; each message names the fix
        fail(f"cannot load the models for {', '.join(job.settings)}: {exc}")


@dataclass(frozen=True)
class WorkerPlanInfo:
    """How the job runs: the worker plan and executor, and the options the manifest records with it."""

    worker_plan: WorkerPlan
    executor: str
    levels: int
    limit: int | None


def _manifest(
    factory: SettingsParts,
    job: JobChoice,
    inputs: JobInputs,
    plan: WorkerPlanInfo,
    calibration: str | None,
    progress: bool,
) -> JobManifest:
    """What the manifest records of this invocation (the scene graphs indexed first, with progress)."""
    try:
        if inputs.scene_graphs is not None:  # indexed once here, with progress, before the workers start
            open_scene_graphs(inputs.scene_graphs, "indexing scene graphs" if progress else None)
        files = {
            "questions": None if inputs.questions == "-" else inputs.questions,
            "scene_graphs": inputs.scene_graphs,
            "taxonomy": inputs.taxonomy,
        }
        provenance = job_provenance(factory.components(), job.runs, job.translated, files, calibration)
    except JobError as exc:
        fail(str(exc))
    manifest: JobManifest = {
        "questions": str(inputs.questions),
        "scene_graphs": inputs.scene_graphs,
        "images": inputs.images,
        "taxonomy": inputs.taxonomy,
        "grid": job.grid.name if job.grid else None,
        "hypernym_levels": plan.levels,
        "limit": plan.limit,
        "worker_plan": plan.worker_plan.to_json() | {"executor": plan.executor},
        **provenance,
    }
    return manifest


def _run(
    job: JobChoice,
    evaluator: Evaluator,
    plan: WorkerPlanInfo,
    ray_address: str | None,
    progress: bool,
    out: Path,
    manifest: JobManifest,
) -> JobSummary:
    """Run the job; a failure keeps the finished results and says how to resume."""
    from evaluation.executors import make_executor

    workers, threads = plan.worker_plan.workers, plan.worker_plan.threads
    try:
        executor = make_executor(plan.executor, workers, ray_address, progress, threads)
        return run_job(job.source, job.runs, job.settings, evaluator, executor, out, manifest)
    except (JobError, OSError, RuntimeError) as exc:
        fail(str(exc))
    except Exception as exc:  # a worker's crash: finished results are on disk, a rerun resumes
        fail(f"the job stopped ({type(exc).__name__}: {exc}); finished results are kept in {out}, rerun to resume")


def _after_job(
    summary: JobSummary,
    job: JobChoice,
    out: Path,
    export_submission: Path | None,
    submission_setting: str | None,
    report: bool,
    choices: str | None,
) -> None:
    """Say what the job did, then export the submission and write the report when asked."""
    retry = f", {summary.retryable} to retry (rerun to resume)" if summary.retryable else ""
    typer.echo(
        f"{summary.written} results written, {summary.skipped_done} already done, "
        f"{summary.tasks} tasks in {summary.seconds:.1f} s{retry} -> {summary.results}"
    )
    if export_submission is not None:
        settings = job.settings
        setting = submission_setting or next((s for s in settings if s != "translation"), settings[0])
        exported = export_submission_file(summary.results, export_submission, setting, record_run(job.runs[0], setting))
        typer.echo(
            f"submission: {exported.questions} predictions ({exported.unanswered} empty) "
            f"from {setting} -> {exported.path}"
        )
    if report:
        from evaluation.report import write_report

        paths = write_report(out, choices=choices)
        typer.echo(f"report: {', '.join(str(p) for p in paths)}")


QuestionsOption = Annotated[str, typer.Option("--questions", "-q", help="GQA questions JSON file.")]
OutOption = Annotated[Path, typer.Option("--out", "-o", help="Output folder: results.jsonl, job.json, the report.")]
SettingsOption = Annotated[
    str | None, typer.Option("--settings", "-s", help=f"Comma-separated settings: {', '.join(SETTINGS)}.")
]
SceneGraphsOption = Annotated[str | None, typer.Option("--scene-graphs", "-g", help="GQA scene graphs JSON file.")]
ImagesOption = Annotated[str | None, typer.Option("--images", help="Folder of images named <imageId>.jpg.")]
TaxonomyOption = Annotated[
    str | None, typer.Option("--taxonomy", "-t", help="Folder with gqa_all_class.json / gqa_all_attribute.json.")
]
GridOption = Annotated[
    str | None, typer.Option("--grid", help="Experiment grid file (TOML or JSON) or a bundled grid name.")
]
ExecutorOption = Annotated[str, typer.Option("--executor", help="local (process pool) or ray.")]
WorkersOption = Annotated[
    int | None,
    typer.Option("--workers", "-w", min=1, help="Worker processes (default: planned from cores and memory)."),
]
ThreadsOption = Annotated[
    int | None,
    typer.Option(
        "--threads", min=1, help="Threads per worker for the models (default: planned; ASPVQA_THREADS if set)."
    ),
]
RayAddressOption = Annotated[
    str | None, typer.Option("--ray-address", help="Ray cluster address (default: start a local one).")
]
LlmOption = Annotated[str | None, typer.Option("--llm", help="Language model (see ASPVQA_LLM).")]
LimitOption = Annotated[int | None, typer.Option("--limit", min=0, help="Only the first N questions.")]
LevelsOption = Annotated[int, typer.Option("--levels", min=0, help="Hypernym levels of generous+ matching.")]
ChoicesOption = Annotated[str | None, typer.Option("--choices", help="GQA choices file (validity, plausibility).")]
RecordOption = Annotated[
    str | None, typer.Option("--record", help="Save the model outputs to a replay file (one worker).")
]
ReportOption = Annotated[bool, typer.Option("--report/--no-report", help="Write the report when the job ends.")]
ProgressOption = Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar on stderr.")]
ExportOption = Annotated[
    Path | None,
    typer.Option("--export-submission", help="Write GQA's submission file [{questionId, prediction}] here."),
]
SubmissionSettingOption = Annotated[
    str | None,
    typer.Option("--submission-setting", help="The setting whose answers are submitted (default: the first)."),
]


def evaluate_command(
    questions: QuestionsOption,
    out: OutOption,
    settings: SettingsOption = None,
    scene_graphs: SceneGraphsOption = None,
    images: ImagesOption = None,
    taxonomy: TaxonomyOption = None,
    grid: GridOption = None,
    executor: ExecutorOption = "local",
    workers: WorkersOption = None,
    threads: ThreadsOption = None,
    ray_address: RayAddressOption = None,
    llm: LlmOption = None,
    limit: LimitOption = None,
    levels: LevelsOption = DEFAULT_HYPERNYM_LEVELS,
    choices: ChoicesOption = None,
    record: RecordOption = None,
    report: ReportOption = True,
    progress: ProgressOption = True,
    export_submission: ExportOption = None,
    submission_setting: SubmissionSettingOption = None,
) -> None:
    """Evaluate GQA questions under the chosen settings; rerun the same command to resume."""
    inputs = JobInputs(questions, scene_graphs, images, taxonomy, choices)
    _check_options(inputs, executor, record, workers)
    config = _load_config(llm, taxonomy)
    factory = SettingsParts(config.model_dump(mode="json"), record)
    job = _choose_job(factory, questions, limit, grid, settings)
    _check_settings_inputs(job, inputs, submission_setting)
    worker_plan = _plan(factory, job.runs, job.translated, job.needs_images, workers, threads)
    apply_threads(worker_plan.threads)  # before any model is built, here or in a worker
    if progress:
        typer.echo(f"worker plan: {worker_plan.describe()}", err=True)
    _load_models(factory, job)
    calibration = _calibration_for(factory, job.runs, config.calibration) if job.translated else None
    plan = WorkerPlanInfo(worker_plan, executor, levels, limit)
    manifest = _manifest(factory, job, inputs, plan, calibration, progress)
    config_of_job = EvaluatorConfig(
        scene_graphs=scene_graphs, images=images, taxonomy=taxonomy, hypernym_levels=levels, calibration=calibration
    )
    summary = _run(job, Evaluator(config_of_job, factory), plan, ray_address, progress, out, manifest)
    _after_job(summary, job, out, export_submission, submission_setting, report, choices)


def _calibration_for(factory: SettingsParts, runs: Sequence[Run], setting: str | None) -> str | None:
    """The calibration file the records' abstentions come from: none when off; the bundled one when it
    holds for every run's settings, else none (as the service, which then does not abstain); a
    configured file must hold, or the job fails in one line."""
    if setting in (None, "", "off"):
        return None
    if setting == "bundled":
        components = factory.components()
        try:
            bundled = Calibration.load(bundled_calibration_path())
            for run in runs:
                bundled.check_settings(components.confidence_settings(components.translation_settings(run.translation)))
        except CalibrationError:
            return None
        return str(bundled_calibration_path())
    _check_calibration(factory, runs)
    return setting


def _check_calibration(factory: SettingsParts, runs: Sequence[Run]) -> None:
    """Fail in one line when the configured calibration does not hold for a run's settings."""
    components = factory.components()
    try:
        calibration = components.calibration
        for run in runs:
            if calibration is not None:
                calibration.check_settings(
                    components.confidence_settings(components.translation_settings(run.translation))
                )
    except PipelineError as exc:
        fail(str(exc))
    except CalibrationError as exc:
        fail(f"run {run.name}: {exc}")


def _plan(
    factory: SettingsParts,
    runs: Sequence[Run],
    translated: bool,
    images: bool,
    workers: int | None,
    threads: int | None,
) -> WorkerPlan:
    """The worker plan for this job on this machine; --threads, else ASPVQA_THREADS, wins."""
    components = factory.components()
    footprint = job_footprint(components, runs, translated, images)
    # The GPU count imports torch: asked only when a model would use it.
    gpus = int(components.device.to_json()["gpus"]) if footprint.uses_model else 0
    if threads is None:
        threads = threads_setting()
    return plan_workers(this_machine(gpus), footprint, workers, threads)
