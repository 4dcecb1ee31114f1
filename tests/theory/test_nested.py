"""Nested ASP: parsing, printing, merging of repeated sub-expressions and precise errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.theory.test_representations import programs
from theory.canonical import canonical
from theory.flat import format_flat, parse_flat
from theory.nested import MAX_DEPTH, format_nested, parse_nested
from theory.program import ProgramSyntaxError


def test_parses_into_steps_in_post_order():
    program = parse_nested("query(unique(relate(select(scene(), man), hat, wearing, object)), color)")
    assert format_flat(program) == (
        "scene(0). select(1, 0, man). relate(2, 1, hat, wearing, object). unique(3, 2). query(4, 3, color). end(4)."
    )


def test_repeated_sub_expressions_become_one_step():
    program = parse_nested("two_same(unique(select(scene(), cup)), unique(select(scene(), cup)), color)")
    assert [s.operation for s in program.steps] == ["scene", "select", "unique", "two_same"]
    assert program.step(3).dependencies == (2, 2)


def test_words_needing_quotes_survive_printing_and_parsing():
    program = parse_nested('exist(relate_any(select(scene(), "tennis racket"), "to the left of", subject))')
    assert program.step(1).arguments == ("tennis racket",)
    text = format_nested(program)
    assert '"to the left of"' in text
    assert parse_nested(text) == program


def test_whitespace_newlines_and_comments_are_ignored():
    text = "exist(\n  select(  scene( ),\n ball )  % the balls\n)"
    assert format_nested(parse_nested(text)) == "exist(select(scene(), ball))"


def test_negative_and_positive_integers_are_arguments():
    program = parse_nested("exist(filter(select(scene(), ball), size, 3))")
    assert program.step(2).arguments == ("size", "3")


def test_dead_flat_steps_are_not_printed():
    program = parse_flat("scene(0). select(1, 0, ball). select(2, 0, cup). exist(3, 1). end(3).")
    assert format_nested(program) == "exist(select(scene(), ball))"


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("exist(select(scene(), ball)", "line 1:6", "unbalanced parenthesis: '(' of exist is never closed"),
        ("exist(select(scene(), ball)))", "line 1:29", "unbalanced parenthesis: ')' closes nothing"),
        ("exist(selec(scene(), ball))", "line 1:7", "unknown operation 'selec' (did you mean select?)"),
        ("exist(select(scene()))", "line 1:7", "select takes 2 argument(s) (input, class), got 1"),
        ("exist(select(scene, ball))", "line 1:14", "argument 1 must be a step such as scene() or select(...)"),
        ("select(scene(), ball)", "line 1:1", "gives objects, not an answer"),
        ("query(exist(scene()), color)", "line 1:7", "query: argument 1 must be a step giving objects"),
        ("exist(select(scene(), ball)) exist", "line 1:30", "unexpected 'exist' after the end of the program"),
        ("relate_any(scene(), on, above)", "line 1:25", "position must be one of subject, object"),
        ("exist(select(scene(), select(scene(), x)))", "line 1:23", "argument 2 (class) must be a word"),
        ("exist(select(scene(), b@ll))", "line 1:24", "unexpected character '@'"),
        ('exist(select(scene(), "ball))', "line 1:23", "unterminated string"),
        ("exist(select(scene() ball))", "line 1:22", "expected ',' or ')'"),
        ("", "line 1:1", "empty program"),
        ("ball", "line 1:1", "expected an operation call"),
        ("and(exist(select(scene(), a)),\n    exist(selec(scene(), b)))", "line 2:11", "unknown operation 'selec'"),
    ],
)
def test_malformed_input_says_where_and_what(text, where, what):
    with pytest.raises(ProgramSyntaxError) as info:
        parse_nested(text)
    assert info.value.location == where
    assert what in info.value.message


def test_very_deep_nesting_is_an_error_not_a_crash():
    text = "exist(" + "filter(" * (MAX_DEPTH + 5) + "scene()" + ", color, red)" * (MAX_DEPTH + 5) + ")"
    with pytest.raises(ProgramSyntaxError, match="nesting deeper"):
        parse_nested(text)


@settings(max_examples=200, deadline=None)
@given(programs())
def test_flat_nested_flat_is_exact_on_canonical_programs(program):
    assert parse_nested(format_nested(program)) == canonical(program)
    assert parse_flat(format_flat(parse_nested(format_nested(program)))) == canonical(program)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='exist(select,scene) ab"%\n', max_size=40))
def test_arbitrary_text_never_crashes(text):
    try:
        parse_nested(text)
    except ProgramSyntaxError:
        pass


def test_exponential_expansion_is_refused_with_a_hint():
    from theory.program import Program, ProgramValidationError, Step

    steps = [Step(0, "scene"), Step(1, "select", (0,), ("a",)), Step(2, "exist", (1,))]
    steps += [Step(i, "and", (i - 1, i - 1)) for i in range(3, 40)]
    with pytest.raises(ProgramValidationError, match="use the code-like form"):
        format_nested(Program(tuple(steps), 39))


def test_cyclic_programs_are_refused_before_printing():
    from theory.program import Program, ProgramValidationError, Step

    steps = (
        Step(0, "scene"),
        Step(1, "filter", (2,), ("color", "red")),
        Step(2, "filter", (1,), ("size", "big")),
        Step(3, "exist", (2,)),
    )
    with pytest.raises(ProgramValidationError, match="cycle"):
        format_nested(Program(steps, 3))
