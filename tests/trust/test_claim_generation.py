"""Generated claims about scene graphs get the verdicts they were made for."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from scene.scene_graph import scene_graph_facts
from scene.taxonomy import load_taxonomy
from tests.support import GQA_DIR, DictTaxonomy
from theory.scene_facts import asp_constant
from trust.claim_generation import generate_claims
from trust.verify import ClaimVerifier

GRAPH = {
    "width": 600,
    "height": 300,
    "objects": {
        "1": {
            "name": "bus",
            "x": 0,
            "y": 100,
            "w": 100,
            "h": 50,
            "attributes": ["red"],
            "relations": [{"name": "to the left of", "object": "2"}],
        },
        "2": {
            "name": "car",
            "x": 400,
            "y": 100,
            "w": 100,
            "h": 50,
            "attributes": ["white"],
            "relations": [{"name": "to the right of", "object": "1"}],
        },
        "3": {"name": "dog", "x": 250, "y": 200, "w": 20, "h": 20, "attributes": ["brown"], "relations": []},
        "4": {"name": "dog", "x": 280, "y": 200, "w": 20, "h": 20, "attributes": ["black"], "relations": []},
    },
}
VALUES = {"color": ["red", "white", "brown", "black", "blue"], "material": ["metal", "wood"]}


def test_each_kind_true_false_and_undecidable_on_a_small_graph():
    claims = generate_claims(GRAPH, absent_classes=["cat", "bus"], attribute_values=VALUES)
    kinds = Counter((c.kind, c.expected) for c in claims)
    for kind in ("object", "attribute", "relation", "position", "count"):
        assert kinds[(kind, "supported")] and kinds[(kind, "refuted")], kind
    assert kinds[("attribute", "unverifiable")]
    verifier = ClaimVerifier(scene_graph_facts(GRAPH, taxonomy=DictTaxonomy({})))
    for item in claims:
        assert verifier.verify(item.claim).verdict == item.expected, item.text


def test_false_claims_change_exactly_one_thing():
    claims = generate_claims(GRAPH, absent_classes=["cat"], attribute_values=VALUES)
    relations = {(c.perturbation, c.text) for c in claims if c.kind == "relation"}
    true = {t for p, t in relations if p == "none"}
    false = {t for p, t in relations if p == "relation"}
    # Each false relation claim is a true one with its relation replaced by the opposite.
    swap = {"to the left of": "to the right of", "to the right of": "to the left of"}
    assert false and all(any(f == t.replace(a, b) for t in true for a, b in swap.items() if a in t) for f in false)


def test_real_scene_graphs_verdicts():
    path = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
    if not path.exists():
        pytest.skip(f"no GQA scene graphs at {path}")
    graphs = json.loads(path.read_text(encoding="utf-8"))
    taxonomy = load_taxonomy(GQA_DIR / "metadata")
    values = {asp_constant(k): sorted(asp_constant(v) for v in vs) for k, vs in taxonomy.attributes.items()}
    names = sorted({asp_constant(o["name"]) for g in graphs.values() for o in g["objects"].values()})
    right = total = wrongly_supported = 0
    for image_id, graph in sorted(graphs.items())[:2]:
        verifier = ClaimVerifier(scene_graph_facts(graph, taxonomy=taxonomy))
        claims = generate_claims(
            graph,
            absent_classes=names,
            attribute_values=values,
            attributes=taxonomy.attribute_categories(),
            classes_of={k: set(v) for k, v in verifier.index.classes.items()},
            per_kind=8,
            seed=int(image_id),
        )
        for item in claims:
            verdict = verifier.verify(item.claim).verdict
            right += verdict == item.expected
            wrongly_supported += verdict == "supported" and item.expected != "supported"
            total += 1
    assert total > 50
    assert right / total >= 0.95
    assert wrongly_supported == 0
