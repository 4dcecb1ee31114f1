"""Weighted scene text as vision-language pipelines write it (a choice and a weak constraint of each
sign per uncertain atom, named by a tuple): the plain reader reads it, and kept per text, and its
reading answers with the costs of the AST reader's."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import theory.asp_data as asp_data
from theory import SceneFacts, solve
from theory.data_text import SceneText, plain_scene
from theory.operations import SCENE_PREDICATES
from theory.solver import read_scene

CLASSES = ["logo", "shirt", "cup"]
COLOURS = ["beige", "red", "dark_blue", "white"]
RELATIONS = ["on", "near"]
OPTIONS = {"what": "scene", "allow_choices": True, "allowed": SCENE_PREDICATES}
# Spacing as writers put it between tokens: none, blanks, tabs, line breaks.
GAPS = st.sampled_from(["", "", " ", "  ", "\t", "\n", " \n  ", "\r\n"])


def _spaced(draw: st.DrawFn, tokens: list[str]) -> str:
    """The tokens joined by drawn spacing."""
    return "".join(token + draw(GAPS) for token in tokens[:-1]) + tokens[-1]


def _atom(draw: st.DrawFn, name: str, arguments: tuple[str, ...]) -> str:
    """`name(ARGS)` with drawn spacing inside the parentheses (none before them, as clingo needs)."""
    inside = [name + "(", *[part for a in arguments for part in (a, ",")][:-1], ")"]
    return _spaced(draw, inside)


def _weak(draw: st.DrawFn, name: str, arguments: tuple[str, ...], weight: int, negated: bool) -> str:
    level = draw(st.sampled_from(["", "@0"]))
    terms = ["(", *[part for a in arguments for part in (a, ",")][:-1], ")"]
    head = [":~", "not " + draw(GAPS)] if negated else [":~"]
    weight_tokens = [str(weight)] if not level else [str(weight), "@", "0"]
    return _spaced(draw, [*head, _atom(draw, name, arguments), ".", "[", *weight_tokens, ",", *terms, "]"])


@st.composite
def vlm_scenes(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A scene text of this form in any statement order, and the classes of its objects."""
    objects = [f"o{i}" for i in range(draw(st.integers(1, 3)))]
    classes = [draw(st.sampled_from(CLASSES)) for _ in objects]
    statements: list[str] = []
    for oid, name in zip(objects, classes):
        statements += [f"object({oid}).", f"has_attr({oid}, class, {name}).", f"has_attr({oid}, name, {name})."]
    uncertain = [("has_attr", (oid, "color", c)) for oid in objects for c in draw(st.sets(st.sampled_from(COLOURS)))]
    if len(objects) > 1:
        uncertain += [("has_rel", (objects[0], r, objects[1])) for r in draw(st.sets(st.sampled_from(RELATIONS)))]
    weights = st.integers(0, 5000)
    for name, arguments in uncertain:
        statements.append(_spaced(draw, ["{", _atom(draw, name, arguments), "}", "."]))
        # Most atoms have both constraints; some only one sign, or none.
        signs = draw(st.sampled_from([(True, True)] * 4 + [(True, False), (False, True), (False, False)]))
        if signs[0]:
            statements.append(_weak(draw, name, arguments, draw(weights), negated=False))
        if signs[1]:
            statements.append(_weak(draw, name, arguments, draw(weights), negated=True))
    statements.append("is_attr(color).")
    ordered = draw(st.permutations(statements))
    return "".join(statement + draw(st.sampled_from(["\n", " ", ""])) for statement in ordered), classes


def _programs(classes: list[str]) -> list[str]:
    c1, c2 = classes[0], classes[-1]
    one = f"scene(0). select(1, 0, {c1}). unique(2, 1)."
    return [
        f"{one} select(3, 0, {c2}). unique(4, 3). two_different(5, 2, 4, color). end(5).",
        f"{one} query(3, 2, color). end(3).",
        f"scene(0). select(1, 0, {c1}). filter(2, 1, color, red). exist(3, 2). end(3).",
        f"{one} choose_attr(3, 2, color, beige, dark_blue). end(3).",
        f"scene(0). select(1, 0, {c1}). all_same(2, 1, color). end(2).",
        f"{one} verify_rel(3, 2, {c2}, on, object). end(3).",
    ]


@settings(max_examples=60, deadline=None)
@given(vlm_scenes())
def test_the_plain_reading_answers_as_the_ast_reading(scene):
    text, classes = scene
    # The fast reader admits the text, reads the statements the AST reader reads, and is used.
    assert plain_scene(text, SCENE_PREDICATES) is not None
    read = asp_data.read_ast(text, **OPTIONS)
    assert asp_data.parse_data(text, **OPTIONS) == read
    assert isinstance(read_scene(text), SceneText)
    by_ast = SceneFacts.from_statements(read)
    for program in _programs(classes):
        fast, slow = solve(program, text, top_k=5), solve(program, by_ast, top_k=5)
        assert fast.status == slow.status
        assert [(a.answer, a.cost) for a in fast.answers] == [(a.answer, a.cost) for a in slow.answers], program


def test_the_reading_is_kept_for_the_next_question_on_the_text():
    text = (
        "object(o0). has_attr(o0, class, logo).\n{has_attr(o0, color, beige)}.\n"
        ":~ not has_attr(o0, color, beige). [413, (o0, color, beige)]\n"
        ":~ has_attr(o0, color, beige). [1083, (o0, color, beige)]\n"
    )
    first = read_scene(text)
    assert isinstance(first, SceneText) and read_scene("".join(text)) is first
    assert (len(first), first.weak_constraint_count) == (3, 2)
    program = "scene(0). select(1, 0, logo). unique(2, 1). verify_attr(3, 2, color, beige). end(3)."
    assert [(a.answer, a.cost) for a in solve(program, text).answers] == [("no", (413,)), ("yes", (1083,))]


def test_levels_other_than_zero_and_repeated_signs_are_left_to_the_ast_reader():
    choice = "{has_attr(o0, color, beige)}.\n"
    weak = ":~ not has_attr(o0, color, beige). [413, (o0, color, beige)]\n"
    assert plain_scene(choice + weak.replace("413", "413 @ 0"), SCENE_PREDICATES) is not None
    assert plain_scene(choice + weak.replace("413", "413@1"), SCENE_PREDICATES) is None
    # Two weak constraints of one sign on one atom: SceneFacts adds them up, clingo may count one.
    assert plain_scene(choice + weak + weak.replace("413", "7"), SCENE_PREDICATES) is None
    assert plain_scene(choice + weak.replace("not has_attr", "nothas_attr"), SCENE_PREDICATES) is None
