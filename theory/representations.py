"""One entry point for the three textual program syntaxes: flat, nested and code-like.

Example:
    >>> p = parse_program("exist(select(scene(), dog))", "nested")
    >>> format_program(p, Representation.FLAT)
    'scene(0). select(1, 0, dog). exist(2, 1). end(2).'
"""

from __future__ import annotations

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
