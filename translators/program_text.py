"""A program a user wrote, in any of the four syntaxes, read into a `Program`.

The syntax is given, or told from the text's first characters
(`theory.representations.detect_representation`). GQA programs are JSON (a ``semantic`` list, or
a question record holding one) or the compact lines ``operation [inputs]: argument``.

Example:
    >>> read_program("select: dog\\nexist [0]: ?").representation
    'gqa'
    >>> read_program("scene(0). select(1, 0, dog). exist(2, 1). end(2).").representation
    'flat'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from theory.operations import REPRESENTATIONS
from theory.program import Program, ProgramError, ProgramSyntaxError
from theory.representations import detect_representation, parse_program


@dataclass(frozen=True)
class ReadProgram:
    """A parsed program and the syntax it was read in."""

    program: Program
    representation: str


def parse_gqa_text(text: str) -> Program:
    """A GQA semantic program given as JSON or as compact lines; raises a `ProgramError`."""
    # Imported for GQA's syntax only: `aspvqa solve` on a program in the project's own starts sooner.
    from translators.gqa.gqa_program import gqa_to_program, parse_gqa

    if text.lstrip()[:1] in ("[", "{"):
        try:
            data: Any = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise ProgramSyntaxError(f"GQA program is not valid JSON: {exc}") from None
        if isinstance(data, dict):
            data = data.get("semantic")
        if not isinstance(data, list) or not all(isinstance(step, dict) for step in data):
            raise ProgramSyntaxError("a GQA program in JSON is a list of steps, or a record with a 'semantic' list")
        return gqa_to_program(data)
    return gqa_to_program(parse_gqa(text))


def _parse(text: str, representation: str) -> Program:
    if representation == "gqa":
        return parse_gqa_text(text)
    return parse_program(text, representation)


def read_program(text: str, representation: str | None = None) -> ReadProgram:
    """`text` parsed in `representation`, or in the syntax its first characters show when None.

    When the detected syntax does not parse, the other syntaxes are tried; if none reads the
    text, one `ProgramSyntaxError` names what was tried and why the detected syntax failed.
    """
    if representation is not None:
        if representation not in REPRESENTATIONS:
            raise ProgramSyntaxError(f"unknown representation {representation!r}; known: {', '.join(REPRESENTATIONS)}")
        return ReadProgram(_parse(text, representation), representation)
    if not text.strip():
        raise ProgramSyntaxError("program is empty")
    detected = detect_representation(text)
    order = [detected] if detected else []
    order += [name for name in REPRESENTATIONS if name != detected]
    errors: dict[str, ProgramError] = {}
    for name in order:
        try:
            return ReadProgram(_parse(text, name), name)
        except ProgramError as exc:
            errors[name] = exc
    tried = ", ".join(order)
    if detected is None:
        opening = " ".join(text.split())[:30]
        raise ProgramSyntaxError(f"program is in no known syntax (tried {tried}); it starts with {opening!r}")
    raise ProgramSyntaxError(
        f"program is in no known syntax (tried {tried}); as {detected}, which its first characters suggest: "
        + " ".join(str(errors[detected]).split())
    )
