"""`aspvqa demo`: answer the bundled demo questions on the bundled demo scene."""

from __future__ import annotations

import json
from importlib import resources
from typing import Annotated

import typer

from theory import solve


def demo_command(
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=20, help="Answers per question.")] = 3,
) -> None:
    """Solve the demo questions (programs written by the team) on the demo kitchen scene."""
    folder = resources.files("app") / "data" / "demo"
    scene = (folder / "kitchen_scene.lp").read_text()
    for line in (folder / "questions.jsonl").read_text().splitlines():
        item = json.loads(line)
        result = solve(item["program"], scene, top_k=top_k)
        answers = ", ".join(f"{a.answer} (cost {a.cost[0]})" for a in result.answers) or result.status.value
        typer.echo(f"Q: {item['question']}\n   program: {item['program']}\n   answers: {answers}  [{result.seconds * 1000:.1f} ms]")
