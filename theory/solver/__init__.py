"""Run clingo on theory + scene + question and rank the distinct answers by optimal cost.

Ranking: each round asks for the cheapest models that contain an answer not ranked yet
(``--opt-mode=optN``, projected on ``ans/1``); every new answer in those models is reachable at
that cost and no cheaper, so answers come out in order of the optimal cost at which each is
reachable. Ties are broken by the answer's text.

Example:
    >>> from theory.flat import parse_flat
    >>> program = parse_flat("scene(0). select(1,0,ball). unique(2,1). query(3,2,color). end(3).")
    >>> result = solve(program, "object(1). has_attr(1,class,ball). has_attr(1,color,red).")
    >>> result.status.value, [a.answer for a in result.answers]
    ('ok', ['red'])
"""

from __future__ import annotations

# The modules, each with one job: `results` (what a solve returns), `rules` (the theory's rule
# text), `scene_readings` (scene text read once per text), `word_index` and `narrowing` (the facts
# a question can read), `grounding`, `ranking` and `solving` (`solve` itself).
from theory.solver.grounding import FED_FACTS_FROM, FactFeed, add_scene, fed_rules, fed_scene, ground_question
from theory.solver.narrowing import narrowed
from theory.solver.ranking import printed
from theory.solver.results import Answer, Approximation, SolveLimits, SolveResult, SolveStatus, Support
from theory.solver.rules import (
    ENTAILMENT_SIGNATURES,
    SCENE_SIGNATURES,
    THEORY,
    THEORY_WITH_ENTAILMENT,
    choice_rules,
    program_facts,
    scene_choice_rules,
    theory_statements,
    weighted_text,
)
from theory.solver.scene_readings import KEPT_SCENE_CHARS, KEPT_SCENE_TEXTS, kept_per_text, read_scene
from theory.solver.solving import solve

__all__ = [
    "ENTAILMENT_SIGNATURES",
    "FED_FACTS_FROM",
    "KEPT_SCENE_CHARS",
    "KEPT_SCENE_TEXTS",
    "SCENE_SIGNATURES",
    "THEORY",
    "THEORY_WITH_ENTAILMENT",
    "Answer",
    "Approximation",
    "FactFeed",
    "SolveLimits",
    "SolveResult",
    "SolveStatus",
    "Support",
    "add_scene",
    "choice_rules",
    "fed_rules",
    "fed_scene",
    "ground_question",
    "kept_per_text",
    "narrowed",
    "printed",
    "program_facts",
    "read_scene",
    "scene_choice_rules",
    "solve",
    "theory_statements",
    "weighted_text",
]
