"""Whether to hold back an answer or a program: a calibration's decision for one translation.

The service, the command line and the evaluation job decide the same way: the calibration must
hold for the settings the translation was made with; otherwise there is no calibrated decision
(`Abstention.undecided`), never a silent one.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from translators.evidence import TranslationEvidence
from trust.calibration import Abstention, Calibration, CalibrationError
from trust.confidence import confidence_parts, program_confidence


def decide(
    calibration: Calibration | None, settings: Mapping[str, JsonValue], score: float, risk: float | None = None
) -> Abstention | None:
    """The calibration's decision on a confidence of `score` (None: no calibration); a calibration made
    with other settings gives an undecided one, or raises `CalibrationError` when a `risk` was asked for."""
    if calibration is None:
        return None
    try:
        calibration.check_settings(settings)
    except CalibrationError as exc:
        if risk is not None:
            raise
        return Abstention.undecided(str(exc), calibration.method)
    return calibration.decide(score, risk)


def program_decision(
    evidence: TranslationEvidence | None, calibration: Calibration | None, settings: Mapping[str, JsonValue]
) -> tuple[float | None, Abstention | None]:
    """(the program's confidence, the decision on it) for a translation without a scene."""
    if evidence is None:
        return None, None
    score = round(program_confidence(confidence_parts(evidence)), 6)
    return score, decide(calibration, settings, score)
