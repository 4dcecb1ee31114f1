"""The GQA interpreter: answers on the real sample scene graphs, typed failures, utilities."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.interpreter import (
    AmbiguousAnswer,
    EmptyChoice,
    EmptyQuery,
    IncompleteMetadata,
    Interpreter,
    InterpreterFailure,
    MissingEdge,
    NonTrivialCategory,
    NotInWordnet,
    sanitise_answer,
)
from scene.taxonomy import CuratedTaxonomy
from scene.wordnet import wordnet_available
from tests.support import GQA_DIR

GRAPHS = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
QUESTIONS = json.loads((Path(__file__).parents[1] / "data" / "gqa_questions.json").read_text())
needs_gqa = pytest.mark.skipif(not GRAPHS.is_file(), reason=f"GQA scene graphs not in {GRAPHS.parent}")
needs_wordnet = pytest.mark.skipif(not wordnet_available(), reason="WordNet not installed: run `make wordnet`")


def step(operation: str, argument: str = "", deps: tuple[int, ...] = ()) -> dict:
    return {"operation": operation, "argument": argument, "dependencies": list(deps)}


# A small curated world, so these tests need neither WordNet nor the GQA files.
TAXONOMY = CuratedTaxonomy(
    {"animal": frozenset({"dog", "cat", "horse"}), "furniture": frozenset({"table", "chair"})},
    {"color": frozenset({"white", "brown", "black"}), "material": frozenset({"wood", "metal"}),
     "size": frozenset({"small", "large"})},
)  # fmt: skip
GRAPH = {
    "width": 300,
    "height": 300,
    "objects": {
        "1": {"name": "dog", "x": 0, "y": 200, "w": 20, "h": 20, "attributes": ["brown", "small"],
              "relations": [{"name": "to the left of", "object": "3"}, {"name": "under", "object": "3"}]},
        "2": {"name": "cat", "x": 250, "y": 0, "w": 20, "h": 20, "attributes": ["white", "large", "fluffy"],
              "relations": [{"name": "on", "object": "3"}]},
        "3": {"name": "table", "x": 100, "y": 150, "w": 100, "h": 50, "attributes": ["wood", "brown"], "relations": []},
        "4": {"name": "chair", "x": 110, "y": 150, "w": 20, "h": 50, "attributes": [], "relations": []},
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def small() -> Interpreter:
    return Interpreter(TAXONOMY)


def test_sanitise_answer():
    assert sanitise_answer(True) == "yes" and sanitise_answer(False) == "no"
    assert sanitise_answer("to the left of") == "left"
    assert sanitise_answer("to_the_right_of") == "right"
    assert sanitise_answer("in_front_of") == "front"
    assert sanitise_answer(" Tennis_Racket ") == "tennis racket"
    assert sanitise_answer("behind") == "behind"


def test_utilities(small):
    assert small.is_a("dog", "animal") and small.is_a("dog", "dog") and not small.is_a("table", "animal")
    assert small.category_of("white") == {"color"} and small.category_of("fluffy") == set()
    scene = small.prepare(GRAPH)
    assert small.pick_attribute(scene.objects[2], "color") == {"white"}
    assert small.pick_attribute(scene.objects[2], "other") == {"fluffy"}
    assert small.pick_attribute(scene.objects[2], "name") == {"cat"}
    assert small.pick_attribute(scene.objects[2], "hposition") == {"right"}


@pytest.mark.parametrize(
    ("program", "answer"),
    [
        ([step("select", "animal (1,2)"), step("filter color", "white", [0]), step("query", "name", [1])], "cat"),
        ([step("select", "animal"), step("filter", "not(white)", [0]), step("query", "color", [1])], "brown"),
        ([step("select", "table"), step("relate", "_,on,s", [0]), step("query", "name", [1])], "cat"),
        ([step("select", "dog"), step("relate", "furniture,under,o", [0]), step("query", "material", [1])], "wood"),
        ([step("select", "dog"), step("relate", "furniture,same color,s", [0]), step("query", "name", [1])], "table"),
        ([step("select", "dog"), step("relate", "furniture,same color,_", [0]), step("query", "name", [1])], "table"),
        ([step("select", "table"), step("choose rel", "dog,to the left of|to the right of,s", [0])], "left"),
        ([step("select", "dog"), step("verify rel", "table,under,o", [0])], "yes"),
        ([step("select", "cat"), step("verify rel", "_,under,o", [0])], "no"),
        ([step("select", "cat"), step("choose", "fluffy|smooth", [0])], "fluffy"),
        ([step("select", "cat"), step("choose size", "small|large", [0])], "large"),
        ([step("select", "cat"), step("verify", "fluffy", [0])], "yes"),
        ([step("select", "dog"), step("select", "cat"), step("choose larger", "", [0, 1])], "cat"),
        ([step("select", "dog"), step("select", "cat"), step("choose less white", "", [0, 1])], "dog"),
        ([step("select", "dog"), step("select", "table"), step("same color", "", [0, 1])], "yes"),
        ([step("select", "dog"), step("select", "table"), step("different", "color", [0, 1])], "no"),
        ([step("select", "animal"), step("same", "color", [0])], "no"),
        ([step("select", "animal"), step("different", "type", [0])], "yes"),
        ([step("select", "dog"), step("select", "table"), step("common", "", [0, 1])], "color"),
        ([step("select", "horse"), step("exist", "?", [0])], "no"),
        ([step("select", "dog"), step("exist", "?", [0]), step("select", "cat"), step("exist", "?", [2]),
          step("and", "", [1, 3])], "yes"),
        ([step("select", "horse"), step("exist", "?", [0]), step("select", "cat"), step("exist", "?", [2]),
          step("or", "", [1, 3])], "yes"),
        ([step("select", "cat"), step("query", "vposition", [0])], "top"),
        ([step("select", "chair"), step("choose hposition", "left|middle", [0])], "middle"),
    ],
)  # fmt: skip
def test_operations_on_a_small_graph(small, program, answer):
    assert small.run(program, GRAPH) == answer


@pytest.mark.parametrize(
    ("program", "failure"),
    [
        ([step("select", "horse"), step("query", "color", [0])], EmptyQuery),
        ([step("select", "chair"), step("query", "color", [0])], EmptyQuery),
        ([step("select", "animal"), step("query", "color", [0])], AmbiguousAnswer),
        ([step("select", "animal"), step("verify color", "white", [0])], AmbiguousAnswer),
        ([step("select", "table"), step("choose rel", "cat,under|beside,s", [0])], MissingEdge),
        ([step("select", "cat"), step("choose color", "black|brown", [0])], EmptyChoice),
        ([step("select", "dog"), step("select", "table"), step("choose whiter", "", [0, 1])], EmptyChoice),
        ([step("select", "cat"), step("query", "place", [0])], NonTrivialCategory),
        ([step("select", "cat"), step("filter color", "fluffy", [0]), step("exist", "?", [1])], IncompleteMetadata),
        ([step("select", "animal"), step("same", "material", [0])], IncompleteMetadata),
        ([step("select", "dog"), step("select", "table"), step("common", "", [1, 0]), step("select", "cat"),
          step("select", "chair"), step("common", "", [3, 4])], EmptyQuery),
    ],
)  # fmt: skip
def test_typed_failures(small, program, failure):
    with pytest.raises(failure) as info:
        small.run(program, GRAPH)
    assert isinstance(info.value, InterpreterFailure) and info.value.kind == failure.__name__


def test_class_unknown_to_a_curated_taxonomy(small):
    with pytest.raises(IncompleteMetadata):
        small.run([step("select", "unicorn"), step("exist", "?", [0])], GRAPH)


@needs_wordnet
def test_not_in_wordnet():
    with pytest.raises(NotInWordnet):
        Interpreter().run([step("select", "xyzzyq"), step("exist", "?", [0])], GRAPH)


def test_malformed_programs_raise_value_errors(small):
    with pytest.raises(ValueError):
        small.run([], GRAPH)
    with pytest.raises(ValueError, match="unknown operation"):
        small.run([step("teleport", "x")], GRAPH)
    with pytest.raises(ValueError, match="gives objects"):
        small.run([step("select", "dog")], GRAPH)


@needs_gqa
@needs_wordnet
@pytest.mark.parametrize("question_id", sorted(QUESTIONS))
def test_real_scene_graph_questions(question_id):
    graphs = _graphs()
    record = QUESTIONS[question_id]
    assert _interpreter().run(record["semantic"], graphs[record["imageId"]]) == record["answer"], record["question"]


def test_questions_cover_every_operation_family():
    operations = {s["operation"].split(" ")[0] if s["operation"] != "choose rel" else "choose rel"
                  for r in QUESTIONS.values() for s in r["semantic"]}  # fmt: skip
    spellings = {s["operation"] for r in QUESTIONS.values() for s in r["semantic"]}
    assert {"select", "relate", "filter", "query", "verify", "choose", "choose rel", "exist", "and", "or", "same",
            "different", "common"} <= operations  # fmt: skip
    assert {"verify rel", "filter", "verify", "choose", "choose whiter", "same material", "different color", "same",
            "different", "choose name", "filter hposition", "filter vposition"} <= spellings  # fmt: skip
    assert any("not(" in s["argument"] for r in QUESTIONS.values() for s in r["semantic"])
    assert any(",same " in s["argument"] for r in QUESTIONS.values() for s in r["semantic"])
    assert len(QUESTIONS) >= 40


_CACHE: dict[str, object] = {}


def _graphs() -> dict:
    if "graphs" not in _CACHE:
        _CACHE["graphs"] = json.loads(GRAPHS.read_text())
    return _CACHE["graphs"]  # type: ignore[return-value]


def _interpreter() -> Interpreter:
    if "interpreter" not in _CACHE:
        _CACHE["interpreter"] = Interpreter()
    return _CACHE["interpreter"]  # type: ignore[return-value]
