import json

import pytest

from tests.support import GQA_DIR
from translators.wording.ontology import bundled_ontology, load_ontology, ontology_from_json

METADATA = GQA_DIR / "metadata"


def test_bundled_ontology_is_broad_and_uses_asp_constants():
    o = bundled_ontology()
    assert len(o.classes) >= 500 and len(o.relations) >= 150 and len(o.categories) >= 20
    assert "to_the_left_of" in o.relations and "tennis_racket" in o.classes
    assert all(" " not in word for word in o.classes | set(o.relations))


def test_value_fixes_its_category_only_when_unambiguous():
    o = ontology_from_json(
        {
            "classes": {"person": ["man"]},
            "attributes": {"color": {"values": ["red", "light"]}, "weight": {"values": ["light", "heavy"]}},
            "relations": [{"relation": "next to"}],
        }
    )
    assert o.category_of("red") == "color"
    assert o.category_of("light") is None  # listed under two categories
    assert o.category_of("left") == "hposition"
    assert o.category_of("nothing") is None
    assert {"color", "weight", "name", "hposition"} <= set(o.query_categories)


@pytest.mark.skipif(not (METADATA / "gqa_relation.json").exists(), reason=f"GQA metadata not found at {METADATA}")
def test_gqa_metadata_ontology_loads_with_its_relations():
    o = load_ontology(METADATA)
    relations = json.loads((METADATA / "gqa_relation.json").read_text())
    assert "to_the_left_of" in o.relations
    assert len(o.relations) >= len([r for r in relations if not r.startswith("same ")]) - 5
    assert o.category_of("wood") == "material"


def test_missing_ontology_files_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="gqa_relation.json"):
        load_ontology(tmp_path)
