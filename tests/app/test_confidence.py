"""Confidence and abstention through /answer, `aspvqa answer` and `aspvqa calibrate` (recorded model outputs)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.api.main import create_app
from app.cli import cli
from app.config import Settings
from app.demo_scenes import demo_scenes
from app.pipeline import Pipeline
from trust.calibration import Calibration

# Recorded outputs are used up as they are read (per process), so this module records plenty.
SITTING = "query(unique(relate_any(unique(select(scene(), cat)), on, object)), name)"
REPLAY = Path(tempfile.mkdtemp(prefix="aspvqa-confidence-")) / "replay.jsonl"
REPLAY.write_text(
    json.dumps({"question": "What is the cat on?", "outputs": [SITTING] * 500})
    + "\n"
    + json.dumps(
        {"question": "Is the apple on the table red?", "outputs": ["verify_attr(unique(select(scene(), apple"] * 500}
    )
    + "\n"
)
KITCHEN = demo_scenes()["kitchen"]
CAT = {"question": "What is the cat on?", "scene_graph": KITCHEN}
MUG_COLOR = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3)."
runner = CliRunner()


def settings(**extra):
    return Settings(llm=f"replay:{REPLAY}", sampling="jaccard", **({"template_fill": False} | extra))


def calibration_for(path: Path, s: Settings, scores=(0.99, 0.98, 0.97) * 20, wrong=(False, False, True) * 20) -> Path:
    components = Pipeline(s).components
    made = Calibration.fit(
        list(scores),
        list(wrong),
        risk=0.2,
        settings=components.confidence_settings(components.translation_settings()),
        data={"questions": "test"},
    )
    made.save(path)
    return path


@pytest.fixture(scope="module")
def client():
    s = settings()
    with TestClient(create_app(s, Pipeline(s))) as test_client:
        yield test_client


def test_a_translated_answer_carries_its_confidence_and_parts(client):
    body = client.post("/answer", json=CAT).json()
    assert 0.0 < body["confidence"] <= 1.0
    parts = body["confidence_parts"]
    assert parts["samples"] == 1 and parts["agreement"] is None
    assert parts["retrieval_similarity"] is not None and 0.0 <= parts["skeleton_agreement"] <= 1.0
    assert parts["retries"] == 0 and parts["answer_share"] == 1.0
    assert body["abstained"] is None and body["abstention"] is None  # no calibration configured


def test_a_given_program_has_the_scenes_share_only(client):
    body = client.post("/answer", json={"program": MUG_COLOR, "scene_graph": KITCHEN}).json()
    assert body["confidence"] == 1.0 and body["confidence_parts"]["retrieval_similarity"] is None


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        (CAT | {"risk": 0.1}, "needs a calibration"),
        (CAT | {"risk": 1.5}, "risk"),
        (CAT | {"risk": "high"}, "risk"),
        ({"program": MUG_COLOR, "scene_graph": KITCHEN, "risk": 0.1}, "not to a given program"),
    ],
)
def test_a_risk_that_cannot_be_served_is_422(client, payload, fragment):
    response = client.post("/answer", json=payload)
    assert response.status_code == 422 and fragment in response.json()["detail"]


def test_openapi_documents_confidence_and_abstention(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    answer = schemas["AnswerResponse"]["properties"]
    assert {"confidence", "confidence_parts", "abstained", "abstention"} <= set(answer)
    assert "risk" in schemas["AnswerRequest"]["properties"]
    assert {"agreement", "retrieval_similarity", "skeleton_agreement", "retries", "cost_margin"} <= set(
        schemas["ConfidencePartsShown"]["properties"]
    )


def test_with_a_calibration_the_answer_says_whether_it_abstains(tmp_path):
    s = settings()
    path = calibration_for(tmp_path / "c.json", s)
    calibrated = settings(calibration=str(path))
    with TestClient(create_app(calibrated, Pipeline(calibrated))) as test_client:
        body = test_client.post("/answer", json=CAT).json()
        # The recorded question's confidence is below every calibration score: held back.
        assert body["abstained"] is True and "below" in body["abstention"]["reason"]
        assert body["abstention"]["risk"] == 0.2 and body["answers"]  # the answers are still shown
        low, _ = Calibration.load(path).risk_range
        response = test_client.post("/answer", json=CAT | {"risk": low / 2})
        assert response.status_code == 422 and "outside the calibrated range" in response.json()["detail"]
        loose = test_client.post("/answer", json=CAT | {"risk": 0.5}).json()
        assert loose["abstention"]["risk"] == 0.5 and loose["abstention"]["threshold"] <= 0.97


def test_a_calibration_made_for_other_settings_is_refused(tmp_path):
    path = calibration_for(tmp_path / "c.json", settings(examples=5))
    mismatched = settings(calibration=str(path))
    with TestClient(create_app(mismatched, Pipeline(mismatched))) as test_client:
        response = test_client.post("/answer", json=CAT)
        assert response.status_code == 503
        assert "examples: calibrated 5, now 3" in response.json()["detail"]
        assert "ASPVQA_CALIBRATION" in response.json()["detail"]


def test_cli_answer_prints_confidence_and_refuses_a_risk_without_calibration(tmp_path, monkeypatch):
    monkeypatch.setenv("ASPVQA_LLM", f"replay:{REPLAY}")
    monkeypatch.setenv("ASPVQA_SAMPLING", "jaccard")
    monkeypatch.setenv("ASPVQA_TEMPLATE_FILL", "false")
    graph = tmp_path / "g.json"
    graph.write_text(json.dumps(KITCHEN))
    args = ["answer", "-q", "What is the cat on?", "--scene-graph", str(graph)]
    result = runner.invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert 0 < record["confidence"] <= 1 and record["confidence_parts"]["samples"] == 1
    assert "confidence" in runner.invoke(cli, args).output
    refused = runner.invoke(cli, [*args, "--risk", "0.1"])
    assert refused.exit_code == 2 and "needs a calibration" in refused.output


def _questions(tmp_path: Path) -> Path:
    semantic = [
        {"operation": "select", "argument": "cat (1)", "dependencies": []},
        {"operation": "relate", "argument": "_,on,o (2)", "dependencies": [0]},
        {"operation": "query", "argument": "name", "dependencies": [1]},
    ]
    questions = {
        "q1": {
            "question": "What is the cat on?",
            "imageId": "kitchen",
            "answer": "chair",
            "semantic": semantic,
        },
        "q2": {
            "question": "Is the apple on the table red?",
            "imageId": "kitchen",
            "answer": "no",
            "semantic": semantic,
        },
    }
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(questions))
    return path


def test_cli_calibrate_labels_fits_and_writes_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ASPVQA_LLM", f"replay:{REPLAY}")
    monkeypatch.setenv("ASPVQA_SAMPLING", "jaccard")
    monkeypatch.setenv("ASPVQA_TEMPLATE_FILL", "false")
    out = tmp_path / "cal.json"
    questions = _questions(tmp_path)
    result = runner.invoke(cli, ["calibrate", "--questions", str(questions), "--risk", "0.4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 questions" in result.output and str(out) in result.output
    made = Calibration.load(out)
    assert made.label == "program" and len(made.scores) == 2
    assert made.wrong[1] is True  # the second question has no valid program
    assert len(made.data["questions"]) == 64 and made.settings["examples"] == 3
    graphs = tmp_path / "graphs.json"
    graphs.write_text(json.dumps({"kitchen": KITCHEN}))
    args = ["calibrate", "--questions", str(questions), "--scene-graphs", str(graphs), "--risk", "0.4"]
    result = runner.invoke(cli, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    answer_labelled = Calibration.load(out)
    assert answer_labelled.label == "answer" and answer_labelled.wrong[0] is False  # the cat sits on the chair
    assert "scene_graphs" in answer_labelled.data


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--risk", "1.5"], "--risk"),
        (["--method", "guess"], "--method"),
        (["--part", "middle"], "--part"),
        (["--risk", "0.001"], "outside the calibrated range"),
    ],
)
def test_cli_calibrate_bad_input_is_one_line_and_status_2(tmp_path, monkeypatch, args, fragment):
    monkeypatch.setenv("ASPVQA_LLM", f"replay:{REPLAY}")
    monkeypatch.setenv("ASPVQA_SAMPLING", "jaccard")
    monkeypatch.setenv("ASPVQA_TEMPLATE_FILL", "false")
    questions = _questions(tmp_path)
    result = runner.invoke(cli, ["calibrate", "--questions", str(questions), "--out", str(tmp_path / "c"), *args])
    assert result.exit_code == 2 and fragment in result.output and len(result.output.strip().splitlines()) == 1


def test_cli_calibrate_missing_questions_file(tmp_path):
    result = runner.invoke(cli, ["calibrate", "--questions", str(tmp_path / "none.json"), "--out", str(tmp_path / "c")])
    assert result.exit_code == 2 and "not found" in result.output


@pytest.mark.parametrize("extra", [{}, {"confidence_samples": 3}, {"template_fill": True}])
def test_calibrate_and_the_evaluation_job_give_one_confidence_for_one_question(extra):
    """`aspvqa calibrate` scores what the service translates; the evaluation job applies the
    calibration to what its workers translate: the same question must get the same confidence."""
    from app.commands.evaluate import SettingsParts
    from evaluation.runs import Run
    from trust.confidence import confidence_parts, program_confidence

    s = settings(**extra)
    question = "What is the cat on?"
    served = Pipeline(s).translate(question)  # what calibrate labels
    job = SettingsParts(s.model_dump())(Run("r"), ["translation"])
    assert job.translate is not None
    evaluated = job.translate(question, "q1")  # what the evaluation job scores
    assert evaluated.evidence is not None
    by_service, by_job = confidence_parts(served.evidence), confidence_parts(evaluated.evidence)
    assert by_service == by_job
    assert program_confidence(by_service) == program_confidence(by_job)


def test_the_confidence_reads_the_fill_and_the_model_s_least_sure_token():
    import math

    from app.outcomes import TranslationOutcome
    from theory.flat import parse_flat
    from translators.evidence import TranslationEvidence
    from trust.confidence import confidence, confidence_parts

    program = parse_flat("scene(0). select(1, 0, cat). exist(2, 1). end(2).")

    def parts(**evidence):
        outcome = TranslationOutcome(program, evidence=TranslationEvidence.of(program, **evidence))
        return confidence_parts(outcome.evidence, [(0,)])

    written = parts(question="Is there a cat?", min_logprob=-2.0)
    assert written.source == "model" and written.min_token_probability == pytest.approx(math.exp(-2.0))
    filled = parts(question="Is there a cat?", source="template", fill={"votes": 2, "voters": 4})
    assert filled.source == "template" and filled.fill_agreement == 0.5 and filled.min_token_probability is None
    assert confidence(parts(min_logprob=-0.01)) > confidence(parts(min_logprob=-6.0))


def test_translate_gives_status_confidence_and_the_reading(tmp_path):
    question = {"question": CAT["question"]}
    s = settings()
    with TestClient(create_app(s, Pipeline(s))) as plain:
        body = plain.post("/translate", json=question).json()
        assert body["status"] == "ok" and body["reason"] is None and 0.0 < body["confidence"] <= 1.0
        assert body["reads_as"].startswith("what is the name of")
    calibrated = settings(calibration=str(calibration_for(tmp_path / "c.json", s)))
    with TestClient(create_app(calibrated, Pipeline(calibrated))) as strict:
        body = strict.post("/translate", json=question).json()
        assert body["status"] == "abstained" and "below" in body["reason"] and body["program"]


def test_a_question_no_program_can_express_is_declined_naming_the_word(client):
    response = client.post("/translate", json={"question": "What brand is the cat?"})
    assert response.status_code == 422
    assert response.json()["status"] == "unsupported" and "cannot express 'brand'" in response.json()["detail"]


def test_the_shipped_calibration_holds_for_the_default_settings():
    from app.components import bundled_calibration_path

    # The bundled bank is built when first needed (`make install` builds it ahead): no reason to skip.
    components = Pipeline(Settings()).components
    expected = components.confidence_settings(components.translation_settings())
    Calibration.load(bundled_calibration_path()).check_settings(expected)


def test_cli_translate_json_gives_status_and_reason(monkeypatch):
    monkeypatch.setenv("ASPVQA_LLM", f"replay:{REPLAY}")
    monkeypatch.setenv("ASPVQA_SAMPLING", "jaccard")
    monkeypatch.setenv("ASPVQA_TEMPLATE_FILL", "false")
    ok = runner.invoke(cli, ["translate", "-q", CAT["question"], "--json"])
    assert ok.exit_code == 0, ok.output
    record = json.loads(ok.output)
    assert record["status"] == "ok" and record["confidence"] > 0 and record["reads_as"]
    declined = runner.invoke(cli, ["translate", "-q", "How much does the cat cost?", "--json"])
    record = json.loads(declined.output.splitlines()[0])
    assert declined.exit_code == 1 and record["status"] == "unsupported" and "costs or is worth" in record["reason"]


def test_the_bundled_calibration_made_for_other_settings_leaves_the_service_ready_without_abstaining(client):
    parts = client.get("/ready").json()["parts"]
    assert parts["calibration"] == "ready" and parts["abstention"].startswith("off: bundled calibration not used")
    assert client.post("/answer", json=CAT).json()["abstained"] is None
