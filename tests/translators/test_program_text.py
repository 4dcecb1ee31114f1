"""A user's program in any syntax, given or detected, read into one Program."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theory.canonical import canonical
from theory.program import ProgramError
from theory.representations import parse_program
from translators.gqa.gqa_program import format_gqa
from translators.program_text import parse_gqa_text, read_program

NESTED = "query(unique(relate_any(select(scene(), cat), on, object)), name)"
SEMANTIC = [
    {"operation": "select", "argument": "cat (12)", "dependencies": []},
    {"operation": "relate", "argument": "_,on,o (13)", "dependencies": [0]},
    {"operation": "query", "argument": "name", "dependencies": [1]},
]


@pytest.mark.parametrize(
    "text",
    [
        NESTED,
        "c = select(scene(), cat)\nquery(unique(relate_any(c, on, object)), name)",
        "scene(0). select(1, 0, cat). relate_any(2, 1, on, object). unique(3, 2). query(4, 3, name). end(4).",
        json.dumps(SEMANTIC),
        json.dumps({"question": "What is the cat on?", "semantic": SEMANTIC}),
        format_gqa(SEMANTIC),
    ],
)
def test_every_syntax_reads_into_the_same_program(text):
    assert canonical(read_program(text).program) == canonical(parse_program(NESTED, "nested"))


def test_a_given_representation_is_used_as_given():
    read = read_program(NESTED, "nested")
    assert read.representation == "nested"
    with pytest.raises(ProgramError, match="not valid ASP"):
        read_program(NESTED, "flat")
    with pytest.raises(ProgramError, match="unknown representation 'lisp'"):
        read_program(NESTED, "lisp")


def test_a_misdetected_program_is_read_by_the_syntax_that_fits():
    # '%' comments open flat, nested and code alike; a flat-looking directive is refused with its reason
    assert read_program("% the cat\n" + NESTED).representation == "nested"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "program is empty"),
        ("What is the cat on?", "tried flat, nested, code, gqa); it starts with 'What is the cat on?'"),
        ("query(unique(select(scene(), cat)), name", "as nested, which its first characters suggest: line 1:"),
        ("scene(0). launch(1, 0). end(1).", "unknown predicate launch/2"),
        ("[1, 2]", "a list of steps"),
        ("[{]", "not valid JSON"),
    ],
)
def test_text_in_no_known_syntax_names_what_was_tried(text, fragment):
    with pytest.raises(ProgramError) as info:
        read_program(text)
    assert fragment in str(info.value)


def test_gqa_json_with_unknown_operation_is_a_program_error():
    with pytest.raises(ProgramError):
        parse_gqa_text(json.dumps([{"operation": "teleport", "argument": "x", "dependencies": []}]))


@given(st.text(max_size=80) | st.text(alphabet='select(scene),=:[]{}"0123 \n%#é', max_size=80))
def test_any_text_reads_as_a_program_or_raises_a_program_error(text):
    try:
        read = read_program(text)
    except ProgramError:
        return
    assert read.representation in ("flat", "nested", "code", "gqa")
