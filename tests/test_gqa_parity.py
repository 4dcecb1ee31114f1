"""The interpreter and the ASP route agree: GQA program -> gqa_to_program -> flat ASP, plus the
perfect-information encoding of the scene graph, solved by clingo, gives the interpreter's answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.interpreter import (
    AmbiguousAnswer,
    EmptyChoice,
    EmptyQuery,
    Interpreter,
    MissingEdge,
    NonTrivialCategory,
    sanitise_answer,
)
from scene.scene_graph import program_constants, scene_graph_facts
from scene.taxonomy import CuratedTaxonomy, HeuristicAttributes, WordNetTaxonomy
from scene.wordnet import wordnet_available
from tests.support import GQA_DIR
from theory import SolveStatus, format_flat, parse_flat, solve
from theory.scene_facts import asp_constant
from translators.gqa.gqa_program import gqa_to_program

GRAPHS = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
QUESTIONS = json.loads((Path(__file__).parent / "data" / "gqa_questions.json").read_text())

needs_real_data = [
    pytest.mark.skipif(not GRAPHS.is_file(), reason=f"GQA scene graphs not in {GRAPHS.parent}"),
    pytest.mark.skipif(not wordnet_available(), reason="WordNet not installed: run `make wordnet`"),
]


@pytest.fixture(scope="module")
def world():
    graphs = json.loads(GRAPHS.read_text())
    taxonomy, attributes = WordNetTaxonomy(), HeuristicAttributes()
    scenes = {
        image: scene_graph_facts(graph, taxonomy=taxonomy, attributes=attributes) for image, graph in graphs.items()
    }
    return graphs, taxonomy, attributes, scenes, Interpreter(taxonomy, attributes)


def value_categories(semantic: list[dict], attributes: HeuristicAttributes) -> dict[str, str]:
    """value -> category for the words of a program whose category is unambiguous, as the
    translator wants them for bare `verify`/`choose`."""
    found = {}
    for step in semantic:
        for part in step["argument"].replace("|", ",").split(","):
            word = part.split("(")[0].strip()
            if word and word not in ("_", "?"):
                categories = attributes.categories_of(word)
                if len(categories) == 1:
                    found[asp_constant(word)] = asp_constant(next(iter(categories)))
    return found


@pytest.mark.parametrize("question_id", [pytest.param(q, marks=needs_real_data) for q in sorted(QUESTIONS)])
def test_asp_answer_equals_interpreter_answer(world, question_id):
    graphs, taxonomy, attributes, scenes, interpreter = world
    record = QUESTIONS[question_id]
    expected = interpreter.run(record["semantic"], graphs[record["imageId"]])
    program = gqa_to_program(record["semantic"], value_categories(record["semantic"], attributes))
    assert parse_flat(format_flat(program)) == program
    result = solve(program, scenes[record["imageId"]])
    assert result.status is SolveStatus.OK, (record["question"], format_flat(program), result.message)
    assert [sanitise_answer(a.answer) for a in result.answers] == [expected], (record["question"], format_flat(program))
    # The encoding restricted to the program's concepts gives the same answer.
    restricted = scene_graph_facts(
        graphs[record["imageId"]], taxonomy=taxonomy, attributes=attributes, concepts=program_constants(program)
    )
    assert len(restricted) <= len(scenes[record["imageId"]])
    assert [sanitise_answer(a.answer) for a in solve(program, restricted).answers] == [expected]


def _step(operation: str, argument: str = "", deps: tuple[int, ...] = ()) -> dict:
    return {"operation": operation, "argument": argument, "dependencies": list(deps)}


SMALL_TAXONOMY = CuratedTaxonomy(
    {"animal": frozenset({"dog", "cat", "horse"})},
    {"color": frozenset({"white", "brown", "black"}), "material": frozenset({"wood"})},
)
SMALL_GRAPH = {"width": 90, "height": 90, "objects": {
    "1": {"name": "dog", "x": 0, "y": 0, "w": 9, "h": 9, "attributes": ["brown"],
          "relations": [{"name": "near", "object": "2"}]},
    "2": {"name": "cat", "x": 80, "y": 0, "w": 9, "h": 9, "attributes": ["white"], "relations": []}}}  # fmt: skip


@pytest.mark.parametrize(
    ("semantic", "failure"),
    [
        ([_step("select", "horse"), _step("query", "color", [0])], EmptyQuery),
        ([_step("select", "cat"), _step("choose rel", "dog,on|under,s", [0])], MissingEdge),
        ([_step("select", "cat"), _step("choose color", "black|brown", [0])], EmptyChoice),
        ([_step("select", "dog"), _step("select", "cat"), _step("choose browner", "", [0, 1]), ], None),
        ([_step("select", "dog"), _step("select", "dog"), _step("choose whiter", "", [0, 1])], EmptyChoice),
        ([_step("select", "cat"), _step("query", "material", [0])], EmptyQuery),
        ([_step("select", "cat"), _step("query", "place", [0])], NonTrivialCategory),
        ([_step("select", "animal"), _step("query", "color", [0])], AmbiguousAnswer),
        ([_step("select", "animal"), _step("verify color", "white", [0])], AmbiguousAnswer),
    ],
)  # fmt: skip
def test_failures_correspond(semantic, failure):
    """A failure the interpreter names is no answer (or, when ambiguous, several) in ASP."""
    interpreter = Interpreter(SMALL_TAXONOMY)
    result = solve(gqa_to_program(semantic), scene_graph_facts(SMALL_GRAPH, taxonomy=SMALL_TAXONOMY))
    answers = [sanitise_answer(a.answer) for a in result.answers]
    if failure is None:
        assert answers == [interpreter.run(semantic, SMALL_GRAPH)]
        return
    with pytest.raises(failure):
        interpreter.run(semantic, SMALL_GRAPH)
    if failure is AmbiguousAnswer:
        assert len(answers) > 1
    else:
        assert result.status is SolveStatus.NO_ANSWER and answers == []
