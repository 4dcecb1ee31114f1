from theory.nested import format_nested, parse_nested
from translators.rules.relation_check import as_relation_check

ANY_FLOOR = parse_nested("exist(relate(select(scene(), sofa), rug, behind, subject))")


def test_the_named_object_is_checked_for_the_relation():
    fixed, fixes = as_relation_check(ANY_FLOOR, "Is the rug behind the sofa?")
    assert format_nested(fixed) == "verify_rel(unique(select(scene(), rug)), sofa, behind, object)"
    assert [f.rule for f in fixes] == ["relation check"]


def test_other_questions_and_shapes_are_left_as_written():
    # "Is there" asks whether any such object exists; a choice is no check.
    assert as_relation_check(ANY_FLOOR, "Is there a rug behind the sofa?") == (ANY_FLOOR, [])
    assert as_relation_check(ANY_FLOOR, "Is the rug behind or in front of the sofa?") == (ANY_FLOOR, [])
    # The relate's class must be the object the question names first.
    assert as_relation_check(ANY_FLOOR, "Is the sofa in front of the rug?") == (ANY_FLOOR, [])
    filtered = parse_nested("exist(relate(filter(select(scene(), sofa), color, red), rug, behind, subject))")
    assert as_relation_check(filtered, "Is the rug behind the red sofa?") == (filtered, [])


def test_gqa_programs_of_the_tuning_part_stay_as_they_are(tuning_programs):
    changed = [q for q, program in tuning_programs if as_relation_check(program, q)[1]]
    assert changed == []
