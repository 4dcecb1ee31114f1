"""`aspvqa answer`: one question on an image, a GQA scene graph or a scene file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, get_args

import typer

from app.commands.io import fail, read_input
from app.commands.scene_options import scene_of_options
from app.config import MAX_TOP_K, ConfigError, load_settings
from app.inputs import AnswerOptions, query_of
from app.pipeline import Pipeline, PipelineError
from app.views.convert import answer_response
from theory.operations import ProgramRepresentation
from theory.solver import Answer
from trust.confidence import ConfidenceParts


def program_syntax(name: str | None) -> ProgramRepresentation | None:
    """`--repr` checked: one of the program syntaxes (None: detected, or the settings' for a question)."""
    if name is None:
        return None
    for syntax in get_args(ProgramRepresentation):
        if name == syntax:
            return syntax
    fail(f"--repr must be one of: {', '.join(get_args(ProgramRepresentation))}, not {name!r}")


def answer_command(
    question: Annotated[str | None, typer.Option("--question", "-q", help="The question in English.")] = None,
    image: Annotated[Path | None, typer.Option("--image", help="An image file (JPEG, PNG, WebP).")] = None,
    scene_graph: Annotated[str | None, typer.Option("--scene-graph", help="GQA scene graph JSON file.")] = None,
    image_id: Annotated[str | None, typer.Option("--image-id", help="Which image of the scene graph file.")] = None,
    scene: Annotated[str | None, typer.Option("--scene", help="Scene facts file in ASP.")] = None,
    program: Annotated[str | None, typer.Option("--program", help="A program file (skips translation).")] = None,
    representation: Annotated[
        str | None,
        typer.Option("--repr", help="Syntax of --program: flat, nested, code or gqa (detected when omitted)."),
    ] = None,
    top_k: Annotated[
        int | None,
        typer.Option("--top-k", "-k", min=1, max=MAX_TOP_K, help="Ranked answers (default: ASPVQA_TOP_K, 5)."),
    ] = None,
    exact: Annotated[
        bool, typer.Option("--exact", help="Only exact scene words: no approximate answers (entailment table).")
    ] = False,
    risk: Annotated[
        float | None,
        typer.Option("--risk", help="Abstention risk within the calibrated range (needs ASPVQA_CALIBRATION)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Answer a question: ranked answers, the program and the facts behind the top answer."""
    if question is None and program is None:
        fail("give --question (or --program)")
    syntax = program_syntax(representation)
    try:
        settings = load_settings()
        given = scene_of_options(
            image=image, scene_graph=scene_graph, image_id=image_id, scene=scene, max_facts=settings.max_scene_facts
        )
        pipeline = Pipeline(settings)
        query = query_of(question, read_input(program, "program") if program else None, syntax)
        options = AnswerOptions(representation=syntax if program is None else None, top_k=top_k, exact=exact, risk=risk)
        outcome = pipeline.answer(query, given, options)
    except (PipelineError, ConfigError) as exc:
        fail(str(exc))
    if as_json:
        typer.echo(answer_response(outcome, question).model_dump_json())
    else:
        typer.echo(f"program ({outcome.representation}): {outcome.program_text}")
        if outcome.abstention is not None and outcome.abstention.abstained:
            # Said first and plainly: the answers below are candidates, not an answer.
            typer.echo("not sure: the answer is held back; candidates with their scores follow")
        for rank, item in enumerate(outcome.answers, 1):
            score = outcome.score(item)
            typer.echo(f"{rank}. {item.answer}  (score {score}, cost {list(item.cost)}){approximate_note(item)}")
        if not outcome.answers:
            typer.echo(f"{outcome.status.value}: {outcome.message}")
            if outcome.explanation:
                typer.echo(f"why: {outcome.explanation.message}")
        elif outcome.support is not None:
            typer.echo("because: " + " ".join(outcome.support.facts))
        typer.echo(confidence_line(outcome.confidence, outcome.confidence_parts))
        if outcome.abstention:
            verdict = {True: "not sure (abstained)", False: "answered", None: "no calibrated decision"}[
                outcome.abstention.abstained
            ]
            typer.echo(f"{verdict}: {outcome.abstention.reason}")
    raise typer.Exit(0 if outcome.answers else 1)


def confidence_line(score: float | None, parts: ConfidenceParts | None) -> str:
    """``confidence 0.83 (agreement -, retrieval 0.97, ...)`` for the text output."""
    shown = ", ".join(f"{k} {'-' if v is None else v}" for k, v in (parts.to_json() if parts else {}).items())
    return f"confidence {score if score is not None else '-'}" + (f" ({shown})" if shown else "")


def approximate_note(answer: Answer) -> str:
    """`` (approximate: asked fact read as scene fact, ...)`` for an approximate answer, else ''."""
    readings = ", ".join(f"{a.asked} read as {a.scene}" for a in answer.approximations)
    return f"  (approximate: {readings})" if readings else ""
