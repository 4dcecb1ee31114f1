"""`aspvqa solve`: answer a question program (any syntax, detected) on a scene encoding."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from app.commands.io import fail, read_input
from app.config import MAX_TOP_K, ConfigError, load_settings
from theory import ProgramError, SolveLimits, SolveResult, SolveStatus, solve
from translators.program_text import read_program

# Exit codes: 0 answered, 1 the solver found no answer (or hit a limit), 2 bad input.
_EXIT = {SolveStatus.OK: 0, SolveStatus.INVALID_PROGRAM: 2, SolveStatus.INVALID_SCENE: 2}


def result_json(result: SolveResult) -> dict:
    """The JSON form of a solve result."""
    return {
        "status": result.status.value,
        "message": result.message,
        "optimal": result.optimal,
        "seconds": round(result.seconds, 6),
        "answers": [
            {
                "answer": a.answer,
                "cost": list(a.cost),
                "support": a.support.to_json(),
            }
            for a in result.answers
        ],
    }


def print_result(result: SolveResult) -> None:
    """Human-readable answers, best first, with the facts behind the top answer."""
    if not result.answers:
        typer.echo(f"{result.status.value}: {result.message}")
        return
    for rank, answer in enumerate(result.answers, 1):
        typer.echo(f"{rank}. {answer.answer}  (cost {', '.join(map(str, answer.cost))})")
    typer.echo("because: " + " ".join(result.answers[0].support.facts))
    if result.status is not SolveStatus.OK:
        typer.echo(f"{result.status.value}: {result.message}")


def solve_command(
    program: Annotated[str, typer.Option("--program", "-p", help="Question program file ('-' for stdin).")],
    scene: Annotated[str, typer.Option("--scene", "-s", help="Scene facts file in ASP ('-' for stdin).")],
    representation: Annotated[
        str | None,
        typer.Option("--repr", help="Syntax of --program: flat, nested, code or gqa (detected when omitted)."),
    ] = None,
    top_k: Annotated[
        int | None,
        typer.Option("--top-k", "-k", min=1, max=MAX_TOP_K, help="Ranked answers (default: ASPVQA_TOP_K, 5)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout", min=0.001, help="Solver time limit in seconds (default: ASPVQA_SOLVE_TIMEOUT_S, 10)."
        ),
    ] = None,
) -> None:
    """Answer a question program on a scene; answers ranked by cost, with supporting facts."""
    if program == "-" and scene == "-":
        fail("--program and --scene cannot both read stdin")
    try:
        settings = load_settings()
    except ConfigError as exc:
        fail(str(exc))
    program_text, scene_text = read_input(program, "program"), read_input(scene, "scene")
    try:
        parsed = read_program(program_text, representation).program
    except ProgramError as exc:
        result = SolveResult(SolveStatus.INVALID_PROGRAM, message=str(exc))
    else:
        limits = SolveLimits(timeout_s=timeout or settings.solve_timeout_s)
        result = solve(parsed, scene_text, top_k=top_k or settings.top_k, limits=limits)
    if as_json:
        typer.echo(json.dumps(result_json(result)))
    if result.status in (SolveStatus.INVALID_PROGRAM, SolveStatus.INVALID_SCENE):
        fail(f"{result.status.value.replace('_', ' ')}: {result.message}")
    if not as_json:
        print_result(result)
    raise typer.Exit(_EXIT.get(result.status, 1))
