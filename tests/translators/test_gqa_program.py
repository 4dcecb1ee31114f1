"""GQA semantic programs -> Program: every rule, its errors, and all programs of the real val sample."""

from __future__ import annotations

import json

import pytest

from tests.support import GQA_DIR
from theory.canonical import canonical
from theory.codelike import format_code, parse_code
from theory.flat import format_flat, parse_flat
from theory.nested import format_nested, parse_nested
from theory.program import ProgramError
from theory.scene_facts import SceneFacts
from theory.solver import solve
from translators.gqa.gqa_program import (
    OTHER_CATEGORY,
    GQAProgramError,
    UnsupportedGQAOperation,
    comparative_value,
    gqa_to_program,
    load_attribute_categories,
)

needs_gqa = pytest.mark.skipif(not GQA_DIR.is_dir(), reason=f"GQA sample data not found at {GQA_DIR}")


def step(operation: str, argument: str = "", *deps: int) -> dict:
    return {"operation": operation, "argument": argument, "dependencies": list(deps)}


def nested(*steps: dict, **kw) -> str:
    return format_nested(gqa_to_program(list(steps), **kw))


def test_select_relate_query_with_ids_dropped_and_words_normalised():
    program = nested(
        step("select", "tennis racket (823324)"),
        step("relate", "person,to the left of,s (823320)", 0),
        step("query", "color", 1),
    )
    assert program == ("query(unique(relate(select(scene(), tennis_racket), person, to_the_left_of, subject)), color)")


def test_any_class_relate_and_object_position():
    program = nested(step("select", "man (-)"), step("relate", "_,wearing,o (1)", 0), step("query", "name", 1))
    assert program == "query(unique(relate_any(select(scene(), man), wearing, object)), name)"


def test_same_attribute_relate_becomes_relate_attr():
    program = nested(
        step("select", "fan (1)"), step("relate", "appliance,same color,_ (2)", 0), step("query", "name", 1)
    )
    assert program == "query(unique(relate_attr(select(scene(), fan), appliance, color)), name)"


def test_filters_with_and_without_category_and_negated():
    assert nested(step("select", "shirt"), step("filter color", "light blue", 0), step("exist", "?", 1)) == (
        "exist(filter(select(scene(), shirt), color, light_blue))"
    )
    assert nested(step("select", "man"), step("filter", "shirtless", 0), step("exist", "?", 1)) == (
        "exist(filter_any(select(scene(), man), shirtless))"
    )
    assert nested(step("select", "plate"), step("filter cleanliness", "not(clean)", 0), step("exist", "?", 1)) == (
        "exist(negate(filter(select(scene(), plate), cleanliness, clean), select(scene(), plate)))"
    )
    assert nested(step("select", "plate"), step("filter", "not(clean)", 0), step("exist", "?", 1)) == (
        "exist(negate(filter_any(select(scene(), plate), clean), select(scene(), plate)))"
    )


def test_verify_forms():
    assert nested(step("select", "sneakers (1)"), step("verify color", "black", 0)) == (
        "verify_attr(unique(select(scene(), sneakers)), color, black)"
    )
    assert nested(step("select", "man"), step("verify rel", "skis,wearing,o (4)", 0)) == (
        "verify_rel(unique(select(scene(), man)), skis, wearing, object)"
    )
    assert nested(step("select", "man"), step("verify rel", "_,wearing,o (4)", 0)) == (
        "exist(relate_any(unique(select(scene(), man)), wearing, object))"
    )
    assert nested(step("select", "water"), step("verify", "wet", 0)) == (
        "exist(filter_any(unique(select(scene(), water)), wet))"
    )
    assert nested(step("select", "water"), step("verify", "wet", 0), attribute_categories={"wet": "state"}) == (
        "verify_attr(unique(select(scene(), water)), state, wet)"
    )


def test_one_unique_per_object_is_shared_by_its_readers():
    program = gqa_to_program(
        [
            step("select", "water"),
            step("verify color", "dark", 0),
            step("verify size", "small ", 0),
            step("and", "", 1, 2),
        ]
    )
    assert format_code(program) == (
        "var1 = unique(select(scene(), water))\nand(verify_attr(var1, color, dark), verify_attr(var1, size, small))"
    )


def test_choose_forms():
    assert nested(step("select", "animal"), step("choose name", "video camera|phone", 0)) == (
        "choose_attr(unique(select(scene(), animal)), name, video_camera, phone)"
    )
    assert nested(step("select", "orange"), step("choose rel", "apple,to the left of|to the right of,s (2)", 0)) == (
        "choose_rel(unique(select(scene(), orange)), apple, to_the_left_of, to_the_right_of, subject)"
    )
    assert nested(step("select", "shirt"), step("choose", "sleeveless|long sleeved", 0)) == (
        f"choose_attr(unique(select(scene(), shirt)), {OTHER_CATEGORY}, sleeveless, long_sleeved)"
    )
    categories = {"shut": "state", "open": "state"}
    assert nested(step("select", "window"), step("choose", "shut|open", 0), attribute_categories=categories) == (
        "choose_attr(unique(select(scene(), window)), state, shut, open)"
    )


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("younger", ("young", "true")),
        ("older", ("old", "true")),
        ("healthier", ("healthy", "true")),
        ("less healthy", ("healthy", "false")),
        ("more healthy", ("healthy", "true")),
        ("larger", ("large", "true")),
        ("bigger", ("big", "true")),
        ("smaller", ("small", "true")),
        ("taller", ("tall", "true")),
        ("shorter", ("short", "true")),
        ("higher", ("high", "true")),
        ("lower", ("low", "true")),
        ("longer", ("long", "true")),
    ],
)
def test_comparatives(word, expected):
    assert comparative_value(word) == expected


def test_comparative_choose_compares_two_objects_and_queries_the_name():
    program = gqa_to_program([step("select", "man"), step("select", "woman"), step("choose younger", "", 0, 1)])
    assert format_nested(program) == (
        "query(compare(unique(select(scene(), man)), unique(select(scene(), woman)), young, true), name)"
    )
    scene = SceneFacts()
    for oid, name, age in [(1, "man", "old"), (2, "woman", "young")]:
        scene.add_fact("object", oid)
        scene.add_fact("has_attr", oid, "class", name)
        scene.add_fact("has_attr", oid, "name", name)
        scene.add_fact("has_attr", oid, "age", age)
    assert [a.answer for a in solve(program, scene).answers] == ["woman"]


def test_same_and_different_by_arity_and_category():
    assert nested(step("select", "animal (1,2)"), step("same", "type", 0)) == "all_same(select(scene(), animal), name)"
    assert nested(step("select", "animal"), step("different", "color", 0)) == (
        "all_different(select(scene(), animal), color)"
    )
    assert nested(step("select", "cup"), step("select", "plate"), step("same color", "", 0, 1)) == (
        "two_same(unique(select(scene(), cup)), unique(select(scene(), plate)), color)"
    )
    assert nested(step("select", "cup"), step("select", "plate"), step("different material", "", 0, 1)) == (
        "two_different(unique(select(scene(), cup)), unique(select(scene(), plate)), material)"
    )
    assert nested(step("select", "cup"), step("select", "plate"), step("same", "", 0, 1)) == (
        "two_same(unique(select(scene(), cup)), unique(select(scene(), plate)), name)"
    )


def test_common_and_boolean_connectives():
    assert nested(step("select", "cup"), step("select", "plate"), step("common", "", 0, 1)) == (
        "common(unique(select(scene(), cup)), unique(select(scene(), plate)))"
    )
    assert (
        nested(
            step("select", "cat (-)"),
            step("exist", "?", 0),
            step("select", "bed (-) "),
            step("exist", "?", 2),
            step("or", "", 1, 3),
        )
        == "or(exist(select(scene(), cat)), exist(select(scene(), bed)))"
    )


@pytest.mark.parametrize(
    ("semantic", "error", "what"),
    [
        ([], GQAProgramError, "empty GQA program"),
        ([step("select", "cat")], GQAProgramError, "gives objects, not an answer"),
        ([step("select", "cat"), step("count", "", 0)], UnsupportedGQAOperation, "GQA has no counting operation"),
        ([step("select", "cat"), step("frobnicate", "", 0)], UnsupportedGQAOperation, "unknown GQA operation"),
        ([step("select", "cat"), step("exist", "?", 3)], GQAProgramError, "must name earlier steps"),
        ([step("select", "cat"), step("exist", "?", 1)], GQAProgramError, "must name earlier steps"),
        (
            [step("select", "cat"), step("relate", "dog,on", 0), step("exist", "?", 1)],
            GQAProgramError,
            "is not 'class,relation,s|o'",
        ),
        (
            [step("select", "cat"), step("relate", "dog,on,x", 0), step("exist", "?", 1)],
            GQAProgramError,
            "position 'x'",
        ),
        ([step("select", "cat"), step("choose color", "red", 0)], GQAProgramError, "two alternatives"),
        ([step("select", "cat"), step("choose rel", "_,on|under,s", 0)], UnsupportedGQAOperation, "any class"),
        (
            [step("select", "cat"), step("exist", "?", 0), step("query", "color", 1)],
            GQAProgramError,
            "expected objects",
        ),
        ([step("select", "cat"), step("select", "dog"), step("and", "", 0, 1)], GQAProgramError, "two yes/no steps"),
        ([step("select", ""), step("exist", "?", 0)], GQAProgramError, "empty class"),
        ([step("select", "a"), step("select", "b"), step("choose", "", 0, 1)], GQAProgramError, "comparative"),
        ([{"argument": "x"}], GQAProgramError, "needs an 'operation'"),
    ],
)
def test_unsupported_or_malformed_programs_raise_clear_errors(semantic, error, what):
    with pytest.raises(error) as info:
        gqa_to_program(semantic)
    assert isinstance(info.value, ProgramError)
    assert what in str(info.value)


@needs_gqa
def test_every_real_val_program_converts_and_round_trips_exactly():
    questions = json.loads((GQA_DIR / "questions/val_balanced_sample.json").read_text())
    assert len(questions) == 1358
    operations = set()
    for qid, question in questions.items():
        operations |= {s["operation"] for s in question["semantic"]}
        program = gqa_to_program(question["semantic"])
        assert program == canonical(program), qid
        flat = format_flat(program)
        assert parse_flat(flat) == program, qid
        assert canonical(parse_flat(format_flat(parse_nested(format_nested(parse_flat(flat)))))) == program, qid
        assert canonical(parse_flat(format_flat(parse_code(format_code(parse_flat(flat)))))) == program, qid
    assert {"select", "relate", "query", "exist", "and", "or", "choose rel", "verify rel", "filter"} <= operations


@needs_gqa
def test_every_train_sample_program_converts_with_the_attribute_taxonomy():
    questions = json.loads((GQA_DIR / "questions/train_balanced_sample50.json").read_text())
    categories = load_attribute_categories(GQA_DIR / "metadata/gqa_all_attribute.json")
    assert categories["red"] == "color" and "dark" not in categories  # dark is both a color and a tone
    for question in questions:
        gqa_to_program(question["semantic"], categories)


@needs_gqa
def test_every_operation_spelling_in_the_op_map_has_a_rule():
    spellings = json.loads((GQA_DIR / "metadata/op_map.json").read_text())
    for spelling in spellings:
        head, _, rest = spelling.partition(" ")
        if head in ("same", "different", "common") or (
            head == "choose"
            and spelling
            in (
                "choose younger",
                "choose older",
                "choose healthier",
                "choose less healthy",
                "choose shorter",
                "choose longer",
                "choose smaller",
                "choose lower",
                "choose higher",
                "choose taller",
                "choose larger",
            )
        ):
            semantic = [step("select", "a"), step("select", "b"), step(spelling, "", 0, 1)]
        elif head == "select":
            semantic = [step("select", "a"), step("exist", "?", 0)]
        elif head in ("and", "or"):
            semantic = [step("select", "a"), step("exist", "?", 0), step(spelling, "", 1, 1)]
        elif head == "relate":
            semantic = [step("select", "a"), step("relate", "b,on,s", 0), step("exist", "?", 1)]
        elif spelling in ("verify rel", "choose rel"):
            argument = "b,on,s" if head == "verify" else "b,on|under,o"
            semantic = [step("select", "a"), step(spelling, argument, 0)]
        elif head == "choose":
            semantic = [step("select", "a"), step(spelling, "x|y", 0)]
        elif head == "filter":
            semantic = [step("select", "a"), step(spelling, "x", 0), step("exist", "?", 1)]
        else:
            semantic = [step("select", "a"), step(spelling, "color" if head == "query" else "x", 0)]
        assert gqa_to_program(semantic).answer is not None, spelling
