import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.theory.test_representations import programs
from theory.nested import format_nested, parse_nested
from translators.rules.relation_direction import direct_relations, word_order_direction


@pytest.mark.parametrize(
    ("question", "written", "meant"),
    [
        (
            "What animals are on the roof?",
            "query(unique(relate(select(scene(), roof), animal, on, object)), name)",
            "query(unique(relate(select(scene(), roof), animal, on, subject)), name)",
        ),
        (
            "The ice is on what animal?",
            "query(unique(relate(select(scene(), ice), animal, on, subject)), name)",
            "query(unique(relate(select(scene(), ice), animal, on, object)), name)",
        ),
        (
            "What kind of food does the girl hold?",
            "query(unique(relate(select(scene(), girl), food, holding, subject)), name)",
            "query(unique(relate(select(scene(), girl), food, holding, object)), name)",
        ),
        (
            "What is on the table?",
            "query(unique(relate_any(select(scene(), table), on, object)), name)",
            "query(unique(relate_any(select(scene(), table), on, subject)), name)",
        ),
        (
            "What does the table have on it?",
            "query(unique(relate_any(select(scene(), table), on, object)), name)",
            "query(unique(relate_any(select(scene(), table), on, subject)), name)",
        ),
        (
            "Does the table have a plate on it?",
            "verify_rel(unique(select(scene(), table)), plate, on, object)",
            "verify_rel(unique(select(scene(), table)), plate, on, subject)",
        ),
        (
            "Which animal has a hat on it?",
            "query(unique(relate(select(scene(), hat), animal, on, subject)), name)",
            "query(unique(relate(select(scene(), hat), animal, on, object)), name)",
        ),
        (
            "Is the cup to the left or to the right of the plate?",
            "choose_rel(unique(select(scene(), cup)), plate, to_the_left_of, to_the_right_of, subject)",
            "choose_rel(unique(select(scene(), cup)), plate, to_the_left_of, to_the_right_of, object)",
        ),
    ],
)
def test_the_word_order_turns_a_relation_the_wrong_way_round(question, written, meant):
    fixed, fixes = direct_relations(parse_nested(written), question)
    assert format_nested(fixed) == meant
    assert [f.rule for f in fixes] == ["relation direction"]
    assert direct_relations(fixed, question) == (fixed, [])


def test_a_word_order_that_says_nothing_plain_leaves_the_program_as_written():
    # The class is not said and no wh-word asks for it; the relation word is missing.
    assert word_order_direction("Is there a dog near the car?", "cat", "near", "car") is None
    assert word_order_direction("What is the cat doing?", "ball", "near", "cat") is None
    program = parse_nested("verify_rel(unique(select(scene(), dog)), ball, playing_with, object)")
    assert direct_relations(program, "Does the dog have a toy?") == (program, [])


@settings(max_examples=150, deadline=None)
@given(programs(), st.lists(st.sampled_from(["what", "is", "the", "ball", "red", "on", "of", "x1"]), max_size=8))
def test_only_directions_change_and_once_is_enough(program, words):
    question = " ".join(words) + "?"
    fixed, fixes = direct_relations(program, question)
    assert len(fixed.steps) == len(program.steps) and fixed.answer == program.answer
    changed = [(a, b) for a, b in zip(program.steps, fixed.steps) if a != b]
    assert len(changed) == len(fixes)
    for before, after in changed:
        assert before.operation == after.operation and before.dependencies == after.dependencies
        assert {before.arguments[-1], after.arguments[-1]} == {"subject", "object"}
    assert direct_relations(fixed, question) == (fixed, [])


def test_gqa_programs_of_the_tuning_part_keep_their_directions(tuning_programs):
    relations = ("relate", "relate_any", "verify_rel", "choose_rel")
    checked = sum(any(s.operation in relations for s in program.steps) for _, program in tuning_programs)
    turned = [q for q, program in tuning_programs if direct_relations(program, q)[1]]
    assert checked > 400 and turned == []


def test_a_part_or_possession_is_the_subject_of_of():
    program = parse_nested("query(unique(relate(select(scene(), child), hair, of, object)), color)")
    fixed, _ = direct_relations(program, "What color is the child's hair?")
    assert format_nested(fixed) == "query(unique(relate(select(scene(), child), hair, of, subject)), color)"
