"""`aspvqa demo`: the whole pipeline on the bundled demo scenes with the bundled language model."""

from __future__ import annotations

import json
from importlib import resources
from typing import Annotated

import typer

from app.api.routes.demo import demo_scenes
from app.commands.io import fail
from app.config import ConfigError, load_settings
from app.pipeline import Pipeline, PipelineError


def demo_command(
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=20, help="Answers per question.")] = 3,
    llm: Annotated[str | None, typer.Option("--llm", help="Language model (default: the bundled local model).")] = None,
) -> None:
    """Translate the demo questions, answer them on the demo scenes, print answers and programs."""
    folder = resources.files("app") / "data" / "demo"
    graphs = demo_scenes()
    uncertain = (folder / "kitchen_uncertain.lp").read_text()
    try:
        pipeline = Pipeline(load_settings(llm=llm))
    except ConfigError as exc:
        fail(str(exc))
    failures = 0
    for line in (folder / "questions.jsonl").read_text().splitlines():
        item = json.loads(line)
        scene = item["scene"]
        typer.echo(f"[{scene}] Q: {item['question']}")
        try:
            outcome = pipeline.answer(
                item["question"],
                scene_graph=graphs.get(scene),
                scene_facts=uncertain if scene == "kitchen_uncertain" else None,
                top_k=top_k,
            )
        except PipelineError as exc:
            if exc.kind == "model_unavailable":
                fail(exc.message)
            failures += 1
            typer.echo(f"   could not answer: {exc.message}")
            continue
        seconds = outcome.timings
        typer.echo(f"   program: {outcome.program_text}")
        answers = ", ".join(f"{a['answer']} (score {a['score']})" for a in outcome.answers) or outcome.status
        typer.echo(f"   answers: {answers}")
        typer.echo(f"   [translate {seconds['translate']:.1f} s, solve {seconds['solve'] * 1000:.0f} ms]")
    if failures:
        typer.echo(f"{failures} question(s) could not be answered")
