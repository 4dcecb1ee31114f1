"""Images into weighted scenes with a vision-language model behind an OpenAI-compatible endpoint."""

from __future__ import annotations

import threading
import time

import httpx

from app.errors import PipelineError
from app.outcomes import PerceptionReport, SceneReading
from app.parts.image_reader import detected
from scene.concepts import concepts_from_program
from scene.errors import SceneImageError, VLMReplyError, VLMUnavailable
from scene.taxonomy import Taxonomy
from scene.vlm_client import VLMClient, VLMLimits
from scene.vlm_spec import VLMSpec, parse_vlm_spec
from theory import Program

# How long /ready trusts its last look at the model's server.
PROBE_TTL_S = 30.0
PROBE_TIMEOUT_S = 2.0


class VLMSceneReader:
    """The service's `ImageReader` on the vision-language-model path: one request per image and question."""

    def __init__(self, spec: str, taxonomy: Taxonomy, *, api_key: str | None = None, timeout_s: float = 60.0) -> None:
        from scene.vlm_scene import VLMSceneBuilder

        self.spec: VLMSpec = parse_vlm_spec(spec)
        self.client = VLMClient(self.spec, api_key=api_key, limits=VLMLimits(timeout_s=timeout_s))
        self.builder = VLMSceneBuilder(self.client, taxonomy=taxonomy)
        self.taxonomy = taxonomy
        self.probe = ServerProbe(self.spec, api_key)

    def __call__(self, image: bytes, program: Program) -> SceneReading:
        model = self.spec.model
        try:
            result = self.builder.build(image, concepts_from_program(program, self.taxonomy))
        except VLMReplyError as exc:
            raise PipelineError("bad_model_reply", f"scene model {model!r}: {exc.problem}") from None
        except VLMUnavailable as exc:
            raise PipelineError(
                "model_unavailable", f"scene model {model!r}: {exc.problem}", retry_after_s=exc.retry_after_s
            ) from None
        except SceneImageError as exc:
            raise PipelineError("unsupported_media", f"image: {exc}") from None
        report = PerceptionReport(
            method="vlm",
            model=result.model or model,
            likelihoods=tuple(result.source_summary.items()),
            logprobs=result.logprobs,
            dropped=result.dropped.count,
        )
        detections = tuple(detected(d) for d in result.detections)
        return SceneReading(result.scene, detections, result.timings, report)


class ServerProbe:
    """Whether the model's server answers (`GET {BASE_URL}/models`), looked at most every `PROBE_TTL_S`."""

    def __init__(self, spec: VLMSpec, api_key: str | None) -> None:
        self.spec = spec
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._lock = threading.Lock()
        self._seen: tuple[float, str] | None = None

    def status(self) -> str:
        """'answers', or why not."""
        with self._lock:
            if self._seen is not None and time.monotonic() - self._seen[0] < PROBE_TTL_S:
                return self._seen[1]
        url = self.spec.base_url.rstrip("/") + "/models"
        try:
            response = httpx.get(url, headers=self.headers, timeout=PROBE_TIMEOUT_S)
            code = response.status_code
            if code in (401, 403):
                found = f"refuses the request: HTTP {code} (ASPVQA_SCENE_VLM_API_KEY)"
            else:
                found = "answers" if code < 500 else f"not answering: HTTP {code}"
        except httpx.HTTPError as exc:
            found = f"not answering: {type(exc).__name__}"
        with self._lock:
            self._seen = (time.monotonic(), found)
        return found
