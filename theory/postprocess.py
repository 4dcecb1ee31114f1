"""Cleaning raw language-model output down to the one program it contains.

Models wrap programs in code fences, put a label or a sentence before them, and keep writing
after them (another "Question: ..." with its program). We keep the first fenced block if there
is one, start at the first line that begins like a program, and stop where the program ends:
after ``end(N).`` (flat), when the outermost parenthesis closes (nested), or after the first
expression that is not an assignment (code-like). What is left is handed to the parser, whose
errors say what is wrong; nothing here repairs a program.

Example:
    >>> clean_model_output("```asp\\nscene(0). select(1,0,cat). exist(2,1). end(2).\\n```\\nQuestion: ...", "flat")
    'scene(0). select(1,0,cat). exist(2,1). end(2).'
"""

from __future__ import annotations

import re

from theory.operations import TEXT_REPRESENTATIONS

_FENCE = re.compile(r"```[^\n`]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_LABEL = re.compile(r"^[ \t]*(?:[#*>]+[ \t]*)?[A-Za-z][\w \-]{0,40}:(?!-)[ \t]*")
_PROGRAM_START = re.compile(r"(?:[A-Za-z_]\w*[ \t]*=(?!=)[ \t]*)?[a-z_]\w*[ \t]*\(")
_FLAT_END = re.compile(r"\bend\s*\(\s*-?\d+\s*\)\s*\.")
_FOLLOW_UP = re.compile(
    r"^[ \t]*(?:[#*>]+[ \t]*)?(?:question|q|example|input|output|answer|a|program|explanation|note|"
    r"image|scene)\b[^\n:=(]{0,40}:(?!-)",
    re.IGNORECASE | re.MULTILINE,
)
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*[ \t]*=(?!=)")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_SPACE = re.compile(r"\s*")


def clean_model_output(raw: str, representation: str) -> str:
    """The program part of raw model output written in `representation` (flat, nested or code)."""
    kind = representation
    if kind not in TEXT_REPRESENTATIONS:
        raise ValueError(f"unknown representation {kind!r} ({', '.join(TEXT_REPRESENTATIONS)})")
    text = _from_program_start(strip_fences(raw))
    if kind == "flat":
        end = _FLAT_END.search(text)
        text = text[: end.end()] if end else _before_follow_up(text)
    elif kind == "nested":
        text = _first_expression(text)
    else:
        text = _code_statements(text)
    return text.strip().strip("`").strip()


def strip_fences(raw: str) -> str:
    """The text of the first non-empty fenced block, or the whole text with stray fences removed."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    fenced = _FENCE.search(text)
    if fenced and fenced.group(1).strip():
        return fenced.group(1)
    # A stray or empty fence (a closing ``` after the program, say) is not a block to keep.
    return text.replace("```", "\n")


def _from_program_start(text: str) -> str:
    """Text from the first line that starts like a program (after an optional ``Label:``)."""
    offset = 0
    for line in text.splitlines(keepends=True):
        label = _LABEL.match(line)
        start = label.end() if label and _PROGRAM_START.match(line, label.end()) else len(line) - len(line.lstrip())
        if _PROGRAM_START.match(line, start):
            return text[offset + start :]
        offset += len(line)
    return text


def _before_follow_up(text: str) -> str:
    follow = _FOLLOW_UP.search(text, 1)
    return text[: follow.start()] if follow else text


def _closing(text: str, start: int) -> int | None:
    """Offset just after the parenthesis closing the one at or after `start`, skipping strings."""
    depth = 0
    pos = start
    while pos < len(text):
        char = text[pos]
        if char == '"':
            pos += 1
            while pos < len(text) and text[pos] not in '"\n':
                pos += 2 if text[pos] == "\\" else 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return pos + 1
        pos += 1
    return None


def _first_expression(text: str) -> str:
    opening = text.find("(")
    end = _closing(text, opening) if opening >= 0 else None
    return text[:end] if end is not None else _before_follow_up(text)


def _skip_space(text: str, pos: int) -> int:
    """The position after the white space at `pos`."""
    match = _SPACE.match(text, pos)  # ``\s*`` always matches
    return match.end() if match else pos


def _code_statements(text: str) -> str:
    pos = 0
    while True:
        pos = _skip_space(text, pos)
        assignment = _ASSIGNMENT.match(text, pos)
        statement = _skip_space(text, assignment.end()) if assignment else pos
        name = _IDENTIFIER.match(text, statement)
        if name is None:
            return text[:pos]  # not a statement: prose or another example follows
        after = _skip_space(text, name.end())
        if after < len(text) and text[after] == "(":
            end = _closing(text, after)
            if end is None:
                return _before_follow_up(text)
        elif text[name.end() :].split("\n", 1)[0].strip():
            return text[:pos]  # a word followed by more text on its line: prose, not a variable
        else:
            end = name.end()  # a bare variable
        if not assignment:
            return text[:end]
        pos = end
