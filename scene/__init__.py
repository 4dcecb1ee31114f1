"""Scenes: image or scene graph -> scene facts, and the taxonomies that expand category words."""

from scene.scene_graph import (
    GraphObject,
    SceneGraphError,
    default_attributes,
    graph_objects,
    program_concepts,
    scene_graph_facts,
)
from scene.taxonomy import (
    AttributeCategories,
    CuratedAttributes,
    CuratedTaxonomy,
    HeuristicAttributes,
    Taxonomy,
    WordNetTaxonomy,
)
from scene.wordnet import WordNetUnavailable, find_wordnet, load_wordnet, wordnet_available

__all__ = [
    "AttributeCategories",
    "CuratedAttributes",
    "CuratedTaxonomy",
    "GraphObject",
    "SceneGraphError",
    "default_attributes",
    "graph_objects",
    "program_concepts",
    "scene_graph_facts",
    "HeuristicAttributes",
    "Taxonomy",
    "WordNetTaxonomy",
    "WordNetUnavailable",
    "find_wordnet",
    "load_wordnet",
    "wordnet_available",
]
