"""The evaluation job's confidence and abstention columns, and the report's AUROC and risk-coverage curve."""

from __future__ import annotations

import json

from evaluation.context import EvaluatorConfig
from evaluation.evaluator import Evaluator
from evaluation.records import ResultRecord
from evaluation.report import confidence_table, markdown, summarise, write_report
from evaluation.runs import Task
from tests.evaluation.test_job import BY_ID, REPLAY, RUN, ReplayComponents, needs_real_data
from tests.evaluation.test_report import ROWS, translation_row
from trust.calibration import Calibration


def test_records_keep_confidence_parts_and_abstention():
    record = ResultRecord("r", "translation", "q", confidence=0.42, confidence_parts={"retries": 1}, abstained=True)
    assert ResultRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
    assert ResultRecord.from_json({"setting": "s", "questionId": "q"}).confidence is None  # older files


def scored_rows():
    rows = []
    for i, (score, right) in enumerate([(0.9, True), (0.8, True), (0.7, False), (0.6, True), (0.2, False)]):
        row = translation_row(str(i), right, right) | {"confidence": score, "abstained": score < 0.65}
        rows.append(row)
    return rows


def test_the_report_states_auroc_abstentions_and_the_curve(tmp_path):
    rows = scored_rows()
    found = confidence_table([ResultRecord.from_json(r) for r in rows])
    assert found is not None
    assert found["auroc_wrong"] == 5 / 6  # one right answer (0.6) ranks below a wrong one (0.7)
    assert found["abstained"] == 2 and found["coverage"] == 0.6 and found["wrong_among_kept"] == 0.3333
    assert [p["coverage"] for p in found["curve"]] == [0.2, 0.4, 0.6, 0.8, 1.0]
    # Scores 0.9 and 0.8 are right: 40 % kept with none wrong; 0.6 keeps 4 with 1 wrong (25 %).
    assert found["coverage_at_1pct_risk"] == found["coverage_at_5pct_risk"] == 0.4
    # Kept 0.9, 0.8, 0.7: two right, one wrong, two held back: (2 - 1) / 5 and (2 - 10) / 5.
    assert found["phi_1"] == 0.2 and found["phi_10"] == -1.6
    summary = summarise(rows, {})
    assert "## Confidence and abstention" in markdown(summary)
    assert "Phi_10" in markdown(summary)
    assert confidence_table([ResultRecord.from_json(r) for r in ROWS]) is None  # no confidences: no table
    with (tmp_path / "results.jsonl").open("w") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in rows)
    (tmp_path / "job.json").write_text(json.dumps({"runs": {"r": {}}}))
    paths = {p.name: p for p in write_report(tmp_path, target=tmp_path / "report")}
    assert paths["risk_coverage.png"].read_bytes()[:4] == b"\x89PNG"


@needs_real_data[0]
def test_translated_records_carry_confidence_and_abstain_with_a_calibration(tmp_path):
    replay = tmp_path / "replay.jsonl"
    replay.write_text(REPLAY.read_text())
    calibration = tmp_path / "c.json"
    Calibration.fit([0.999] * 30, [False] * 30, risk=0.1, settings={}, data={}).save(calibration)
    ev = Evaluator(EvaluatorConfig(calibration=str(calibration)), ReplayComponents(str(replay)))
    records = {r["setting"]: r for r in ev.evaluate(Task(RUN, BY_ID["aspvqa000"], ("translation", "oracle")))}
    translated = records["translation"]
    assert 0 < translated["confidence"] < 0.999 and translated["abstained"] is True
    assert translated["confidence_parts"]["samples"] == 1
    assert records["oracle"]["confidence"] is None and records["oracle"]["abstained"] is None
