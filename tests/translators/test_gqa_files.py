"""Streaming reads of GQA files: every layout gives what reading the whole file gives."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from translators.examples.bank import iter_question_records
from translators.gqa.gqa_files import RecordsError, count_json_records, iter_json_records

texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
# A GQA record opens with its question text (which is what tells one JSON Lines record from {id: record}).
records = st.builds(
    lambda text, rest: {"question": text, **rest},
    texts,
    st.dictionaries(st.sampled_from(["semantic", "imageId", "answer", "types"]), values),
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.text("0123456789abc", min_size=1, max_size=6), records, max_size=6))
def test_every_layout_streams_the_records_of_the_whole_file(tmp_path, data):
    as_object = tmp_path / "object.json"
    as_object.write_text(json.dumps(data))
    as_list = tmp_path / "list.json"
    as_list.write_text(json.dumps([dict(r, questionId=k) for k, r in data.items()], indent=1))
    as_lines = tmp_path / "lines.jsonl"
    as_lines.write_text("".join(json.dumps(dict(r, questionId=k)) + "\n" for k, r in data.items()))
    assert list(iter_json_records(as_object)) == list(data.items())
    expected = [(k, dict(r, questionId=k)) for k, r in data.items()]
    assert list(iter_json_records(as_list)) == expected
    assert list(iter_json_records(as_lines)) == expected
    for path in (as_object, as_list, as_lines):
        assert count_json_records(path) == len(data)


def test_a_pretty_printed_object_is_not_taken_for_json_lines(tmp_path):
    path = tmp_path / "q.json"
    path.write_text(json.dumps({"1": {"question": "a?"}, "2": {"question": "b?"}}, indent=2))
    assert [k for k, _ in iter_json_records(path)] == ["1", "2"]


def test_question_records_stop_at_the_limit_without_reading_on(tmp_path):
    path = tmp_path / "q.json"
    path.write_text('{"1": {"question": "a?"}, "2": {"question": "b?"}, "3": ' + "{" * 3)  # broken after 2
    assert [r["questionId"] for r in iter_question_records(path, limit=2)] == ["1", "2"]
    with pytest.raises(RecordsError):
        list(iter_question_records(path))


def test_not_records(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("42")
    with pytest.raises(RecordsError, match="not a JSON object"):
        list(iter_json_records(path))
