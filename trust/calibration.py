"""A calibration file: confidences and labels of calibration questions, the threshold for a risk,
the digest of the data and the settings it holds for; and the abstention decision it gives.

The file keeps every calibration score and label (numbers only, no question text), so a request
may ask for another risk within the calibrated range and get the threshold the same fit gives.
A calibration is tied to the settings that made its confidences (model, prompt, bank, examples,
samples, confidence weights ...): used with others it is refused, naming what differs.

Example:
    >>> cal = Calibration.fit([0.9, 0.8, 0.7, 0.2], [False, False, False, True], risk=0.3,
    ...                       settings={"llm": "m"}, data={"questions": "abc"})
    >>> cal.decide(0.75).abstained, cal.decide(0.5).abstained
    (False, True)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from trust.conformal import METHODS, ThresholdFit, fit_threshold, smallest_risk
from trust.errors import TrustError

FORMAT_VERSION: Literal[1] = 1
LARGEST_RISK = 0.5  # above this an abstention threshold says little; requests may not ask for more


class CalibrationError(TrustError, ValueError):
    """The calibration cannot be used as asked; the message says why and what to do."""


class AbstentionJson(TypedDict):
    """An abstention decision as a response or a record shows it."""

    abstained: bool | None
    reason: str
    threshold: float | None
    risk: float | None
    method: str


@dataclass(frozen=True)
class Abstention:
    """Whether to hold back an answer, why, and the threshold and risk behind the decision."""

    abstained: bool | None  # None: no calibrated decision (the calibration does not hold for the request)
    reason: str
    threshold: float | None
    risk: float | None
    method: str

    @classmethod
    def undecided(cls, reason: str, method: str) -> Abstention:
        """No decision: the calibration was made with other settings than the request's."""
        return cls(None, reason, None, None, method)

    def to_json(self) -> AbstentionJson:
        """The decision as JSON."""
        threshold = self.threshold
        return {
            "abstained": self.abstained,
            "reason": self.reason,
            "threshold": None if threshold is None or threshold == float("inf") else round(threshold, 6),
            "risk": self.risk,
            "method": self.method,
        }


class Calibration(BaseModel):
    """The contents of a calibration file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1] = FORMAT_VERSION
    method: Literal["crc", "ltt"] = "crc"
    delta: float = Field(0.1, gt=0, lt=1, description="ltt only: the guarantee holds with probability 1 - delta")
    risk: float = Field(..., gt=0, lt=1, description="the default risk")
    label: Literal["program", "answer"] = Field(
        "program", description="what 'wrong' meant: the program differs from GQA's, or the top answer is wrong"
    )
    scores: list[float]
    wrong: list[bool]
    data: dict[str, str] = Field(..., description="sha256 of each calibration file, by role")
    settings: dict[str, JsonValue] = Field(..., description="the settings the confidences were made with")

    @classmethod
    def fit(
        cls,
        scores: Sequence[float],
        wrong: Sequence[bool],
        *,
        risk: float,
        settings: Mapping[str, JsonValue],
        data: Mapping[str, str],
        method: str = "crc",
        label: str = "program",
    ) -> Calibration:
        """A calibration of these scores and labels for `risk` (checked to be reachable)."""
        if method not in METHODS:
            raise CalibrationError(f"method must be one of {', '.join(METHODS)}")
        if not scores:
            raise CalibrationError("no calibration questions could be scored")
        made = cls(
            method=method,
            risk=risk,
            label=label,
            scores=[round(float(s), 6) for s in scores],
            wrong=[bool(w) for w in wrong],
            data=dict(data),
            settings=dict(settings),
        )
        made.check_risk(risk)
        return made

    # --- the range and the thresholds ------------------------------------------------------

    @property
    def risk_range(self) -> tuple[float, float]:
        """The risks a request may ask for: from the smallest these questions can bound to LARGEST_RISK."""
        return round(smallest_risk(len(self.scores), self.method), 4), LARGEST_RISK

    def check_risk(self, risk: float) -> None:
        """Raise `CalibrationError` when `risk` is outside the calibrated range."""
        low, high = self.risk_range
        if not low <= risk <= high:
            raise CalibrationError(
                f"risk {risk:g} is outside the calibrated range {low:g}-{high:g} "
                f"({len(self.scores)} calibration questions)"
            )

    def threshold_fit(self, risk: float | None = None) -> ThresholdFit:
        """The threshold for `risk` (default: the file's) on the calibration questions."""
        risk = self.risk if risk is None else risk
        self.check_risk(risk)
        return fit_threshold(self.scores, self.wrong, risk, self.method, self.delta)

    def decide(self, confidence: float, risk: float | None = None) -> Abstention:
        """Keep or hold back an answer of this confidence at `risk` (default: the file's)."""
        fit = self.threshold_fit(risk)
        what = "kept answers wrong" if self.method == "ltt" else "answers kept and wrong"
        bound = f"at most {fit.risk:.0%} {what} ({self.method}, {fit.n} calibration questions)"
        if confidence >= fit.threshold:
            return Abstention(
                False,
                f"confidence {confidence:.2f} reaches {fit.threshold:.2f}: {bound}",
                fit.threshold,
                fit.risk,
                self.method,
            )
        if fit.threshold == float("inf"):
            reason = f"no threshold keeps {bound}: every answer is held back"
        else:
            reason = f"confidence {confidence:.2f} is below {fit.threshold:.2f}, the threshold for {bound}"
        return Abstention(True, reason, fit.threshold, fit.risk, self.method)

    # --- settings -------------------------------------------------------------------------

    def check_settings(self, current: Mapping[str, JsonValue]) -> None:
        """Raise `CalibrationError` naming the settings that differ from those calibrated."""
        keys = sorted(set(self.settings) | set(current))
        differ = [k for k in keys if self.settings.get(k) != current.get(k)]
        if differ:
            shown = "; ".join(f"{k}: calibrated {self.settings.get(k)!r}, now {current.get(k)!r}" for k in differ)
            raise CalibrationError(
                f"the calibration was made for other settings ({shown}): run `aspvqa calibrate` again with these "
                "settings or use the settings it was made for"
            )

    # --- files ------------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write the calibration as JSON."""
        Path(path).write_text(self.model_dump_json(indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        """Read a calibration file; `CalibrationError` says what is wrong with it."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            calibration = cls.model_validate(data)
        except OSError as exc:
            raise CalibrationError(f"cannot read calibration file {path}: {exc.strerror or exc}") from None
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise CalibrationError(f"calibration file {path} is not JSON") from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, first["loc"]))
            raise CalibrationError(f"calibration file {path}: {where}: {first['msg']}") from None
        if len(calibration.scores) != len(calibration.wrong) or not calibration.scores:
            raise CalibrationError(f"calibration file {path}: scores and labels must be non-empty and of one length")
        return calibration


def data_digest(path: str | Path) -> str:
    """sha256 of a file's bytes (read in blocks: GQA files are large)."""
    with Path(path).open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
