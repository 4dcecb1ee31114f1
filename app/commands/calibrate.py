"""`aspvqa calibrate`: label calibration questions, fit the abstention threshold, write the file.

Each question is translated with the configured settings and scored (trust.confidence). Its label:
without scene graphs, whether the program is equivalent to the question's GQA program
(theory.equivalence, on generated scenes); with scene graphs, whether the top answer on the
question's image is the GQA answer (strict match; questions about other images are skipped). The
threshold comes from conformal risk control (trust.conformal), and the file keeps the scores, the
labels, the digests of the inputs and the settings it holds for (trust.calibration).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from app.commands.io import fail
from app.config import ConfigError, load_settings
from app.inputs import AnswerOptions, GivenProgram
from app.pipeline import Pipeline, PipelineError
from evaluation.matching import Matcher
from evaluation.questions import JobError, Question, load_questions
from evaluation.splits import split_questions
from theory import ProgramError, format_flat
from theory.equivalence import equivalent
from translators.gqa.gqa_program import GQAProgramError, gqa_to_program
from trust.calibration import Calibration, CalibrationError, data_digest
from trust.confidence import confidence, confidence_parts, program_confidence
from trust.conformal import METHODS


def _read_json(path: Path, what: str) -> Any:
    if not path.is_file():
        fail(f"{what} file not found: {path}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        fail(f"{what} file {path} is not readable JSON: {exc}")


def _chosen(data: Any, part: str) -> list[Question]:
    try:
        questions = load_questions(data)
    except JobError as exc:
        fail(str(exc))
    if part == "all":
        return questions
    if not isinstance(data, dict):
        fail("--part needs GQA's {questionId: record} questions file (the split reads families and images)")
    keep = set(split_questions(data).part(part))
    return [q for q in questions if q.id in keep]


def calibrate_command(
    questions: Annotated[Path, typer.Option("--questions", help="GQA questions JSON (with their programs).")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the calibration file.")],
    risk: Annotated[float, typer.Option("--risk", help="Default risk, strictly between 0 and 1.")] = 0.1,
    scene_graphs: Annotated[
        Path | None, typer.Option("--scene-graphs", help="GQA scene graphs: label by the top answer instead.")
    ] = None,
    method: Annotated[str, typer.Option("--method", help="crc (kept and wrong) or ltt (wrong among kept).")] = "crc",
    part: Annotated[
        str,
        typer.Option(
            "--part",
            help="all, or tuning / validation of the GQA split (evaluation.splits; test: its former name).",
        ),
    ] = "all",
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most this many questions.")] = None,
) -> None:
    """Fit the abstention threshold on labelled questions and write it with its data digest and settings."""
    if not 0.0 < risk < 1.0:
        fail("--risk must lie strictly between 0 and 1")
    if method not in METHODS:
        fail(f"--method must be one of {', '.join(METHODS)}")
    if part not in ("all", "tuning", "validation", "test"):
        fail("--part must be all, tuning or validation")
    if out.is_dir():
        fail(f"--out is a folder, not a file: {out}")
    chosen = _chosen(_read_json(questions, "questions"), part)[:limit]
    graphs = _read_json(scene_graphs, "scene graphs") if scene_graphs else None
    if graphs is not None and not isinstance(graphs, dict):
        fail(f"scene graphs file {scene_graphs} must hold a JSON object imageId -> scene graph")
    try:
        pipeline = Pipeline(load_settings())
        components = pipeline.components
        settings = components.confidence_settings(components.translation_settings())
    except (PipelineError, ConfigError) as exc:
        fail(str(exc))
    scores: list[float] = []
    wrong: list[bool] = []
    skipped = 0
    matcher = Matcher()
    for question in chosen:
        label = _label(pipeline, question, graphs, matcher)
        if label is None:
            skipped += 1
            continue
        scores.append(label[0])
        wrong.append(label[1])
    data = {"questions": data_digest(questions)} | ({"scene_graphs": data_digest(scene_graphs)} if scene_graphs else {})
    try:
        calibration = Calibration.fit(
            scores,
            wrong,
            risk=risk,
            settings=settings,
            data=data,
            method=method,
            label="answer" if graphs is not None else "program",
        )
        fit = calibration.threshold_fit()
        calibration.save(out)
    except CalibrationError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror or exc}")
    low, high = calibration.risk_range
    typer.echo(
        f"{len(scores)} questions ({skipped} skipped), {sum(wrong) / len(wrong):.0%} wrong; "
        f"threshold {fit.threshold:.4f} keeps {fit.coverage:.0%} at risk {risk:g} ({method}); "
        f"requests may ask for {low:g}-{high:g}; written to {out}"
    )


def _label(
    pipeline: Pipeline, question: Question, graphs: dict[str, Any] | None, matcher: Matcher
) -> tuple[float, bool] | None:
    """(score, wrong) of one question; None when it cannot be labelled."""
    if graphs is not None and (question.image_id not in graphs or question.answer is None):
        return None
    try:
        gold = gqa_to_program(question.semantic) if graphs is None else None
    except (GQAProgramError, ProgramError):
        return None
    try:
        translation = pipeline.translate(question.question)
    except PipelineError as exc:
        if exc.kind == "model_unavailable":
            fail(str(exc))
        if exc.kind != "invalid_input":
            return None  # too long a question, or over the time limit: not a label
        return 0.0, True  # no valid program: as wrong as it gets, kept by no threshold above 0
    if gold is not None:
        return program_confidence(confidence_parts(translation.evidence)), not equivalent(
            translation.program, gold, scenes=30
        ).equivalent
    assert graphs is not None and question.image_id is not None and question.answer is not None
    try:
        outcome = pipeline.answer(
            GivenProgram(format_flat(translation.program)),
            pipeline.scene_input(scene_graph=graphs[question.image_id]),
            AnswerOptions(exact=True),
        )
    except PipelineError:  # over a limit, or a graph the encoder refuses: no answer, so a wrong one
        return confidence(confidence_parts(translation.evidence)), True
    parts = confidence_parts(translation.evidence, [a.cost for a in outcome.answers])
    top = outcome.answers[0].answer if outcome.answers else None
    return confidence(parts), top is None or not matcher.matches(top, question.answer)
