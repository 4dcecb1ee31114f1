"""`aspvqa verify`: a claim, or another model's answer to a question, checked on a scene."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.commands.io import fail, read_input
from app.commands.scene_options import scene_of_options
from app.config import ConfigError, load_settings
from app.inputs import what_to_verify
from app.pipeline import Pipeline, PipelineError
from app.views.convert import verify_response
from theory.flat import format_flat


def verify_command(
    claim: Annotated[str | None, typer.Option("--claim", "-c", help="A statement about the picture.")] = None,
    question: Annotated[str | None, typer.Option("--question", "-q", help="The question --answer answers.")] = None,
    answer: Annotated[str | None, typer.Option("--answer", "-a", help="The answer to verify.")] = None,
    program: Annotated[str | None, typer.Option("--program", help="The question's program file.")] = None,
    representation: Annotated[
        str | None, typer.Option("--repr", help="Syntax of --program: flat, nested or code.")
    ] = None,
    image: Annotated[Path | None, typer.Option("--image", help="An image file (JPEG, PNG, WebP).")] = None,
    scene_graph: Annotated[str | None, typer.Option("--scene-graph", help="GQA scene graph JSON file.")] = None,
    image_id: Annotated[str | None, typer.Option("--image-id", help="Which image of the scene graph file.")] = None,
    scene: Annotated[str | None, typer.Option("--scene", help="Scene facts file in ASP.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Verify a claim (or an answer): the verdict, each sub-claim's verdict and the facts behind it.

    Exit status: 0 supported, 1 refuted or unverifiable, 2 bad input.
    """
    if (claim is None) == (answer is None):
        fail("give either --claim, or --answer with --question or --program")
    if answer is not None and question is None and program is None:
        fail("--answer needs --question (or --program)")
    try:
        settings = load_settings()
        given = scene_of_options(
            image=image, scene_graph=scene_graph, image_id=image_id, scene=scene, max_facts=settings.max_scene_facts
        )
        pipeline = Pipeline(settings)
        program_text = read_input(program, "program") if program else None
        outcome = pipeline.verify(what_to_verify(claim, question, answer, program_text, representation), given)
    except (PipelineError, ConfigError) as exc:
        fail(str(exc))
    if as_json:
        typer.echo(verify_response(outcome, claim or question or "").model_dump_json())
    else:
        typer.echo(f"{outcome.verdict}: {format_flat(outcome.program)}" + ("" if outcome.holds else " answers no"))
        for judged in outcome.subclaims:
            sub = judged.subclaim
            typer.echo(f"  {sub.id}. [{sub.kind}] {sub.text}: {judged.verdict} ({judged.reason})")
            if judged.facts:
                more = " ..." if len(judged.facts) > 12 else ""
                typer.echo("     facts: " + " ".join(judged.facts[:12]) + more)
    raise typer.Exit(0 if outcome.verdict == "supported" else 1)
