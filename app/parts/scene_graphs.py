"""Scene graphs into facts for a program's words, each graph encoded once per process."""

from __future__ import annotations

from functools import lru_cache

from app.errors import PipelineError
from app.scene_input import GraphScene
from scene.scene_graph import EncodedGraph, SceneGraphError, encode_graph, program_constants, restricted_facts
from scene.taxonomy import Taxonomy
from theory import Program, SceneFacts
from theory.entailment import Entailments

# Scene graph encodings kept per process.
SCENE_GRAPH_CACHE = 256


class GraphEncoder:
    """The service's `SceneGraphEncoder`: the taxonomy's classes, the entailment table's wider words.

    Several questions are asked of one scene graph, and a missing answer reads the whole graph
    after the program's part of it: the whole encoding is kept by the graph's objects (the
    `GraphScene` is its own key) and each program's part is taken from it. Callers only read a
    SceneFacts, so one encoding may serve several requests at once.
    """

    def __init__(
        self, taxonomy: Taxonomy, entailments: Entailments | None, cache_size: int = SCENE_GRAPH_CACHE
    ) -> None:
        self.taxonomy = taxonomy
        self.entailments = entailments
        self._whole = lru_cache(maxsize=cache_size)(self._encode_whole)
        self._part = lru_cache(maxsize=cache_size)(self._restrict)
        self._whole_facts = lru_cache(maxsize=cache_size)(self._make_whole_facts)

    def __call__(self, graph: GraphScene, program: Program | None) -> SceneFacts:
        concepts = None if program is None else program_constants(program)
        if concepts is None:
            return self._whole_facts(graph)
        table = self.entailments
        if table is not None:
            # The general words an asked word may be read through, and the specific relations
            # that entail an asked one ("on top of" for "on").
            widened = {g for word in concepts for g in table.generalisations(word)}
            concepts = concepts | widened | {s for word in concepts for s in table.specialisations(word)}
        return self._part(graph, frozenset(concepts))

    def _encode_whole(self, graph: GraphScene) -> EncodedGraph:
        try:
            return encode_graph(graph.by_id, taxonomy=self.taxonomy)
        except SceneGraphError as exc:
            raise PipelineError("invalid_input", f"scene_graph: {exc}") from None

    def _make_whole_facts(self, graph: GraphScene) -> SceneFacts:
        return self._whole(graph).whole_facts()

    def _restrict(self, graph: GraphScene, concepts: frozenset[str]) -> SceneFacts:
        return restricted_facts(self._whole(graph), concepts)
