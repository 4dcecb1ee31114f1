import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory.flat import parse_flat
from theory.operations import OPERATIONS
from theory.representations import TEXT_REPRESENTATIONS, format_program, parse_program
from translators.examples.bank import (
    ExampleBank,
    default_bank_path,
    load_bank,
    normalise_question,
    read_json_records,
    save_bank,
)

from .conftest import gqa_dir


def test_default_bank_is_large_valid_and_covers_every_operation(bank):
    assert len(bank) >= 200
    used = set().union(*(e.operations for e in bank))
    assert used == set(OPERATIONS)


def test_default_bank_has_no_duplicate_questions_or_ids(bank):
    assert len({normalise_question(e.question) for e in bank}) == len(bank)
    assert len({e.id for e in bank}) == len(bank)


@pytest.mark.parametrize("representation", TEXT_REPRESENTATIONS)
def test_every_bank_program_converts_to_each_representation_and_back(bank, representation):
    from theory.canonical import canonical

    for example in bank:
        text = format_program(example.program, representation)
        assert canonical(parse_program(text, representation)) == canonical(example.program), example.question


def test_default_bank_does_not_copy_the_shared_gqa_questions(bank):
    path = gqa_dir() / "questions" / "val_balanced_sample.json"
    if not path.exists():
        pytest.skip(f"GQA data not found at {path}")
    shared = {normalise_question(r["question"]) for r in json.loads(path.read_text()).values()}
    copied = [e.question for e in bank if normalise_question(e.question) in shared]
    assert copied == []


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=250), min_size=1, max_size=20, unique=True))
def test_save_and_load_round_trip(tmp_path_factory, rows):
    from translators.examples.bank import legacy_bank as default_bank

    source = default_bank()
    subset = ExampleBank([source[r % len(source)] for r in rows])
    path = save_bank(subset, tmp_path_factory.mktemp("bank") / "b.jsonl")
    loaded = load_bank(path)
    assert [(e.id, e.question, e.program) for e in loaded] == [(e.id, e.question, e.program) for e in subset]


def test_load_bank_names_the_bad_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    first = default_bank_path().read_text().splitlines()[0]
    path.write_text(first + "\n" + json.dumps({"id": "x", "question": "q?", "program": "select(1, 0, cat)."}) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:2"):
        load_bank(path)


def test_read_json_records_accepts_gqa_dicts_lists_and_json_lines(tmp_path):
    gqa = tmp_path / "gqa.json"
    gqa.write_text(json.dumps({"7": {"question": "Is it red?"}, "8": {"question": "Is it blue?"}}))
    lines = tmp_path / "q.jsonl"
    lines.write_text('{"questionId": "a", "question": "One?"}\n{"questionId": "b", "question": "Two?"}\n')
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"question_id": 3, "question": "Three?"}]))
    assert [r["questionId"] for r in read_json_records(gqa)] == ["7", "8"]
    assert [r["question"] for r in read_json_records(lines)] == ["One?", "Two?"]
    assert read_json_records(listed)[0]["question"] == "Three?"


def test_without_and_merged(bank):
    small = ExampleBank(bank.examples[:3])
    assert [e.id for e in small.without([bank[1].id])] == [bank[0].id, bank[2].id]
    merged = small.merged(ExampleBank(bank.examples[2:5]))
    assert len(merged) == 5


def test_bundled_bank_adds_over_20000_generated_examples_to_the_hand_written_ones(bank):
    from translators.examples.bundled import default_bank

    bundled = default_bank()
    assert len(bundled) >= 20_000
    assert [e.id for e in bundled.examples[: len(bank)]] == [e.id for e in bank]
    assert len({e.id for e in bundled}) == len(bundled)
    assert len({normalise_question(e.question) for e in bundled}) == len(bundled)
    assert set().union(*(e.operations for e in bundled)) == set(OPERATIONS)


def test_content_digest_changes_with_a_program_the_question_fingerprint_does_not(bank):
    first = bank.examples[0]
    changed = replace(first, program=parse_flat("scene(0). select(1, 0, dog). exist(2, 1). end(2)."))
    before, after = ExampleBank(bank.examples[:3]), ExampleBank([changed, *bank.examples[1:3]])
    assert before.fingerprint() == after.fingerprint()  # the embedding index stays valid
    assert before.content_digest() != after.content_digest()  # what was built from programs does not
    assert before.content_digest() == ExampleBank(bank.examples[:3]).content_digest()
