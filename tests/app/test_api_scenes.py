"""Scenes sent once and asked many times: POST /scenes, GET and DELETE /scenes/{id}, and scene_id
in /answer and /verify, through FastAPI's test client."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.config import Settings
from app.demo_scenes import demo_scenes
from app.outcomes import Detected, SceneReading
from app.pipeline import Pipeline
from app.scene_store import SceneStore
from tests.app.test_scene_store import Clock
from tests.support import GQA_DIR
from tests.theory.test_solver import weighted_ball
from theory import Program

KITCHEN = demo_scenes()["kitchen"]
KITCHEN_JSON = json.dumps(KITCHEN, sort_keys=True, separators=(",", ":")).encode()
KITCHEN_ID = hashlib.sha256(b"scene_graph\0" + KITCHEN_JSON).hexdigest()
MUG_COLOR = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3)."
BALL_COLOR = "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, color). end(3)."
BALL_SIZE = "scene(0). select(1, 0, ball). unique(2, 1). query(3, 2, size). end(3)."
OTHER_ID = "0" * 64


def _settings(**overrides: object) -> Settings:
    return Settings(solve_timeout_s=10, **overrides)  # type: ignore[arg-type]


def _warm(pipeline: Pipeline) -> Pipeline:
    # Loaded before the first request, whose solve limit would otherwise count WordNet's loading.
    assert pipeline.components.scene_graph_encoder is not None and pipeline.components.entailments is not None
    return pipeline


@pytest.fixture(scope="module")
def pipeline() -> Pipeline:
    return _warm(Pipeline(_settings()))


@pytest.fixture
def client(pipeline):
    with TestClient(create_app(pipeline.settings, pipeline)) as test_client:
        yield test_client


def _png(width: int = 32, height: int = 24, colour: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def test_a_stored_scene_graph_has_its_content_hash_as_id_and_a_location(client):
    response = client.post("/scenes", json={"scene_graph": KITCHEN})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["id"] == KITCHEN_ID and response.headers["location"] == f"/scenes/{KITCHEN_ID}"
    assert body["kind"] == "scene_graph" and body["objects"] == len(KITCHEN["objects"]) and body["bytes"] > 1000
    assert body["expires_in_s"] == pytest.approx(3600, abs=5)
    # The same graph written otherwise is the same scene, found, not read again.
    again = client.post("/scenes", content=json.dumps({"scene_graph": KITCHEN}, indent=2).encode(),
                        headers={"content-type": "application/json"})  # fmt: skip
    assert again.status_code == 200 and again.json()["id"] == KITCHEN_ID
    assert again.headers["location"] == f"/scenes/{KITCHEN_ID}"


def test_asking_by_id_answers_as_sending_the_scene_does(client):
    scene_id = client.post("/scenes", json={"scene_graph": KITCHEN}).json()["id"]
    by_value = client.post("/answer", json={"program": MUG_COLOR, "scene_graph": KITCHEN}).json()
    by_reference = client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id})
    assert by_reference.status_code == 200, by_reference.text
    assert by_reference.json()["answers"] == by_value["answers"] and by_value["answers"][0]["answer"] == "white"
    assert by_reference.json()["support"] == by_value["support"]
    verified = client.post("/verify", json={"program": MUG_COLOR, "answer": "white", "scene_id": scene_id})
    assert verified.status_code == 200 and verified.json()["verdict"] == "supported"
    form = client.post("/answer", data={"program": MUG_COLOR, "scene_id": scene_id})
    assert form.status_code == 200 and form.json()["answers"] == by_value["answers"]


def test_stored_scene_facts_are_answered_and_held_to_the_size_limit(pipeline):
    facts = Path("app/data/demo/kitchen_uncertain.lp").read_text()
    settings = _settings(max_scene_facts=5)
    with TestClient(create_app(settings, Pipeline(settings))) as small:
        response = small.post("/scenes", json={"scene_facts": "object(1). object(2). " * 3})
        assert response.status_code == 413 and "limit 5" in response.json()["detail"]
    with TestClient(create_app(pipeline.settings, pipeline)) as client:
        stored = client.post("/scenes", json={"scene_facts": facts})
        assert stored.status_code == 201 and stored.json()["kind"] == "scene_facts"
        answer = client.post("/answer", json={"program": MUG_COLOR, "scene_id": stored.json()["id"]})
        assert answer.status_code == 200 and answer.json()["answers"]
        # A body over 64 KiB is parsed off the event loop, to the same effect.
        large = client.post("/scenes", json={"scene_facts": facts + "%" + "x" * 100_000})
        assert large.status_code == 201 and large.json()["bytes"] > 100_000


def test_get_and_delete_a_stored_scene(client):
    scene_id = client.post("/scenes", json={"scene_graph": KITCHEN}).json()["id"]
    entry = client.get(f"/scenes/{scene_id}")
    assert entry.status_code == 200 and entry.json()["id"] == scene_id and entry.json()["kind"] == "scene_graph"
    listed = client.get("/scenes").json()
    assert scene_id in listed["ids"] and listed["store"]["scenes"] >= 1 and listed["store"]["max_scenes"] == 10_000
    assert client.delete(f"/scenes/{scene_id}").status_code == 204
    for response in (
        client.get(f"/scenes/{scene_id}"),
        client.delete(f"/scenes/{scene_id}"),
        client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id}),
    ):
        assert response.status_code == 404 and response.json()["status"] == "not_found"
        assert response.json()["detail"] == f"scene {scene_id} was deleted; store it again (POST /scenes)"


def test_an_unknown_id_is_404_saying_so_and_a_malformed_one_422(client):
    for response in (
        client.post("/answer", json={"program": MUG_COLOR, "scene_id": OTHER_ID}),
        client.post("/verify", json={"program": MUG_COLOR, "answer": "white", "scene_id": OTHER_ID}),
        client.get(f"/scenes/{OTHER_ID}"),
    ):
        assert response.status_code == 404
        assert response.json()["detail"].startswith(f"unknown scene id {OTHER_ID}: no scene is stored under it")
    assert client.post("/answer", json={"program": MUG_COLOR, "scene_id": "kitchen"}).status_code == 422
    assert client.get("/scenes/kitchen").status_code == 422


def test_scene_id_beside_another_scene_is_422(client):
    scene_id = client.post("/scenes", json={"scene_graph": KITCHEN}).json()["id"]
    for body in (
        {"program": MUG_COLOR, "scene_id": scene_id, "scene_graph": KITCHEN},
        {"program": MUG_COLOR, "scene_id": scene_id, "scene_facts": "object(1)."},
    ):
        response = client.post("/answer", json=body)
        assert response.status_code == 422
        assert response.json()["detail"].startswith("give exactly one of: image, scene_graph, scene_facts, scene_id")
    form = client.post(
        "/answer", data={"program": MUG_COLOR, "scene_id": scene_id}, files={"image": ("x.png", _png(), "image/png")}
    )
    assert form.status_code == 422 and "(got image, scene_id)" in form.json()["detail"]
    both = client.post("/scenes", json={"scene_graph": KITCHEN, "scene_facts": "object(1)."})
    assert both.status_code == 422 and both.json()["detail"].startswith("give exactly one of")
    assert client.post("/scenes", json={}).status_code == 422
    perceived = client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id, "perception": "detector"})
    assert perceived.status_code == 422 and "is a scene graph" in perceived.json()["detail"]


def test_an_expired_scene_is_404_saying_so(pipeline):
    clock = Clock()
    store = SceneStore(10**7, 100, ttl_s=30, clock=clock)
    with TestClient(create_app(pipeline.settings, pipeline, scene_store=store)) as client:
        scene_id = client.post("/scenes", json={"scene_graph": KITCHEN}).json()["id"]
        clock.now += 29
        assert client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id}).status_code == 200
        assert client.get(f"/scenes/{scene_id}").json()["expires_in_s"] == 30  # asking used it
        clock.now += 31
        response = client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id})
        assert response.status_code == 404
        assert response.json()["detail"] == (
            f"scene {scene_id} expired: it was not used for 30 s; store it again (POST /scenes)"
        )


def test_the_least_recently_used_scene_is_evicted_by_count_and_by_bytes(pipeline):
    graphs = [{"objects": {"1": {"name": f"thing{i}", "x": 0, "y": 0, "w": 1, "h": 1}}} for i in range(3)]
    settings = _settings(scene_store_max_scenes=2)
    with TestClient(create_app(settings, pipeline)) as client:
        ids = [client.post("/scenes", json={"scene_graph": graph}).json()["id"] for graph in graphs]
        assert client.get("/scenes").json()["ids"] == ids[1:]
        response = client.get(f"/scenes/{ids[0]}")
        assert response.status_code == 404 and "was evicted to make room" in response.json()["detail"]
    with TestClient(create_app(_settings(scene_store_max_bytes=6000), pipeline)) as client:
        first = client.post("/scenes", json={"scene_facts": "object(1). " + "%" * 3000}).json()
        second = client.post("/scenes", json={"scene_facts": "object(2). " + "%" * 3000}).json()
        assert client.get("/scenes").json()["ids"] == [second["id"]]
        assert client.get("/scenes").json()["store"]["bytes"] == second["bytes"] <= 6000
        assert "evicted" in client.get(f"/scenes/{first['id']}").json()["detail"]
        too_large = client.post("/scenes", json={"scene_facts": "object(3). " + "%" * 7000})
        assert too_large.status_code == 413 and "more than the store's 6000" in too_large.json()["detail"]


def test_with_api_keys_no_client_reads_anothers_scene(pipeline):
    settings = _settings(api_key="alice-key", api_keys=("bob-key",))
    alice, bob = {"X-API-Key": "alice-key"}, {"Authorization": "Bearer bob-key"}
    with TestClient(create_app(settings, pipeline)) as client:
        assert client.post("/scenes", json={"scene_graph": KITCHEN}).status_code == 401
        scene_id = client.post("/scenes", json={"scene_graph": KITCHEN}, headers=alice).json()["id"]
        assert (
            client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id}, headers=alice).status_code == 200
        )
        for response in (
            client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id}, headers=bob),
            client.get(f"/scenes/{scene_id}", headers=bob),
            client.delete(f"/scenes/{scene_id}", headers=bob),
        ):
            assert response.status_code == 404
            assert response.json()["detail"].startswith(f"unknown scene id {scene_id}")
        assert client.get("/scenes", headers=bob).json()["ids"] == []
        # Bob may store the same scene: his own, under the same id; deleting it leaves Alice's.
        assert client.post("/scenes", json={"scene_graph": KITCHEN}, headers=bob).status_code == 201
        assert client.delete(f"/scenes/{scene_id}", headers=bob).status_code == 204
        assert client.get(f"/scenes/{scene_id}", headers=alice).status_code == 200


def test_a_stored_image_is_perceived_once_per_concept_set():
    seen: list[tuple[bytes, Program]] = []
    detections = (Detected(1, "ball", 0.9, (0, 0, 10, 10), ("toy",), "left", "top"),)

    def read(image: bytes, program: Program) -> SceneReading:  # the vision models' part
        seen.append((image, program))
        return SceneReading(weighted_ball(0.9, 0.2), detections, {"detect": 0.5})

    settings = _settings()
    with TestClient(create_app(settings, _warm(Pipeline(settings, image_reader=read)))) as client:
        stored = client.post("/scenes", files={"image": ("ball.png", _png(), "image/png")})
        assert stored.status_code == 201 and stored.json()["kind"] == "image"
        scene_id = stored.json()["id"]
        assert scene_id == hashlib.sha256(b"image\0" + _png()).hexdigest()
        answers = [client.post("/answer", json={"program": BALL_COLOR, "scene_id": scene_id}) for _ in range(3)]
        assert all(a.status_code == 200 for a in answers) and len(seen) == 1
        assert [a.json()["answers"][0]["answer"] for a in answers] == ["red"] * 3
        assert answers[0].json()["detections"] == answers[2].json()["detections"]
        assert "scene.detect" in answers[0].json()["timings"] and "scene.detect" not in answers[1].json()["timings"]
        client.post("/answer", json={"program": BALL_SIZE, "scene_id": scene_id})  # other concepts: perceived
        assert len(seen) == 2 and seen[0][0] == seen[1][0] == _png()
        # A claim (is the ball red?) asks for other concepts than the question: perceived once too.
        for _ in range(2):
            verified = client.post("/verify", json={"program": BALL_COLOR, "answer": "red", "scene_id": scene_id})
            assert verified.status_code == 200 and verified.json()["verdict"] == "supported"
        assert len(seen) == 3
        entry = client.get(f"/scenes/{scene_id}").json()
        assert entry["readings"] == 3 and entry["bytes"] > len(_png())
        # An uploaded image lives for its request: perceived every time.
        client.post("/answer", data={"program": BALL_COLOR}, files={"image": ("b.png", _png(), "image/png")})
        assert len(seen) == 4
        vlm = client.post("/answer", json={"program": BALL_COLOR, "scene_id": scene_id, "perception": "vlm"})
        assert vlm.status_code == 422 and "ASPVQA_SCENE_VLM" in vlm.json()["detail"]


def test_the_openapi_schema_documents_the_scene_endpoints(client):
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    assert set(paths["/scenes"]) == {"post", "get"} and set(paths["/scenes/{scene_id}"]) == {"get", "delete"}
    post = paths["/scenes"]["post"]
    assert {"201", "200", "413", "422"} <= set(post["responses"])
    assert "Location" in post["responses"]["201"]["headers"]
    assert set(post["requestBody"]["content"]) == {"application/json", "multipart/form-data"}
    assert {"404", "422"} <= set(paths["/scenes/{scene_id}"]["get"]["responses"])
    assert "204" in paths["/scenes/{scene_id}"]["delete"]["responses"]
    assert "404" in paths["/answer"]["post"]["responses"] and "404" in paths["/verify"]["post"]["responses"]
    assert "404" not in paths["/translate"]["post"]["responses"]
    components = schema["components"]["schemas"]
    assert {"scene_graph", "scene_facts"} == set(components["SceneRequest"]["properties"])
    assert components["AnswerRequest"]["properties"]["scene_id"]["anyOf"][0]["pattern"] == "^[0-9a-f]{64}$"
    assert {"id", "kind", "bytes", "expires_in_s"} <= set(components["StoredSceneView"]["properties"])


def test_a_stored_scene_outlives_its_solver_process(pipeline):
    """The store is in the service process: a solver process killed and replaced loses no scene."""
    from tests.app.test_solver_pool import worker_pids

    settings = _settings(scene_store_answers=0)  # every question solved: none answered from the first
    with TestClient(create_app(settings, Pipeline(settings), solve_workers=1)) as client:
        scene_id = client.post("/scenes", json={"scene_graph": KITCHEN}).json()["id"]
        first = client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id})
        assert first.status_code == 200 and "worker" in first.json()["timings"]
        assert client.get(f"/scenes/{scene_id}").json()["answers"] == 0
        pids = worker_pids()
        assert pids
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        # The request that finds the pool gone is answered 503 (try again); none finds the scene gone.
        deadline = time.monotonic() + 60
        statuses = []
        while not statuses or statuses[-1] != 200 and time.monotonic() < deadline:
            again = client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id})
            statuses.append(again.status_code)
        assert statuses[-1] == 200 and set(statuses) <= {200, 503}, statuses
        assert again.json()["answers"] == first.json()["answers"] and not set(pids) & set(worker_pids())


def test_a_request_made_again_on_a_stored_scene_is_answered_without_solving():
    """The answer kept with the stored scene is the first one, given again; another top_k or exact
    is solved, a scene sent by value is solved every time, and a question is kept as a program is."""
    from tests.app.test_solver_pool import worker_pids

    settings = _settings(scene_store_max_bytes=10**6)
    with TestClient(create_app(settings, Pipeline(settings), solve_workers=1)) as client:
        scene_id = client.post("/scenes", json={"scene_graph": KITCHEN}).json()["id"]
        stored_bytes = client.get(f"/scenes/{scene_id}").json()["bytes"]
        first = client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id})
        assert first.status_code == 200 and "worker" in first.json()["timings"]
        for pid in worker_pids():  # a kept answer needs no solver process
            os.kill(pid, signal.SIGSTOP)
        try:
            again = client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id})
        finally:
            for pid in worker_pids():
                os.kill(pid, signal.SIGCONT)
        assert again.status_code == 200 and "worker" not in again.json()["timings"]
        assert {k: again.json()[k] for k in ("answers", "support", "status")} == {
            k: first.json()[k] for k in ("answers", "support", "status")
        }
        entry = client.get(f"/scenes/{scene_id}").json()
        assert entry["answers"] == 1 and entry["bytes"] > stored_bytes
        for other in ({"program": MUG_COLOR, "top_k": 1}, {"program": MUG_COLOR, "exact": True}):
            solved = client.post("/answer", json=other | {"scene_id": scene_id})
            assert solved.status_code == 200 and "worker" in solved.json()["timings"]
        assert client.get(f"/scenes/{scene_id}").json()["answers"] == 3
        by_value = client.post("/answer", json={"program": MUG_COLOR, "scene_graph": KITCHEN})
        assert by_value.status_code == 200 and "worker" in by_value.json()["timings"]
        asked = [client.post("/answer", json={"question": "What color is the mug?", "scene_id": scene_id})
                 for _ in range(2)]  # fmt: skip
        assert [a.status_code for a in asked] == [200, 200] and asked[1].json()["timings"] == {}
        assert asked[1].json()["answers"] == asked[0].json()["answers"] and "translate" in asked[0].json()["timings"]


def test_a_stored_scene_keeps_answers_only_within_the_stores_bytes():
    settings = _settings(scene_store_max_bytes=1024 + len(KITCHEN_JSON) * 8, scene_store_answers=2)
    with TestClient(create_app(settings, _warm(Pipeline(settings)))) as client:
        stored = client.post("/scenes", json={"scene_graph": KITCHEN})
        assert stored.status_code == 201, stored.text
        scene_id = stored.json()["id"]
        for top_k in (1, 2, 3, 4):
            assert client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id, "top_k": top_k}).is_success
        entry = client.get(f"/scenes/{scene_id}").json()
        assert entry["answers"] <= 2 and entry["bytes"] <= settings.scene_store_max_bytes


def test_json_nested_too_deeply_for_python_is_422_not_500(client):
    nested = "[" * 5000 + "]" * 5000
    for path in ("/scenes", "/answer"):
        body = '{"scene_graph": ' + nested + "}"
        response = client.post(path, content=body, headers={"content-type": "application/json"})
        assert response.status_code == 422 and response.json()["detail"] == "body: JSON nested too deeply"
    form = client.post("/scenes", data={"scene_graph": nested})
    assert form.status_code == 422 and form.json()["detail"] == "scene_graph: JSON nested too deeply"


@pytest.mark.skipif(not GQA_DIR.is_dir(), reason="real GQA images not found in ../shared/data/gqa")
def test_a_stored_image_is_perceived_by_the_real_models_once_per_concept_set(tmp_path):
    """Through the real OWL-ViT and CLIP loading code, with tiny random models."""
    from scene.models import write_tiny_models

    detector, classifier = write_tiny_models(tmp_path / "models")
    settings = _settings(detector_model=str(detector), classifier_model=str(classifier), max_image_bytes=4 * 2**20)
    image = (GQA_DIR / "images" / "2354786.jpg").read_bytes()
    car_color = "scene(0). select(1, 0, car). unique(2, 1). query(3, 2, color). end(3)."
    with TestClient(create_app(settings, Pipeline(settings))) as client:
        scene_id = client.post("/scenes", files={"image": ("street.jpg", image, "image/jpeg")}).json()["id"]
        first, again = (client.post("/answer", json={"program": car_color, "scene_id": scene_id}) for _ in range(2))
        assert first.status_code == again.status_code == 200, first.text
        assert "scene.detect" in first.json()["timings"] and "scene.detect" not in again.json()["timings"]
        assert first.json()["detections"] == again.json()["detections"]
        assert first.json()["answers"] == again.json()["answers"]
        other = client.post("/answer", json={"program": MUG_COLOR, "scene_id": scene_id})
        assert other.status_code == 200 and "scene.detect" in other.json()["timings"]
        assert client.get(f"/scenes/{scene_id}").json()["readings"] == 2
