"""Scenes: image or scene graph -> scene facts, and the taxonomies that expand category words."""

from scene.scene_graph import (
    GraphObject,
    SceneGraphError,
    default_attributes,
    graph_objects,
    program_constants,
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
    "HeuristicAttributes",
    "SceneGraphError",
    "Taxonomy",
    "WordNetTaxonomy",
    "WordNetUnavailable",
    "default_attributes",
    "find_wordnet",
    "graph_objects",
    "load_wordnet",
    "program_constants",
    "scene_graph_facts",
    "wordnet_available",
]
