"""Code-like programs: variables only for shared results, any names on input, precise errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.theory.test_representations import programs
from theory.canonical import canonical
from theory.codelike import format_code, parse_code
from theory.flat import parse_flat
from theory.nested import parse_nested
from theory.program import ProgramSyntaxError


def test_no_variables_without_sharing():
    program = parse_nested("query(unique(select(scene(), cup)), color)")
    assert format_code(program) == "query(unique(select(scene(), cup)), color)"


def test_variables_are_numbered_in_order_of_definition():
    program = parse_flat(
        "scene(0). select(1, 0, cup). unique(2, 1). select(3, 0, plate). unique(4, 3). "
        "two_same(5, 2, 4, color). two_same(6, 2, 4, material). and(7, 5, 6). end(7)."
    )
    assert format_code(program) == (
        "var1 = unique(select(scene(), cup))\n"
        "var2 = unique(select(scene(), plate))\n"
        "and(two_same(var1, var2, color), two_same(var1, var2, material))"
    )


def test_a_step_read_twice_by_one_step_is_a_variable():
    program = parse_nested("two_same(unique(select(scene(), cup)), unique(select(scene(), cup)), color)")
    assert format_code(program) == "var1 = unique(select(scene(), cup))\ntwo_same(var1, var1, color)"


def test_any_names_in_any_order_and_aliases_are_accepted():
    text = "the_cup = unique(cups)\ncups = select(scene(), cup)\nsame_cup = the_cup\nexist(same_cup)"
    assert parse_code(text) == parse_nested("exist(unique(select(scene(), cup)))")


def test_a_final_assignment_is_the_answer():
    assert parse_code("x = select(scene(), cup)\nanswer = exist(x)") == parse_nested("exist(select(scene(), cup))")


def test_unused_assignments_are_dropped():
    program = parse_code("spare = select(scene(), dog)\nexist(select(scene(), cup))")
    assert program == parse_nested("exist(select(scene(), cup))")


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("a = select(scene(), x)\nexist(b)", "line 2:7", "undefined variable 'b'"),
        ("exist(scene)", "line 1:7", "undefined variable 'scene' (did you mean scene()?)"),
        (
            "a = select(scene(), x)\na = select(scene(), y)\nexist(a)",
            "line 2:1",
            "'a' is assigned twice (first at line 1:1)",
        ),
        ("a = unique(b)\nb = unique(a)\nexist(a)", "line 2:12", "cycle: a -> b -> a"),
        ("a = filter(a, color, red)\nexist(a)", "line 1:12", "cycle: a -> a"),
        ("exist(select(scene(), x))\nexist(select(scene(), y))", "line 2:1", "the answer must be the last line"),
        ("v = unique(select(scene(), x)\nquery(v, color)", "line 1:11", "unbalanced parenthesis"),
        (
            "v = select(scene(), x)\nquery(v, color, name)",
            "line 2:1",
            "query takes 2 argument(s) (input, category), got 3",
        ),
        ("v = red\nexist(v)", "line 1:5", "undefined variable 'red'"),
        ('v = "red"\nexist(v)', "line 1:5", "expected a step, got the word 'red'"),
        (
            "v = exist(select(scene(), x))\nquery(v, color)",
            "line 2:7",
            "must be a step giving objects, but exist gives yes/no",
        ),
        ("y = exist(x)\nx = select(scene(), a)", "end", "missing the answer expression"),
        ("v =", "line 1:4", "needs an expression"),
    ],
)
def test_malformed_input_says_where_and_what(text, where, what):
    with pytest.raises(ProgramSyntaxError) as info:
        parse_code(text)
    expected = f"line {text.count(chr(10)) + 1}:{len(text.splitlines()[-1]) + 1}" if where == "end" else where
    assert info.value.location == expected
    assert what in info.value.message


@settings(max_examples=200, deadline=None)
@given(programs())
def test_flat_code_flat_is_exact_on_canonical_programs(program):
    text = format_code(program)
    assert parse_code(text) == canonical(program)
    names = [line.split(" = ")[0] for line in text.splitlines()[:-1]]
    assert names == [f"var{i}" for i in range(1, len(names) + 1)]
    for name in names:  # a variable exists only because it is read at least twice
        assert sum(line.count(f"{name},") + line.count(f"{name})") for line in text.splitlines()) >= 2


@settings(max_examples=100, deadline=None)
@given(programs(), st.sampled_from(["step", "x_1", "Tmp", "answer_part"]))
def test_renamed_variables_parse_to_the_same_program(program, prefix):
    text = format_code(program)
    count = text.count("\n")
    for i in range(count, 0, -1):  # highest first so var1 does not clobber var10
        text = text.replace(f"var{i}", f"{prefix}{i}")
    assert parse_code(text) == canonical(program)
