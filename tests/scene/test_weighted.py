"""Weighted scene facts and how the solver ranks answers over them."""

from __future__ import annotations

from scene.boxes import Box
from scene.detector import Detection
from scene.likelihoods import AttributeLikelihood, RelationLikelihood
from scene.weighted import WeightSettings, weighted_scene
from theory import SceneFacts, SolveStatus, solve
from theory.scene_facts import likelihood_weight


def attrs(likelihoods: dict[tuple[int, str, str], float]) -> list[AttributeLikelihood]:
    return [AttributeLikelihood(*key, p) for key, p in likelihoods.items()]


def rels(likelihoods: dict[tuple[int, str, int], float]) -> list[RelationLikelihood]:
    return [RelationLikelihood(*key, p) for key, p in likelihoods.items()]


def ball(id: int, score: float, x0: float = 0) -> Detection:
    return Detection(id, Box(x0, 0, x0 + 10, 10), "ball", score, frozenset({"toy"}), hposition="left", vposition="top")


def answers(program: str, scene: SceneFacts) -> list[str]:
    result = solve(program, scene)
    assert result.status is SolveStatus.OK, result.message
    return [a.answer for a in result.answers]


def test_detection_facts() -> None:
    scene = weighted_scene([ball(1, 0.8)], attrs({(1, "color", "red"): 0.7}))
    text = scene.to_asp().splitlines()
    for fact in (
        "object(1).",
        f"has_obj_weight(1,{likelihood_weight(0.8)}).",
        "has_attr(1,name,ball).",
        "has_attr(1,class,ball).",
        "has_attr(1,class,toy).",
        "has_attr(1,hposition,left).",
        "has_attr(1,vposition,top).",
        "is_attr(color).",
        "is_attr_value(color,red).",
    ):
        assert fact in text
    assert "{ has_attr(1,color,red) }." in text
    assert f":~ has_attr(1,color,red). [{likelihood_weight(0.7)},has_attr(1,color,red),1]" in text
    assert f":~ not has_attr(1,color,red). [{likelihood_weight(0.3)},has_attr(1,color,red),0]" in text


def test_the_scene_is_valid_asp_that_reads_back() -> None:
    scene = weighted_scene(
        [ball(1, 0.8), ball(2, 0.3, 50)],
        attrs({(1, "color", "dark blue"): 0.6, (2, "size", "small"): 0.9}),
        rels({(1, "to the left of", 2): 0.75}),
    )
    again = SceneFacts.from_asp(scene.to_asp())
    assert again.to_asp() == scene.to_asp()
    assert "exclusive(size)." in scene.to_asp() and "exclusive(color)." not in scene.to_asp()
    assert "{ has_rel(1,to_the_left_of,2) }." in scene.to_asp()


def test_low_likelihoods_are_dropped() -> None:
    scene = weighted_scene(
        [ball(1, 0.9)],
        attrs({(1, "color", "red"): 0.01, (1, "color", "blue"): 0.5}),
        rels({(1, "on", 1): 0.02}),
        WeightSettings(min_likelihood=0.05),
    )
    text = scene.to_asp()
    assert "has_attr(1,color,red)" not in text and "has_attr(1,color,blue)" in text and "has_rel" not in text
    # the value stays in the vocabulary even when no object has it
    assert "is_attr_value(color,red)." in text


def test_facts_of_unknown_objects_are_ignored() -> None:
    scene = weighted_scene([ball(1, 0.9)], attrs({(7, "color", "red"): 0.9}), rels({(1, "near", 7): 0.9}))
    assert "(7" not in scene.to_asp() and ",7)" not in scene.to_asp()


def test_unsure_between_two_objects_the_likelier_answers_first() -> None:
    # Two candidate balls: a confident red one and a doubtful blue one.
    scene = weighted_scene(
        [ball(1, 0.9), ball(2, 0.35, 50)],
        attrs(
            {
                (1, "color", "red"): 0.95,
                (1, "color", "blue"): 0.02,
                (2, "color", "blue"): 0.95,
                (2, "color", "red"): 0.02,
            }
        ),
    )
    program = "scene(0). select(1,0,ball). unique(2,1). query(3,2,color). end(3)."
    assert answers(program, scene) == ["red", "blue"]
    # Flip the detector's confidence and the ranking follows.
    flipped = weighted_scene(
        [ball(1, 0.35), ball(2, 0.9, 50)],
        attrs(
            {
                (1, "color", "red"): 0.95,
                (1, "color", "blue"): 0.02,
                (2, "color", "blue"): 0.95,
                (2, "color", "red"): 0.02,
            }
        ),
    )
    assert answers(program, flipped) == ["blue", "red"]


def test_a_box_unsure_between_two_classes_names_the_likelier_first() -> None:
    thing = Detection(
        1, Box(0, 0, 10, 10), "dog", 0.6, frozenset({"animal"}), {"cat": 0.3}, {"cat": frozenset({"animal"})}
    )
    scene = weighted_scene([thing])
    text = scene.to_asp()
    assert "has_attr(1,class,animal)." in text  # both candidates are animals
    assert "exclusive(name)." in text
    assert answers("scene(0). select(1,0,animal). unique(2,1). query(3,2,name). end(3).", scene) == ["dog", "cat"]
    assert answers("scene(0). select(1,0,cat). exist(2,1). end(2).", scene) == ["no", "yes"]
    certain = weighted_scene([thing], settings=WeightSettings(class_alternatives=False))
    assert answers("scene(0). select(1,0,animal). unique(2,1). query(3,2,name). end(3).", certain) == ["dog"]


def test_relation_likelihoods_rank_choices() -> None:
    man = Detection(1, Box(0, 0, 10, 30), "man", 0.9)
    horse = Detection(2, Box(0, 10, 30, 40), "horse", 0.9)
    scene = weighted_scene([man, horse], relations=rels({(1, "riding", 2): 0.8, (1, "feeding", 2): 0.3}))
    program = "scene(0). select(1,0,horse). unique(2,1). choose_rel(3,2,man,riding,feeding,subject). end(3)."
    assert answers(program, scene) == ["riding", "feeding"]


def test_uncertain_objects_weigh_existence() -> None:
    scene = weighted_scene([ball(1, 0.2)], settings=WeightSettings(uncertain_objects=True))
    assert answers("scene(0). select(1,0,ball). exist(2,1). end(2).", scene) == ["no", "yes"]
    assert answers("scene(0). select(1,0,ball). exist(2,1). end(2).", weighted_scene([ball(1, 0.2)])) == ["yes"]
