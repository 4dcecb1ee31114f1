"""Calibration files: fitting, per-request risk, settings checks, reading bad files."""

from __future__ import annotations

import json

import pytest

from trust.calibration import Calibration, CalibrationError, data_digest

SCORES = [0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2] * 5
WRONG = [False, False, False, False, False, True, False, True, True, True] * 5


def make(**overrides):
    args = {"risk": 0.1, "settings": {"llm": "m", "examples": 3}, "data": {"questions": "d"}} | overrides
    return Calibration.fit(SCORES, WRONG, **args)


def test_the_file_round_trips_and_decides_alike(tmp_path):
    cal = make()
    cal.save(tmp_path / "c.json")
    again = Calibration.load(tmp_path / "c.json")
    assert again == cal
    assert again.decide(0.99).abstained is False and again.decide(0.1).abstained is True
    assert "below" in again.decide(0.1).reason and "crc" in again.decide(0.1).reason


def test_a_request_may_ask_for_another_risk_within_the_range():
    cal = make()
    low, high = cal.risk_range
    assert low == pytest.approx(1 / 51, abs=1e-4) and high == 0.5
    assert cal.threshold_fit(0.3).threshold <= cal.threshold_fit(0.05).threshold
    with pytest.raises(CalibrationError, match="outside the calibrated range"):
        cal.decide(0.5, risk=0.01)
    with pytest.raises(CalibrationError, match="outside"):
        cal.decide(0.5, risk=0.6)


def test_a_calibration_for_other_settings_is_refused_naming_the_difference():
    cal = make()
    cal.check_settings({"llm": "m", "examples": 3})
    with pytest.raises(CalibrationError, match=r"examples: calibrated 3, now 5.*aspvqa calibrate"):
        cal.check_settings({"llm": "m", "examples": 5})


def test_ltt_keeps_fewer_than_crc_at_one_risk():
    assert make(method="ltt").threshold_fit().coverage <= make().threshold_fit().coverage


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not JSON"),
        (json.dumps({"risk": 0.1}), "scores"),
        (json.dumps({"risk": 2, "scores": [0.5], "wrong": [True], "data": {}, "settings": {}}), "risk"),
        (json.dumps({"risk": 0.1, "scores": [0.5, 0.4], "wrong": [True], "data": {}, "settings": {}}), "one length"),
    ],
)
def test_bad_files_give_one_clear_error(tmp_path, content, message):
    path = tmp_path / "c.json"
    path.write_text(content)
    with pytest.raises(CalibrationError, match=message):
        Calibration.load(path)


def test_a_missing_file_and_bad_fits_are_refused(tmp_path):
    with pytest.raises(CalibrationError, match="cannot read"):
        Calibration.load(tmp_path / "absent.json")
    with pytest.raises(CalibrationError, match="no calibration questions"):
        Calibration.fit([], [], risk=0.1, settings={}, data={})
    with pytest.raises(CalibrationError, match="outside"):
        make(risk=0.001)


def test_file_digest_is_the_sha256_of_the_bytes(tmp_path):
    (tmp_path / "f").write_bytes(b"abc")
    assert data_digest(tmp_path / "f") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
