"""`aspvqa models pull` / `list`, and how /ready and image questions say where the vision weights come from.

No test reaches a network: the hub is a stand-in (tests.scene.hub) or its errors are raised in its place.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("transformers")

import httpx2  # noqa: E402
import huggingface_hub  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from app.api.main import create_app  # noqa: E402
from app.cli import cli  # noqa: E402
from app.components import Components  # noqa: E402
from app.config import Settings  # noqa: E402
from app.errors import PipelineError  # noqa: E402
from app.pipeline import Pipeline  # noqa: E402
from scene.models import CLASSIFIER_ENV, DEFAULT_CLASSIFIER, DEFAULT_DETECTOR, DETECTOR_ENV, write_tiny_models  # noqa: E402
from tests.scene.hub import StandInHub, empty_hub_cache, go_online, raising  # noqa: E402

runner = CliRunner()
STAND_IN = {"aspvqa-tests/owlvit-tiny": 0, "aspvqa-tests/clip-tiny": 1}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_tiny_models(tmp_path_factory.mktemp("models"))


@pytest.fixture
def hub_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return empty_hub_cache(tmp_path, monkeypatch)


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASPVQA_OFFLINE")  # set for every test by the tests' conftest
    go_online(monkeypatch)


def _one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, output
    return lines[0]


def test_pull_in_offline_mode_is_one_line_and_fetches_nothing(hub_cache: Path) -> None:
    result = runner.invoke(cli, ["models", "pull"])
    assert result.exit_code == 2
    assert "offline mode is on (ASPVQA_OFFLINE)" in _one_error_line(result.output)


def test_pull_where_the_hub_cannot_be_reached_is_one_line(
    hub_cache: Path, online: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    error = httpx2.ConnectError("[Errno -3] Temporary failure in name resolution")
    monkeypatch.setattr(huggingface_hub, "get_hf_file_metadata", raising(error))
    result = runner.invoke(cli, ["models", "pull"])
    assert result.exit_code == 2
    line = _one_error_line(result.output)
    assert DEFAULT_DETECTOR in line and "the model hub cannot be reached" in line


def test_pull_downloads_both_models_into_the_hub_cache(
    tiny: tuple[Path, Path], hub_cache: Path, online: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = StandInHub(hub_cache, {name: tiny[i] for name, i in STAND_IN.items()})
    hub.install(monkeypatch)
    monkeypatch.setenv(DETECTOR_ENV, "aspvqa-tests/owlvit-tiny")  # the configured detector
    result = runner.invoke(cli, ["models", "pull", "--classifier", "aspvqa-tests/clip-tiny"])
    assert result.exit_code == 0, result.output
    assert {name for name, _ in hub.downloads} == set(STAND_IN)
    assert "OWL-ViT detector aspvqa-tests/owlvit-tiny: ready, in the model hub's local cache" in result.output
    assert str(hub_cache) in result.output

    # Then offline: listed as on this machine, and loaded for image questions without the hub.
    monkeypatch.setenv("ASPVQA_OFFLINE", "1")
    listed = runner.invoke(cli, ["models", "list", "--classifier", "aspvqa-tests/clip-tiny"])
    assert listed.exit_code == 0 and listed.output.count("on this machine") == 2, listed.output
    settings = Settings(classifier_model="aspvqa-tests/clip-tiny")
    assert Components(settings).status()["images"] == "not loaded"
    assert Components(settings).image_scene_builder is not None


def test_pull_of_local_folders_checks_them_even_offline(tiny: tuple[Path, Path]) -> None:
    result = runner.invoke(cli, ["models", "pull", "--detector", str(tiny[0]), "--classifier", str(tiny[1])])
    assert result.exit_code == 0, result.output
    assert "a local folder" in result.output


def test_list_says_how_to_get_missing_weights(hub_cache: Path) -> None:
    result = runner.invoke(cli, ["models", "list"])
    assert result.exit_code == 0
    assert DEFAULT_DETECTOR in result.output and DEFAULT_CLASSIFIER in result.output
    assert result.output.count("offline mode is on (ASPVQA_OFFLINE)") == 2 and "aspvqa models pull" in result.output


def test_ready_says_how_to_get_the_weights_before_and_after_an_image(hub_cache: Path) -> None:
    settings = Settings()
    with TestClient(create_app(settings, Pipeline(settings))) as client:
        before = client.get("/ready").json()["parts"]["images"]
        assert before.startswith("not loaded: ") and "aspvqa models pull" in before and DETECTOR_ENV in before
        components: Components = client.app.state.pipeline.components  # type: ignore[attr-defined]
        with pytest.raises(PipelineError) as info:
            components.image_reader  # noqa: B018 - what the first image question asks for
        assert info.value.kind == "model_unavailable"
        after = client.get("/ready").json()["parts"]["images"]
    assert after == info.value.message
    assert "offline mode is on (ASPVQA_OFFLINE)" in after and "aspvqa models pull" in after and DETECTOR_ENV in after


def test_online_the_readiness_note_says_weights_come_on_first_use(hub_cache: Path, online: None) -> None:
    status = Components(Settings()).status()["images"]
    assert "downloaded from the model hub on first use" in status and CLASSIFIER_ENV not in status
