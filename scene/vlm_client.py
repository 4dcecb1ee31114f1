"""One chat-completions request per image and question to an OpenAI-compatible vision-language model.

The image goes as a ``data:`` URL in an ``image_url`` content part, the concepts the question needs
are named in the text, and ``response_format`` asks for `scene.vlm_reply.REPLY_SCHEMA` with token
log-probabilities. The request is bounded: `VLMLimits.timeout_s` for connecting and for each read
(and the whole reply must have arrived by then, checked between chunks), and the reply body is
streamed and abandoned past `VLMLimits.max_reply_bytes`. Nothing is retried: a caller that wants
another try has the ``Retry-After`` hint of `VLMUnavailable`.

Example:
    >>> client = VLMClient(parse_vlm_spec("openai:qwen2.5vl:7b@http://localhost:11434/v1"))  # doctest: +SKIP
    >>> reply = client.describe(encode_image(png_bytes), concepts)                            # doctest: +SKIP
"""

from __future__ import annotations

import base64
import io
import time
from dataclasses import dataclass

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

from scene.concepts import Concepts
from scene.errors import SceneImageError, VLMReplyError, VLMUnavailable
from scene.vlm_logprobs import TokenLogprob
from scene.vlm_prompt import SYSTEM_PROMPT, concepts_prompt
from scene.vlm_reply import SceneReply, response_format
from scene.vlm_spec import VLMSpec
from theory.retry_after import retry_after_seconds

# Statuses that may pass later (timeout, rate limit, server trouble): the caller is told to come back.
_TRANSIENT = frozenset({408, 425, 429})


@dataclass(frozen=True)
class VLMLimits:
    """Bounds of one request."""

    timeout_s: float = 60.0
    max_reply_bytes: int = 2_000_000
    max_tokens: int = 4096
    # the Retry-After hint when the server gives none
    retry_after_s: float = 30.0


@dataclass(frozen=True)
class EncodedImage:
    """An image as sent: its encoded bytes, media type and size in pixels."""

    data: bytes
    media_type: str
    width: int
    height: int

    @property
    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{base64.b64encode(self.data).decode('ascii')}"


def encode_image(image: bytes) -> EncodedImage:
    """The image bytes (JPEG, PNG, WebP...) with their media type and size; `SceneImageError` if unreadable."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(image)) as opened:
            media_type = Image.MIME.get(opened.format or "", "")
            width, height = opened.size
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        raise SceneImageError(f"image: not a readable picture ({exc})") from None
    if not media_type.startswith("image/"):
        raise SceneImageError("image: unknown picture format")
    return EncodedImage(image, media_type, width, height)


@dataclass(frozen=True)
class VLMReply:
    """A model's scene for one image: the validated reply, its text and its tokens' log-probabilities."""

    model: str
    scene: SceneReply
    text: str
    # None when the server sent none (Ollama's OpenAI endpoint drops them)
    logprobs: tuple[TokenLogprob, ...] | None
    seconds: float


class _Wire(BaseModel):
    # The protocol's fields this client reads; servers add others, which are ignored.
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Token(_Wire):
    token: str
    logprob: float
    bytes: list[int] | None = None


class _Logprobs(_Wire):
    content: list[_Token] | None = None


class _Message(_Wire):
    content: str | None = None


class _Choice(_Wire):
    message: _Message
    logprobs: _Logprobs | None = None
    finish_reason: str | None = None


class _Completion(_Wire):
    choices: list[_Choice]


def _validation_summary(exc: ValidationError, limit: int = 3) -> str:
    parts = [f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}" for e in exc.errors()[:limit]]
    more = f" (and {exc.error_count() - limit} more)" if exc.error_count() > limit else ""
    return "; ".join(parts) + more


class VLMClient:
    """Asks one OpenAI-compatible vision-language model for scenes; thread-safe (one httpx client)."""

    def __init__(
        self,
        spec: VLMSpec,
        api_key: str | None = None,
        limits: VLMLimits | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.spec = spec
        self.limits = limits or VLMLimits()
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(headers=headers, timeout=self.limits.timeout_s, transport=transport)

    @property
    def model(self) -> str:
        return self.spec.model

    def request_body(self, image: EncodedImage, concepts: Concepts) -> dict[str, object]:
        """The chat-completions request for one image and a question's concepts."""
        text = concepts_prompt(concepts, image.width, image.height)
        return {
            "model": self.spec.model,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": text},
                        {"type": "image_url", "image_url": {"url": image.data_url}},
                    ],
                },
            ],
            "response_format": response_format(),
            "logprobs": True,
            "temperature": 0,
            "max_tokens": self.limits.max_tokens,
            "stream": False,
        }

    def describe(self, image: EncodedImage, concepts: Concepts) -> VLMReply:
        """The model's scene of `image` for `concepts` (one POST); `VLMReplyError` or `VLMUnavailable` on failure."""
        started = time.monotonic()
        body = self._post(self.request_body(image, concepts), started + self.limits.timeout_s)
        text, tokens, finish = self._content(body)
        scene = self._scene(text, finish)
        check_boxes(scene, image, self.model)
        return VLMReply(self.model, scene, text, tokens, time.monotonic() - started)

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def _unavailable(self, problem: str, retry_after: float | None = None) -> VLMUnavailable:
        return VLMUnavailable(self.model, problem, self.limits.retry_after_s if retry_after is None else retry_after)

    def _post(self, body: dict[str, object], deadline: float) -> bytes:
        try:
            with self._client.stream("POST", self.spec.chat_completions_url, json=body) as response:
                self._check_status(response)
                return self._read_bounded(response, deadline)
        except httpx.TimeoutException:
            raise self._unavailable(f"no reply within {self.limits.timeout_s:g} s") from None
        except httpx.TransportError as exc:  # refused, reset, DNS: the server is not there now
            raise self._unavailable(f"server unreachable at {self.spec.base_url} ({type(exc).__name__})") from None

    def _check_status(self, response: httpx.Response) -> None:
        status = response.status_code
        if status == 200:
            return
        # The start of the body is enough to say what went wrong; the rest is not read.
        snippet = next(response.iter_bytes(), b"")[:300].decode("utf-8", "replace")
        if status in _TRANSIENT or status >= 500:
            hinted = retry_after_seconds(response.headers.get("Retry-After"))
            wait = self.limits.retry_after_s if hinted is None else hinted
            raise self._unavailable(f"HTTP {status}: {snippet}", wait)
        raise VLMReplyError(self.model, f"HTTP {status}: {snippet}")

    def _read_bounded(self, response: httpx.Response, deadline: float) -> bytes:
        limit = self.limits.max_reply_bytes
        declared = response.headers.get("Content-Length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise VLMReplyError(self.model, f"reply of {declared} bytes is over the {limit}-byte limit")
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > limit:
                raise VLMReplyError(self.model, f"reply over the {limit}-byte limit (stopped reading)")
            if time.monotonic() > deadline:
                raise self._unavailable(f"reply not complete within {self.limits.timeout_s:g} s")
            chunks.append(chunk)
        return b"".join(chunks)

    def _content(self, body: bytes) -> tuple[str, tuple[TokenLogprob, ...] | None, str | None]:
        try:
            completion = _Completion.model_validate_json(body)
        except ValidationError as exc:
            raise VLMReplyError(self.model, f"not a chat completion: {_validation_summary(exc)}") from None
        if not completion.choices or completion.choices[0].message.content is None:
            raise VLMReplyError(self.model, "the chat completion has no message content")
        choice = completion.choices[0]
        text = choice.message.content or ""
        tokens = choice.logprobs.content if choice.logprobs is not None else None
        if not tokens:
            return text, None, choice.finish_reason
        logprobs = tuple(
            TokenLogprob(t.token, t.logprob, bytes(t.bytes) if t.bytes is not None else None) for t in tokens
        )
        return text, logprobs, choice.finish_reason

    def _scene(self, text: str, finish_reason: str | None) -> SceneReply:
        try:
            return SceneReply.model_validate_json(text)
        except ValidationError as exc:
            if any(e["type"] == "json_invalid" for e in exc.errors()):
                start = " ".join(text.split())[:80]
                cut = f" (cut off at max_tokens={self.limits.max_tokens})" if finish_reason == "length" else ""
                raise VLMReplyError(self.model, f"reply is not JSON{cut}: {start!r}") from None
            raise VLMReplyError(
                self.model, f"reply does not follow the scene schema: {_validation_summary(exc)}"
            ) from None


def check_boxes(scene: SceneReply, image: EncodedImage, model: str) -> None:
    """`VLMReplyError` for a box that is empty or outside the image (e.g. on a 0-1000 grid instead of pixels)."""
    # Half a pixel of slack: models round coordinates.
    w, h = image.width + 0.5, image.height + 0.5
    for obj in scene.objects:
        x1, y1, x2, y2 = obj.box
        if not (-0.5 <= x1 < x2 <= w and -0.5 <= y1 < y2 <= h):
            raise VLMReplyError(
                model,
                f"object {obj.id!r}: box {list(obj.box)} is not [x1, y1, x2, y2] inside the "
                f"{image.width} x {image.height} pixel image",
            )
