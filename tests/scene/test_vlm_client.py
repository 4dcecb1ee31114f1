"""One bounded chat-completions request per image and question, against a stand-in server."""

from __future__ import annotations

import base64
import io
import json
import time

import pytest

from scene.concepts import Concepts, RelationQuery
from scene.errors import SceneError, SceneImageError, VLMReplyError, VLMUnavailable
from scene.vlm_client import EncodedImage, VLMClient, VLMLimits, encode_image
from scene.vlm_reply import REPLY_SCHEMA
from scene.vlm_spec import parse_vlm_spec
from tests.scene.vlm_server import MODEL, StandInVLM

CONCEPTS = Concepts({"mug", "table"}, attributes={"color": frozenset({"white", "red"})})
CONCEPTS.relations.add(RelationQuery("mug", "on", "table"))


def png(width: int = 640, height: int = 480) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 180, 150)).save(out, format="PNG")
    return out.getvalue()


def client(server: StandInVLM, **limits: float) -> VLMClient:
    return VLMClient(parse_vlm_spec(server.spec), api_key="k-123", limits=VLMLimits(**limits))  # type: ignore[arg-type]


def test_the_request_carries_the_image_the_schema_and_the_concepts(vlm_server: StandInVLM) -> None:
    image = encode_image(png())
    reply = client(vlm_server).describe(image, CONCEPTS)
    assert [o.name for o in reply.scene.objects] == ["mug", "table"] and reply.logprobs
    [request] = vlm_server.requests
    assert request["path"] == "/v1/chat/completions"
    body = request["body"]
    assert isinstance(body, dict)
    assert body["model"] == MODEL and body["logprobs"] is True
    assert body["response_format"] == {"type": "json_schema", "json_schema": {"name": "scene", "schema": REPLY_SCHEMA}}
    [_, user] = body["messages"]
    [text_part, picture] = user["content"]
    text = text_part["text"]
    assert picture["type"] == "image_url"
    assert picture["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(png()).decode()
    assert "640 x 480" in text and "Objects to find: mug, table." in text
    assert "color (red, white)" in text and "mug on table" in text


def test_the_api_key_goes_in_the_authorization_header_only() -> None:
    import httpx

    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"choices": [{"message": {"content": '{"objects": [], "relations": []}'}}]})

    spec = parse_vlm_spec("openai:m@http://vlm.test/v1")
    VLMClient(spec, api_key="secret", transport=httpx.MockTransport(answer)).describe(encode_image(png()), CONCEPTS)
    assert seen[0].headers["Authorization"] == "Bearer secret" and b"secret" not in seen[0].content


def test_a_prose_reply_is_a_reply_error_naming_the_model(vlm_server: StandInVLM) -> None:
    vlm_server.mode = "prose"
    with pytest.raises(VLMReplyError) as caught:
        client(vlm_server).describe(encode_image(png()), CONCEPTS)
    assert caught.value.model == MODEL and "not JSON" in caught.value.problem
    assert "I can see a white mug" in caught.value.problem


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('{"objects": [{"id": "o1", "name": "mug"}], "relations": []}', "objects.0.box: Field required"),
        ('{"things": [], "relations": []}', "objects: Field required"),
        ('{"objects": [], "relations": [{"subject": "o1", "relation": "on", "object": "o2"}]}', "no object with id"),
        ('{"objects": [{"id": "o1", "name": "mug", "box": [10, 10, 900, 20]}], "relations": []}', "640 x 480 pixel"),
        ('{"objects": [{"id": "o1", "name": "mug", "box": [50, 10, 40, 20]}], "relations": []}', "[x1, y1, x2, y2]"),
        ('{"objects": [], "relations": []', "not JSON"),
    ],
)
def test_replies_off_the_schema_say_what_was_wrong(vlm_server: StandInVLM, content: str, says: str) -> None:
    vlm_server.mode, vlm_server.content = "no_logprobs", content
    with pytest.raises(VLMReplyError, match=None) as caught:
        client(vlm_server).describe(encode_image(png()), CONCEPTS)
    assert says in caught.value.problem and MODEL in str(caught.value)


def test_an_oversize_reply_is_cut_off(vlm_server: StandInVLM) -> None:
    vlm_server.mode = "oversize"
    started = time.monotonic()
    with pytest.raises(VLMReplyError, match="over the 100000-byte limit"):
        client(vlm_server, max_reply_bytes=100_000).describe(encode_image(png()), CONCEPTS)
    assert time.monotonic() - started < 5


def test_a_slow_server_is_unavailable_with_a_retry_hint(vlm_server: StandInVLM) -> None:
    vlm_server.mode, vlm_server.delay_s = "slow", 5.0
    started = time.monotonic()
    with pytest.raises(VLMUnavailable) as caught:
        client(vlm_server, timeout_s=0.3, retry_after_s=12).describe(encode_image(png()), CONCEPTS)
    assert time.monotonic() - started < 3
    assert caught.value.retry_after_s == 12 and caught.value.retry_after_header == "12"
    assert "no reply within 0.3 s" in caught.value.problem


def test_an_unreachable_server_is_unavailable() -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    spec = parse_vlm_spec(f"openai:m@http://127.0.0.1:{port}/v1")
    with pytest.raises(VLMUnavailable, match="unreachable") as caught:
        VLMClient(spec, limits=VLMLimits(timeout_s=2)).describe(encode_image(png()), CONCEPTS)
    assert caught.value.retry_after_s == VLMLimits().retry_after_s


def test_a_busy_server_passes_on_its_retry_after(vlm_server: StandInVLM) -> None:
    vlm_server.mode, vlm_server.status, vlm_server.headers = "status", 503, {"Retry-After": "7"}
    with pytest.raises(VLMUnavailable, match="HTTP 503") as caught:
        client(vlm_server).describe(encode_image(png()), CONCEPTS)
    assert caught.value.retry_after_s == 7


def test_a_refused_request_is_a_reply_error(vlm_server: StandInVLM) -> None:
    vlm_server.mode, vlm_server.status = "status", 400
    with pytest.raises(VLMReplyError, match="HTTP 400"):
        client(vlm_server).describe(encode_image(png()), CONCEPTS)


def test_errors_share_the_scene_root() -> None:
    assert issubclass(VLMReplyError, SceneError) and issubclass(VLMUnavailable, SceneError)
    with pytest.raises(SceneImageError):
        encode_image(b"not a picture")


def test_an_encoded_image_knows_its_type_and_size() -> None:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (30, 20)).save(out, format="JPEG")
    image = encode_image(out.getvalue())
    assert (image.media_type, image.width, image.height) == ("image/jpeg", 30, 20)
    assert image == EncodedImage(out.getvalue(), "image/jpeg", 30, 20)
    assert json.dumps(image.data_url).startswith('"data:image/jpeg;base64,')
