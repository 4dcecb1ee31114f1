"""`aspvqa demo`: the whole pipeline on the bundled demo scenes with the default program writer."""

from __future__ import annotations

import json
import time
from importlib import resources
from typing import Annotated

import typer

from app.commands.answer import approximate_note
from app.commands.io import fail
from app.config import MAX_TOP_K, ConfigError, load_settings
from app.demo_scenes import demo_scenes
from app.inputs import AnswerOptions, AskedQuestion
from app.pipeline import Pipeline, PipelineError
from translators.model.backends.no_model import NO_MODEL


def demo_command(
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=MAX_TOP_K, help="Answers per question.")] = 3,
    llm: Annotated[
        str | None,
        typer.Option("--llm", help="Writer of what the rules leave (default: the student; none: the rules alone)."),
    ] = None,
) -> None:
    """Translate the demo questions, answer them on the demo scenes, print answers and programs."""
    folder = resources.files("app") / "data" / "demo"
    graphs = demo_scenes()
    uncertain = (folder / "kitchen_uncertain.lp").read_text()
    try:
        pipeline = Pipeline(load_settings(llm=llm))
    except ConfigError as exc:
        fail(str(exc))
    started = time.perf_counter()
    try:
        translator = pipeline.components.question_translator  # the bank, its index and the model's files, checked now
        translator.warm_up()  # the model's weights and its prompt's fixed part, before the first question
    except PipelineError as exc:
        fail(exc.message)
    elapsed = time.perf_counter() - started
    ready = (
        "no language model: template fill and composition alone"
        if pipeline.settings.default_llm == NO_MODEL
        else "model loaded, prompt prefix evaluated or read from the cache"
    )
    typer.echo(f"translator ready in {elapsed:.1f} s ({ready})")
    failures = right = total = 0
    for line in (folder / "questions.jsonl").read_text().splitlines():
        item = json.loads(line)
        total += 1
        scene = item["scene"]
        typer.echo(f"[{scene}] Q: {item['question']}")
        try:
            given = pipeline.scene_input(
                scene_graph=graphs.get(scene), scene_facts=uncertain if scene == "kitchen_uncertain" else None
            )
            outcome = pipeline.answer(AskedQuestion(item["question"]), given, AnswerOptions(top_k=top_k))
        except PipelineError as exc:
            if exc.kind == "model_unavailable":
                fail(exc.message)
            failures += 1
            typer.echo(f"   could not answer: {exc.message}")
            continue
        seconds = outcome.timings
        typer.echo(f"   program: {outcome.program_text}")
        answers = ", ".join(
            f"{a.answer} (score {outcome.score(a)}{', approximate' if a.approximate else ''})" for a in outcome.answers
        )
        typer.echo(f"   answers: {answers or outcome.status.value}")
        if outcome.answers and outcome.answers[0].approximate:
            typer.echo(f"   {approximate_note(outcome.answers[0]).strip()}")
        if outcome.explanation:
            typer.echo(f"   why: {outcome.explanation.message}")
        top = outcome.answers[0].answer if outcome.answers else None
        if top == item.get("expected"):
            right += 1
        elif "expected" in item:
            typer.echo(f"   expected: {item['expected']}")
        typer.echo(f"   [translate {seconds['translate']:.1f} s, solve {seconds['solve'] * 1000:.0f} ms]")
    typer.echo(f"{right} of {total} answered as expected")
    if failures:
        typer.echo(f"{failures} question(s) could not be answered")
