"""What the pipeline's steps give, typed until the edge (`app.views` shows them)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from app.perception import Perception
from theory import Program, SceneFacts, SolveResult, SolveStatus
from theory.explain import Explanation
from theory.solver import Answer, Support
from translators.details import TranslationDetails
from translators.evidence import TranslationEvidence
from trust.calibration import Abstention
from trust.confidence import ConfidenceParts
from trust.verify import SubClaimVerdict, Verdict


@dataclass(frozen=True)
class Detected:
    """One object the detector found, as the answer reports it (box in pixels: x0, y0, x1, y1)."""

    id: int
    label: str
    score: float
    box: tuple[float, float, float, float]
    categories: tuple[str, ...]
    hposition: str
    vposition: str


@dataclass(frozen=True)
class PerceptionReport:
    """How an image became a scene: the method, and for a vision-language model its name, where each
    fact's likelihood came from (source, facts), whether log-probabilities were used, words dropped."""

    method: Perception
    model: str | None = None
    likelihoods: tuple[tuple[str, int], ...] = ()
    logprobs: str | None = None
    dropped: int = 0


@dataclass(frozen=True)
class SceneReading:
    """A scene read for a program: its facts and, from an image, the detections behind them and how
    it was perceived."""

    facts: SceneFacts
    detections: tuple[Detected, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)
    perception: PerceptionReport | None = None


@dataclass
class TranslationOutcome:
    """A question translated into a program for the service, with what was shown to the model."""

    program: Program
    raw: str = ""
    examples: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    details: TranslationDetails | None = None  # how the program was made (None: not by a translator)
    # The settings a calibration must have been made with to hold for this translation.
    calibration_settings: dict[str, Any] = field(default_factory=dict)
    # What the translation shows about how sure it is (made from the program alone when not given).
    evidence: TranslationEvidence | None = None

    def __post_init__(self) -> None:
        if self.evidence is None:
            self.evidence = TranslationEvidence(self.program)


@dataclass(frozen=True)
class SceneAnswer:
    """What solving a program on one scene gives: plain data, so that it may come from a worker process."""

    result: SolveResult
    explanation: Explanation | None
    detections: tuple[Detected, ...]
    timings: dict[str, float]
    perception: PerceptionReport | None = None


@dataclass
class AnswerOutcome:
    """Everything `/answer` and `aspvqa answer` report."""

    status: SolveStatus
    message: str | None
    answers: tuple[Answer, ...]
    program: Program
    program_text: str
    representation: str
    concepts: dict[str, list[str]]
    detections: tuple[Detected, ...]
    timings: dict[str, float]
    translation: TranslationOutcome | None = None
    explanation: Explanation | None = None
    confidence: float | None = None
    confidence_parts: ConfidenceParts | None = None
    abstention: Abstention | None = None  # None without a calibration
    perception: PerceptionReport | None = None  # an image's: how it became the scene

    @property
    def support(self) -> Support | None:
        """The facts behind the top answer."""
        return self.answers[0].support if self.answers else None

    def score(self, answer: Answer) -> float:
        """Relative confidence in (0, 1]: exp of the extra cost over the top answer, in weight units.

        Every priority level's cost is -1000 ln p (the scene's likelihoods, and above them the cost
        of approximate readings), so the difference of the sums maps back to a likelihood ratio.
        """
        extra = sum(answer.cost) - sum(self.answers[0].cost)
        return round(math.exp(-extra / 1000.0), 6)


@dataclass
class VerifyOutcome:
    """Everything `/verify` and `aspvqa verify` report."""

    verdict: Verdict
    holds: bool
    program: Program
    subclaims: list[SubClaimVerdict]
    detections: tuple[Detected, ...]
    timings: dict[str, float]
    translation: TranslationOutcome | None = None
    representation: str = "flat"  # the syntax the program is shown in
