"""`aspvqa convert`: rewrite question programs between GQA, flat, nested and code-like forms."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from app.commands.io import fail, read_input
from theory.canonical import canonical
from theory.operations import ProgramRepresentation, TextRepresentation
from theory.program import ProgramError
from theory.representations import format_program, parse_program
from translators.gqa.gqa_program import gqa_to_program, load_attribute_categories


def _gqa_items(text: str) -> Iterator[tuple[Any, Any]]:
    """(id, semantic) pairs of a GQA questions file: a dict by question id, or a list of records."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"GQA input is not JSON: {exc}")
    if isinstance(data, dict):
        records = list(data.items())
    elif isinstance(data, list):
        records = [(r.get("questionId", r.get("question_id")) if isinstance(r, dict) else None, r) for r in data]
    else:
        fail("GQA input must be a JSON object of questions by id or a list of questions")
    for qid, record in records:
        if not isinstance(record, dict) or "semantic" not in record:
            yield qid, None
        else:
            yield qid, record["semantic"]


def _text_items(text: str) -> Iterator[tuple[Any, Any]]:
    """(id, program text) pairs: JSON Lines of ``{"id", "program"}``, or the whole text as one program."""
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and lines[0].lstrip().startswith("{"):
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                fail(f"input line {number} is not JSON: {exc}")
            if not isinstance(record, dict) or not isinstance(record.get("program"), str):
                fail(f'input line {number} needs a "program" string')
            yield record.get("id"), record["program"]
    else:
        yield None, text


def convert_command(
    source: Annotated[ProgramRepresentation, typer.Option("--from", help="Input form.", case_sensitive=False)],
    target: Annotated[TextRepresentation, typer.Option("--to", help="Output representation.", case_sensitive=False)],
    input_path: Annotated[
        str,
        typer.Option(
            "--input",
            "-i",
            help="GQA questions JSON (for --from gqa), or JSON Lines of {id, program}, or one program ('-': stdin).",
        ),
    ] = "-",
    clean: Annotated[
        bool, typer.Option("--clean", help="Clean raw model output (fences, trailing text) first.")
    ] = False,
    attributes: Annotated[
        str | None,
        typer.Option("--attributes", help="GQA attribute taxonomy JSON {category: [values]} for bare choose/verify."),
    ] = None,
) -> None:
    """Convert programs; prints one JSON line per item with its id and `program` or `error`."""
    text = read_input(input_path, "input")
    categories = None
    if attributes is not None:
        if not Path(attributes).is_file():
            fail(f"attribute taxonomy file not found: {attributes}")
        try:
            categories = load_attribute_categories(attributes)
        except (OSError, ValueError, AttributeError, TypeError) as exc:
            fail(f"cannot read attribute taxonomy {attributes}: {exc}")
    items = _gqa_items(text) if source == "gqa" else _text_items(text)
    failures = 0
    for item_id, payload in items:
        record: dict[str, Any] = {"id": item_id}
        try:
            if source == "gqa":
                if payload is None:
                    raise ProgramError("record has no 'semantic' program")
                program = gqa_to_program(payload, categories)
            else:
                program = canonical(parse_program(payload, source, clean=clean))
            record["program"] = format_program(program, target)
        except ProgramError as exc:
            record["error"] = str(exc)
            failures += 1
        typer.echo(json.dumps(record))
    raise typer.Exit(1 if failures else 0)
