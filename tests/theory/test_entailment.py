"""The entailment table: reading it, and answers through a more general scene word."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theory import solve
from theory.entailment import (
    Entailments,
    EntailmentTableError,
    build_entailments,
    bundled_entailments,
    entailment_cost,
    parse_entailments,
)
from theory.scene_facts import SceneFacts

from .conftest import build_scene

TABLE = parse_entailments("relation\tsitting_on\ton\t0.5\nattribute\tkitten\tcat\t0.25\nattribute\tnavy\tblue\n")
KITCHEN = build_scene(
    {1: {"class": ["cat", "animal"], "color": "black"}, 2: {"class": ["chair", "furniture"]}, 3: {"class": "sofa"}},
    [(1, "on", 2), (1, "sitting_on", 3)],
)
WHERE = "scene(0). select(1,0,cat). relate_any(2,1,sitting_on,object). unique(3,2). query(4,3,name). end(4)."


def test_the_bundled_table_reads_specific_words_through_general_ones():
    table = bundled_entailments()
    assert ("sitting_on", "on") in table.relations and ("on_top_of", "on") in table.relations
    assert ("in_front_of", "of") not in table.relations  # "in front of" says nothing about "of"
    assert ("kitten", "animal") in table.attributes
    assert "on" in table.generalisations("standing_on")


def test_table_errors_name_the_line():
    with pytest.raises(EntailmentTableError, match="t.tsv:2: kind 'verb'"):
        parse_entailments("relation\ta\tb\t0.5\nverb\ta\tb\t0.5\n", "t.tsv")
    with pytest.raises(EntailmentTableError, match="t.tsv:1: probability 1.5"):
        parse_entailments("relation\ta\tb\t1.5\n", "t.tsv")
    with pytest.raises(EntailmentTableError, match="t.tsv:1: expected kind"):
        parse_entailments("relation a b\n", "t.tsv")


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["relation", "attribute"]),
            st.from_regex(r"[a-z][a-z_]{0,8}[a-z]", fullmatch=True),
            st.from_regex(r"[a-z][a-z_]{0,8}[a-z]", fullmatch=True),
            st.floats(0.01, 1.0),
        ),
        max_size=20,
    )
)
def test_a_table_written_out_reads_back_the_same(rows):
    table = build_entailments(rows)
    assert parse_entailments(table.to_tsv()) == table


def test_costs_are_likelihood_weights_never_free():
    assert entailment_cost(0.5) == 693
    assert entailment_cost(1.0) == 1


def test_an_exact_fact_answers_first_and_the_general_one_after_it_marked_approximate():
    result = solve(WHERE, KITCHEN, entailments=TABLE)
    assert [a.answer for a in result.answers] == ["sofa", "chair"]
    exact, approximate = result.answers
    assert not exact.approximate and exact.cost[0] == 0
    assert approximate.approximate and approximate.cost[0] == 693
    assert [(a.asked, a.scene) for a in approximate.approximations] == [("has_rel(1,sitting_on,2)", "has_rel(1,on,2)")]
    # The support names the scene's own fact, not the one the question asked for.
    assert "has_rel(1,on,2)" in approximate.support.facts and "has_rel(1,sitting_on,2)" not in approximate.support.facts


def test_without_a_table_only_exact_words_answer():
    assert [a.answer for a in solve(WHERE, KITCHEN).answers] == ["sofa"]
    no_sofa = build_scene({1: {"class": ["cat"]}, 2: {"class": ["chair"]}}, [(1, "on", 2)])
    assert solve(WHERE, no_sofa).status.value == "no_answer"
    assert [a.answer for a in solve(WHERE, no_sofa, entailments=TABLE).answers] == ["chair"]


def test_class_and_attribute_words_widen_too_but_not_onto_objects_with_a_more_specific_word():
    program = "scene(0). select(1,0,kitten). unique(2,1). query(3,2,color). end(3)."
    result = solve(program, KITCHEN, entailments=TABLE)
    assert [a.answer for a in result.answers] == ["black"] and result.answers[0].approximate
    table = parse_entailments("attribute\tkitten\tanimal\t0.5\nattribute\tcat\tanimal\t0.5\n")
    # The cat is a cat, so it is not read as the kitten the question asks for.
    assert solve(program, KITCHEN, entailments=table).status.value == "no_answer"
    navy = "scene(0). select(1,0,car). filter(2,1,color,navy). exist(3,2). end(3)."
    car = build_scene({1: {"class": "car", "color": "blue"}})
    assert [(a.answer, a.approximate) for a in solve(navy, car, entailments=TABLE).answers] == [
        ("no", False),
        ("yes", True),
    ]


def test_approximate_answers_rank_below_exact_ones_on_weighted_scenes():
    scene = SceneFacts()
    for oid, cls in ((1, "cat"), (2, "chair"), (3, "sofa")):
        scene.add_fact("object", oid)
        scene.add_fact("has_attr", oid, "class", cls)
        scene.add_fact("has_attr", oid, "name", cls)
    scene.add_fact("has_rel", 1, "on", 2)
    scene.add_likely("has_rel", (1, "sitting_on", 3), 0.05)  # exact but unlikely
    result = solve(WHERE, scene, entailments=TABLE)
    assert [(a.answer, a.approximate) for a in result.answers] == [("sofa", False), ("chair", True)]


def test_an_object_with_another_asked_word_is_not_read_as_this_one():
    table = parse_entailments("attribute\tchair\tfurniture\t0.5\nattribute\ttable\tfurniture\t0.5\n")
    scene = build_scene({1: {"class": ["chair", "furniture"]}, 2: {"class": ["table", "furniture"]}})
    program = "scene(0). select(1,0,chair). unique(2,1). select(3,0,table). unique(4,3). two_same(5,2,4,class). end(5)."
    # Without the rule the table could be read as a second chair, giving an approximate "yes".
    assert [(a.answer, a.approximate) for a in solve(program, scene, entailments=table).answers] == [("yes", False)]


def test_a_specific_scene_relation_answers_the_general_one_asked_exactly():
    on = "scene(0). select(1,0,sofa). relate_any(2,1,on,subject). unique(3,2). query(4,3,name). end(4)."
    found = solve(on, KITCHEN, entailments=TABLE).answers
    assert [(a.answer, a.approximate, a.cost) for a in found] == [("cat", False, (0,))]
    assert "has_rel(1,sitting_on,3)" in found[0].support.facts  # the scene's own fact
    assert solve(on, KITCHEN).answers == ()  # without a table only the exact word answers
    assert TABLE.specialisations("on") == ["sitting_on"] and TABLE.specialisations("sitting_on") == []


@pytest.mark.parametrize("asked", [{"kitten"}, {"man", "name"}, {"chair", "on", "subject"}, {"sitting_on", "cat"}])
def test_the_rows_by_predicate_and_their_words_are_those_of_the_row_facts(asked):
    table = bundled_entailments()
    rows = table.facts(asked)
    grouped = table.facts_by_predicate(asked)
    assert sorted(f for facts in grouped.values() for f in facts) == sorted(rows) != []
    assert all(f.name == name for name, facts in grouped.items() for f in facts)
    relations, values = table.words(asked)
    assert relations == {str(a) for r in rows if r.name == "rel_entails" for a in r.arguments[:2]}
    assert values == {str(a) for r in rows if r.name == "attr_entails" for a in r.arguments[:2]}


def test_rows_are_made_once_per_set_of_asked_words():
    table = Entailments(attributes={("t-shirt", "clothing"): 100, ("kitten", "cat"): 200})
    first = table.facts_by_predicate({"t-shirt"})
    assert first is table.facts_by_predicate(["t-shirt"])  # kept: the solver hands them to clingo as they are
    assert table.facts({"t-shirt"}) == first["attr_entails"] and first["rel_entails"] == []


SYNONYMS = parse_entailments("synonym\tshut\tclosed\t1\nsynonym\tbicycle\tbike\n")
GARAGE = build_scene({1: {"class": "door", "other": "shut"}, 2: {"class": "bike"}, 3: {"class": "car"}}, [])


@pytest.mark.parametrize(
    ("program", "answer"),
    [
        ("scene(0). select(1,0,door). unique(2,1). verify_attr(3,2,other,closed). end(3).", "yes"),
        ("scene(0). select(1,0,door). filter_any(2,1,closed). exist(3,2). end(3).", "yes"),
        ("scene(0). select(1,0,bicycle). exist(2,1). end(2).", "yes"),
        ("scene(0). select(1,0,car). unique(2,1). verify_attr(3,2,other,closed). end(3).", "no"),
    ],
)
def test_a_synonym_is_read_exactly_with_the_scene_fact_in_the_support(program, answer):
    result = solve(program, GARAGE, entailments=SYNONYMS)
    top = result.answers[0]
    assert top.answer == answer and not top.approximate and sum(top.cost) == 0
    if answer == "yes":
        assert any("shut" in f or "bike" in f for f in top.support.facts)


def test_without_the_table_a_synonym_is_not_read():
    program = "scene(0). select(1,0,bicycle). exist(2,1). end(2)."
    assert solve(program, GARAGE).answers[0].answer == "no"


def test_the_bundled_table_reads_a_material_said_as_its_adjective():
    # GQA's programs ask for "wood" and "metal" where scene graphs say "wooden" and "metallic".
    table = bundled_entailments()
    shed = build_scene({1: {"class": "table", "material": "wooden"}, 2: {"class": "pole", "material": "metallic"}}, [])
    for program in (
        "scene(0). select(1,0,table). unique(2,1). verify_attr(3,2,material,wood). end(3).",
        "scene(0). select(1,0,pole). unique(2,1). verify_attr(3,2,material,metal). end(3).",
    ):
        assert solve(program, shed, entailments=table).answers[0].answer == "yes"


def test_the_bundled_table_reads_what_someone_wears_holds_or_carries_as_what_they_have():
    table = bundled_entailments()
    street = build_scene(
        {1: {"class": "man"}, 2: {"class": "hat"}, 3: {"class": "bag"}, 4: {"class": "dog"}, 5: {"class": "ball"}},
        [(1, "wearing", 2), (1, "holding", 3), (4, "near", 5)],
    )
    has = "scene(0). select(1,0,{}). unique(2,1). verify_rel(3,2,{},has,object). end(3)."
    assert solve(has.format("man", "hat"), street, entailments=table).answers[0].answer == "yes"
    assert solve(has.format("man", "bag"), street, entailments=table).answers[0].answer == "yes"
    assert solve(has.format("dog", "ball"), street, entailments=table).answers[0].answer == "no"  # near is no having
    assert solve(has.format("man", "hat"), street).answers[0].answer == "no"  # without the table, only `has` itself
