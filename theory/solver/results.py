"""What a solve returns: its status, the ranked answers with their support, and its limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class SolveStatus(str, Enum):
    """How a solve ended."""

    OK = "ok"  # at least one answer
    NO_ANSWER = "no_answer"  # the program has no answer on this scene (unsatisfiable)
    TIMEOUT = "timeout"  # the time limit hit; answers ranked so far are kept
    TOO_LARGE = "too_large"  # the scene or the grounding exceeds the size limits
    INVALID_PROGRAM = "invalid_program"
    INVALID_SCENE = "invalid_scene"
    ERROR = "error"  # clingo failed for another reason


@dataclass(frozen=True)
class SolveLimits:
    """Time and size limits of one solve."""

    timeout_s: float = 10.0
    max_scene_facts: int = 200_000
    max_program_steps: int = 200
    max_ground_atoms: int = 2_000_000
    max_models_per_round: int = 1_000


@dataclass(frozen=True)
class Support:
    """Why an answer holds: each step's objects and values, and the scene facts the steps used."""

    steps: dict[int, list[str]]
    facts: list[str]

    def to_json(self) -> dict[str, object]:
        """JSON form: step ids as strings."""
        return {"steps": {str(k): v for k, v in self.steps.items()}, "facts": self.facts}


@dataclass(frozen=True)
class Approximation:
    """A fact the question asked for, read from a more general scene fact (the entailment table)."""

    asked: str
    scene: str

    def to_json(self) -> dict[str, str]:
        """JSON form."""
        return {"asked": self.asked, "scene": self.scene}


@dataclass(frozen=True)
class Answer:
    """One ranked answer and the cost of the cheapest scene interpretation that gives it."""

    answer: str
    cost: tuple[int, ...]
    support: Support
    approximations: tuple[Approximation, ...] = ()

    @property
    def approximate(self) -> bool:
        """Whether the answer reads some scene fact as a more specific word than the scene uses."""
        return bool(self.approximations)


@dataclass(frozen=True)
class SolveResult:
    """The ranked answers of one solve and how it ended."""

    status: SolveStatus
    answers: tuple[Answer, ...] = ()
    message: str | None = None
    optimal: bool = True
    seconds: float = 0.0
    stats: dict[str, int] = field(default_factory=dict)
