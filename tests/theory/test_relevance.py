"""Grounding only the rules a program can use gives the answers and costs of the whole theory."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.theory.conftest import STREET
from tests.theory.test_data_text import weighted_scene
from theory import SceneFacts, parse_flat, solve, solver
from theory.data_text import plain_scene
from theory.entailment import bundled_entailments
from theory.flat import FLAT_PREDICATES
from theory.operations import SCENE_PREDICATES
from theory.relevance import Theory
from theory.solver import narrowing

PROGRAMS = [
    "scene(0). select(1, 0, man). unique(2, 1). query(3, 2, pose). end(3).",
    "scene(0). select(1, 0, person). filter(2, 1, pose, walking). exist(3, 2). end(3).",
    "scene(0). select(1, 0, dog). filter_any(2, 1, brown). exist(3, 2). end(3).",
    "scene(0). select(1, 0, man). relate(2, 1, clothing, wearing, object). unique(3, 2). query(4, 3, color). end(4).",
    "scene(0). select(1, 0, dog). relate_any(2, 1, near, subject). unique(3, 2). query(4, 3, class). end(4).",
    "scene(0). select(1, 0, car). unique(2, 1). relate_attr(3, 2, car, color). exist(4, 3). end(4).",
    "scene(0). select(1, 0, person). select(2, 0, woman). negate(3, 2, 1). unique(4, 3). query(5, 4, name). end(5).",
    "scene(0). select(1, 0, man). unique(2, 1). verify_rel(3, 2, shirt, wearing, object). end(3).",
    "scene(0). select(1, 0, car). unique(2, 1). verify_attr(3, 2, color, white). end(3).",
    "scene(0). select(1, 0, dog). unique(2, 1). choose_attr(3, 2, size, small, large). end(3).",
    "scene(0). select(1, 0, man). unique(2, 1). choose_rel(3, 2, shirt, wearing, holding, object). end(3).",
    "scene(0). select(1, 0, car). all_same(2, 1, color). end(2).",
    "scene(0). select(1, 0, car). all_different(2, 1, size). end(2).",
    "scene(0). select(1, 0, man). unique(2, 1). select(3, 0, woman). unique(4, 3). "
    "two_same(5, 2, 4, hposition). end(5).",
    "scene(0). select(1, 0, man). unique(2, 1). select(3, 0, woman). unique(4, 3). "
    "two_different(5, 2, 4, pose). end(5).",
    "scene(0). select(1, 0, car). select(2, 0, car). compare(3, 1, 2, blue, true). unique(4, 3). "
    "query(5, 4, name). end(5).",
    "scene(0). select(1, 0, car). unique(2, 1). select(3, 0, shirt). unique(4, 3). common(5, 2, 4). end(5).",
    "scene(0). select(1, 0, dog). exist(2, 1). select(3, 0, cat). exist(4, 3). or(5, 2, 4). and(6, 5, 2). end(6).",
    "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3).",
    "scene(0). select(1, 0, ball). all_different(2, 1, color). end(2).",
]


@pytest.mark.parametrize(
    "scene", [STREET, weighted_scene(1), weighted_scene(2)], ids=["street", "weighted1", "weighted2"]
)
@pytest.mark.parametrize("program", PROGRAMS)
def test_program_subset_answers_as_the_whole_theory(monkeypatch, program, scene):
    subset = solve(program, scene, top_k=5)
    monkeypatch.setattr(solver.THEORY, "relevant", lambda _given: solver.THEORY.statements)
    whole = solve(program, scene, top_k=5)
    assert subset.status == whole.status
    # Supports may differ where several interpretations are equally cheap; answers and costs may not.
    assert [(a.answer, a.cost) for a in subset.answers] == [(a.answer, a.cost) for a in whole.answers]


def test_subset_keeps_only_what_the_operations_use():
    given = solver.SCENE_SIGNATURES | {("scene", 1), ("select", 3), ("exist", 2), ("end", 1)}
    theory = Theory(solver.THEORY.statements)  # as written, without unfolding the steps
    kept = [str(s) for s in theory.relevant(given)]
    assert "value(S,yes) :- exist(S,D); state(D,_)." in kept
    assert not any("relate" in s or s.startswith("%") for s in kept)
    assert "#defined select/3." in kept and "#defined relate/5." not in kept
    assert theory.relevant(given) is theory.relevant(set(given))  # cached
    # Unfolded, the rule comes as its instance for the program's exist step.
    program = parse_flat("scene(0). select(1, 0, dog). exist(2, 1). end(2).")
    assert "value(2,yes) :- state(1,_)." in solver.THEORY.unfolded(given, program).splitlines()


def _with_taxonomy(scene: SceneFacts) -> SceneFacts:
    """The scene with every object in two more general classes and a vocabulary, as GQA's scenes are."""
    wider = SceneFacts(facts=list(scene.facts), weighted=dict(scene.weighted))
    for oid in range(1, 8):
        wider.add_fact("has_attr", oid, "class", "entity")
        wider.add_fact("has_attr", oid, "class", "thing" if oid % 2 else "whole")
    wider.add_vocabulary({"color": ["red", "white"], "size": ["small", "large"]})
    return wider


CLASS_PROGRAMS = [
    "scene(0). select(1, 0, man). unique(2, 1). query(3, 2, class). end(3).",
    "scene(0). select(1, 0, car). all_same(2, 1, class). end(2).",
    "scene(0). select(1, 0, car). unique(2, 1). relate_attr(3, 2, entity, class). exist(4, 3). end(4).",
    "scene(0). select(1, 0, thing). filter_any(2, 1, whole). exist(3, 2). end(3).",
    "scene(0). select(1, 0, entity). select(2, 0, thing). compare(3, 1, 2, whole, true). exist(4, 3). end(4).",
]


@pytest.mark.parametrize("program", PROGRAMS + CLASS_PROGRAMS)
def test_narrowed_text_scene_answers_as_the_whole_scene(program):
    scene = _with_taxonomy(STREET)
    given = solver.read_scene(scene.to_asp())
    narrow = solver.narrowed(
        given, parse_flat(program), solver.THEORY.reads(given.signatures | {("end", 1)}), words=True
    )
    assert "is_attr" not in narrow.text  # no rule reads the vocabulary
    from_text, from_objects = solve(program, scene.to_asp(), top_k=5), solve(program, scene, top_k=5)
    assert from_text.status == from_objects.status
    assert from_text.answers == from_objects.answers  # answers, costs and support


def test_narrowing_keeps_the_classes_a_step_names_and_plain_text():
    given = solver.read_scene(_with_taxonomy(STREET).to_asp())
    program = parse_flat(PROGRAMS[0])
    reads = solver.THEORY.reads(given.signatures | {("select", 3), ("unique", 2), ("query", 3)})
    narrow = solver.narrowed(given, program, reads, words=True)
    assert "has_attr(1,class,man)." in narrow.text and "entity" not in narrow.text and "has_rel" not in narrow.text
    assert plain_scene(narrow.text, SCENE_PREDICATES) is not None
    assert solver.narrowed(given, program, reads, words=False).text.count("entity") == 7


def _large_scene() -> SceneFacts:
    """STREET with many more objects: enough facts for clingo to read them through the term parser."""
    scene = _with_taxonomy(STREET)
    for oid in range(100, 130):
        scene.add_fact("object", oid)
        scene.add_fact("has_attr", oid, "class", "car" if oid % 3 else "man")
        scene.add_fact("has_attr", oid, "color", "red" if oid % 2 else "white")
        scene.add_fact("has_rel", oid, "near", oid + 1)
    return scene


@pytest.mark.parametrize("program", PROGRAMS + CLASS_PROGRAMS)
def test_facts_read_by_the_term_parser_answer_as_program_text(program):
    scene = _large_scene()
    given = solver.read_scene(scene.to_asp())
    reads = solver.THEORY.reads(given.signatures | {("end", 1)})
    feed = solver.fed_scene(given, reads)
    assert feed is not None and len(feed.facts) == len(scene)
    assert solver.fed_scene(solver.read_scene(scene.to_asp() + '\nhas_attr(1,name,"a.b").'), reads) is None
    assert solver.fed_scene(solver.read_scene(scene.to_asp() + "\n% a comment."), reads) is None
    from_text, from_objects = solve(program, scene.to_asp(), top_k=5), solve(program, scene, top_k=5)
    assert from_text.status == from_objects.status
    assert from_text.answers == from_objects.answers  # answers, costs and support


def _spaced(scene: SceneFacts, layout: list[int]) -> str:
    """The scene's facts as text with blanks inside and between them, several to a line at times."""
    parts = []
    for index, fact in enumerate(scene.facts):
        gap = layout[index % len(layout)]
        text = str(fact).replace(",", ", " if gap % 2 else ",").replace("(", "( " if gap % 3 == 0 else "(")
        parts.append(f"{text} ." + ("\n" if gap % 4 else "  "))
    return "".join(parts)


@settings(max_examples=60, deadline=None)
@given(
    program=st.sampled_from(PROGRAMS),
    layout=st.lists(st.integers(0, 11), min_size=1, max_size=6),
    extra=st.integers(0, 40),
)
def test_a_scene_narrowed_to_the_programs_words_answers_as_its_objects(program, layout, extra):
    # Enough objects that the facts reach clingo through the term parser as well as below that.
    scene = _with_taxonomy(STREET)
    for oid in range(100, 100 + extra):
        scene.add_fact("object", oid)
        scene.add_fact("has_attr", oid, "class", ("car", "man", "dog", "shirt")[oid % 4])
        scene.add_fact("has_attr", oid, ("color", "pose", "size")[oid % 3], ("white", "walking", "small")[oid % 3])
        scene.add_fact("has_rel", oid, ("near", "wearing", "behind")[oid % 3], 1 + oid % 7)
    text = _spaced(scene, layout)
    printed = {str(fact) for fact in scene.facts}
    # With the entailment table too: scene words stand for asked ones through its rows.
    for table in (None, bundled_entailments()):
        from_text = solve(program, text, top_k=5, entailments=table)
        from_objects = solve(program, scene, top_k=5, entailments=table)
        assert from_text.status == from_objects.status
        assert [(a.answer, a.cost, a.approximations) for a in from_text.answers] == [
            (a.answer, a.cost, a.approximations) for a in from_objects.answers
        ]
        for answer in from_text.answers:  # another witness of an equally cheap reading at most
            assert set(answer.support.facts) <= printed


def _reads(scene, program):
    """What the theory's rules for this program read."""
    steps = {(step.operation, FLAT_PREDICATES[step.operation]) for step in program.steps}
    return solver.THEORY.reads(scene.signatures | steps | {("end", 1)})


def test_narrowing_keeps_the_facts_about_the_programs_words():
    scene = solver.read_scene(_spaced(_with_taxonomy(STREET), [1, 3, 4]))
    program = parse_flat(PROGRAMS[3])  # man, clothing, wearing, object, color
    kept = set(solver.narrowed(scene, program, _reads(scene, program), words=True).text.split())
    assert {"has_attr(1,class,man).", "has_attr(2,class,clothing).", "has_rel(1,wearing,2).", "object(7)."} <= kept
    assert "has_attr(2,color,red)." in kept and "has_attr(7,color,red)." in kept  # the category is named
    assert "has_rel(1,holding,7)." not in kept and "has_attr(2,material,cotton)." not in kept
    assert not any("entity" in fact or "is_attr" in fact for fact in kept)
    # `common` reads every category but the structural ones.
    common = parse_flat(PROGRAMS[16])
    kept = set(solver.narrowed(scene, common, _reads(scene, common), words=True).text.split())
    assert {"has_attr(2,material,cotton).", "has_attr(1,pose,standing)."} <= kept
    assert "has_attr(1,hposition,left)." not in kept and "has_attr(1,class,man)." not in kept


def test_every_argument_role_has_its_place_in_the_scene_facts_or_is_a_closed_choice():
    from theory.operations import ARGUMENT_CHOICES, OPERATIONS

    roles = {role for spec in OPERATIONS.values() for role in spec.arguments}
    assert roles <= narrowing.MIDDLE_ROLES | narrowing.LAST_ROLES | set(ARGUMENT_CHOICES)


ENTAILED_SCENE = (
    "object(1). has_attr(1,class,cat). has_attr(1,class,animal). object(2). has_attr(2,class,chair). "
    "has_rel(1,on,2). object(3). has_attr(3,class,dog). has_attr(3,class,animal). has_rel(3,near,2). "
    "has_attr(3,color,brown). has_attr(2,color,white)."
)


@pytest.mark.parametrize(
    "program",
    [
        "scene(0). select(1, 0, puppy). unique(2, 1). query(3, 2, color). end(3).",  # dog for puppy
        "scene(0). select(1, 0, chair). relate_any(2, 1, close_to, subject). unique(3, 2). query(4, 3, color). end(4).",
    ],
)
def test_a_narrowed_scene_keeps_the_scene_words_the_entailment_table_reads_for_asked_ones(program):
    table = bundled_entailments()
    from_text = solve(program, ENTAILED_SCENE, entailments=table)
    from_objects = solve(program, SceneFacts.from_asp(ENTAILED_SCENE), entailments=table)
    assert from_text.answers and all(a.approximations for a in from_text.answers)
    assert [(a.answer, a.cost, a.approximations) for a in from_text.answers] == [
        (a.answer, a.cost, a.approximations) for a in from_objects.answers
    ]


@st.composite
def tuple_form_scenes(draw) -> str:
    """Weighted scene text as GS-VQA writes it (`{ a }.` and `:~ a. [W, (TERMS)]`), with some atoms
    weighted when false too or with a negative weight when true (those every answer pays)."""
    lines = []
    objects = draw(st.integers(2, 6))
    for oid in range(objects):
        name = draw(st.sampled_from(["car", "man", "dog", "shirt", "ball"]))
        lines.append(
            f"object(o{oid}). has_attr(o{oid}, class, {name}). has_obj_weight(o{oid}, {draw(st.integers(0, 900))})."
        )
        for category, value in draw(st.lists(st.sampled_from(_UNCERTAIN), min_size=1, max_size=4, unique=True)):
            lines.append(_uncertain(draw, f"has_attr(o{oid},{category},{value})", (f"o{oid}", category, value)))
    for _ in range(draw(st.integers(0, 6))):
        a, b = draw(st.integers(0, objects - 1)), draw(st.integers(0, objects - 1))
        relation = draw(st.sampled_from(["near", "wearing", "on", "behind"]))
        lines.append(_uncertain(draw, f"has_rel(o{a},{relation},o{b})", (f"o{a}", relation, f"o{b}")))
    if draw(st.booleans()):
        lines.append("exclusive(color).")
    return "\n".join(lines)


_UNCERTAIN = [("color", "red"), ("color", "white"), ("color", "blue"), ("pose", "walking"), ("size", "small")]


def _uncertain(draw, atom: str, terms: tuple[str, ...]) -> str:
    kind = draw(st.sampled_from(["true", "true", "true", "false too", "negative", "none"]))
    weight = draw(st.integers(0, 3000))
    text = f"{{ {atom} }}."
    if kind in ("true", "false too"):
        text += f"\n:~ {atom}. [{weight}, ({', '.join(terms)})]"
    if kind == "false too":
        text += f"\n:~ not {atom}. [{draw(st.integers(1, 3000))},{atom},0]"
    if kind == "negative":
        text += f"\n:~ {atom}. [-{weight + 1}, ({', '.join(terms)})]"
    return text


@settings(max_examples=60, deadline=None)
@given(program=st.sampled_from(PROGRAMS), text=tuple_form_scenes())
def test_a_weighted_text_narrowed_to_the_programs_words_answers_as_its_objects(program, text):
    # Choices no kept rule reads are left out unless every answer pays their weights.
    scene = SceneFacts.from_asp(text)
    printed = {str(fact) for fact in scene.facts} | {str(atom) for atom in scene.weighted}
    for table in (None, bundled_entailments()):
        from_text = solve(program, text, top_k=5, entailments=table)
        from_objects = solve(program, scene, top_k=5, entailments=table)
        assert from_text.status == from_objects.status
        assert [(a.answer, a.cost) for a in from_text.answers] == [(a.answer, a.cost) for a in from_objects.answers]
        for answer in from_text.answers:
            assert set(answer.support.facts) <= printed


TUPLE_TEXT = """object(o0). has_attr(o0, class, dog). object(o1). has_attr(o1, class, man).
object(o2). has_attr(o2, class, car).
{ has_rel(o1,near,o0) }.
:~ has_rel(o1,near,o0). [300, (o1, near, o0)]
{ has_rel(o2,near,o0) }.
:~ has_rel(o2,near,o0). [900, (o2, near, o0)]
{ has_rel(o1,behind,o2) }.
:~ has_rel(o1,behind,o2). [5, (o1, behind, o2)]
{ has_attr(o0,color,white) }.
:~ has_attr(o0,color,white). [200, (o0, color, white)]
{ has_attr(o0,color,brown) }.
:~ has_attr(o0,color,brown). [100, (o0, color, brown)]
{ has_attr(o2,color,red) }.
:~ has_attr(o2,color,red). [400, (o2, color, red)]
:~ not has_attr(o2,color,red). [700,has_attr(o2,color,red),0]"""


@pytest.mark.parametrize(
    "program",
    [
        "scene(0). select(1, 0, dog). relate_any(2, 1, near, subject). unique(3, 2). query(4, 3, class). end(4).",
        "scene(0). select(1, 0, dog). unique(2, 1). query(3, 2, color). end(3).",
        "scene(0). select(1, 0, man). unique(2, 1). verify_rel(3, 2, car, behind, object). end(3).",
    ],
)
def test_a_weighted_text_keeps_the_choices_the_program_reads_and_those_every_answer_pays(program):
    from_text, from_objects = (
        solve(program, TUPLE_TEXT, top_k=5),
        solve(program, SceneFacts.from_asp(TUPLE_TEXT), top_k=5),
    )
    assert from_text.answers and [(a.answer, a.cost) for a in from_text.answers] == [
        (a.answer, a.cost) for a in from_objects.answers
    ]
    assert all(a.cost[-1] >= 400 for a in from_text.answers)  # the red car's either way, in every answer
