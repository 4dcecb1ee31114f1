"""Why no answer: the first empty step, and the nearest words the scene has instead."""

from __future__ import annotations

import pytest

from theory import SceneFacts, solve
from theory.entailment import bundled_entailments, parse_entailments
from theory.explain import explain_no_answer
from theory.flat import parse_flat

from .conftest import STREET


def why(program: str, scene: SceneFacts = STREET, **kwargs):
    assert solve(program, scene, **kwargs).status.value == "no_answer"
    return explain_no_answer(parse_flat(program), scene, kwargs.get("entailments"))


def test_a_missing_relation_names_the_step_and_the_relation_the_scene_has():
    explanation = why("scene(0). select(1,0,man). relate_any(2,1,carrying,object). query(3,2,name). end(3).")
    assert explanation.step == 2 and explanation.operation == "relate_any"
    assert "`carrying`" in explanation.message
    assert set(explanation.nearest) == {"wearing", "holding"}
    assert "`holding` from the man (1) to the leash (7)" in explanation.message
    assert explanation.objects == ("shirt (2)", "leash (7)")


@pytest.mark.parametrize(
    ("program", "step", "expected"),
    [
        ("scene(0). select(1,0,cat). unique(2,1). query(3,2,color). end(3).", 1, "no object in the scene is a `cat`"),
        (  # `this` is what an offered name fits: the names are said
            "scene(0). select(1,0,this). unique(2,1). choose_attr(3,2,name,cat,horse). end(3).",
            1,
            "no object in the scene is a `cat` or a `horse`",
        ),
        ("scene(0). select(1,0,dog). filter(2,1,color,black). exist(3,2). query(4,2,name). end(4).", 2, "color: brown"),
        ("scene(0). select(1,0,shirt). unique(2,1). query(3,2,pose). end(3).", 3, "the shirt has no pose"),
        ("scene(0). select(1,0,dog). unique(2,1). choose_attr(3,2,color,red,green). end(3).", 3, "color: brown"),
        ("scene(0). select(1,0,woman). relate(2,1,car,in_front_of,subject). query(3,2,name). end(3).", 2, "behind"),
    ],
)
def test_each_kind_of_empty_step_says_what_the_scene_has(program, step, expected):
    explanation = why(program)
    assert explanation.step == step
    assert expected in explanation.message


def test_the_nearest_classes_share_a_general_word_with_the_missing_one():
    explanation = explain_no_answer(
        parse_flat("scene(0). select(1,0,cat). unique(2,1). query(3,2,color). end(3)."),
        STREET,
        nearness=bundled_entailments(),
    )
    assert explanation.nearest[0] in ("dog", "animal")


def _graph_scene() -> SceneFacts:
    """A scene graph's encoding: each object has its name and every category above it as classes."""
    scene = SceneFacts()
    for obj, name, classes in [
        (722335, "pipe", ["tube", "conduit"]),
        (722336, "ear", ["receptor", "organ"]),
        (722337, "ear", ["receptor", "organ"]),
        (722340, "horse", ["animal", "organism"]),
    ]:
        scene.add_fact("object", obj)
        scene.add_fact("has_attr", obj, "name", name)
        for cls in [name, *classes]:
            scene.add_fact("has_attr", obj, "class", cls)
    return scene


def test_a_missing_class_is_answered_with_the_scenes_own_objects_and_their_ids():
    program = "scene(0). select(1,0,tree). unique(2,1). query(3,2,color). end(3)."
    scene = _graph_scene()
    explanation = why(program, scene)
    assert explanation.step == 1
    # Only the objects' names, never a class word that merely looks alike ("tube", "receptor").
    assert set(explanation.nearest) == {"pipe", "ear", "horse"}
    assert "ear (722336, 722337)" in explanation.objects
    assert all(o.split(" (")[0] in explanation.nearest for o in explanation.objects)
    # A similarity (the taxonomy's, in the service) puts the nearest object first.
    alike = {"horse": 0.5, "ear": 0.3, "pipe": 0.1}
    ranked = explain_no_answer(parse_flat(program), scene, similarity=lambda _, name: alike[name])
    assert ranked.nearest == ("horse", "ear", "pipe")
    assert ranked.objects == ("horse (722340)", "ear (722336, 722337)", "pipe (722335)")
    assert "the scene has horse (722340), ear (722336, 722337), pipe (722335)" in ranked.message
    assert ranked.to_json()["objects"] == list(ranked.objects)


def test_with_a_table_the_explanation_reads_the_scene_as_the_solver_does():
    table = parse_entailments("relation\tcarrying\tholding\t0.5\n")
    program = "scene(0). select(1,0,man). relate_any(2,1,carrying,object). query(3,2,color). end(3)."
    # Through the table the man carries the leash, which is red: answered, so nothing to explain.
    assert [a.answer for a in solve(program, STREET, entailments=table).answers] == ["red"]
    woman = "scene(0). select(1,0,woman). relate_any(2,1,carrying,object). query(3,2,name). end(3)."
    assert why(woman, entailments=table).step == 2


def test_a_weighted_scene_counts_what_any_reading_could_have():
    scene = SceneFacts()
    scene.add_fact("object", 1)
    scene.add_fact("has_attr", 1, "class", "mug")
    scene.add_likely("has_attr", (1, "color", "white"), 0.7)
    explanation = why("scene(0). select(1,0,mug). unique(2,1). query(3,2,material). end(3).", scene)
    assert explanation.step == 3 and "color" in explanation.nearest


def test_conditions_that_only_clash_together_have_no_single_empty_step():
    scene = SceneFacts()
    scene.add_fact("object", 1)
    scene.add_fact("has_attr", 1, "class", "mug")
    scene.add_fact("exclusive", "color")
    scene.add_fact("has_attr", 1, "color", "white")
    scene.add_fact("has_attr", 1, "color", "blue")
    explanation = why("scene(0). select(1,0,mug). unique(2,1). query(3,2,color). end(3).", scene)
    assert explanation.step is None and "no single reading" in explanation.message
