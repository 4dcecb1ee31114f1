"""Perfect-information scene facts from GQA scene graphs."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scene.positions import third
from scene.scene_graph import SceneGraphError, graph_objects, program_constants, scene_graph_facts
from scene.taxonomy import CuratedAttributes, CuratedTaxonomy
from scene.wordnet import wordnet_available
from tests.support import GQA_DIR
from theory import SceneFacts, parse_flat, solve

GRAPHS = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
needs_gqa = pytest.mark.skipif(not GRAPHS.is_file(), reason=f"GQA scene graphs not in {GRAPHS.parent}")
needs_wordnet = pytest.mark.skipif(not wordnet_available(), reason="WordNet not installed: run `make wordnet`")

TAXONOMY = CuratedTaxonomy(
    {"person": frozenset({"man"}), "clothing": frozenset({"shirt", "tennis racket"})},
    {"color": frozenset({"red", "light blue"}), "pose": frozenset({"standing"})},
)
ATTRIBUTES = TAXONOMY.attribute_categories()
GRAPH = {
    "width": 300,
    "height": 90,
    "objects": {
        "10": {"name": "man", "x": 0, "y": 0, "w": 60, "h": 20, "attributes": ["standing", "tall"],
               "relations": [{"name": "to the left of", "object": "11"}, {"name": "wearing", "object": "11"},
                             {"name": "near", "object": "999"}]},
        "11": {"name": "shirt", "x": 200, "y": 30, "w": 10, "h": 10, "attributes": ["Light Blue", "red", "red"],
               "relations": [{"name": "to the right of", "object": "10"}]},
        "x7": {"name": "tennis racket", "x": 290, "y": 80, "w": 10, "h": 10, "attributes": [], "relations": []},
    },
}  # fmt: skip


def facts(scene: SceneFacts) -> set[str]:
    return {str(f) for f in scene.facts}


def test_third_of_the_image():
    assert third(10, 300, "hposition") == "left"
    assert third(150, 300, "hposition") == "middle"
    assert third(100, 300, "hposition") == "middle"  # the boundary belongs to the middle
    assert third(200, 300, "hposition") == "middle"  # at both ends: mirroring swaps left and right only
    assert third(250, 300, "hposition") == "right"
    assert third(5, 0, "vposition") == "middle"


@given(st.integers(0, 1000), st.integers(1, 1000))
def test_third_is_symmetric(centre, extent):
    # Whole pixels, so that mirroring is exact.
    mirror = {"left": "right", "middle": "middle", "right": "left"}
    centre = min(centre, extent)
    assert third(extent - centre, extent, "hposition") == mirror[third(centre, extent, "hposition")]


@given(st.floats(0, 1000), st.floats(0, 1000), st.floats(1, 1000))
def test_third_is_monotone(a, b, extent):
    order = {"top": 0, "middle": 1, "bottom": 2}
    low, high = sorted((a, b))
    assert order[third(low, extent, "vposition")] <= order[third(high, extent, "vposition")]


def test_encoding_of_one_graph():
    encoded = facts(scene_graph_facts(GRAPH, taxonomy=TAXONOMY))
    assert {
        "object(10)", "object(11)", "object(12)",  # "x7" is not a number: the next free one
        "has_attr(10,class,man)", "has_attr(10,class,person)", "has_attr(10,name,man)",
        "has_attr(10,hposition,left)", "has_attr(10,vposition,top)",
        "has_attr(11,hposition,right)", "has_attr(11,vposition,middle)",
        "has_attr(12,class,tennis_racket)", "has_attr(12,class,clothing)", "has_attr(12,name,tennis_racket)",
        "has_attr(12,vposition,bottom)",
        "has_attr(10,pose,standing)", "has_attr(10,other,tall)",
        "has_attr(11,color,light_blue)", "has_attr(11,color,red)",
        "has_rel(10,to_the_left_of,11)", "has_rel(10,wearing,11)", "has_rel(11,to_the_right_of,10)",
        "is_attr(color)", "is_attr_value(color,light_blue)", "is_attr(hposition)", "is_attr_value(hposition,left)",
    } <= encoded  # fmt: skip
    assert not any("999" in f for f in encoded)  # relation to an object the graph lacks
    assert len([f for f in encoded if f == "has_attr(11,color,red)"]) == 1


def test_attribute_mapping_can_be_given_apart():
    encoded = facts(
        scene_graph_facts(GRAPH, taxonomy=TAXONOMY, attributes=CuratedAttributes({"tall": frozenset({"height"})}))
    )
    assert "has_attr(10,height,tall)" in encoded and "has_attr(10,pose,standing)" not in encoded
    assert "has_attr(10,other,standing)" in encoded


def test_restriction_to_program_concepts():
    program = parse_flat("scene(0). select(1,0,person). relate(2,1,clothing,wearing,object). query(3,2,color). end(3).")
    concepts = program_constants(program)
    assert concepts == {"person", "clothing", "wearing", "object", "color"}
    encoded = facts(scene_graph_facts(GRAPH, taxonomy=TAXONOMY, concepts=concepts))
    assert "has_attr(10,class,person)" in encoded and "has_attr(10,class,man)" not in encoded
    assert "has_rel(10,wearing,11)" in encoded and "has_rel(10,to_the_left_of,11)" not in encoded
    assert "has_attr(11,color,red)" in encoded and "has_attr(10,pose,standing)" not in encoded
    assert "has_attr(10,name,man)" in encoded and "has_attr(10,hposition,left)" in encoded
    result = solve(program, scene_graph_facts(GRAPH, taxonomy=TAXONOMY, concepts=concepts))
    assert sorted(a.answer for a in result.answers) == ["light_blue", "red"]


def test_common_needs_every_attribute():
    program = parse_flat(
        "scene(0). select(1,0,man). unique(2,1). select(3,0,shirt). unique(4,3). common(5,2,4). end(5)."
    )
    assert program_constants(program) is None


@pytest.mark.parametrize(
    "graph",
    [
        {},
        {"objects": []},
        {"width": 10, "height": 10, "objects": {"1": {"name": "a"}}},
        {"objects": {"1": {"x": 0}}},
        # words with no letter or digit cannot be ASP constants
        {"objects": {"1": {"name": "", "x": 0, "y": 0, "w": 1, "h": 1}}},
        {"objects": {"1": {"name": "cat", "x": 0, "y": 0, "w": 1, "h": 1, "attributes": ["??"]}}},
        {
            "objects": {
                "1": {"name": "cat", "x": 0, "y": 0, "w": 1, "h": 1, "relations": [{"name": "-", "object": "1"}]}
            }
        },
    ],
)
def test_malformed_graphs_are_refused(graph):
    with pytest.raises(SceneGraphError):
        scene_graph_facts(graph, taxonomy=TAXONOMY, attributes=ATTRIBUTES)


def test_objects_keep_gqa_ids_and_positions():
    objects = graph_objects(GRAPH)
    assert objects["10"].id == 10 and objects["x7"].id == 12
    assert objects["11"].attributes == ("Light Blue", "red")
    assert (objects["x7"].hposition, objects["x7"].vposition) == ("right", "bottom")


@needs_gqa
@needs_wordnet
def test_real_scene_graphs_encode_and_solve():
    graphs = json.loads(GRAPHS.read_text())
    assert set(graphs) == {"2375429", "2354786", "2336498", "2315892"}
    for graph in graphs.values():
        scene = scene_graph_facts(graph)
        text = scene.to_asp()
        assert SceneFacts.from_asp(text).facts == scene.facts  # the scene validator accepts it
        assert text.count("object(") == len(graph["objects"])
    horse = scene_graph_facts(graphs["2375429"])
    encoded = facts(horse)
    assert {"has_attr(722308,class,horse)", "has_attr(722308,class,animal)", "has_attr(722308,color,white)",
            "has_attr(722308,pose,walking)", "has_rel(722308,near,722310)", "has_attr(722308,hposition,right)",
            "has_attr(722310,material,wood)"} <= encoded  # fmt: skip
    program = parse_flat("scene(0). select(1,0,animal). unique(2,1). query(3,2,color). end(3).")
    assert [a.answer for a in solve(program, horse).answers] == ["white"]


def test_ids_with_digits_int_cannot_read_are_ids_like_any_other():
    graph = {
        "objects": {
            "³": {"name": "cat", "x": 0, "y": 0, "w": 1, "h": 1},
            "7": {"name": "dog", "x": 0, "y": 0, "w": 1, "h": 1},
        }
    }
    assert {o.id for o in graph_objects(graph).values()} == {7, 8}
