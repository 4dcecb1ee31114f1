"""Do two question programs mean the same thing? A semantic check on generated scenes.

Equal canonical forms are equal programs. Otherwise both programs run on a few dozen small random
scenes built from the words they mention (their classes, attribute categories and values,
relations, plus a distractor of each kind), with a fixed seed; any scene on which they answer
differently tells them apart and is reported. Passing is evidence, not proof.

Example:
    >>> from theory.nested import parse_nested
    >>> a = parse_nested("exist(filter(select(scene(), cup), color, red))")
    >>> b = parse_nested("verify_attr(unique(select(scene(), cup)), color, red)")
    >>> equivalent(a, b).equivalent
    False
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from theory.canonical import canonical
from theory.operations import POSITION_VALUES
from theory.program import Program
from theory.program_words import ProgramWords, program_words
from theory.scene_facts import SceneFacts
from theory.solver import SolveResult, SolveStatus, solve

_DISTRACTOR = "zz_other"  # a word no program mentions, so every concept has a "none of these" case
_LOOSE_CATEGORY = "property"  # category for values a program names without one (filter_any, compare)


def random_scene(concepts: ProgramWords, rng: random.Random, max_objects: int = 5) -> SceneFacts:
    """A small certain scene over the concepts' words (and distractors)."""
    scene = SceneFacts()
    by_category = concepts.values
    named = concepts.classes
    for category in ("class", "name"):  # names are classes: select and choose_attr(name) must meet
        named |= by_category.pop(category, set())
    classes = sorted(named) + [_DISTRACTOR]
    relations = sorted(concepts.relations) + [_DISTRACTOR]
    categories = {c: sorted(v) + [f"{_DISTRACTOR}_{c}"] for c, v in sorted(by_category.items())}
    for category, positions in POSITION_VALUES.items():
        categories[category] = sorted(set(positions) | by_category.get(category, set()))
    loose = sorted(concepts.loose_values)
    count = rng.randint(1, max_objects)
    for obj in range(1, count + 1):
        scene.add_fact("object", obj)
        names = {rng.choice(classes)}
        if rng.random() < 0.25:
            names.add(rng.choice(classes))  # an object may also belong to a second class (dog, animal)
        for name in sorted(names):
            scene.add_fact("has_attr", obj, "class", name)
        scene.add_fact("has_attr", obj, "name", min(names))
        for category, values in categories.items():
            structural = category in POSITION_VALUES
            if structural or rng.random() < 0.75:
                chosen = {rng.choice(values)}
                if not structural and rng.random() < 0.15:
                    chosen.add(rng.choice(values))
                for value in sorted(chosen):
                    scene.add_fact("has_attr", obj, category, value)
        for value in loose:
            if rng.random() < 0.5:
                scene.add_fact("has_attr", obj, _LOOSE_CATEGORY, value)
    for subject in range(1, count + 1):
        for obj in range(1, count + 1):
            if subject != obj and rng.random() < 0.35:
                scene.add_fact("has_rel", subject, rng.choice(relations), obj)
    return scene


@dataclass(frozen=True)
class Outcome:
    """What one program answered on one scene."""

    status: str
    answers: tuple[str, ...]

    @classmethod
    def of(cls, result: SolveResult) -> Outcome:
        return cls(result.status.value, tuple(sorted(a.answer for a in result.answers)))


@dataclass(frozen=True)
class EquivalenceResult:
    """The verdict; when the programs differ, a scene that tells them apart and both outcomes."""

    equivalent: bool
    scenes_tried: int
    same_canonical: bool = False
    scene: SceneFacts | None = None
    outcomes: tuple[Outcome, Outcome] | None = None
    message: str = ""


def equivalent(a: Program, b: Program, scenes: int = 40, seed: int = 0, top_k: int = 50) -> EquivalenceResult:
    """Whether `a` and `b` answer alike on `scenes` generated scenes (see the module docstring)."""
    if canonical(a) == canonical(b):
        return EquivalenceResult(True, 0, same_canonical=True, message="identical canonical programs")
    concepts = program_words(a, b)
    rng = random.Random(seed)
    for tried in range(1, scenes + 1):
        scene = random_scene(concepts, rng)
        first, second = Outcome.of(solve(a, scene, top_k=top_k)), Outcome.of(solve(b, scene, top_k=top_k))
        for outcome in (first, second):
            if outcome.status not in (SolveStatus.OK.value, SolveStatus.NO_ANSWER.value):
                return EquivalenceResult(
                    False, tried, scene=scene, outcomes=(first, second), message=f"solver status {outcome.status}"
                )
        if first != second:
            return EquivalenceResult(
                False,
                tried,
                scene=scene,
                outcomes=(first, second),
                message=f"answers differ: {_shown(first)} vs {_shown(second)}",
            )
    return EquivalenceResult(True, scenes, message=f"no difference on {scenes} scenes")


def _shown(result: Outcome) -> object:
    """The answers of a result, else its status (for messages)."""
    return list(result.answers) or result.status
