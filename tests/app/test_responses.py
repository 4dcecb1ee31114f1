"""`aspvqa answer --json` and `POST /answer` print one schema (and so do verify and /verify)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.api.main import create_app
from app.cli import cli
from app.config import Settings
from app.demo_scenes import demo_scenes
from app.pipeline import Pipeline
from app.views.models import AnswerResponse, VerifyResponse

KITCHEN = demo_scenes()["kitchen"]
MUG_COLOR = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3)."
NO_GIRAFFE = "scene(0). select(1, 0, giraffe). unique(2, 1). query(3, 2, color). end(3)."
runner = CliRunner()


@pytest.fixture(scope="module")
def client():
    settings = Settings(solve_timeout_s=5)
    with TestClient(create_app(settings, Pipeline(settings))) as test_client:
        yield test_client


def _files(tmp_path: Path, program: str) -> tuple[str, str]:
    (tmp_path / "p.lp").write_text(program)
    (tmp_path / "g.json").write_text(json.dumps(KITCHEN))
    return str(tmp_path / "p.lp"), str(tmp_path / "g.json")


def _same_but_timings(a: dict, b: dict) -> None:
    a, b = dict(a), dict(b)
    assert set(a.pop("timings")) == set(b.pop("timings"))
    assert a == b


@pytest.mark.parametrize("program", [MUG_COLOR, NO_GIRAFFE])
def test_the_command_line_and_the_api_answer_in_one_schema(client, tmp_path, program):
    schema = AnswerResponse.model_json_schema()
    served = client.post("/answer", json={"program": program, "scene_graph": KITCHEN})
    assert served.status_code == 200, served.text
    program_file, graph_file = _files(tmp_path, program)
    printed = runner.invoke(cli, ["answer", "--program", program_file, "--scene-graph", graph_file, "--json"])
    assert printed.exit_code in (0, 1), printed.output
    for body in (served.json(), json.loads(printed.stdout)):
        jsonschema.validate(body, schema)
    _same_but_timings(served.json(), json.loads(printed.stdout))
    if program == NO_GIRAFFE:
        assert served.json()["explanation"]["message"]


def test_the_command_line_and_the_api_verify_in_one_schema(client, tmp_path):
    schema = VerifyResponse.model_json_schema()
    served = client.post("/verify", json={"program": MUG_COLOR, "answer": "white", "scene_graph": KITCHEN})
    assert served.status_code == 200, served.text
    program_file, graph_file = _files(tmp_path, MUG_COLOR)
    args = ["verify", "--program", program_file, "--answer", "white", "--scene-graph", graph_file, "--json"]
    printed = runner.invoke(cli, args)
    assert printed.exit_code == 0, printed.output
    for body in (served.json(), json.loads(printed.stdout)):
        jsonschema.validate(body, schema)
    _same_but_timings(served.json(), json.loads(printed.stdout))
    assert served.json()["verdict"] == "supported"


def test_the_form_body_lists_the_request_model_s_fields(client):
    spec = client.get("/openapi.json").json()
    for path, model in (("/answer", "AnswerRequest"), ("/verify", "VerifyRequest")):
        content = spec["paths"][path]["post"]["requestBody"]["content"]
        form = content["multipart/form-data"]["schema"]["properties"]
        fields = set(spec["components"]["schemas"][model]["properties"])
        assert set(form) == fields | {"image"}
        assert form["scene_graph"]["type"] == "string"  # a form sends the graph as JSON text
    answer_form = spec["paths"]["/answer"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert {"llm", "exact"} <= set(answer_form["properties"])
