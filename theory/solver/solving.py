"""`solve`: check the program and the scene, ground them with the theory, rank the answers."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import clingo

import theory.solver.rules as rules  # the module itself, not the package that re-exports it
from theory.data_text import SceneText
from theory.entailment import Entailments
from theory.flat import parse_flat
from theory.operations import RELATION_ANSWER_WORDS
from theory.program import Program, ProgramError
from theory.scene_facts import SceneFacts
from theory.solver.grounding import ground_question
from theory.solver.ranking import RankingLimits, rank_answers
from theory.solver.results import SolveLimits, SolveResult, SolveStatus
from theory.solver.scene_readings import read_scene
from theory.validate import normalise_negate, validate_program


@dataclass(frozen=True)
class _Refusal:
    """Why a solve stops before ranking: its status and message."""

    status: SolveStatus
    message: str


@lru_cache(maxsize=1024)
def _checked_program(program: Program | str) -> Program:
    """The validated program with its negations normalised (raises `ProgramError`); kept for the
    last programs asked, as a program is asked of several scenes and at several depths."""
    return normalise_negate(parse_flat(program) if isinstance(program, str) else validate_program(program))


def _checked(
    program: Program | str, scene: SceneFacts | SceneText | str, limits: SolveLimits
) -> tuple[Program, SceneFacts | SceneText] | _Refusal:
    """The validated program (negations normalised) and the scene's reading, or why not."""
    try:
        program = _checked_program(program)
    except ProgramError as exc:
        return _Refusal(SolveStatus.INVALID_PROGRAM, str(exc))
    try:
        # Plain text goes to clingo as it is; other text through the AST reader, which explains errors.
        if isinstance(scene, str):
            scene = read_scene(scene)
    except ProgramError as exc:
        return _Refusal(SolveStatus.INVALID_SCENE, str(exc))
    if len(program) > limits.max_program_steps:
        return _Refusal(SolveStatus.TOO_LARGE, f"program has {len(program)} steps, limit {limits.max_program_steps}")
    if len(scene) > limits.max_scene_facts:
        return _Refusal(SolveStatus.TOO_LARGE, f"scene has {len(scene)} facts, limit {limits.max_scene_facts}")
    return program, scene


def _control(scene: SceneFacts | SceneText, limits: SolveLimits, messages: list[str]) -> clingo.Control:
    """A clingo control for ranking, its messages collected in `messages`."""
    options = [
        "--opt-mode=optN",
        "--opt-strategy=usc,k,0",
        "--project=project",
        f"--models={limits.max_models_per_round}",
    ]
    # Core-guided optimisation (usc) suits scenes of many independent weighted choices. Without
    # any, the program is a few hundred atoms: clasp's equivalence preprocessing finds nothing to
    # merge there and costs about 0.05 ms of a 1.3 ms solve.
    certain = not (scene.weighted_count if isinstance(scene, SceneText) else scene.weighted)
    return clingo.Control(
        [*options, "--eq=0"] if certain else options,
        logger=lambda _code, msg: messages.append(msg.strip()),
        message_limit=20,
    )


def _grounded(
    program: Program,
    scene: SceneFacts | SceneText,
    limits: SolveLimits,
    entailments: Entailments | None,
    stats: dict[str, int],
) -> clingo.Control | _Refusal:
    """A control with the question grounded and its sizes in `stats`, or why not."""
    messages: list[str] = []
    ctl = _control(scene, limits, messages)
    try:
        # Read from the module when called: a test may stand another theory in.
        theory = rules.THEORY_WITH_ENTAILMENT if entailments else rules.THEORY
        ground_question(ctl, program, scene, theory, entailments, narrow=True)
    except RuntimeError as exc:
        if "bad_alloc" in str(exc):  # the process's memory limit, not a fault of the program
            return _Refusal(SolveStatus.TOO_LARGE, "grounding needs more memory than solving may use")
        return _Refusal(SolveStatus.ERROR, f"grounding failed: {'; '.join(messages) or exc}")
    atoms = len(ctl.symbolic_atoms)
    stats.update(ground_atoms=atoms, scene_facts=len(scene), weak_constraints=scene.weak_constraint_count)
    if atoms > limits.max_ground_atoms:
        return _Refusal(SolveStatus.TOO_LARGE, f"grounding has {atoms} atoms, limit {limits.max_ground_atoms}")
    return ctl


def solve(
    program: Program | str,
    scene: SceneFacts | SceneText | str,
    top_k: int = 5,
    limits: SolveLimits | None = None,
    entailments: Entailments | None = None,
) -> SolveResult:
    """Answer `program` on `scene`: up to `top_k` distinct answers, cheapest first.

    With `entailments`, a general scene word may stand for a more specific asked one at a cost;
    such answers rank below every exact answer and list their approximations.
    Never raises for bad input: the status and message say what went wrong.
    """
    limits = limits or SolveLimits()
    started = time.perf_counter()
    stats: dict[str, int] = {}

    def refused(refusal: _Refusal) -> SolveResult:
        return SolveResult(refusal.status, (), refusal.message, True, time.perf_counter() - started, stats)

    checked = _checked(program, scene, limits)
    if isinstance(checked, _Refusal):
        return refused(checked)
    program, scene = checked
    ctl = _grounded(program, scene, limits, entailments, stats)
    if isinstance(ctl, _Refusal):
        return refused(ctl)
    # A choice between two relations answers in GQA's words (the side), as the evaluator compares.
    answer_words = RELATION_ANSWER_WORDS if program.step(program.answer).operation == "choose_rel" else {}
    ranking_limits = RankingLimits(top_k, started + limits.timeout_s, limits.max_models_per_round)
    ranking = rank_answers(ctl, ranking_limits, answer_words, bool(entailments))
    elapsed = time.perf_counter() - started
    return SolveResult(ranking.status, ranking.answers, ranking.message, ranking.optimal, elapsed, stats)
