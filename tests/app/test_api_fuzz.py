"""API fuzzing from the OpenAPI schema: whatever the body, the service never answers 500."""

from __future__ import annotations

from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings

from app.api.main import create_app
from app.config import Settings
from app.pipeline import Pipeline

REPLAY = Path(__file__).resolve().parents[1] / "data" / "replay_demo.jsonl"
_settings = Settings(llm=f"replay:{REPLAY}", sampling="jaccard", solve_timeout_s=5)
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(_settings, Pipeline(_settings)))


# The same examples every run: Schemathesis's negative generation for a multipart body with a binary
# field sometimes fails inside the generator itself ("Unsupported type: 'Binary'", a bug of the tool,
# not of the service), which failed a run by chance.
@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_input_yields_a_server_error(case):
    # The client waits longer than the service's own limits: a first /translate loads the sentence
    # embedder, which under CPU load took over the client's default 10 s and failed the test.
    response = case.call(timeout=_settings.translate_timeout_s + _settings.solve_timeout_s + 60)
    # 503 (a part not loaded) and 504 (time limit) are documented answers; 500 never is.
    assert response.status_code != 500, (response.status_code, response.text[:300])
    assert response.status_code < 500 or response.status_code in (503, 504)
