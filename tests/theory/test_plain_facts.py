"""A scene crosses to another process as plain terms and is the same scene there, read from no text."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import clingo

from tests.theory.test_solver import weighted_ball
from theory import SceneFacts, solve
from theory.scene_facts import PlainFacts, plain_term, term_symbol
from theory.solver import read_scene

ROOT = Path(__file__).resolve().parents[2]
BALL_COLOR = "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3)."


def test_every_kind_of_term_comes_back_as_itself():
    terms = [
        clingo.Number(-3),
        clingo.Function("red"),
        clingo.String('a "quoted" word'),
        clingo.Function("", [clingo.Number(1), clingo.Function("x")]),
        clingo.Function("n", [], False),
        clingo.Function("has_attr", [clingo.Number(1), clingo.Function("color"), clingo.Function("red")]),
        clingo.Infimum,
        clingo.Supremum,
    ]
    assert [term_symbol(plain_term(t)) for t in terms] == terms


def test_a_scene_is_made_again_from_its_terms_in_its_order():
    scene = weighted_ball(0.9, 0.2)
    again = PlainFacts.of(scene).scene_facts()
    assert again.to_asp() == scene.to_asp() and len(PlainFacts.of(scene)) == len(scene)


def test_a_pickled_scene_is_the_same_scene_in_another_process():
    # A clingo symbol pickles as a pointer into its own process's symbol table; a scene must not.
    scene = weighted_ball(0.9, 0.2)
    shown = subprocess.run(
        [sys.executable, "-c", "import pickle, sys; print(pickle.load(sys.stdin.buffer).to_asp())"],
        input=pickle.dumps(scene),
        capture_output=True,
        cwd=ROOT,
        check=True,
    )
    assert shown.stdout.decode().strip() == scene.to_asp()


def test_the_scene_made_again_answers_as_its_text_does():
    scene = weighted_ball(0.9, 0.2)
    crossed = pickle.loads(pickle.dumps(PlainFacts.of(scene))).scene_facts()
    by_text = solve(BALL_COLOR, read_scene(scene.to_asp()), top_k=5)
    by_facts = solve(BALL_COLOR, crossed, top_k=5)
    assert [(a.answer, a.cost) for a in by_facts.answers] == [(a.answer, a.cost) for a in by_text.answers]
    assert [a.answer for a in by_facts.answers] == ["red", "blue"]
    assert isinstance(crossed, SceneFacts)
