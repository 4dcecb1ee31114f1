"""One entry point for the three textual program syntaxes (flat, nested, code-like), and detection
of every syntax, GQA's included, by its first characters.

Example:
    >>> p = parse_program("exist(select(scene(), dog))", "nested")
    >>> format_program(p, "flat")
    'scene(0). select(1, 0, dog). exist(2, 1). end(2).'
    >>> detect_representation("v = select(scene(), dog)\\nexist(v)")
    'code'
"""

from __future__ import annotations

import re
from collections.abc import Callable

from theory.codelike import format_code, parse_code
from theory.flat import format_flat, parse_flat
from theory.nested import format_nested, parse_nested
from theory.operations import TEXT_REPRESENTATIONS as TEXT_REPRESENTATIONS
from theory.operations import TextRepresentation as TextRepresentation
from theory.postprocess import clean_model_output
from theory.program import Program

_PARSERS: dict[str, Callable[[str], Program]] = {"flat": parse_flat, "nested": parse_nested, "code": parse_code}
_PRINTERS: dict[str, Callable[[Program], str]] = {"flat": format_flat, "nested": format_nested, "code": format_code}


def _textual(representation: str) -> str:
    if representation not in TEXT_REPRESENTATIONS:
        raise ValueError(f"unknown representation {representation!r}; use one of {', '.join(TEXT_REPRESENTATIONS)}")
    return representation


def parse_program(text: str, representation: str, *, clean: bool = False) -> Program:
    """Parse `text` written in `representation` (flat, nested or code); with `clean`, raw model
    output is cleaned first. Raises a `ProgramError` subclass that says where and what."""
    representation = _textual(representation)
    if clean:
        text = clean_model_output(text, representation)
    return _PARSERS[representation](text)


def format_program(program: Program, representation: str) -> str:
    """`program` written in `representation` (flat keeps its step ids; see `theory.canonical`)."""
    return _PRINTERS[_textual(representation)](program)


# Each syntax has a distinct opening, so the first characters decide; checked in this order.
_OPENINGS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("gqa", re.compile(r"[\[{]")),  # JSON: a semantic list or a record holding one
    ("flat", re.compile(r"#")),  # an ASP directive (refused by the flat reader, which says why)
    ("code", re.compile(r"[A-Za-z_][A-Za-z0-9_]*[ \t]*=(?!=)")),  # NAME = expression
    ("flat", re.compile(r"[a-z_][A-Za-z0-9_]*\s*\(\s*-?[0-9]")),  # op(ID, ...): step ids first
    ("nested", re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*\(")),  # op(expression, ...) or scene()
    ("gqa", re.compile(r"[A-Za-z][A-Za-z _\t]*(?:\[[0-9,\s]*\][ \t]*)?:")),  # op [deps]: argument
)


# Leading blank space and ``%`` comment lines, which the flat, nested and code readers all skip.
_COMMENTS = re.compile(r"\A(?:\s|%[^\n]*)*")
_OPENING_CHARS = 200  # more than any operation name and its first argument need


def detect_representation(text: str) -> str | None:
    """The syntax `text` is written in, told by its first characters; None when no syntax starts so.

    A code-like program without assignments is a nested expression, so it is reported as nested.
    """
    start = _COMMENTS.sub("", text)[:_OPENING_CHARS]
    for name, opening in _OPENINGS:
        if opening.match(start):
            return name
    return None
