from hypothesis import given, settings
from hypothesis import strategies as st

from theory.canonical import canonical
from theory.equivalence import equivalent
from theory.nested import parse_nested
from theory.representations import format_program
from translators.wording.ontology import ontology_from_json
from translators.wording.schema import repair_program

ONTOLOGY = ontology_from_json(
    {
        "classes": {"person": ["man", "woman"], "vehicle": ["car", "bus"], "clothing": ["shirt"]},
        "attributes": {
            "color": {"values": ["red", "white"]},
            "age": {"values": ["young", "old"]},
            "state": {"values": ["empty", "full"]},
        },
        "relations": [{"relation": "near"}, {"relation": "wearing"}],
    }
)


def repaired(text: str) -> tuple[str, list[str]]:
    program, fixes = repair_program(parse_nested(text), ONTOLOGY)
    return format_program(program, "nested"), [f.rule for f in fixes]


def test_value_fixes_the_category():
    assert repaired("exist(filter(select(scene(), car), state, red))") == (
        "exist(filter(select(scene(), car), color, red))",
        ["value category"],
    )


def test_choice_between_uncategorised_values_is_other():
    text, rules = repaired("choose_attr(unique(select(scene(), shirt)), state, sleeveless, long_sleeved)")
    assert "choose_attr(unique(select(scene(), shirt)), other, " in text and rules == ["value category"]
    # Between two things: a choice of the name ("Is it a car or a bus?").
    text, rules = repaired("choose_attr(unique(select(scene(), vehicle)), other, car, bus)")
    assert text == "choose_attr(unique(select(scene(), vehicle)), name, car, bus)" and rules == ["value category"]


def test_other_category_means_any_category():
    assert repaired("verify_attr(unique(select(scene(), shirt)), other, sleeveless)")[0] == (
        "exist(filter_any(unique(select(scene(), shirt)), sleeveless))"
    )


def test_unknown_query_category_asks_for_the_name():
    assert (
        repaired("query(unique(select(scene(), vehicle)), kind)")[0] == "query(unique(select(scene(), vehicle)), name)"
    )


def test_a_degree_word_in_the_category_place_asks_for_its_category():
    # "How old is the man?" written with the question's word where its category goes.
    assert repaired("query(unique(select(scene(), man)), old)") == (
        "query(unique(select(scene(), man)), age)",
        ["query category"],
    )


def test_compound_class_becomes_class_and_filter():
    text, rules = repaired("query(unique(relate(select(scene(), car), young_man, near, subject)), color)")
    assert text == "query(unique(filter(relate(select(scene(), car), man, near, subject), age, young)), color)"
    assert rules == ["compound class"]


def test_right_programs_are_left_alone():
    text = "query(unique(filter(select(scene(), man), color, white)), name)"
    program = parse_nested(text)
    assert repair_program(program, ONTOLOGY) == (program, [])


words = st.sampled_from(
    ["man", "car", "shirt", "red", "young", "state", "color", "kind", "young_man", "other", "empty"]
)


@settings(max_examples=60, deadline=None)
@given(cls=words, category=words, value=words)
def test_repair_always_gives_a_valid_canonical_program(cls, category, value):
    text = (
        f"and(exist(filter(select(scene(), {cls}), {category}, {value})), "
        f"verify_attr(unique(select(scene(), {cls})), {category}, {value}))"
    )
    program, _ = repair_program(parse_nested(text), ONTOLOGY)
    assert canonical(program) == program
    again, fixes = repair_program(program, ONTOLOGY)
    assert fixes == [] and equivalent(again, program, scenes=3).equivalent


def test_compound_class_in_a_relation_check_keeps_the_class():
    text, rules = repaired("choose_rel(unique(select(scene(), car)), red_bus, to_the_left_of, near, subject)")
    assert text == "choose_rel(unique(select(scene(), car)), bus, to_the_left_of, near, subject)" and rules == [
        "compound class"
    ]


def test_the_class_list_is_never_what_a_query_asks():
    assert repaired("query(unique(select(scene(), vehicle)), class)") == (
        "query(unique(select(scene(), vehicle)), name)",
        ["query category"],
    )


def test_the_place_shown_is_the_scene_and_what_is_asked_of_it_its_place():
    assert repaired("query(unique(select(scene(), place)), name)") == (
        "query(unique(select(scene(), scene)), place)",
        ["place", "place"],
    )
    from translators.wording.ontology import bundled_ontology

    pictured = parse_nested("query(unique(relate(select(scene(), scene), place, of, subject)), place)")
    fixed, fixes = repair_program(pictured, bundled_ontology())
    assert format_program(fixed, "nested") == "query(unique(select(scene(), scene)), place)"
    assert [f.rule for f in fixes] == ["place"]
    room = parse_nested("query(unique(select(scene(), scene)), room)")
    assert repair_program(room, bundled_ontology()) == (room, [])


def test_a_filter_by_an_offered_value_is_dropped_before_the_choice():
    text, rules = repaired("choose_attr(unique(filter(select(scene(), shirt), color, red)), color, white, red)")
    assert text == "choose_attr(unique(select(scene(), shirt)), color, white, red)" and rules == ["offered value"]
    # A filter by another value describes which object is asked about.
    kept = "choose_attr(unique(filter(select(scene(), car), age, old)), color, white, red)"
    assert repaired(kept) == (kept, [])
    # So does one of another object: "Is the shirt on the red man white or red?"
    man = "filter(select(scene(), man), color, red)"
    other = f"choose_attr(unique(relate({man}, shirt, on, subject)), color, white, red)"
    assert repaired(other) == (other, [])


def test_gqa_programs_of_the_tuning_part_need_none_of_the_frame_repairs(tuning_programs):
    from translators.wording.ontology import bundled_ontology

    ontology = bundled_ontology()
    rules = {f.rule for _, program in tuning_programs for f in repair_program(program, ontology)[1]}
    assert not rules & {"place", "offered value"}
