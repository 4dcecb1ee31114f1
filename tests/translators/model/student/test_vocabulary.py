"""Program tokens and the student's vocabulary."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from theory.nested import format_nested, parse_nested
from translators.model.student.vocabulary import END, START, UNKNOWN, ProgramVocabulary, program_text, program_tokens

_NAMES = st.sampled_from(["cat", "dog", "red", "color", "left_of", "in_front_of", "tv_stand"])


@st.composite
def _programs(draw: st.DrawFn) -> str:
    """Nested programs of select, filter, relate and the three answers."""
    expression = f"select(scene(), {draw(_NAMES)})"
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            expression = f"filter(unique({expression}), color, {draw(_NAMES)})"
        else:
            expression = f"relate(unique({expression}), {draw(_NAMES)}, {draw(_NAMES)}, subject)"
    answer = draw(st.sampled_from(["exist({})", "query(unique({}), name)", "count({})"]))
    return answer.format(expression)


@given(_programs())
def test_tokens_read_back_as_the_same_program(text: str) -> None:
    program = parse_nested(text)
    tokens = program_tokens(format_nested(program))
    assert parse_nested(program_text(tokens)) == program
    assert all(t in "()," or t.replace("_", "").isalnum() for t in tokens)


def test_a_quoted_constant_stays_one_token() -> None:
    assert program_tokens('exist(select(scene(), "ice cream"))')[-3] == '"ice cream"'


def test_ids_frame_the_program_and_mark_unknown_tokens(tmp_path) -> None:  # noqa: ANN001
    vocabulary = ProgramVocabulary.build([["exist", "(", ")"], ["exist", "cat"]])
    assert vocabulary.tokens[:4] == (vocabulary.tokens[0], START, END, UNKNOWN)
    assert vocabulary.tokens[4] == "exist"  # the most frequent first
    ids = vocabulary.ids(["exist", "zebra"])
    assert ids[0] == vocabulary.index[START] and ids[-1] == vocabulary.index[END]
    assert ids[2] == vocabulary.index[UNKNOWN]
    vocabulary.save(tmp_path / "v.json")
    assert ProgramVocabulary.load(tmp_path / "v.json") == vocabulary
