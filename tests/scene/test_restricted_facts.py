"""A program's part of a scene graph taken from the graph's one whole encoding is the part
encoded on its own: the same facts in the same order, for any set of asked words."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.demo_scenes import demo_scenes
from scene.scene_graph import encode_graph, graph_objects, graph_objects_facts, restricted_facts
from scene.taxonomy import load_taxonomy
from tests.support import GQA_DIR

GRAPHS = dict(demo_scenes())
# The real graphs where ../shared is present; the demo scenes everywhere.
SHARED = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
if SHARED.is_file():
    GRAPHS |= json.loads(SHARED.read_text())


def _words(graph: dict) -> list[str]:
    found: set[str] = {"class", "color", "material", "other", "hposition", "name"}
    for obj in graph["objects"].values():
        found.add(obj["name"].replace(" ", "_"))
        found.update(a.replace(" ", "_") for a in obj.get("attributes", ()))
        found.update(r["name"].replace(" ", "_") for r in obj.get("relations", ()))
    return sorted(found)


@pytest.fixture(scope="module")
def taxonomy():
    return load_taxonomy()


@pytest.mark.parametrize("image_id", sorted(GRAPHS))
def test_restricted_encoding_is_the_direct_one(image_id, taxonomy):
    graph = GRAPHS[image_id]
    objects = graph_objects(graph)
    whole = encode_graph(objects, taxonomy=taxonomy)
    assert whole.whole_facts().facts == graph_objects_facts(objects, taxonomy=taxonomy).facts
    words = _words(graph)

    @settings(max_examples=60, deadline=None)
    @given(st.sets(st.sampled_from(words), max_size=12))
    def same(concepts: set[str]) -> None:
        direct = graph_objects_facts(objects, taxonomy=taxonomy, concepts=concepts)
        assert restricted_facts(whole, concepts).facts == direct.facts

    same()
