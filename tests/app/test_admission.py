"""Who gets in: full queues answer 503 with Retry-After at once, the API key, the rate limit, and
scenes over the size limit refused before they are read."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from app.api.admission import OneAtATime, TokenBuckets
from app.api.main import create_app
from app.config import Settings
from app.demo_scenes import demo_scenes
from app.errors import PipelineError
from app.pipeline import Pipeline
from tests.support import related_graph

KITCHEN = demo_scenes()["kitchen"]
MUG_COLOR = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3)."


class HeldPipeline(Pipeline):
    """A real pipeline whose answers wait until the test lets them go (a queue that stays full)."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.release = threading.Event()
        self.entered = threading.Semaphore(0)

    def answer(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.entered.release()
        self.release.wait(timeout=30)
        return super().answer(*args, **kwargs)


def test_full_solve_queue_answers_503_with_retry_after_at_once():
    settings = Settings(max_queued_solves=2, retry_after_s=3)
    pipeline = HeldPipeline(settings)
    app = create_app(settings, pipeline)

    async def run() -> tuple[list[httpx.Response], httpx.Response, float]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=30) as client:
            body = {"program": MUG_COLOR, "scene_graph": KITCHEN}
            held = [asyncio.create_task(client.post("/answer", json=body)) for _ in range(2)]
            for _ in range(2):  # both are inside the pipeline: the queue is full
                await asyncio.to_thread(pipeline.entered.acquire, True, 10)
            started = time.perf_counter()
            refused = await client.post("/answer", json=body)
            seconds = time.perf_counter() - started
            pipeline.release.set()
            return list(await asyncio.gather(*held)), refused, seconds

    answered, refused, seconds = asyncio.run(run())
    assert [r.status_code for r in answered] == [200, 200]
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "3"
    assert "queue is full" in refused.json()["detail"]
    assert seconds < 1.0


def test_api_key_required_when_set_and_health_stays_open():
    settings = Settings(api_key="s3cret")
    with TestClient(create_app(settings, Pipeline(settings))) as client:
        body = {"program": MUG_COLOR, "scene_graph": KITCHEN}
        assert client.get("/health").status_code == 200
        missing = client.post("/answer", json=body)
        assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
        assert client.post("/answer", json=body, headers={"X-API-Key": "wrong"}).status_code == 401
        assert client.post("/answer", json=body, headers={"X-API-Key": "s3cret"}).status_code == 200
        assert client.post("/answer", json=body, headers={"Authorization": "Bearer s3cret"}).status_code == 200


def test_without_a_key_everything_is_open():
    settings = Settings()
    with TestClient(create_app(settings, Pipeline(settings))) as client:
        assert client.post("/answer", json={"program": MUG_COLOR, "scene_graph": KITCHEN}).status_code == 200


def test_rate_limit_answers_429_with_retry_after():
    settings = Settings(rate_limit_per_minute=12)  # bursts of 2
    with TestClient(create_app(settings, Pipeline(settings))) as client:
        codes = [client.post("/answer", json={"program": MUG_COLOR, "scene_graph": KITCHEN}) for _ in range(3)]
        assert [r.status_code for r in codes] == [200, 200, 429]
        assert int(codes[-1].headers["retry-after"]) >= 1
        assert client.get("/health").status_code == 200


def test_token_bucket_refills_at_its_rate():
    buckets = TokenBuckets(per_minute=60)  # one a second, bursts of 10
    assert all(buckets.take("a", now=0.0) == 0 for _ in range(10))
    assert buckets.take("a", now=0.0) == pytest.approx(1.0)
    assert buckets.take("a", now=1.0) == 0
    assert buckets.take("b", now=1.0) == 0  # clients are counted apart


@pytest.fixture(scope="module")
def small_limits():
    settings = Settings(max_scene_facts=1000)
    with TestClient(create_app(settings, Pipeline(settings))) as client:
        yield client


def test_scene_graph_over_the_limit_is_refused_before_encoding(small_limits):
    graph = related_graph(40)
    response = small_limits.post("/answer", json={"program": MUG_COLOR, "scene_graph": graph})
    assert response.status_code == 413
    assert "limit 1000" in response.json()["detail"]


def test_scene_facts_over_the_limit_are_refused_before_reading(small_limits):
    text = " ".join(f"object({i})." for i in range(1500))
    response = small_limits.post("/answer", json={"program": MUG_COLOR, "scene_facts": text})
    assert response.status_code == 413
    assert "limit 1000" in response.json()["detail"]


def test_one_at_a_time_takes_turns_within_its_bound():
    """Scenes being stored wait their turn to be read, and past the bound are refused at once."""
    reads = OneAtATime("scene store", limit=2)
    working: list[int] = []
    most = 0

    async def store(seconds: float) -> None:
        nonlocal most
        with reads.slot():
            async with reads.turn():
                working.append(1)
                most = max(most, len(working))
                await asyncio.sleep(seconds)
                working.pop()

    async def three() -> list[BaseException | None]:
        return await asyncio.gather(store(0.05), store(0.05), store(0.05), return_exceptions=True)

    outcomes = asyncio.run(three())
    assert outcomes[:2] == [None, None] and most == 1
    assert isinstance(outcomes[2], PipelineError) and outcomes[2].kind == "busy"
    assert "scene store queue is full (2 at once)" in outcomes[2].message
