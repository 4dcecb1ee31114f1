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
from typing import Annotated, Any

import typer

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
from translators.options import OPTION_NAMES
from translators.threads import threads_setting
from trust.calibration import Calibration, CalibrationError


@dataclass(frozen=True)
class SettingsParts:
    """A run's translator and image scene builder from `app.components`; the recipe that travels to
    worker processes is the settings (plain data) and the recording file."""

    settings: dict[str, Any]
    record: str | None = None
    _built: dict[str, Components] = field(default_factory=dict, compare=False, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        return {"settings": self.settings, "record": self.record}

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "settings", state["settings"])
        object.__setattr__(self, "record", state["record"])
        object.__setattr__(self, "_built", {})

    def components(self) -> Components:
        """The worker's parts, built once per process."""
        if "components" not in self._built:
            self._built["components"] = Components(Settings(**self.settings))
        return self._built["components"]

    def translation_parameters(self) -> dict[str, Any]:
        """The translation parameters the settings give (what a grid run overrides)."""
        options = self.components().translation_settings()
        return options.model_dump(mode="json", include={*OPTION_NAMES, "llm"})

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


def _existing_file(path: str | None, what: str) -> str | None:
    if path is not None and not Path(path).is_file():
        fail(f"{what} file not found: {path}")
    return path


def _existing_dir(path: str | None, what: str) -> str | None:
    if path is not None and not Path(path).is_dir():
        fail(f"{what} folder not found: {path}")
    return path


def evaluate_command(
    questions: Annotated[str, typer.Option("--questions", "-q", help="GQA questions JSON file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder: results.jsonl, job.json, the report.")],
    settings: Annotated[
        str | None, typer.Option("--settings", "-s", help=f"Comma-separated settings: {', '.join(SETTINGS)}.")
    ] = None,
    scene_graphs: Annotated[
        str | None, typer.Option("--scene-graphs", "-g", help="GQA scene graphs JSON file.")
    ] = None,
    images: Annotated[str | None, typer.Option("--images", help="Folder of images named <imageId>.jpg.")] = None,
    taxonomy: Annotated[
        str | None, typer.Option("--taxonomy", "-t", help="Folder with gqa_all_class.json / gqa_all_attribute.json.")
    ] = None,
    grid: Annotated[
        str | None, typer.Option("--grid", help="Experiment grid file (TOML or JSON) or a bundled grid name.")
    ] = None,
    executor: Annotated[str, typer.Option("--executor", help="local (process pool) or ray.")] = "local",
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", min=1, help="Worker processes (default: planned from cores and memory)."),
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads", min=1, help="Threads per worker for the models (default: planned; ASPVQA_THREADS if set)."
        ),
    ] = None,
    ray_address: Annotated[
        str | None, typer.Option("--ray-address", help="Ray cluster address (default: start a local one).")
    ] = None,
    llm: Annotated[str | None, typer.Option("--llm", help="Language model (see ASPVQA_LLM).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=0, help="Only the first N questions.")] = None,
    levels: Annotated[
        int, typer.Option("--levels", min=0, help="Hypernym levels of generous+ matching.")
    ] = DEFAULT_HYPERNYM_LEVELS,
    choices: Annotated[str | None, typer.Option("--choices", help="GQA choices file (validity, plausibility).")] = None,
    record: Annotated[
        str | None, typer.Option("--record", help="Save the model outputs to a replay file (one worker).")
    ] = None,
    report: Annotated[bool, typer.Option("--report/--no-report", help="Write the report when the job ends.")] = True,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar on stderr.")] = True,
    export_submission: Annotated[
        Path | None,
        typer.Option("--export-submission", help="Write GQA's submission file [{questionId, prediction}] here."),
    ] = None,
    submission_setting: Annotated[
        str | None,
        typer.Option("--submission-setting", help="The setting whose answers are submitted (default: the first)."),
    ] = None,
) -> None:
    """Evaluate GQA questions under the chosen settings; rerun the same command to resume."""
    from evaluation.executors import make_executor
    from evaluation.grids import GridError, load_grid

    if executor not in ("local", "ray"):
        fail(f"unknown executor {executor!r}; use local or ray")
    _existing_file(scene_graphs, "scene graphs")
    _existing_file(choices, "choices")
    _existing_dir(images, "images")
    _existing_dir(taxonomy, "taxonomy")
    if record and (executor != "local" or workers != 1):
        fail("--record needs --executor local --workers 1 (one process writes the recording)")
    try:
        config = load_settings(llm=llm, taxonomy_dir=taxonomy)
    except ConfigError as exc:
        fail(str(exc))
    factory = SettingsParts(config.model_dump(mode="json"), record)
    source: list[Question] | QuestionFile
    try:
        if questions == "-":
            try:
                source = load_questions(json.loads(read_input(questions, "questions")))[:limit]
            except json.JSONDecodeError as exc:
                fail(f"questions file is not JSON: {exc}")
        else:
            if not Path(questions).is_file():
                fail(f"questions file not found: {questions}")
            source = QuestionFile(Path(questions), limit)
        chosen = load_grid(grid) if grid else None
        runs_settings = settings.split(",") if settings else (chosen.settings if chosen else [])
        chosen_settings = validate_settings(runs_settings)
        base = factory.translation_parameters()
        if chosen is not None:
            runs = chosen.expand(base)
        else:
            runs = [Run(run_name(base), base)]
    except (GridError, JobError) as exc:
        fail(str(exc))
    needs_images = bool(NEEDS_IMAGE & set(chosen_settings))
    translated = bool(TRANSLATED & set(chosen_settings))
    if needs_images and images is None:
        fail(f"settings {', '.join(s for s in chosen_settings if s in NEEDS_IMAGE)} need --images")
    if NEEDS_GRAPH & set(chosen_settings) and scene_graphs is None:
        fail(f"settings {', '.join(s for s in chosen_settings if s in NEEDS_GRAPH)} need --scene-graphs")
    if submission_setting is not None and submission_setting not in chosen_settings:
        fail(f"--submission-setting {submission_setting} is not one of the job's settings")
    worker_plan = _plan(factory, runs, translated, needs_images, workers, threads)
    apply_threads(worker_plan.threads)  # before any model is built, here or in a worker
    if progress:
        typer.echo(f"worker plan: {worker_plan.describe()}", err=True)
    if translated or needs_images:
        # Build the parts once here so a missing model fails now, in one line, not in every worker.
        try:
            factory(runs[0], chosen_settings)
        except Exception as exc:  # loaders raise their own types; each message names the fix
            fail(f"cannot load the models for {', '.join(chosen_settings)}: {exc}")
    calibration = _calibration_for(factory, runs, config.calibration) if translated else None
    try:
        if scene_graphs is not None:  # indexed once here, with progress, before the workers start
            open_scene_graphs(scene_graphs, "indexing scene graphs" if progress else None)
        manifest = {
            "questions": str(questions),
            "scene_graphs": scene_graphs,
            "images": images,
            "taxonomy": taxonomy,
            "grid": chosen.name if chosen else None,
            "hypernym_levels": levels,
            "limit": limit,
            "worker_plan": worker_plan.to_json() | {"executor": executor},
            **job_provenance(
                factory.components(),
                runs,
                translated,
                {
                    "questions": None if questions == "-" else questions,
                    "scene_graphs": scene_graphs,
                    "taxonomy": taxonomy,
                },
                calibration,
            ),
        }
    except JobError as exc:
        fail(str(exc))
    evaluator = Evaluator(
        EvaluatorConfig(
            scene_graphs=scene_graphs,
            images=images,
            taxonomy=taxonomy,
            hypernym_levels=levels,
            calibration=calibration,
        ),
        factory,
    )
    try:
        run = make_executor(executor, worker_plan.workers, ray_address, progress, worker_plan.threads)
        summary = run_job(source, runs, chosen_settings, evaluator, run, out, manifest)
    except (JobError, OSError, RuntimeError) as exc:
        fail(str(exc))
    except Exception as exc:  # a worker's crash: finished results are on disk, a rerun resumes
        fail(f"the job stopped ({type(exc).__name__}: {exc}); finished results are kept in {out}, rerun to resume")
    retry = f", {summary.retryable} to retry (rerun to resume)" if summary.retryable else ""
    typer.echo(
        f"{summary.written} results written, {summary.skipped_done} already done, "
        f"{summary.tasks} tasks in {summary.seconds:.1f} s{retry} -> {summary.results}"
    )
    if export_submission is not None:
        setting = submission_setting or next((s for s in chosen_settings if s != "translation"), chosen_settings[0])
        exported = export_submission_file(summary.results, export_submission, setting, record_run(runs[0], setting))
        typer.echo(
            f"submission: {exported.questions} predictions ({exported.unanswered} empty) "
            f"from {setting} -> {exported.path}"
        )
    if report:
        from evaluation.report import write_report

        paths = write_report(out, choices=choices)
        typer.echo(f"report: {', '.join(str(p) for p in paths)}")


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
