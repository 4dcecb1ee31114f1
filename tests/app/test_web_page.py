"""The web page in a real headless Chromium: pick the demo scene, ask, see the answer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.local_server import local_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REPLAY = Path(__file__).resolve().parents[1] / "data" / "replay_demo.jsonl"
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make installs it)")


@pytest.fixture(scope="module")
def server():
    with local_server({"ASPVQA_LLM": f"replay:{REPLAY}", "ASPVQA_SAMPLING": "jaccard"}) as url:
        yield url


def test_page_answers_a_question_on_the_demo_scene(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        try:
            page = browser.new_page()
            posted: list[tuple[str, str]] = []
            page.on("request", lambda r: posted.append((r.url, r.post_data or "")) if r.method == "POST" else None)
            page.goto(server + "/")
            page.wait_for_function("document.querySelectorAll('#scene option').length > 1")
            page.select_option("#scene", "kitchen")
            page.fill("#question", "What is the cat sitting on?")
            page.click("#submit")
            page.wait_for_selector("#answers li", timeout=60_000)
            assert page.inner_text("#answers li").startswith("chair")
            assert "relate_any" in page.inner_text("#program")
            assert "has_rel(4,on,2)" in page.inner_text("#support")
            assert page.inner_text("#status") == "ok"
            assert page.inner_text("#confidence").startswith("confidence 0.")
            assert "skeleton agreement" in page.inner_text("#parts")
            # The scene was stored once; a second question on it names it by its id.
            page.evaluate("document.getElementById('answers').innerHTML = ''")
            page.click("#submit")
            page.wait_for_selector("#answers li", timeout=60_000)
            assert page.inner_text("#answers li").startswith("chair")
            paths = [url.removeprefix(server) for url, _ in posted]
            assert paths == ["/scenes", "/answer", "/answer"], paths
            scene_id = page.get_attribute("#stored", "data-id")
            assert all(json.loads(body)["scene_id"] == scene_id for url, body in posted if url.endswith("/answer"))
        finally:
            browser.close()


def test_page_shows_the_boxes_of_an_answered_image_question(vlm_server, tmp_path):
    """An uploaded image perceived by a vision-language model (a stand-in server): the answer, the
    boxes of what the model saw, and the answer's supporting object marked."""
    from PIL import Image
    from playwright.sync_api import sync_playwright

    image = tmp_path / "mug.png"
    Image.new("RGB", (640, 480), (200, 180, 150)).save(image)
    env = {"ASPVQA_LLM": f"replay:{REPLAY}", "ASPVQA_SAMPLING": "jaccard", "ASPVQA_SCENE_VLM": vlm_server.spec}
    with local_server(env) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(url + "/")
            page.wait_for_function("document.querySelectorAll('#scene option').length > 1")
            page.set_input_files("#image", str(image))
            page.fill("#question", "What color is the mug?")
            page.click("#submit")
            page.wait_for_selector("#answers li", timeout=60_000)
            assert page.inner_text("#answers li").startswith("white"), page.inner_text("#status")
            page.wait_for_selector("#boxes li.supporting", timeout=10_000)
            boxes = page.locator("#boxes li").all_inner_texts()
            assert any(b.startswith("mug") and "[100, 100, 200, 220]" in b for b in boxes), boxes
            assert "supports the answer" in page.inner_text("#boxes li.supporting")
            assert page.inner_text("#perception").startswith("seen by vlm")
        finally:
            browser.close()
