"""The one scene of a request: exactly one given, a scene graph read once and its own cache key."""

from __future__ import annotations

import pickle

import pytest

from app.demo_scenes import demo_scenes
from app.errors import PipelineError
from app.parts.scene_graphs import GraphEncoder
from app.scene_input import FactsScene, GraphScene, ImageScene, one_scene
from scene.taxonomy import load_taxonomy
from theory.flat import parse_flat

KITCHEN = demo_scenes()["kitchen"]
MUG_COLOR = parse_flat("scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3).")


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({}, "give exactly one of: image, scene_graph, scene_facts"),
        ({"image": b"x", "scene_facts": "object(1)."}, "(got image, scene_facts)"),
    ],
)
def test_none_or_several_scenes_are_refused(given, message):
    with pytest.raises(PipelineError) as caught:
        one_scene(max_facts=100, **given)
    assert caught.value.kind == "invalid_input" and message in caught.value.message


def test_each_kind_of_scene_becomes_its_own_record():
    assert isinstance(one_scene(image=b"png", max_facts=100), ImageScene)
    assert one_scene(scene_facts="object(1).", max_facts=100) == FactsScene("object(1).")
    graph = one_scene(scene_graph=KITCHEN, max_facts=10_000)
    assert isinstance(graph, GraphScene) and len(graph.objects) == len(KITCHEN["objects"])


@pytest.mark.parametrize(
    ("graph", "kind"),
    [
        ([1, 2], "invalid_input"),
        ({"objects": [1]}, "invalid_input"),
        ({"objects": {"1": {"name": "cup"}}}, "invalid_input"),  # no position
    ],
)
def test_a_graph_of_another_shape_is_invalid_input(graph, kind):
    with pytest.raises(PipelineError) as caught:
        GraphScene.read(graph, max_facts=100)
    assert caught.value.kind == kind and caught.value.message.startswith("scene_graph:")


def test_a_graph_over_the_limit_is_refused_before_it_is_read():
    with pytest.raises(PipelineError) as caught:
        GraphScene.read(KITCHEN, max_facts=3)
    assert caught.value.kind == "too_large"


def test_a_graph_is_its_own_key_across_processes_and_encoded_once():
    graph = GraphScene.read(KITCHEN, max_facts=10_000)
    again = pickle.loads(pickle.dumps(graph))  # as a solver worker receives it
    assert again == graph and hash(again) == hash(graph)
    encoder = GraphEncoder(load_taxonomy(), entailments=None)
    part = encoder(graph, MUG_COLOR)
    whole = encoder(again, None)
    assert encoder(graph, MUG_COLOR) is part and encoder(graph, None) is whole
    # The program's part and the whole graph came from one encoding.
    assert encoder._whole.cache_info().misses == 1  # noqa: SLF001 - what "encoded once" means
    assert set(part.facts) < set(whole.facts)
