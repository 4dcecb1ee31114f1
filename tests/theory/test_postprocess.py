"""Cleaning raw model output: fences, labels, cut points and invented follow-up examples."""

from __future__ import annotations

import pytest

from theory.postprocess import clean_model_output
from theory.representations import parse_program

FLAT = "scene(0). select(1, 0, dog). exist(2, 1). end(2)."
NESTED = "exist(select(scene(), dog))"
CODE = "var1 = unique(select(scene(), cup))\nand(verify_attr(var1, color, red), exist(var1))"


@pytest.mark.parametrize(
    ("raw", "representation", "expected"),
    [
        (f"```asp\n{FLAT}\n```", "flat", FLAT),
        (f"```\n{FLAT}\n```\nQuestion: Is there a cat?\n```\nscene(0).\n```", "flat", FLAT),
        (f"Program: {FLAT}\nQuestion: Is there a cat?\nProgram: scene(0). end(0).", "flat", FLAT),
        (f"{FLAT} end(5). scene(9).", "flat", FLAT),
        (
            "scene(0). select(1, 0, dog).\nexist(2, 1).\n\nQuestion: Is there a cat?\nscene(0).",
            "flat",
            "scene(0). select(1, 0, dog).\nexist(2, 1).",
        ),
        (f"Here is the program:\n{NESTED}\nQuestion: Is it red?\n{NESTED}", "nested", NESTED),
        (f"`{NESTED}`", "nested", NESTED),
        (f"{NESTED}))", "nested", NESTED),
        ('exist(select(scene(), "a)b")) and more', "nested", 'exist(select(scene(), "a)b"))'),
        ("exist(select(scene(), dog)\nQuestion: Is there a cat?", "nested", "exist(select(scene(), dog)"),
        (f"```python\n{CODE}\n```", "code", CODE),
        (f"{CODE}\nQuestion: Is it red?\nvar1 = unique(select(scene(), x))\nexist(var1)", "code", CODE),
        (f"Answer:\n{CODE}\nThis checks the colour.", "code", CODE),
        (f"{CODE}\n\nThe program above first finds the cup.", "code", CODE),
        ("x = exist(select(scene(), a))\nx\nQuestion: more", "code", "x = exist(select(scene(), a))\nx"),
        ("", "nested", ""),
    ],
)
def test_cleaning_keeps_exactly_the_program(raw, representation, expected):
    assert clean_model_output(raw, representation) == expected


def test_crlf_output_is_normalised():
    assert clean_model_output(NESTED.replace("(", "(\r\n", 1), "nested") == "exist(\nselect(scene(), dog))"


def test_unclosed_output_is_left_for_the_parser_to_explain():
    cleaned = clean_model_output("Program: exist(select(scene(), dog)", "nested")
    with pytest.raises(Exception, match="unbalanced parenthesis"):
        parse_program(cleaned, "nested")


def test_unknown_operation_is_not_skipped_over():
    # starting at the first *known* operation would silently turn this into select(...)
    assert clean_model_output("filter_red(select(scene(), ball))", "nested") == "filter_red(select(scene(), ball))"


def test_unknown_representation_is_refused():
    with pytest.raises(ValueError, match="unknown representation"):
        clean_model_output(NESTED, "gqa")


def test_stray_closing_fence_after_program_is_dropped():
    assert clean_model_output("exist(select(scene(), dog)) ```", "nested") == "exist(select(scene(), dog))"
    assert clean_model_output("```\n```\nscene(0). exist(1, 0). end(1).", "flat") == "scene(0). exist(1, 0). end(1)."
