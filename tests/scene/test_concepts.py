"""Concept extraction from question programs (blind) and GQA programs (oracle)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scene.concepts import Concepts, RelationQuery, concepts_from_program
from tests.support import GQA_DIR, DictTaxonomy
from theory.flat import parse_flat
from theory.operations import OTHER_CATEGORY
from theory.program import Program, Step

TAXONOMY = DictTaxonomy({"furniture": {"sofa", "table", "chair"}, "animal": {"dog", "cat"}})
COLORS = {"color": ["red", "blue", "dark blue"], "material": ["wood", "metal"]}


def test_select_filter_and_query() -> None:
    program = parse_flat(
        "scene(0). select(1,0,ball). filter(2,1,material,wood). unique(3,2). query(4,3,color). end(4)."
    )
    concepts = concepts_from_program(program, attributes=COLORS)
    assert concepts.classes == {"ball"}
    assert concepts.attributes == {"material": frozenset({"wood"}), "color": frozenset({"red", "blue", "dark_blue"})}
    assert not concepts.open_classes


def test_a_category_word_expands_to_its_members() -> None:
    program = parse_flat("scene(0). select(1,0,furniture). exist(2,1). end(2).")
    concepts = concepts_from_program(program, TAXONOMY)
    assert concepts.classes == {"sofa", "table", "chair"}
    assert concepts.expanded == {"furniture": {"sofa", "table", "chair"}}


def test_a_too_broad_category_is_detected_as_itself() -> None:
    program = parse_flat("scene(0). select(1,0,furniture). exist(2,1). end(2).")
    assert concepts_from_program(program, TAXONOMY, max_members=2).classes == {"furniture"}


def test_relations_keep_subject_and_object_classes() -> None:
    program = parse_flat(
        "scene(0). select(1,0,man). relate(2,1,horse,riding,object). relate(3,2,grass,on,object). "
        "unique(4,1). verify_rel(5,4,hat,wearing,subject). end(5)."
    )
    concepts = concepts_from_program(program)
    assert concepts.classes == {"man", "horse", "grass", "hat"}
    assert concepts.relations == {
        RelationQuery("man", "riding", "horse"),
        RelationQuery("horse", "on", "grass"),
        RelationQuery("hat", "wearing", "man"),
    }


def test_relate_any_asks_for_fallback_classes() -> None:
    program = parse_flat(
        "scene(0). select(1,0,man). relate_any(2,1,wearing,object). unique(3,2). query(4,3,name). end(4)."
    )
    concepts = concepts_from_program(program, fallback_classes=["shirt", "hat"])
    assert concepts.open_classes
    assert concepts.classes == {"man", "shirt", "hat"}
    assert concepts.relations == {RelationQuery("man", "wearing", None)}
    assert concepts_from_program(program).classes == {"man"}


def test_choose_verify_and_bare_values() -> None:
    program = parse_flat(
        "scene(0). select(1,0,cup). unique(2,1). choose_attr(3,2,color,red,blue). "
        "select(4,0,plate). filter_any(5,4,wood). filter_any(6,4,shiny). exist(7,5). end(3)."
    )
    concepts = concepts_from_program(program, attributes=COLORS)
    assert concepts.attributes["color"] == frozenset({"red", "blue"})
    assert concepts.attributes["material"] == frozenset({"wood"})
    assert concepts.attributes[OTHER_CATEGORY] == frozenset({"shiny"})


def test_class_and_position_categories_are_not_attributes() -> None:
    program = parse_flat(
        "scene(0). select(1,0,animal). filter(2,1,name,dog). filter(3,2,hposition,left). unique(4,3). "
        "query(5,4,vposition). end(5)."
    )
    concepts = concepts_from_program(program, TAXONOMY)
    assert concepts.classes == {"dog", "cat"}
    assert concepts.attributes == {}
    assert concepts.open_categories == set()


def test_a_category_without_vocabulary_is_open() -> None:
    program = parse_flat("scene(0). select(1,0,car). unique(2,1). query(3,2,color). end(3).")
    concepts = concepts_from_program(program)
    assert concepts.open_categories == {"color"} and concepts.attributes == {}


def test_merge_unions_two_questions() -> None:
    a = concepts_from_program(
        parse_flat("scene(0). select(1,0,cup). unique(2,1). query(3,2,color). end(3)."), attributes=COLORS
    )
    b = concepts_from_program(parse_flat("scene(0). select(1,0,plate). filter(2,1,color,green). exist(3,2). end(3)."))
    merged = a.merge(b)
    assert merged.classes == {"cup", "plate"}
    assert merged.attributes["color"] == frozenset({"red", "blue", "dark_blue", "green"})


WORDS = st.sampled_from(["ball", "tennis racket", "dog", "red car", "table"])


@given(st.lists(WORDS, min_size=1, max_size=5))
def test_every_selected_word_is_a_class(words: list[str]) -> None:
    steps = [Step(0, "scene")] + [Step(i + 1, "select", (0,), (w,)) for i, w in enumerate(words)]
    steps.append(Step(len(words) + 1, "exist", (1,)))
    concepts = concepts_from_program(Program(tuple(steps), len(words) + 1))
    assert concepts.classes == {w.replace(" ", "_") for w in words}
    assert isinstance(concepts, Concepts)


@pytest.mark.skipif(not (GQA_DIR / "metadata").is_dir(), reason=f"GQA data not found at {GQA_DIR}")
def test_curated_gqa_taxonomy_expands_categories() -> None:
    taxonomy = pytest.importorskip("scene.taxonomy").CuratedTaxonomy.from_dir(GQA_DIR / "metadata")
    program = parse_flat("scene(0). select(1,0,furniture). exist(2,1). end(2).")
    concepts = concepts_from_program(program, taxonomy, max_members=1000)
    assert {"table", "chair"} <= concepts.classes
    assert "furniture" not in concepts.classes
