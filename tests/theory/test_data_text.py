"""The plain-text reader: it admits only data, and what it admits means what the AST reader says."""

from __future__ import annotations

import random

import clingo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theory.asp_data as asp_data
from theory import SceneFacts, solve
from theory.data_text import plain_scene, scan, symbols_of
from theory.flat import FLAT_PREDICATES
from theory.operations import SCENE_PREDICATES
from theory.program import ProgramError
from theory.solver import weighted_text


def slow_parse(text: str, **options: object) -> asp_data.DataStatements:
    """`parse_data` through the AST reader only."""
    saved = asp_data.scan
    asp_data.scan = lambda *_args, **_kwargs: None  # type: ignore[assignment]
    try:
        return asp_data.parse_data(text, **options)  # type: ignore[arg-type]
    finally:
        asp_data.scan = saved


def outcome(parse, text: str, **options: object) -> object:
    try:
        return parse(text, **options)
    except ProgramError as exc:
        return (type(exc).__name__, str(exc))


def weighted_scene(seed: int) -> SceneFacts:
    rng = random.Random(seed)
    scene = SceneFacts()
    for oid in range(1, 6):
        scene.add_fact("object", oid)
        scene.add_fact("has_attr", oid, "class", rng.choice(["ball", "cup", "tennis racket"]))
        scene.add_fact("has_obj_weight", oid, rng.randint(0, 900))
        for color in ("red", "blue", "green"):
            scene.add_likely("has_attr", (oid, "color", color), rng.uniform(0.01, 0.99))
    scene.add_fact("exclusive", "color")
    scene.add_likely("has_rel", (1, "on", 2), 0.7)
    return scene


def test_printed_scenes_are_admitted_and_read_as_by_the_ast_reader():
    scene = weighted_scene(1)
    text = scene.to_asp()
    assert scan(text, SCENE_PREDICATES, allow_choices=True) is not None
    options = {"what": "scene", "allow_choices": True, "allowed": SCENE_PREDICATES}
    assert asp_data.parse_data(text, **options) == slow_parse(text, **options)
    plain = plain_scene(text, SCENE_PREDICATES)
    assert plain is not None
    assert (len(plain), plain.weak_constraint_count) == (len(scene), scene.weak_constraint_count)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "program",
    [
        "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3).",
        "scene(0). select(1, 0, ball). filter(2, 1, color, red). exist(3, 2). end(3).",
        "scene(0). select(1, 0, ball). relate(2, 1, ball, on, object). exist(3, 2). end(3).",
        "scene(0). select(1, 0, ball). all_different(2, 1, color). end(2).",
    ],
)
def test_scene_text_given_to_clingo_ranks_as_the_scene_objects(seed, program):
    scene = weighted_scene(seed)
    by_text = solve(program, scene.to_asp(), top_k=5)
    by_objects = solve(program, scene, top_k=5)
    assert by_text.status == by_objects.status
    assert [(a.answer, a.cost, a.support) for a in by_text.answers] == [
        (a.answer, a.cost, a.support) for a in by_objects.answers
    ]
    # The text reaches clingo without the facts no kept rule reads (`narrowed`): fewer atoms at most.
    assert {k: v for k, v in by_text.stats.items() if k != "ground_atoms"} == {
        k: v for k, v in by_objects.stats.items() if k != "ground_atoms"
    }
    assert by_text.stats["ground_atoms"] <= by_objects.stats["ground_atoms"]


@pytest.mark.parametrize(
    "text",
    [
        '#include "x.lp".',
        "#script (python)\nimport os\n#end.",
        "object(1). #const n = 1.",
        "object(X).",
        "object(_).",
        "object(1) :- object(2).",
        ":- object(1).",
        "object(1).%* block *%",
        "object(not).",
        "object(01).",
        "object(-0).",
        "object(1234567890).",
        "object(1+1).",
        "object(f(1)).",
        "object((1,2)).",
        "object(_a).",
        "object (1).",
        "object(1). % \x00 object(2).",
        'object("a\\tb").',
        'object("a\nb").',
        "object(1)..",
        "unknown(1).",
        "object(1, 2).",
        "-object(1).",
        "object(1;2).",
        "object(1..3).",
        "{ object(1) } = 1.",
        "{ object(1) : object(2) }.",
        ":~ object(1). [5@1,object(1),1]",
        ":~ object(1). [5,object(1),0]",
        ":~ not object(1). [5,object(1),1]",
        ":~ object(1). [5,object(2),1]",
        ":~ object(1). [5]",
        ":~ object( 1). [5,object( 1),1]",
        "object(1).\x0cobject(2).",
    ],
)
def test_anything_but_plain_data_is_left_to_the_ast_reader(text):
    assert scan(text, SCENE_PREDICATES, allow_choices=True) is None
    # The scene reader, on both of its branches: certain facts only, and with choices.
    choice = "{has_attr(o0, color, beige)}.\n:~ has_attr(o0, color, beige). [5, (o0, color, beige)]\n"
    for scene_text in (text, choice + text, text + "\n" + choice):
        assert plain_scene(scene_text, SCENE_PREDICATES) is None


def test_scene_text_clingo_would_read_differently_is_not_given_to_it():
    choice = "{ has_attr(1,color,red) }.\n"
    weak = ":~ has_attr(1,color,red). [5,has_attr(1,color,red),1]\n"
    assert plain_scene(choice + weak, SCENE_PREDICATES) is not None
    # SceneFacts adds up repeated weak constraints; clingo would count one.
    assert plain_scene(choice + weak + weak, SCENE_PREDICATES) is None
    # A weak constraint on an atom that is no choice is an error the AST reader explains.
    assert plain_scene(weak, SCENE_PREDICATES) is None
    assert plain_scene("% " + choice + weak, SCENE_PREDICATES) is None
    assert plain_scene('has_attr(1,name,"{ has_attr(1,color,red) }.").\n' + weak, SCENE_PREDICATES) is None
    assert plain_scene("\ud800", SCENE_PREDICATES) is None
    assert plain_scene("object(1).\x00", SCENE_PREDICATES) is None


def test_columns_count_bytes_like_clingo():
    text = 'has_attr(1,name,"\u00e9t\u00e9"). object(1).\n  object(2).'
    fast = asp_data.parse_data(text, allowed=SCENE_PREDICATES)
    assert [(f.line, f.column) for f in fast.facts] == [(1, 1), (1, 27), (2, 3)]
    assert fast == slow_parse(text, allowed=SCENE_PREDICATES)


# --- property: on random mixtures of data and non-data, both readers agree exactly ---

FRAGMENTS = [
    "object(1).",
    "object( 7 ) .",
    "has_attr(1,color,red).",
    'has_attr(1, name, "tennis racket").',
    'has_attr(2,name,"a\\"b\\\\c\\n").',
    "has_rel(1,on,2).",
    "has_obj_weight(1,-5).",
    "is_attr(color).",
    "is_attr_value(color,red).",
    "exclusive(color).",
    "has_attr(1,class,x').",
    "{ has_attr(1,color,red) }.",
    "{ has_attr(1,color,blue) }.",
    ":~ has_attr(1,color,red). [105,has_attr(1,color,red),1]",
    ":~ not has_attr(1,color,red). [2302,has_attr(1,color,red),0]",
    ":~ has_attr(1,color,blue). [7,has_attr(1,color,blue),1]",
    ":~ has_attr(1,color,red). [5]",
    # The tuple form other scene writers use (GS-VQA's), spaced as they write it.
    "{has_attr(o0, color, beige)}.",
    "{ has_attr(o0,color,beige) }.",
    ":~ has_attr(o0, color, beige). [1083, (o0, color, beige)]",
    ":~ has_attr(o0,color,beige). [9,(o0,color,beige)]",
    ":~ has_attr(o0, color, beige). [4@1, (o0, color, beige)]",
    ":~ not has_attr(o0, color, beige). [4, (o0, color, beige)]",
    ":~ has_rel(o0, on, 1). [12, (o0, on, 1, x)]",
    ":~ not has_attr(o0, color, beige). [4@0, (o0, color, beige)]",
    ":~ not\nhas_attr(o0, color,\r\nbeige) .\n[ 12 @ 0 , ( o0 , color , beige ) ]",
    "{\nhas_attr(o0,\tcolor, beige)\n}.",
    "{has_rel(o0, on, 1)}.",
    "% a comment",
    "%* block *%",
    "\n",
    "  ",
    "\t",
    "object(X).",
    "p(1).",
    "object(1,2).",
    "object(1) :- has_rel(1,on,2).",
    "#const n = 2.",
    "object(not).",
    "object(01).",
    "object(f(x)).",
    'has_attr(1,color,"é").',
    "object(-3).",
    "object(2147483647).",
    "object(1)",
    ".",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12), st.sampled_from(["", " ", "\n"]))
def test_fast_and_ast_readers_agree(parts, separator):
    text = separator.join(parts)
    for options in (
        {"what": "scene", "allow_choices": True, "allowed": SCENE_PREDICATES},
        {"what": "question program", "allowed": FLAT_PREDICATES},
    ):
        assert outcome(asp_data.parse_data, text, **options) == outcome(slow_parse, text, **options)
    fast = outcome(lambda t: plain_scene(t, SCENE_PREDICATES), text)
    if fast is not None:
        reread = SceneFacts.from_asp(text)  # what the AST reader makes of the same text
        assert (len(fast), fast.weak_constraint_count) == (len(reread), reread.weak_constraint_count)
        # The predicates it says the text uses include every one it has (rules over the others are left out).
        assert fast.signatures >= {(a.name, len(a.arguments)) for a in [*reread.facts, *reread.weighted]}
        # Clingo reads the facts as a set, and the fast reader writes them grouped by predicate.
        assert sorted(clingo_facts(weighted_text(fast))) == sorted(
            clingo_facts(weighted_text(reread) if reread.weighted else "")
        )


# Arguments spelled from letters that make ``not`` and its neighbours, digits, quotes and escapes.
_ARGUMENT = st.one_of(
    st.sampled_from(["not", "no", "n", "nota", "not_", "nt", "nOt", "0", "-0", "01", "-12", '"a"', '"no\\"t"', "a b"]),
    st.text(alphabet="notNTa_'0159-\"\\ ", max_size=6),
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([*sorted(SCENE_PREDICATES), "p", "Object"]), st.lists(_ARGUMENT, max_size=4)),
        max_size=6,
    ),
    st.sampled_from(["", "\n", "\n\n", " ", "\t", "\r\n"]),
)
def test_text_of_facts_is_admitted_by_the_plain_grammar_exactly(facts, separator):
    # Text of facts is checked by RE2's automaton, other text by the plain grammar in `re` (`scan`):
    # both must admit the same texts.
    text = separator.join(f"{name}({','.join(arguments)})." for name, arguments in facts)
    assert (plain_scene(text, SCENE_PREDICATES) is not None) == (scan(text, SCENE_PREDICATES) is not None), text


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(FRAGMENTS), max_size=12),
    st.sampled_from(["", " ", "\n"]),
    st.sets(st.sampled_from(sorted(SCENE_PREDICATES))),
)
def test_the_atoms_of_a_plain_scene_are_its_facts_and_choices(parts, separator, names):
    text = separator.join(parts)
    fast = outcome(lambda t: plain_scene(t, SCENE_PREDICATES), text)
    if fast is None or isinstance(fast, tuple):
        return
    reread = SceneFacts.from_asp(text)
    expected = [a for a in [*reread.facts, *reread.weighted] if a.name in names]
    assert sorted(symbols_of(fast.atoms(frozenset(names)))) == sorted(expected)


def clingo_facts(text: str) -> list[clingo.Symbol]:
    """The facts of a text as clingo reads them, repeats kept (certain facts of a `SceneText` included)."""
    facts: list[clingo.Symbol] = []
    for statement in text.split("\n"):
        if statement.startswith("scene_choice_"):
            facts.append(clingo.parse_term(statement.rstrip(".")))
    return facts


def test_choices_become_facts_only_outside_strings_and_comments():
    text = (
        'has_attr(1,name,"{ has_attr(1,color,red) }. :~ x").\n% { has_attr(2,color,red) }.\n'
        "{ has_attr(1,color,red) }.\n:~ has_attr(1,color,red). [105,has_attr(1,color,red),1]\n"
        ":~ not has_attr(1,color,red). [-3,has_attr(1,color,red),0]\n{has_rel(1,on,2)}.\n"
        "{has_rel(1, on, 3)}.\n:~ has_rel(1, on, 3). [0, (1, on, 3)]"
    )
    plain = plain_scene(text, SCENE_PREDICATES)
    assert plain is not None
    assert plain.clingo_text == (
        'has_attr(1,name,"{ has_attr(1,color,red) }. :~ x").\n'
        "scene_choice_has_attr(1,color,red,105,-3).\n"
        "scene_choice_has_rel(1,on,2,none,none).\n"
        "scene_choice_has_rel(1,on,3,0,none)."  # a weight of 0 is still a weak constraint
    )
    assert plain.weighted_predicates == (("has_attr", True, True), ("has_rel", True, True))
    assert (plain.fact_count, plain.weighted_count, plain.weak_constraint_count) == (1, 3, 1)


@pytest.mark.parametrize("seed", range(3))
def test_weighted_text_with_strings_and_comments_ranks_as_the_scene_objects(seed):
    scene = weighted_scene(seed)
    scene.add_fact("has_attr", 1, "name", clingo.String("{ has_attr(1,color,red) }. :~ x"))
    text = "% a scene { has_attr(2,color,red) }.\n" + scene.to_asp()
    program = "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3)."
    by_text, by_objects = solve(program, text, top_k=5), solve(program, scene, top_k=5)
    assert by_text.answers == by_objects.answers and by_text.answers


TUPLE_SCENE = """object(o0). has_obj_weight(o0, 903). has_attr(o0, class, logo). has_attr(o0, name, logo).
object(o1). has_obj_weight(o1, 120). has_attr(o1, class, shirt). has_attr(o1, name, shirt).
{has_attr(o0, color, beige)}.
:~ has_attr(o0, color, beige). [1083, (o0, color, beige)]
{has_attr(o0, color, red)}.
:~ has_attr(o0, color, red). [400, (o0, color, red)]
{has_attr(o1, color, red)}.
:~ has_attr(o1, color, red). [200, (o1, color, red)]
{has_rel(o0, on, o1)}.
:~ has_rel(o0, on, o1). [300, (o0, on, o1)]
is_attr(color). is_attr_value(color, beige). is_attr_value(color, red).
"""


def test_tuple_form_scene_is_read_as_plain_text_and_means_what_the_ast_reader_says():
    options = {"what": "scene", "allow_choices": True, "allowed": SCENE_PREDICATES}
    assert scan(TUPLE_SCENE, SCENE_PREDICATES, allow_choices=True) is not None
    assert asp_data.parse_data(TUPLE_SCENE, **options) == slow_parse(TUPLE_SCENE, **options)
    plain = plain_scene(TUPLE_SCENE, SCENE_PREDICATES)
    reread = SceneFacts.from_asp(TUPLE_SCENE)
    assert plain is not None
    assert (len(plain), plain.weak_constraint_count) == (len(reread), reread.weak_constraint_count) == (11 + 4, 4)


@pytest.mark.parametrize(
    "program",
    [
        "scene(0). select(1, 0, logo). unique(2, 1). query(3, 2, color). end(3).",
        "scene(0). select(1, 0, logo). relate(2, 1, shirt, on, object). exist(3, 2). end(3).",
        "scene(0). select(1, 0, shirt). filter(2, 1, color, red). exist(3, 2). end(3).",
    ],
)
def test_tuple_form_scene_ranks_as_its_objects(program):
    by_text = solve(program, TUPLE_SCENE, top_k=5)
    by_objects = solve(program, SceneFacts.from_asp(TUPLE_SCENE), top_k=5)
    assert by_text.status == by_objects.status
    assert [(a.answer, a.cost, a.support) for a in by_text.answers] == [
        (a.answer, a.cost, a.support) for a in by_objects.answers
    ]


def test_tuple_form_that_clingo_would_read_differently_is_left_to_the_ast_reader():
    choice = "{has_attr(o0, color, beige)}.\n"
    weak = ":~ has_attr(o0, color, beige). [1083, (o0, color, beige)]\n"
    assert plain_scene(choice + weak, SCENE_PREDICATES) is not None
    # Spacing does not make two weak constraints of one atom different ones.
    assert plain_scene(choice + weak + weak.replace(", ", ","), SCENE_PREDICATES) is None
    assert plain_scene(weak, SCENE_PREDICATES) is None  # no choice
    assert scan(choice + weak.replace("1083,", "1083@1,"), SCENE_PREDICATES, allow_choices=True) is None
    assert scan(choice + ":~ has_attr(o0, color, beige). [5, (X)]", SCENE_PREDICATES, allow_choices=True) is None


class _GroundProgram(clingo.Observer):
    """The rules, weak constraints and shown atoms clingo hands to its solver."""

    def __init__(self) -> None:
        self.statements: list[tuple] = []

    def rule(self, choice: bool, head: list[int], body: list[int]) -> None:
        self.statements.append(("rule", choice, tuple(head), tuple(body)))

    def weight_rule(self, choice: bool, head: list[int], lower: int, body: list[tuple[int, int]]) -> None:
        self.statements.append(("weight_rule", choice, tuple(head), lower, tuple(body)))

    def minimize(self, priority: int, literals: list[tuple[int, int]]) -> None:
        self.statements.append(("minimize", priority, tuple(literals)))

    def output_atom(self, symbol: clingo.Symbol, atom: int) -> None:
        if not symbol.name.startswith("scene_"):  # the encodings' own facts
            self.statements.append(("show", str(symbol), atom))

    def external(self, atom: int, value: clingo.TruthValue) -> None:
        self.statements.append(("external", atom, str(value)))

    def canonical(self) -> list[tuple]:
        """Facts left out and the other atoms numbered in their order: what the solver searches."""
        facts = {s[2][0] for s in self.statements if s[0] == "rule" and not s[1] and len(s[2]) == 1 and not s[3]}
        atoms: set[int] = set()
        for s in self.statements:
            literals = {
                "rule": lambda s: [*s[2], *s[3]],
                "weight_rule": lambda s: [*s[2], *(a for a, _ in s[4])],
                "minimize": lambda s: [a for a, _ in s[2]],
                "external": lambda s: [s[1]],
                "show": lambda s: [s[2]],
            }[s[0]](s)
            atoms.update(abs(a) for a in literals if abs(a) not in facts and a != 0)
        rank = {a: i for i, a in enumerate(sorted(atoms), 1)}

        def lit(a: int) -> object:
            return "true" if abs(a) in facts or a == 0 else rank[abs(a)] * (1 if a > 0 else -1)

        out: list[tuple] = []
        for s in self.statements:
            if s[0] == "rule" and not s[1] and len(s[2]) == 1 and not s[3]:
                continue
            if s[0] == "rule":
                out.append(("rule", s[1], tuple(map(lit, s[2])), tuple(map(lit, s[3]))))
            elif s[0] == "weight_rule":
                out.append(("weight_rule", s[1], tuple(map(lit, s[2])), s[3], tuple((lit(a), w) for a, w in s[4])))
            elif s[0] == "minimize":
                out.append(("minimize", s[1], tuple((lit(a), w) for a, w in s[2])))
            elif s[0] == "external":
                out.append(("external", lit(s[1]), s[2]))
            else:
                out.append(("show", s[1], lit(s[2])))
        return out


def former_weighted_text(scene: SceneFacts) -> str:
    """The encoding of uncertain atoms before issue 28: a fact per choice and per weak constraint."""
    lines = [f"scene_choice({w.atom})." for w in scene.weighted.values()]
    lines += [f"scene_weak({w.atom},{w.cost_true},1)." for w in scene.weighted.values() if w.cost_true]
    lines += [f"scene_weak({w.atom},{w.cost_false},0)." for w in scene.weighted.values() if w.cost_false]
    for name in sorted({w.atom.name for w in scene.weighted.values()}):
        atom = f"{name}({','.join(f'X{i}' for i in range(SCENE_PREDICATES[name]))})"
        lines.append(
            f"{{ {atom} }} :- scene_choice({atom}).\n:~ scene_weak({atom},W,1), {atom}. [W,{atom},1]\n"
            f":~ scene_weak({atom},W,0), not {atom}. [W,{atom},0]"
        )
    return "\n".join(lines)


def ground_program(program: str, scene_text: str) -> list[tuple]:
    from theory.data_text import SceneText
    from theory.flat import parse_flat
    from theory.solver import THEORY, ground_question

    ctl = clingo.Control(["--opt-mode=optN", "--project=project"])
    observer = _GroundProgram()
    ctl.register_observer(observer)
    parsed = parse_flat(program)
    # Handed over as certain text, so that clingo reads exactly `scene_text`.
    ground_question(ctl, parsed, SceneText(scene_text, 1, 0, 0, frozenset(SCENE_PREDICATES.items())), THEORY)
    return observer.canonical()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "program",
    [
        "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3).",
        "scene(0). select(1, 0, ball). relate(2, 1, ball, on, object). exist(3, 2). end(3).",
        "scene(0). select(1, 0, ball). all_different(2, 1, color). end(2).",
        "scene(0). select(1, 0, logo). unique(2, 1). query(3, 2, color). end(3).",
    ],
)
def test_choice_facts_ground_to_the_program_the_former_encoding_gave(seed, program):
    # The same rules and weak constraints over the same atoms in the same order: the solver
    # searches the same way, so answers, costs and support are the same, ties included.
    for scene in (weighted_scene(seed), SceneFacts.from_asp(TUPLE_SCENE)):
        certain = "\n".join(f"{fact}." for fact in scene.facts)
        plain = plain_scene(scene.to_asp(), SCENE_PREDICATES)
        assert plain is not None
        former = ground_program(program, f"{certain}\n{former_weighted_text(scene)}")
        assert ground_program(program, f"{certain}\n{weighted_text(scene)}") == former
        assert ground_program(program, weighted_text(plain)) == former
