"""The composition root: each part built once from Settings, shared, and reporting why it cannot load."""

from __future__ import annotations

import gc
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from app.components import Components
from app.config import Settings
from app.errors import PipelineError
from app.parts.lazy import PerKey
from translators.examples.bank import default_bank_path
from translators.options import TranslationOptions

REPLAY = Path(__file__).parents[1] / "data" / "replay_demo.jsonl"
QUESTION = "What is the cat sitting on?"


@pytest.fixture()
def components(tmp_path: Path) -> Components:
    replay = tmp_path / "replay.jsonl"
    replay.write_text(REPLAY.read_text())  # a private copy: replay backends count calls per file
    settings = Settings(
        llm=f"replay:{replay}", bank_dir=str(default_bank_path()), sampling="jaccard", template_fill=False
    )
    return Components(settings)


def test_translators_are_built_once_and_share_the_heavy_parts(components):
    options = components.translation_settings()
    assert components.translator(options) is components.translator(options)
    other = components.translator(components.translation_settings({"examples": 1}))
    assert other is not components.translator(options)
    assert (
        other.bank is components.translator(options).bank
        and other.retriever is components.translator(options).retriever
    )


def test_the_service_translator_uses_the_request_options(components):
    assert components.status()["translator"] == "not loaded"
    outcome = components.question_translator(QUESTION, options=TranslationOptions(sampling="jaccard", examples=2))
    assert "relate_any" in {step.operation for step in outcome.program.steps}
    assert outcome.details is not None and outcome.details.model.startswith("replay:") and len(outcome.examples) == 2
    assert components.status()["translator"] == "ready"
    with pytest.raises(PipelineError, match="not offered here"):
        components.question_translator(QUESTION, options=TranslationOptions(sampling="jaccard"), llm="smollm2-135m")


def test_a_missing_bank_names_its_setting(tmp_path):
    components = Components(Settings(bank_dir=str(tmp_path / "nowhere.jsonl"), llm="replay:x"))
    with pytest.raises(PipelineError, match="ASPVQA_BANK_DIR") as info:
        components.question_translator  # noqa: B018
    assert info.value.kind == "model_unavailable"
    assert "ASPVQA_BANK_DIR" in components.status()["translator"]


def test_a_calibration_holds_for_the_fill_rules_that_made_its_confidences(components):
    from translators.rules.template_fill import FILL_RULES_VERSION

    filled = components.confidence_settings(components.translation_settings({"template_fill": True}))
    alone = components.confidence_settings(components.translation_settings({"template_fill": False}))
    assert filled["fill_rules"] == FILL_RULES_VERSION and "fill_rules" not in alone
    assert filled["confidence_weights"] == alone["confidence_weights"]


def test_warm_up_leaves_the_loaded_parts_out_of_full_collections(components):
    # A full collection walks every tracked object: in a loaded process, WordNet and the bank.
    gc.unfreeze()
    try:
        components.warm_up()
        frozen = gc.get_freeze_count()
        assert frozen > 100_000  # the bank and WordNet, not a handful of objects
        gc.collect()
        # A collection leaves them where they are (but for those freed since: other tests' threads).
        assert gc.get_freeze_count() > frozen * 0.99
    finally:
        gc.unfreeze()


def test_concurrent_first_requests_share_one_translator(components):
    # The service's first requests arrive together: each waits for the one translator being built.
    options = components.translation_settings()
    start = threading.Barrier(6)
    found = []

    def ask() -> None:
        start.wait()
        found.append(components.translator(options))

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 6 and len({id(t) for t in found}) == 1
    assert found[0].retriever is components.translator(components.translation_settings({"examples": 1})).retriever


def test_a_part_per_key_is_built_once_and_a_failed_build_is_tried_again():
    builds: list[str] = []
    release = threading.Event()

    def build(key: str) -> str:
        builds.append(key)
        release.wait(5)
        if key == "bad" and builds.count("bad") == 1:
            raise PipelineError("model_unavailable", "not yet")
        return key.upper()

    parts: PerKey[str, str] = PerKey(build)
    with ThreadPoolExecutor(4) as pool:
        asked = [pool.submit(parts.get, "a") for _ in range(4)]
        release.set()
        assert [f.result() for f in asked] == ["A"] * 4
    assert builds == ["a"]
    with pytest.raises(PipelineError, match="not yet"):
        parts.get("bad")
    assert parts.get("bad") == "BAD" and builds.count("bad") == 2
