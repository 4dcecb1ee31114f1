"""One entry point for the three textual program syntaxes (flat, nested, code-like), and detection
of every syntax, GQA's included, by its first characters.

Example:
    >>> p = parse_program("exist(select(scene(), dog))", "nested")
    >>> format_program(p, Representation.FLAT)
    'scene(0). select(1, 0, dog). exist(2, 1). end(2).'
    >>> detect_representation("v = select(scene(), dog)\\nexist(v)")
    'code'
"""

from __future__ import annotations

import re
from enum import Enum

from theory.codelike import format_code, parse_code
from theory.flat import format_flat, parse_flat
from theory.nested import format_nested, parse_nested
from theory.operations import TEXT_REPRESENTATIONS as TEXT_REPRESENTATIONS
from theory.operations import TextRepresentation as TextRepresentation
from theory.postprocess import clean_model_output
from theory.program import Program


class Representation(str, Enum):
    """A textual syntax for question programs."""

    FLAT = "flat"
    NESTED = "nested"
    CODE = "code"


_PARSERS = {Representation.FLAT: parse_flat, Representation.NESTED: parse_nested, Representation.CODE: parse_code}
_PRINTERS = {Representation.FLAT: format_flat, Representation.NESTED: format_nested, Representation.CODE: format_code}


def parse_program(text: str, representation: Representation | str, *, clean: bool = False) -> Program:
    """Parse `text` written in `representation`; with `clean`, raw model output is cleaned first.

    Raises a `ProgramError` subclass that says where and what.
    """
    representation = Representation(representation)
    if clean:
        text = clean_model_output(text, representation)
    return _PARSERS[representation](text)


def format_program(program: Program, representation: Representation | str) -> str:
    """`program` written in `representation` (flat keeps its step ids; see `theory.canonical`)."""
    return _PRINTERS[Representation(representation)](program)


# Every syntax a program may be written in: the three above and GQA's semantic program (JSON, or
# the compact lines ``operation [inputs]: argument``), which `translators.gqa_program` reads.
PROGRAM_SYNTAXES: tuple[str, ...] = (*TEXT_REPRESENTATIONS, "gqa")

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
