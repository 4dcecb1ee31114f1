"""The clingo runner: ranking by cost on weighted scenes, support, statuses and limits."""

from __future__ import annotations

import clingo
import pytest

from tests.theory.conftest import STREET, build_scene
from theory import SceneFacts, SolveLimits, SolveStatus, likelihood_weight, solve, solver
from theory.solver import grounding, rules, scene_readings

COLOR_OF_BALL = "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3)."


def weighted_ball(p_red: float, p_blue: float, exclusive: bool = True) -> SceneFacts:
    scene = SceneFacts()
    scene.add_fact("object", 1)
    scene.add_fact("has_attr", 1, "class", "ball")
    scene.add_likely("has_attr", (1, "color", "red"), p_red)
    scene.add_likely("has_attr", (1, "color", "blue"), p_blue)
    if exclusive:
        scene.add_fact("exclusive", "color")
    return scene


def test_likelihood_weight():
    assert likelihood_weight(1.0) == 0
    assert likelihood_weight(0.9) == 105
    assert likelihood_weight(0.2) == 1609
    assert likelihood_weight(0.0) == 5000
    assert likelihood_weight(1e-9) == 5000


def test_weighted_scene_ranks_likelier_value_first():
    result = solve(COLOR_OF_BALL, weighted_ball(0.9, 0.2))
    assert result.status is SolveStatus.OK and result.optimal
    assert [a.answer for a in result.answers] == ["red", "blue"]
    red, blue = result.answers
    # red true (105) + blue false (223); blue true (1609) + red false (2302).
    assert red.cost == (105 + 223,)
    assert blue.cost == (1609 + 2302,)


def test_weighted_ranking_follows_likelihoods_not_names():
    result = solve(COLOR_OF_BALL, weighted_ball(0.3, 0.8))
    assert [a.answer for a in result.answers] == ["blue", "red"]


def test_weighted_scene_without_exclusivity_still_ranks():
    result = solve(COLOR_OF_BALL, weighted_ball(0.9, 0.2, exclusive=False))
    assert [a.answer for a in result.answers] == ["red", "blue"]
    assert result.answers[0].cost < result.answers[1].cost


def test_weighted_scene_from_asp_text_is_equivalent():
    scene = weighted_ball(0.9, 0.2)
    reread = SceneFacts.from_asp(scene.to_asp())
    assert [a.cost for a in solve(COLOR_OF_BALL, reread).answers] == [
        a.cost for a in solve(COLOR_OF_BALL, scene).answers
    ]


def test_uncertain_detection_prefers_confident_object():
    scene = SceneFacts()
    for oid, color, weight in ((1, "red", likelihood_weight(0.9)), (2, "green", likelihood_weight(0.4))):
        scene.add_fact("object", oid)
        scene.add_fact("has_attr", oid, "class", "ball")
        scene.add_fact("has_attr", oid, "color", color)
        scene.add_fact("has_obj_weight", oid, weight)
    result = solve(COLOR_OF_BALL, scene)
    assert [a.answer for a in result.answers] == ["red", "green"]


def test_top_k_limits_answers():
    scene = build_scene({i: {"class": "ball", "color": c} for i, c in enumerate(["red", "green", "blue", "pink"], 1)})
    assert [a.answer for a in solve(COLOR_OF_BALL, scene, top_k=2).answers] == ["blue", "green"]
    assert len(solve(COLOR_OF_BALL, scene, top_k=10).answers) == 4


def test_support_lists_steps_and_facts():
    result = solve(
        "scene(0). select(1, 0, man). relate_any(2, 1, wearing, object). unique(3, 2). query(4, 3, color). end(4).",
        STREET,
    )
    top = result.answers[0]
    assert top.answer == "red"
    assert top.support.steps[1] == ["1"] and top.support.steps[4] == ["red"]
    assert {"has_attr(1,class,man)", "has_rel(1,wearing,2)", "has_attr(2,color,red)"} <= set(top.support.facts)


def test_no_answer_status():
    result = solve("scene(0). select(1, 0, unicorn). unique(2, 1). query(3, 2, color). end(3).", STREET)
    assert result.status is SolveStatus.NO_ANSWER and result.answers == () and result.message


def test_invalid_program_and_scene_are_statuses_not_exceptions():
    assert solve("scene(0). foo(1). end(0).", STREET).status is SolveStatus.INVALID_PROGRAM
    assert solve("#script (python)\nimport os\n#end. scene(0).", STREET).status is SolveStatus.INVALID_PROGRAM
    assert solve(COLOR_OF_BALL, "object(1). p(X) :- object(X).").status is SolveStatus.INVALID_SCENE
    assert solve(COLOR_OF_BALL, '#include "/etc/passwd".').status is SolveStatus.INVALID_SCENE
    assert (
        solve(COLOR_OF_BALL, "object(1). has_attr(1,class,ball).\n:~ has_attr(1,color,red). [5]").status
        is SolveStatus.INVALID_SCENE
    )


def test_size_limits():
    result = solve(COLOR_OF_BALL, STREET, limits=SolveLimits(max_scene_facts=5))
    assert result.status is SolveStatus.TOO_LARGE and "limit 5" in result.message
    result = solve(COLOR_OF_BALL, STREET, limits=SolveLimits(max_ground_atoms=10))
    assert result.status is SolveStatus.TOO_LARGE and "atoms" in result.message
    result = solve(COLOR_OF_BALL, STREET, limits=SolveLimits(max_program_steps=2))
    assert result.status is SolveStatus.TOO_LARGE


def test_timeout_status_keeps_what_was_found():
    # A large, fully uncertain scene: proving optimality of every rank takes far longer than 1 ms.
    scene = SceneFacts()
    for oid in range(1, 61):
        scene.add_fact("object", oid)
        scene.add_fact("has_attr", oid, "class", "ball")
        for j, color in enumerate(["red", "green", "blue", "pink", "gray", "black"]):
            scene.add_likely("has_attr", (oid, "color", color), ((oid * 7 + j * 13) % 97) / 100 + 0.01)
    result = solve(
        "scene(0). select(1, 0, ball). all_different(2, 1, color). end(2).", scene, limits=SolveLimits(timeout_s=0.001)
    )
    assert result.status is SolveStatus.TIMEOUT
    assert "time limit" in result.message


def test_deterministic_order_of_ties():
    scene = build_scene({i: {"class": "ball", "color": c} for i, c in enumerate(["zebra_print", "amber", "mauve"], 1)})
    first = [a.answer for a in solve(COLOR_OF_BALL, scene).answers]
    assert first == sorted(first)
    assert all([a.answer for a in solve(COLOR_OF_BALL, scene).answers] == first for _ in range(3))


@pytest.mark.parametrize(
    "texts",
    [
        ['value(1,"a,b)")', "state(1,-3)"],
        ['support(2,has_attr(1,"x(y",f(g(h))))', 'ans("\\"q")', "ans((1,2))"],  # nested three deep
        ['value(1,"é")', "ans(red)", "ans(red)"],
        ["ans(red)"],
    ],
)
def test_symbols_are_printed_as_clingo_prints_each(texts):
    symbols = [clingo.parse_term(t) for t in texts]
    assert solver.printed(symbols) == [str(s) for s in symbols]


def test_the_reading_of_a_scene_text_is_kept_for_the_next_question_about_it():
    text = STREET.to_asp()
    first = solver.read_scene(text)
    assert solver.read_scene("".join(text)) is first  # an equal text, not only the same object
    program = "scene(0). select(1, 0, car). unique(2, 1). query(3, 2, color). end(3)."
    assert solve(program, text).answers == solve(program, STREET).answers
    # Past the kept size a text is read afresh; a refused text is refused every time.
    long = text + "\n" * solver.KEPT_SCENE_CHARS
    assert solver.read_scene(long) is not solver.read_scene(long)
    hostile = text + "object(X) :- has_rel(X, on, Y)."
    for _ in range(2):
        assert solve(program, hostile).status is SolveStatus.INVALID_SCENE


def test_a_scene_of_certain_facts_is_read_as_the_text_of_them():
    reading = scene_readings.certain_text(STREET)
    assert reading is not None and reading.text == "".join(f"{fact}.\n" for fact in STREET.facts)
    assert len(reading) == len(STREET) and ("has_rel", 3) in reading.signatures
    # Equal facts in another scene object are the same key: the reading is kept.
    assert scene_readings.certain_text(SceneFacts(facts=list(STREET.facts))) is reading
    # What the plain reading does not admit is left to the objects' own path.
    for odd in ('has_attr(1,name,"a (b)")', "has_attr(1,size,f(2))", "flag", "has_attr(1,2)"):
        other = SceneFacts(facts=[*STREET.facts, clingo.parse_term(odd)])
        assert scene_readings.certain_text(other) is None
    weighted = SceneFacts(facts=list(STREET.facts))
    weighted.add_likely("has_attr", (1, "color", "red"), 0.5)
    assert scene_readings.certain_text(weighted) is None


def test_a_scene_given_as_objects_answers_as_its_text():
    # Enough facts that the objects are narrowed as their text (`NARROWED_OBJECTS_FROM`).
    scene = SceneFacts(facts=list(STREET.facts))
    for oid in range(100, 140):
        scene.add_fact("object", oid)
        scene.add_fact("has_attr", oid, "class", ("tree", "shirt")[oid % 2])
        scene.add_fact("has_attr", oid, "color", ("green", "blue")[oid % 2])
        scene.add_fact("has_rel", 1, ("near", "wearing")[oid % 2], oid)
    assert len(scene.facts) >= grounding.NARROWED_OBJECTS_FROM
    program = "scene(0). select(1, 0, man). relate(2, 1, clothing, wearing, object). unique(3, 2). "
    program += "query(4, 3, color). end(4)."
    by_objects, by_text = solve(program, scene, top_k=5), solve(program, scene.to_asp(), top_k=5)
    assert by_objects.answers == by_text.answers and [a.answer for a in by_objects.answers] == ["red"]
    # A fact the plain reading does not admit: the scene reaches clingo as objects, whole.
    quoted = SceneFacts(facts=[*scene.facts, clingo.parse_term('has_attr(2,brand,"a (b)")')])
    assert solve(program, quoted, top_k=5).answers == by_objects.answers


def test_rule_texts_are_parsed_once():
    text = "p(1,X) :- q(X).\nr(X) :- p(1,X); not s(X)."
    first = rules.parsed_rules(text)
    assert [str(s) for s in first] == ["p(1,X) :- q(X).", "r(X) :- p(1,X); not s(X)."]
    again = rules.parsed_rules("r(X) :- p(1,X); not s(X).\np(1,X) :- q(X).")
    assert again[0] is first[1] and again[1] is first[0]
    assert rules.parsed_rules("") == []


def test_a_program_is_checked_once_and_a_wrong_one_every_time():
    program = "scene(0). select(1, 0, car). unique(2, 1). query(3, 2, color). end(3)."
    assert solve(program, STREET).answers == solve(program, STREET).answers
    for _ in range(2):
        assert solve("scene(0). select(1, 0, car). end(1).", STREET).status is SolveStatus.INVALID_PROGRAM
