"""POST /answer with an image perceived by a vision-language model behind an OpenAI-compatible
endpoint: a real stand-in server (tests/scene/vlm_server.py) answers the chat-completions request."""

from __future__ import annotations

import base64
import io
import socket

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from app.api.main import create_app
from app.config import Settings
from tests.scene.vlm_server import MODEL, StandInVLM

MUG_COLOR = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3)."


def png(width: int = 640, height: int = 480) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 180, 150)).save(buffer, format="PNG")
    return buffer.getvalue()


def client_for(spec: str) -> TestClient:
    return TestClient(create_app(Settings(scene_vlm=spec, scene_vlm_timeout_s=5)))


def ask(client: TestClient, program: str = MUG_COLOR, **fields: str):  # noqa: ANN201 - an httpx response
    return client.post("/answer", data={"program": program, **fields}, files={"image": ("mug.png", png(), "image/png")})


def test_an_image_is_answered_from_the_models_scene_with_log_probabilities(vlm_server: StandInVLM):
    vlm_server.value_logprobs = {"white": -0.05}
    with client_for(vlm_server.spec) as client:
        response = ask(client)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["answers"][0]["answer"] == "white"
    assert body["perception"]["method"] == "vlm" and body["perception"]["model"] == MODEL
    assert body["perception"]["logprobs"] == "used" and body["perception"]["likelihoods"]["logprobs"] > 0
    boxes = {d["label"]: d["box"] for d in body["detections"]}
    assert boxes["mug"] == [100.0, 100.0, 200.0, 220.0]
    # One request, carrying the image as a data URL and the scene schema.
    (sent,) = vlm_server.requests
    content = sent["body"]["messages"][-1]["content"]
    url = next(part["image_url"]["url"] for part in content if part["type"] == "image_url")
    assert url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",", 1)[1]) == png()
    assert sent["body"]["response_format"]["type"] == "json_schema"
    assert "objects" in sent["body"]["response_format"]["json_schema"]["schema"]["properties"]


def test_without_log_probabilities_the_stated_confidences_are_used(vlm_server: StandInVLM):
    vlm_server.mode = "no_logprobs"
    with client_for(vlm_server.spec) as client:
        body = ask(client).json()
    assert body["answers"][0]["answer"] == "white"
    assert body["perception"]["logprobs"] == "absent" and body["perception"]["likelihoods"]["logprobs"] == 0
    assert body["perception"]["likelihoods"]["stated"] > 0


def test_a_prose_reply_is_a_502_naming_the_model(vlm_server: StandInVLM):
    vlm_server.mode = "prose"
    with client_for(vlm_server.spec) as client:
        response = ask(client)
    assert response.status_code == 502
    assert response.json()["status"] == "bad_model_reply" and MODEL in response.json()["detail"]


def test_a_busy_server_is_a_503_with_its_retry_after(vlm_server: StandInVLM):
    vlm_server.mode, vlm_server.status, vlm_server.headers = "status", 503, {"Retry-After": "7"}
    with client_for(vlm_server.spec) as client:
        response = ask(client)
    assert response.status_code == 503 and response.headers["retry-after"] == "7"


def test_an_unreachable_server_is_a_503_with_retry_after():
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with client_for(f"openai:{MODEL}@http://127.0.0.1:{port}/v1") as client:
        response = ask(client)
        ready = client.get("/ready").json()["parts"]["perception"]
    assert response.status_code == 503 and int(response.headers["retry-after"]) >= 1
    assert response.json()["status"] == "model_unavailable"
    assert "not answering" in ready


def test_ready_says_which_perception_and_whether_it_answers(vlm_server: StandInVLM):
    with client_for(vlm_server.spec) as client:
        assert client.get("/ready").json()["parts"]["perception"] == f"vlm {vlm_server.spec}: answers"
    with TestClient(create_app(Settings())) as client:
        assert client.get("/ready").json()["parts"]["perception"] == "detector"


@pytest.mark.parametrize(
    ("settings", "fields", "detail"),
    [
        (Settings(), {"perception": "vlm"}, "ASPVQA_SCENE_VLM"),
        (Settings(), {"perception": "camera"}, "perception"),
    ],
)
def test_a_perception_that_cannot_be_had_is_a_422(settings, fields, detail):
    with TestClient(create_app(settings)) as client:
        response = ask(client, **fields)
    assert response.status_code == 422 and detail in response.json()["detail"]


def test_perception_without_an_image_is_a_422(vlm_server: StandInVLM):
    with client_for(vlm_server.spec) as client:
        response = client.post("/answer", json={"program": MUG_COLOR, "scene_facts": "object(1).", "perception": "vlm"})
    assert response.status_code == 422 and "perception applies to an image" in response.json()["detail"]


def test_a_bad_spec_fails_at_start():
    with pytest.raises(ValueError, match="openai:"):
        Settings(scene_vlm="qwen2.5vl")
