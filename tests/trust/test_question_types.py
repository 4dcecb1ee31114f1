"""Question types read off programs, checked against GQA's own labels."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluation.splits import split_questions
from tests.support import GQA_DIR
from theory.nested import parse_nested
from translators.gqa.gqa_program import gqa_to_program
from trust.question_types import STRUCTURAL_TYPES, QuestionType, program_types


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        ("exist(select(scene(), dog))", QuestionType("verify", "obj")),
        ("exist(relate(select(scene(), table), cup, on, subject))", QuestionType("verify", "rel")),
        ("verify_attr(unique(select(scene(), bus)), color, red)", QuestionType("verify", "attr")),
        ("query(unique(select(scene(), bus)), color)", QuestionType("query", "attr")),
        ("query(unique(select(scene(), animal)), name)", QuestionType("query", "cat")),
        ("query(unique(relate_any(select(scene(), man), holding, object)), name)", QuestionType("query", "rel")),
        ("query(unique(select(scene(), scene)), place)", QuestionType("query", "global")),
        ("choose_attr(unique(select(scene(), cup)), color, red, blue)", QuestionType("choose", "attr")),
        ("choose_rel(unique(select(scene(), cup)), table, on, under, object)", QuestionType("choose", "rel")),
        ("or(exist(select(scene(), dog)), exist(select(scene(), cat)))", QuestionType("logical", "obj")),
        (
            "two_same(unique(select(scene(), cup)), unique(select(scene(), plate)), color)",
            QuestionType("compare", "attr"),
        ),
        ("count(select(scene(), dog))", QuestionType("query", "obj")),
        (
            "compare_count(count(select(scene(), dog)), count(select(scene(), cat)), more)",
            QuestionType("compare", "obj"),
        ),
    ],
)
def test_types_of_programs(program, expected):
    assert program_types(parse_nested(program)) == expected


@given(st.sampled_from(["exist", "verify_attr", "query", "choose_attr", "and", "two_same"]))
def test_structural_type_is_always_one_of_gqas(operation):
    programs = {
        "exist": "exist(select(scene(), a))",
        "verify_attr": "verify_attr(unique(select(scene(), a)), color, red)",
        "query": "query(unique(select(scene(), a)), color)",
        "choose_attr": "choose_attr(unique(select(scene(), a)), color, red, blue)",
        "and": "and(exist(select(scene(), a)), exist(select(scene(), b)))",
        "two_same": "two_same(unique(select(scene(), a)), unique(select(scene(), b)), color)",
    }
    assert program_types(parse_nested(programs[operation])).structural in STRUCTURAL_TYPES


def test_agrees_with_gqa_labels_on_the_tuning_part():
    path = GQA_DIR / "questions" / "val_balanced_sample.json"
    if not path.exists():
        pytest.skip(f"no GQA questions at {path}")
    data = json.loads(path.read_text(encoding="utf-8"))
    tuning = [data[q] for q in split_questions(data).tuning]
    types = [program_types(gqa_to_program(r["semantic"])) for r in tuning]
    assert all(t.structural == r["types"]["structural"] for t, r in zip(types, tuning))
    assert sum(t.semantic == r["types"]["semantic"] for t, r in zip(types, tuning)) / len(tuning) >= 0.99
