"""The tables the pipeline reads, as the settings name them: the entailment table and the calibration;
each failure a `PipelineError("model_unavailable", ...)` naming the setting to change."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pydantic import JsonValue

from app.errors import PipelineError
from app.parts.shared import bundled_calibration_path
from theory.entailment import Entailments, EntailmentTableError, bundled_entailments, load_entailments
from trust.calibration import Calibration, CalibrationError


@dataclass(frozen=True)
class ChosenCalibration:
    """The calibration the service abstains by (None: none), and why a bundled one is not used."""

    calibration: Calibration | None = None
    note: str | None = None


def load_entailment_table(choice: str) -> Entailments | None:
    """The entailment table `choice` names: 'off' (None: exact words only), 'bundled' or a file."""
    if choice == "off":
        return None
    if choice == "bundled":
        return bundled_entailments()
    try:
        return load_entailments(choice)
    except (OSError, UnicodeDecodeError, EntailmentTableError) as exc:
        raise PipelineError("model_unavailable", f"entailment table {choice}: {exc}") from None


def load_calibration(path: str | None, expected: Callable[[], Mapping[str, JsonValue]]) -> ChosenCalibration:
    """The calibration at `path` ('bundled', a file; None or 'off': none), checked against the
    settings `expected` gives."""
    if not path or path == "off":
        return ChosenCalibration()
    bundled = path == "bundled"
    try:
        calibration = Calibration.load(bundled_calibration_path() if bundled else path)
        calibration.check_settings(expected())
    except CalibrationError as exc:
        if bundled:
            # The shipped calibration holds for the default settings only: with others the
            # service answers without abstaining, as with none configured, and says so.
            return ChosenCalibration(note=f"bundled calibration not used: {exc}")
        raise PipelineError("model_unavailable", f"{exc} (ASPVQA_CALIBRATION)") from None
    return ChosenCalibration(calibration)
