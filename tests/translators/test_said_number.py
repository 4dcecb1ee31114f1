import pytest
from hypothesis import given
from hypothesis import strategies as st

from theory.nested import format_nested, parse_nested
from translators.wording.ontology import bundled_ontology
from translators.wording.said_number import said_as, with_said_number


@pytest.mark.parametrize(
    ("name", "question", "form"),
    [
        ("zebra", "Do the zebras look large?", "zebras"),
        ("shelf", "What are the shelves made of?", "shelves"),
        ("knife", "Are the sharp knives black?", "knives"),
        ("windows", "How big is the window?", "window"),
        ("traffic_cone", "Is the man near the traffic cones?", "traffic_cones"),
        ("zebra", "Is the zebra near the zebras?", None),  # said as written
        ("man", "Are the men standing?", None),  # a changed word, not an ending: GQA says `man`
        ("person", "Are the people standing?", None),
        ("dog", "Is the cat black?", None),  # not said at all
    ],
)
def test_a_class_takes_the_number_the_question_says(name, question, form):
    assert said_as(name, tuple(question.lower().rstrip("?").split())) == form


def test_a_program_names_its_classes_as_asked():
    program = parse_nested("query(unique(relate(select(scene(), oven), knife, to_the_left_of, subject)), color)")
    fixed, fixes = with_said_number(program, "What color are the knives to the left of the oven?", bundled_ontology())
    assert format_nested(fixed) == (
        "query(unique(relate(select(scene(), oven), knives, to_the_left_of, subject)), color)"
    )
    assert [(f.rule, f.before, f.after) for f in fixes] == [("said number", "knife", "knives")]


def test_groups_and_objects_read_as_many_keep_their_number():
    ontology = bundled_ontology()
    group = parse_nested("query(unique(select(scene(), animal)), name)")
    assert with_said_number(group, "What are the animals called?", ontology) == (group, [])
    # "Are there any peppers on the pizza?": GQA's programs name what is asked for in the singular.
    there = parse_nested("exist(relate(select(scene(), pizza), pepper, on_top_of, subject))")
    assert with_said_number(there, "Are there any peppers on top of the pizza?", ontology) == (there, [])
    counted = parse_nested("count(select(scene(), car))")
    assert with_said_number(counted, "How many cars are there?", ontology) == (counted, [])
    compared = parse_nested("all_different(select(scene(), dog), color)")
    assert with_said_number(compared, "Are the dogs different in color?", ontology) == (compared, [])
    with_itself = parse_nested("two_different(unique(select(scene(), dog)), unique(select(scene(), dog)), color)")
    assert with_said_number(with_itself, "Are the dogs different in color?", ontology)[1] == []
    # An `exist` after `unique` checks a value of one thing, not whether it is there.
    checked = parse_nested("exist(filter_any(unique(select(scene(), zebra)), striped))")
    fixed, _ = with_said_number(checked, "Do the zebras look striped?", ontology)
    assert format_nested(fixed) == "exist(filter_any(unique(select(scene(), zebras)), striped))"


_NOUNS = st.sampled_from(["zebra", "shelf", "knife", "window", "box", "baby", "man", "glass", "traffic_cone"])


@given(_NOUNS, _NOUNS, st.booleans())
def test_the_number_is_read_once_and_only_from_the_question(written, said, plural):
    ontology = bundled_ontology()
    spoken = said.replace("_", " ") + ("s" if plural else "")
    question = f"What color are the {spoken} near the fence?"
    program = parse_nested(f"query(unique(relate(select(scene(), fence), {written}, near, subject)), color)")
    fixed, fixes = with_said_number(program, question, ontology)
    assert with_said_number(fixed, question, ontology) == (fixed, [])  # read once, it stays
    for fix in fixes:
        assert fix.after.replace("_", " ") in question.lower()


def test_gqa_programs_of_the_tuning_part_stay_as_they_are(tuning_programs):
    ontology = bundled_ontology()
    changed = [q for q, program in tuning_programs if with_said_number(program, q, ontology)[1]]
    assert changed == []
