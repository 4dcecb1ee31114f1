"""What crosses to a solver process: a scene graph as its objects, any other scene as the facts
read once in the service process (an image's perceived facts, scene facts text's reading), never
text printed to be read again; the answers are those of solving in the service process."""

from __future__ import annotations

import pickle

import pytest

from app.config import Settings
from app.demo_scenes import demo_scenes
from app.errors import PipelineError
from app.inputs import GivenProgram
from app.outcomes import SceneAnswer, SceneReading
from app.pipeline import Pipeline, SolverScene
from app.scene_input import FactsScene, GraphScene, ImageScene
from tests.theory.test_solver import weighted_ball
from theory.data_text import SceneText
from theory.program import Program
from theory.scene_facts import PlainFacts

BALL_COLOR = GivenProgram("scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3).")
MUG_COLOR = GivenProgram("scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3).")
KITCHEN = GraphScene.read(demo_scenes()["kitchen"], max_facts=10_000)


def _read_ball(image: bytes, program: Program) -> SceneReading:
    return SceneReading(weighted_ball(0.9, 0.2))


class _Crossing:
    """A scene solver that pickles the job's scene as a pool does and solves it in a pipeline of its own."""

    def __init__(self) -> None:
        self.sent: list[SolverScene] = []
        self.worker = Pipeline(Settings())

    def __call__(self, program: Program, scene: SolverScene, *, top_k: int, exact: bool) -> SceneAnswer:
        self.sent.append(scene)
        return self.worker.solve_here(program, pickle.loads(pickle.dumps(scene)), top_k=top_k, exact=exact)


def _pooled(**parts: object) -> tuple[Pipeline, _Crossing]:
    pipeline = Pipeline(Settings(), **parts)  # type: ignore[arg-type]
    pipeline.scene_solver = crossing = _Crossing()
    return pipeline, crossing


def _ranked(outcome: object) -> list[tuple[str, tuple[int, ...]]]:
    return [(a.answer, a.cost) for a in outcome.answers]  # type: ignore[attr-defined]


def test_an_image_crosses_as_its_perceived_facts():
    pipeline, crossing = _pooled(image_reader=_read_ball)
    there = pipeline.answer(BALL_COLOR, ImageScene(b"image"))
    here = Pipeline(Settings(), image_reader=_read_ball).answer(BALL_COLOR, ImageScene(b"image"))
    assert [type(s) for s in crossing.sent] == [PlainFacts]
    assert _ranked(there) == _ranked(here) and [a for a, _ in _ranked(there)] == ["red", "blue"]
    assert set(there.timings) == set(here.timings)


BALL_TEXT = weighted_ball(0.9, 0.2).to_asp()


# Plain text crosses as its reading; text only the exact reader reads, as the facts it read.
@pytest.mark.parametrize(
    ("text", "crossing_as"), [(BALL_TEXT, SceneText), ("%* a block comment *%\n" + BALL_TEXT, PlainFacts)]
)
def test_scene_facts_cross_as_their_reading(text, crossing_as):
    pipeline, crossing = _pooled()
    there = pipeline.answer(BALL_COLOR, FactsScene(text))
    here = Pipeline(Settings()).answer(BALL_COLOR, FactsScene(text))
    assert [type(s) for s in crossing.sent] == [crossing_as]
    assert _ranked(there) == _ranked(here) != []


def test_a_scene_graph_crosses_as_its_objects():
    pipeline, crossing = _pooled()
    there = pipeline.answer(MUG_COLOR, KITCHEN)
    assert crossing.sent == [KITCHEN] and _ranked(there) == _ranked(Pipeline(Settings()).answer(MUG_COLOR, KITCHEN))


def test_unreadable_scene_facts_are_refused_as_in_this_process():
    pipeline, crossing = _pooled()
    with pytest.raises(PipelineError) as there:
        pipeline.answer(MUG_COLOR, FactsScene('object(1). #include "x".'))
    with pytest.raises(PipelineError) as here:
        Pipeline(Settings()).answer(MUG_COLOR, FactsScene('object(1). #include "x".'))
    assert (there.value.kind, there.value.message) == (here.value.kind, here.value.message) and not crossing.sent
