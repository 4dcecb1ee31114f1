"""Unfolding the program's steps into the theory's rules changes no answer, cost or support."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from tests.theory.conftest import STREET, build_scene
from tests.theory.test_data_text import weighted_scene
from tests.theory.test_relevance import PROGRAMS
from tests.theory.test_representations import programs
from theory import Program, SceneFacts, parse_flat, solve, solver
from theory.entailment import build_entailments
from theory.flat import FLAT_PREDICATES
from theory.relevance import Theory
from theory.solver import rules
from theory.unfolding import Unfolding

# Every word the random programs may write, as classes, values and relations of a small scene.
_WORDS = ["ball", "red", "to_the_left_of", "tennis racket", "Red", "not", "x1", "12", 'say "hi"', "back\\slash", "of"]
WORDY = build_scene(
    {
        1: {"class": ["ball", "tennis racket", "x1"], "color": ["red", "Red"], "of": "not"},
        2: {"class": ["of", 'say "hi"'], "color": "12", "material": "back\\slash", "hposition": "left"},
        3: {"class": ["ball", "back\\slash"], "pose": "of", "size": "x1", "vposition": "top"},
    },
    [(1, "to_the_left_of", 2), (2, "of", 3), (3, 'say "hi"', 1), (1, "not", 3)],
)


def _as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the solver ground the theory as written: every rule reads the program's facts."""
    monkeypatch.setattr(rules, "THEORY", Theory(rules.THEORY.statements))
    monkeypatch.setattr(rules, "THEORY_WITH_ENTAILMENT", Theory(rules.THEORY_WITH_ENTAILMENT.statements))


def _outcome(program: Program | str, scene: SceneFacts | str, *, support: bool, entailments=None) -> tuple:
    result = solve(program, scene, top_k=5, entailments=entailments)
    rows = [(a.answer, a.cost, a.approximations, a.support if support else None) for a in result.answers]
    return result.status, rows


@pytest.mark.parametrize(
    "scene", [STREET, weighted_scene(1), weighted_scene(2)], ids=["street", "weighted1", "weighted2"]
)
@pytest.mark.parametrize("program", PROGRAMS)
def test_unfolded_theory_answers_as_the_theory_as_written(monkeypatch, program, scene):
    certain = not scene.weighted
    unfolded = [_outcome(program, given, support=certain) for given in (scene, scene.to_asp())]
    _as_written(monkeypatch)
    written = [_outcome(program, given, support=certain) for given in (scene, scene.to_asp())]
    # On weighted scenes equally cheap readings may give another support; answers and costs may not differ.
    assert unfolded == written


def test_unfolded_entailment_rules_answer_as_written(monkeypatch):
    table = build_entailments([("attribute", "man", "person", 0.8), ("relation", "holding", "near", 0.5)])
    program = "scene(0). select(1, 0, man). unique(2, 1). query(3, 2, pose). end(3)."
    scene = build_scene({1: {"class": "person", "pose": "standing"}})
    unfolded = _outcome(program, scene, support=True, entailments=table)
    assert unfolded[1] and unfolded[1][0][2]  # answered through the table
    _as_written(monkeypatch)
    assert _outcome(program, scene, support=True, entailments=table) == unfolded


@settings(max_examples=120, deadline=None)
@given(programs())
def test_random_programs_answer_as_with_the_theory_as_written(program):
    # Words that need quoting or look like keywords go into the rules as the program's facts print them.
    # `unique` over several objects makes equally cheap models: which one shows its support is the
    # search's choice, so support is compared only for programs with a single model.
    support = all(step.operation != "unique" for step in program.steps)
    unfolded = [_outcome(program, given, support=support) for given in (WORDY, WORDY.to_asp())]
    with pytest.MonkeyPatch.context() as patch:
        _as_written(patch)
        written = [_outcome(program, given, support=support) for given in (WORDY, WORDY.to_asp())]
    assert unfolded == written


def test_instances_only_for_matching_steps_and_without_the_step_atom():
    program = parse_flat("scene(0). select(1,0,dog). relate(2,1,person,near,subject). exist(3,2). end(3).")
    theory = solver.THEORY
    given = solver.SCENE_SIGNATURES | {(s.operation, FLAT_PREDICATES[s.operation]) for s in program.steps}
    text = theory.unfolded(given | {("end", 1)}, program)
    assert "state(1,O) :- state(0,O); has_attr(O,class,dog)." in text.splitlines()
    assert "rel_edge(2,N,near,O) :- state(1,O); has_rel(N,near,O); has_attr(N,class,person)." in text
    assert "relate" not in text and "object" not in text.replace("object(O)", "")  # the subject variant only
    assert "ans(V) :- value(3,V)." in text
    written = [str(s) for s in theory.relevant(given) if "#defined" not in str(s)]
    assert not any("select(" in s or "exist(" in s for s in written)
    assert not theory.reads_program  # every rule that reads a step is unfolded: no program facts needed


def test_rules_with_two_operation_atoms_or_argument_patterns_stay_as_written():
    from clingo import ast

    statements: list = []
    text = "p(S) :- select(S,_,_), exist(S,_). q(X) :- select(f(X),_,_). r(S) :- select(S,D,D)."
    ast.parse_string(text, statements.append)
    unfolding = Unfolding(statements, FLAT_PREDICATES)
    assert unfolding.unfolded == {3}  # the third rule only (the first statement is `#program base.`)
    from theory.program import Step

    same = Step(1, "select", (0,), ("0",))
    assert unfolding.text([same, Step(2, "select", (0,), ("ball",))], {3}) == "r(1)."
