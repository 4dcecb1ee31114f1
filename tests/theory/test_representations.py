"""Every representation parses into and prints from the same Program; random programs round-trip."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory.canonical import canonical
from theory.flat import format_flat, parse_flat
from theory.operations import ARGUMENT_CHOICES, OPERATIONS, Kind
from theory.postprocess import clean_model_output
from theory.program import Program, ProgramError, Step
from theory.representations import TEXT_REPRESENTATIONS, detect_representation, format_program, parse_program

# Words as models and GQA write them, including ones that need quoting in ASP.
WORDS = st.sampled_from(
    [
        "ball",
        "red",
        "to_the_left_of",
        "tennis racket",
        "Red",
        "not",
        "x1",
        "12",
        'say "hi"',
        "back\\slash",
        "of",
        "scene",
    ]
)
_NON_ROOT = sorted(name for name in OPERATIONS if name != "scene")


@st.composite
def programs(draw, max_steps: int = 9) -> Program:
    """A random valid program: a typed DAG over the operation vocabulary, possibly with dead steps."""
    steps = [Step(0, "scene")]
    count = draw(st.integers(1, max_steps))
    for step_id in range(1, count + 1):
        by_kind = {kind: [s.id for s in steps if OPERATIONS[s.operation].output is kind] for kind in Kind}
        usable = [n for n in _NON_ROOT if all(by_kind[k] for k in OPERATIONS[n].inputs)]
        if step_id == count:  # the answer gives a word or yes/no
            usable = [n for n in usable if OPERATIONS[n].output is not Kind.STATE] or usable
        name = draw(st.sampled_from(usable))
        spec = OPERATIONS[name]
        deps = tuple(draw(st.sampled_from(by_kind[k])) for k in spec.inputs)
        args = tuple(
            draw(st.sampled_from(ARGUMENT_CHOICES[a])) if a in ARGUMENT_CHOICES else draw(WORDS) for a in spec.arguments
        )
        steps.append(Step(step_id, name, deps, args))
    answer = steps[-1]
    if OPERATIONS[answer.operation].output is Kind.STATE:
        steps.append(Step(len(steps), "exist", (answer.id,)))
    return Program(tuple(steps), steps[-1].id)


REPRESENTATIONS = list(TEXT_REPRESENTATIONS)


@settings(max_examples=300, deadline=None)
@given(programs(), st.sampled_from(REPRESENTATIONS))
def test_random_programs_round_trip_through_every_representation(program, representation):
    text = format_program(program, representation)
    back = parse_program(text, representation)
    assert canonical(back) == canonical(program)
    if representation != "flat":
        # nested and code-like parsers build the canonical form directly
        assert back == canonical(program)


@settings(max_examples=150, deadline=None)
@given(programs(), st.sampled_from(REPRESENTATIONS), st.sampled_from(REPRESENTATIONS))
def test_conversion_between_any_two_representations_is_exact(program, first, second):
    via_first = parse_program(format_program(program, first), first)
    via_second = parse_program(format_program(via_first, second), second)
    assert format_flat(canonical(via_second)) == format_flat(canonical(program))


@settings(max_examples=150, deadline=None)
@given(programs(), st.sampled_from(REPRESENTATIONS))
def test_model_output_with_fences_and_invented_follow_ups_parses_to_the_program(program, representation):
    text = format_program(program, representation)
    raw = f"Sure! Here it is:\n```\n{text}\n```\nQuestion: Is there a cat?\nProgram: exist(select(scene(), cat))"
    assert canonical(parse_program(raw, representation, clean=True)) == canonical(program)
    unfenced = f"{text}\n\nQuestion: Is there a cat?\n{format_program(program, representation)}"
    assert clean_model_output(unfenced, representation) == text.strip()


def test_design_example_reads_the_same_in_all_three_syntaxes():
    flat = (
        "scene(0). select(1, 0, truck). relate(2, 1, tire, of, subject). unique(3, 2). "
        "verify_attr(4, 3, color, black). unique(5, 2). verify_attr(6, 5, shape, round). and(7, 4, 6). end(7)."
    )
    nested = (
        "and(verify_attr(unique(relate(select(scene(), truck), tire, of, subject)), color, black),\n"
        "    verify_attr(unique(relate(select(scene(), truck), tire, of, subject)), shape, round))"
    )
    code = (
        "var1 = unique(relate(select(scene(), truck), tire, of, subject))\n"
        "and(verify_attr(var1, color, black), verify_attr(var1, shape, round))"
    )
    programs_ = [parse_program(flat, "flat"), parse_program(nested, "nested"), parse_program(code, "code")]
    assert len({canonical(p) for p in programs_}) == 1
    assert format_program(programs_[0], "code") == code
    assert format_program(programs_[1], "nested") == " ".join(nested.split())


def test_flat_keeps_the_step_ids_it_was_given():
    text = "scene(10). select(20, 10, ball). exist(30, 20). end(30)."
    assert format_program(parse_program(text, "flat"), "flat") == text


@pytest.mark.parametrize("representation", ["flat", "nested", "code"])
def test_errors_are_program_errors_with_a_location(representation):
    broken = {
        "flat": "scene(0). select(1, 0, ball. end(1).",
        "nested": "exist(select(scene(), ball)",
        "code": "exist(v)",
    }
    with pytest.raises(ProgramError) as info:
        parse_program(broken[representation], representation)
    assert "line 1:" in str(info.value)


def test_unknown_representation_is_refused():
    with pytest.raises(ValueError):
        parse_program("exist(select(scene(), a))", "lisp")
    assert parse_flat(format_program(parse_program("exist(select(scene(), a))", "nested"), "flat")).answer == 2


def test_representation_names_are_declared_once():
    from theory.operations import REPRESENTATIONS
    from translators.options import TranslationOptions

    assert TEXT_REPRESENTATIONS == ("flat", "nested", "code") and REPRESENTATIONS == (*TEXT_REPRESENTATIONS, "gqa")
    schema = TranslationOptions.model_json_schema()["properties"]["representation"]
    assert tuple(schema["enum"]) == REPRESENTATIONS


@settings(max_examples=200, deadline=None)
@given(programs(), st.sampled_from(REPRESENTATIONS), st.sampled_from(["", "\n  ", "% a comment\n"]))
def test_the_syntax_of_any_printed_program_is_detected(program, representation, prefix):
    text = prefix + format_program(program, representation)
    detected = detect_representation(text)
    # a code-like program without variables is a nested expression
    expected = "nested" if representation == "code" and "=" not in text else representation
    assert detected == expected
    assert canonical(parse_program(text, detected)) == canonical(program)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[{"operation": "select", "argument": "cat", "dependencies": []}]', "gqa"),
        ('{"semantic": []}', "gqa"),
        ("select: cat\nquery [0]: name", "gqa"),
        ("filter color [1]: red", "gqa"),
        ("#script (python)", "flat"),
        ("scene( 0 ). end(0).", "flat"),
        ("scene()", "nested"),
        ("x1 = select(scene(), cat)", "code"),
        ("What is the cat on?", None),
        ("", None),
        ("% only a comment", None),
        ("(select(scene(), cat))", None),
    ],
)
def test_detection_by_first_characters(text, expected):
    assert detect_representation(text) == expected


def test_detection_reads_a_bounded_opening():
    assert detect_representation("a" + " " * 100_000 + "b") is None
    assert detect_representation("select" + " " * 300 + ": cat") is None
