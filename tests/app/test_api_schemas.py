"""The request schemas the service publishes say what it requires: a question with a word, and the
fields each body must give together. A body the schema allows is answered; one it forbids is refused
with 422, as JSON and as a form."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.api.schemas import text_pattern
from app.config import Settings
from app.demo_scenes import demo_scenes
from app.pipeline import Pipeline
from app.scene_store import content_id
from translators.checks.question_scope import word_pattern

KITCHEN = demo_scenes()["kitchen"]
MUG_COLOR = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3)."
QUESTION = "What is the cat sitting on?"
CLAIM = "The black cat is on the chair."
FACTS = (Path(__file__).resolve().parents[2] / "app" / "data" / "demo" / "kitchen_uncertain.lp").read_text()
ABSENT = object()  # a field left out of the body
KITCHEN_ID = content_id("scene_graph", json.dumps(KITCHEN, sort_keys=True, separators=(",", ":")).encode())


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """A client whose model is a recording of one question and one claim, and the published schema."""
    recording = tmp_path_factory.mktemp("recording") / "recording.jsonl"
    sitting = "query(unique(relate_any(unique(select(scene(), cat)), on, object)), name)"
    claim = "exist(filter(relate(select(scene(), chair), cat, on, subject), color, black))"
    rows = [{"question": QUESTION, "outputs": [sitting] * 400}, {"question": CLAIM, "outputs": [claim] * 400}]
    recording.write_text("".join(json.dumps(row) + "\n" for row in rows))
    settings = Settings(llm=f"replay:{recording}", sampling="jaccard", template_fill=False, solve_timeout_s=5)
    pipeline = Pipeline(settings)
    # Loaded before the first request, whose solve limit would otherwise count WordNet's loading.
    assert pipeline.components.scene_graph_encoder is not None and pipeline.components.entailments is not None
    with TestClient(create_app(settings, pipeline)) as client:
        assert client.post("/scenes", json={"scene_graph": KITCHEN}).json()["id"] == KITCHEN_ID
        yield client, client.get("/openapi.json").json()


def _validator(schema: dict[str, Any], path: str, media: str) -> jsonschema.Validator:
    """The published schema of `path`'s request body in `media`, its references resolved in the document."""
    body = schema["paths"][path]["post"]["requestBody"]["content"][media]["schema"]
    return jsonschema.Draft202012Validator(body | {"components": schema["components"]})


def _letters() -> str:
    """Every code point Python's `[^\\W\\d_]` reads as a letter (the service's own rule before it was spelt out)."""
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    return "".join(re.findall(r"[^\W\d_]", every))


# --- the question's pattern ----------------------------------------------------------------------


def test_the_word_pattern_is_pythons_letters_spelt_out():
    pattern = word_pattern()
    assert pattern.startswith("[") and pattern.endswith("]{2}")
    letters = _letters()
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    assert "".join(re.findall(pattern[:-3], every)) == letters
    for question, worded in (("Is it red?", True), ("日本", True), ("a 42 ?", False), ("I'm?", False), ("½½", True)):
        assert (re.search(pattern, question) is not None) is worded, question


def test_an_ecma_262_engine_reads_the_word_pattern_as_python_does():
    # jsonschema_rs (ECMA-262 semantics, as Schemathesis validates): each range's ends and their neighbours.
    pattern, letters = word_pattern(), set(_letters())
    validator = jsonschema_rs.validator_for({"type": "string", "pattern": pattern})
    ends = {code for low, high in _ranges(letters) for code in (low - 1, low, high, high + 1)}
    for code in sorted(c for c in ends if 0 <= c <= sys.maxunicode and not 0xD800 <= c <= 0xDFFF):
        assert validator.is_valid(chr(code) * 2) is (chr(code) in letters), hex(code)
    assert not validator.is_valid("a1") and validator.is_valid("x ab")  # two letters together, anywhere


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node for JavaScript's own RegExp")
def test_javascript_reads_the_word_pattern_with_the_u_flag_as_python_does():
    script = (
        "const p = JSON.parse(require('fs').readFileSync(0, 'utf8')); const c = new RegExp(p.slice(0, -3), 'u');"
        "let out = []; for (let i = 0; i <= 0x10ffff; i++) { if (i < 0xd800 || i > 0xdfff) {"
        " if (c.test(String.fromCodePoint(i))) out.push(i); } } console.log(JSON.stringify(out));"
    )
    done = subprocess.run(["node", "-e", script], input=json.dumps(word_pattern()), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [ord(c) for c in _letters()]


def test_the_text_pattern_is_what_strip_leaves():
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        assert (re.fullmatch(text_pattern(), char) is not None) is bool(char.strip()), hex(code)


def _ranges(letters: set[str]) -> list[tuple[int, int]]:
    codes = sorted(map(ord, letters))
    runs: list[tuple[int, int]] = []
    for code in codes:
        if runs and runs[-1][1] == code - 1:
            runs[-1] = (runs[-1][0], code)
        else:
            runs.append((code, code))
    return runs


# --- the published schema ------------------------------------------------------------------------


def test_the_published_schema_requires_a_word_in_a_question_to_translate(service):
    _, schema = service
    schemas = schema["components"]["schemas"]
    assert schemas["TranslateRequest"]["properties"]["question"]["pattern"] == word_pattern()
    worded = {"type": "string", "pattern": word_pattern()}
    given_question = {"required": ["question"], "properties": {"question": worded}}
    given_program = {"required": ["program"], "properties": {"program": {"type": "string"}}}
    assert {"anyOf": [given_question, given_program]} in schemas["AnswerRequest"]["allOf"]
    either = schemas["VerifyRequest"]["allOf"][0]["oneOf"]
    claim, answer = either[0]["allOf"], either[1]["allOf"]
    assert claim[0]["required"] == ["claim"] and answer[0]["required"] == ["answer"]
    assert {"anyOf": [given_question, given_program]} in answer
    scenes = {"oneOf": [{"required": ["scene_graph"], "properties": {"scene_graph": {"type": "object"}}}]}
    scenes["oneOf"].append({"required": ["scene_facts"], "properties": {"scene_facts": {"type": "string"}}})
    stored = {"required": ["scene_id"], "properties": {"scene_id": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}}
    scenes["oneOf"].append(stored)
    assert scenes in schemas["AnswerRequest"]["allOf"] and scenes in schemas["VerifyRequest"]["allOf"]
    # A perception goes with a stored scene (an image, or the service says it is not one) or nothing, in JSON.
    perceived = {"anyOf": [stored, {"properties": {"perception": {"type": "null"}}}]}
    assert perceived in schemas["AnswerRequest"]["allOf"] and perceived in schemas["VerifyRequest"]["allOf"]
    form = schema["paths"]["/answer"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert {"required": ["image"]} in form["allOf"][2]["oneOf"] and form["additionalProperties"] is False


def _statuses(client: TestClient, path: str, bodies: list[dict[str, Any]], form: bool) -> list[int]:
    statuses = []
    for body in bodies:
        if form and not body:  # nothing to send is no form at all: 415
            statuses.append(422)
        else:
            statuses.append(client.post(path, **{"data" if form else "json": body}).status_code)
    return statuses


def _bodies(choices: dict[str, list[Any]], form: bool) -> list[dict[str, Any]]:
    """Every body of the choices (a form has no null: its choices of None are left out). A choice's
    value is one the service can answer (a program that parses, a recorded question or claim) or one
    a rule refuses: the bodies test which fields go together, not what a program or a scene holds."""
    bodies = []
    for values in itertools.product(*choices.values()):
        if form and any(v is None for v in values):
            continue
        bodies.append({k: v for k, v in zip(choices, values, strict=True) if v is not ABSENT})
    return bodies


def _with_scenes(bodies: list[dict[str, Any]], scenes: list[dict[str, Any]], form: bool) -> list[dict[str, Any]]:
    """Each body with each scene; a form's scene graph is JSON text."""
    shown = [{k: json.dumps(v) if form and k == "scene_graph" else v for k, v in scene.items()} for scene in scenes]
    return [body | scene for body in bodies for scene in shown]


SCENES = [
    {"scene_graph": KITCHEN},
    {"scene_facts": FACTS},
    {},
    {"scene_graph": KITCHEN, "scene_facts": FACTS},
    {"scene_id": KITCHEN_ID},  # stored by the fixture
    {"scene_id": KITCHEN_ID, "scene_graph": KITCHEN},
]


@pytest.mark.parametrize("form", [False, True], ids=["json", "form"])
def test_an_answer_body_is_answered_exactly_when_the_schema_allows_it(service, form):
    client, schema = service
    choices = {"question": [ABSENT, None, "", "?", "I'm?", QUESTION], "program": [ABSENT, None, MUG_COLOR]}
    bodies = _with_scenes(_bodies(choices, form), SCENES, form)
    validator = _validator(schema, "/answer", "multipart/form-data" if form else "application/json")
    allowed = [validator.is_valid(body) for body in bodies]
    assert any(allowed) and not all(allowed)
    for body, ok, status in zip(bodies, allowed, _statuses(client, "/answer", bodies, form), strict=True):
        assert status == (200 if ok else 422), (body, status)


@pytest.mark.parametrize("form", [False, True], ids=["json", "form"])
def test_a_verify_body_is_answered_exactly_when_the_schema_allows_it(service, form):
    client, schema = service
    choices = {
        "claim": [ABSENT, None, " ", CLAIM],
        "answer": [ABSENT, None, "", "white"],
        "question": [ABSENT, None, "?", QUESTION],
        "program": [ABSENT, None, MUG_COLOR],
    }
    bodies = _with_scenes(_bodies(choices, form), [SCENES[0], SCENES[2], SCENES[4]], form)
    validator = _validator(schema, "/verify", "multipart/form-data" if form else "application/json")
    allowed = [validator.is_valid(body) for body in bodies]
    assert any(allowed) and not all(allowed)
    for body, ok, status in zip(bodies, allowed, _statuses(client, "/verify", bodies, form), strict=True):
        assert status == (200 if ok else 422), (body, status)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/translate", {"question": "?"}),
        ("/translate", {"question": "I'm?"}),  # read as "I am?", written without a word of two letters
        ("/answer", {"program": MUG_COLOR, "risk": 0.5, "scene_graph": KITCHEN}),
        ("/answer", {"program": MUG_COLOR, "perception": "detector", "scene_graph": KITCHEN}),
        ("/answer", {"question": QUESTION, "scene_graph": KITCHEN, "unknown": "x"}),
        ("/answer", {"program": MUG_COLOR, "scene_id": "kitchen"}),  # not a stored scene's id
        ("/verify", {"claim": CLAIM, "scene_id": KITCHEN_ID, "scene_facts": FACTS}),
    ],
)
def test_a_body_the_schema_forbids_is_refused_with_422(service, path, body):
    client, schema = service
    assert not _validator(schema, path, "application/json").is_valid(body)
    response = client.post(path, json=body)
    assert response.status_code == 422, response.text


def test_a_question_written_without_a_word_is_declined_even_where_its_reading_has_one(service):
    client, _ = service
    response = client.post("/translate", json={"question": "I'm?"})
    assert response.json()["status"] == "unsupported" and "no words to translate" in response.json()["detail"]
