"""Turning raw model output into a validated program, and errors into repair feedback.

`interpret_output` cleans the output (theory.postprocess), parses it in its representation (GQA text
through the GQA converter) and returns the program, or the one-line error that the next attempt
shows the model.
"""

from __future__ import annotations

from dataclasses import dataclass

from theory.canonical import canonical
from theory.postprocess import clean_model_output, strip_fences
from theory.program import Program, ProgramError
from theory.representations import parse_program
from translators.gqa.gqa_program import gqa_to_program, parse_gqa

MAX_REPAIRS = 3


@dataclass(frozen=True)
class Interpretation:
    """What one model output turned into: a program, or the error that stopped it."""

    cleaned: str
    program: Program | None
    error: str | None


def _clean_gqa(raw: str) -> str:
    text = strip_fences(raw).strip()
    lines: list[str] = []
    for line in text.splitlines():
        if line.lower().startswith(("question", "program")) and lines:
            break  # the model went on inventing further examples
        if line.strip() and not line.lower().startswith("program"):
            lines.append(line)
    return "\n".join(lines)


def interpret_output(raw: str, representation: str) -> Interpretation:
    """Clean, parse and validate one output; the program comes back in canonical form."""
    try:
        if representation == "gqa":
            cleaned = _clean_gqa(raw)
            program = gqa_to_program(parse_gqa(cleaned))
        else:
            cleaned = clean_model_output(raw, representation)
            program = parse_program(cleaned, representation)
        return Interpretation(cleaned, canonical(program), None)
    except ProgramError as exc:
        return Interpretation(raw.strip(), None, " ".join(str(exc).split()))
