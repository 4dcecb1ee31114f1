"""The setting ``openai:MODEL@BASE_URL``: what parses, and a clear error for what does not."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scene.errors import SceneError, VLMSpecError
from scene.vlm_spec import VLMSpec, parse_vlm_spec

MODELS = st.text(
    st.characters(codec="ascii", categories=("L", "N", "P", "S"), exclude_characters="@"), min_size=1, max_size=40
)
HOSTS = st.sampled_from(["localhost", "127.0.0.1", "[::1]", "vlm.internal", "gpu-box-3.example.org"])
PATHS = st.lists(st.from_regex(r"[a-z0-9_.-]{1,8}", fullmatch=True), max_size=3).map(
    lambda parts: "".join(f"/{p}" for p in parts)
)


@given(
    model=MODELS,
    scheme=st.sampled_from(["http", "https"]),
    host=HOSTS,
    port=st.none() | st.integers(1, 65535),
    path=PATHS,
    slash=st.booleans(),
)
def test_a_written_spec_parses_back_to_its_parts(
    model: str, scheme: str, host: str, port: int | None, path: str, slash: bool
) -> None:
    base = f"{scheme}://{host}{f':{port}' if port else ''}{path}"
    spec = parse_vlm_spec(f"openai:{model}@{base}{'/' if slash else ''}")
    assert spec == VLMSpec(model, base)
    assert parse_vlm_spec(str(spec)) == spec
    assert spec.chat_completions_url == f"{base}/chat/completions"


@given(st.text(max_size=80))
def test_any_text_parses_or_raises_the_spec_error(text: str) -> None:
    try:
        spec = parse_vlm_spec(text)
    except VLMSpecError as exc:
        assert "openai:" in str(exc) or "vision-language model" in str(exc)
        return
    assert spec.model and "@" not in spec.model and spec.base_url.startswith(("http://", "https://"))


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("qwen2.5vl@http://localhost:11434/v1", "must start with 'openai:'"),
        ("openai:qwen2.5vl", "no '@BASE_URL'"),
        ("openai:@http://localhost:8000/v1", "model name is empty"),
        ("openai:my model@http://localhost:8000/v1", "has spaces"),
        ("openai:m@localhost:8000/v1", "http(s)://HOST"),
        ("openai:m@ftp://host/v1", "http(s)://HOST"),
        ("openai:m@http://host/v1?key=1", "query or fragment"),
        ("openai:m@http://host:70000/v1", "out of range"),
        ("openai:m@http://host:0/v1", "out of range"),
    ],
)
def test_bad_specs_say_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(VLMSpecError, match=None) as caught:
        parse_vlm_spec(text)
    assert says in str(caught.value)
    assert isinstance(caught.value, SceneError) and isinstance(caught.value, ValueError)


def test_the_url_may_carry_an_at_sign_of_its_own() -> None:
    assert parse_vlm_spec("openai:llava:13b@http://user@gpu:8080/v1") == VLMSpec("llava:13b", "http://user@gpu:8080/v1")
