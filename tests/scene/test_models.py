"""Model sources and loading: local folders, hub ids through the hub's cache, downloads on first use
(against a stand-in for the model hub), offline mode, and errors that say how to get the weights."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("transformers")

import httpx2  # noqa: E402 - the hub client's HTTP library, for its errors
from huggingface_hub import constants  # noqa: E402
from huggingface_hub.errors import GatedRepoError, LocalEntryNotFoundError, RepositoryNotFoundError  # noqa: E402

import scene.models as models  # noqa: E402
from scene.models import (  # noqa: E402
    CLASSIFIER,
    CLASSIFIER_ENV,
    DEFAULT_CLASSIFIER,
    DEFAULT_DETECTOR,
    DETECTOR,
    DETECTOR_ENV,
    ModelNotAvailableError,
    WeightsUnavailable,
    cached_snapshot,
    load_classifier,
    load_detector,
    missing_weights_note,
    model_source,
    write_tiny_models,
)
from tests.scene.hub import COMMIT, StandInHub, empty_hub_cache, fill_cache, go_online, raising, refuse, response  # noqa: E402


@pytest.fixture
def hub_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return empty_hub_cache(tmp_path, monkeypatch)


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    go_online(monkeypatch)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_tiny_models(tmp_path_factory.mktemp("models"))


# --- local folders ---------------------------------------------------------------------------------


def test_a_local_folder_is_its_own_source(tiny: tuple[Path, Path]) -> None:
    assert model_source(tiny[0], DETECTOR) == str(tiny[0])
    assert model_source(DEFAULT_DETECTOR, DETECTOR) == DEFAULT_DETECTOR  # a hub id, loaded through the cache


def test_a_folder_without_config_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WeightsUnavailable, match="config.json") as info:
        model_source(tmp_path, DETECTOR)
    assert "detector_model" in str(info.value) and "aspvqa models pull" not in str(info.value)


def test_a_missing_folder_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ModelNotAvailableError) as info:
        load_detector(tmp_path / "nowhere")
    assert DETECTOR_ENV in str(info.value) and "detector_model" in str(info.value)


def test_loaders_read_tiny_models_back(tiny: tuple[Path, Path]) -> None:
    detector = load_detector(tiny[0])
    classifier = load_classifier(tiny[1])
    assert detector.model.config.model_type == "owlvit"
    assert classifier.model.config.model_type == "clip"
    assert not detector.model.training and not classifier.model.training
    assert detector.processor.tokenizer("a photo of a man")["input_ids"]


def test_the_environment_variable_picks_the_model(tiny: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    # Read once, by the settings; the loaders take the setting.
    from app.config import Settings

    monkeypatch.setenv(DETECTOR_ENV, str(tiny[0]))
    monkeypatch.setenv(CLASSIFIER_ENV, str(tiny[1]))
    settings = Settings()
    assert load_detector(settings.detector_model).source == str(tiny[0])
    assert load_classifier(settings.classifier_model).source == str(tiny[1])


def test_a_folder_without_weights_is_a_clear_error(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text((tiny[1] / "config.json").read_text())
    with pytest.raises(ModelNotAvailableError, match="classifier_model"):
        load_classifier(tmp_path)


# --- the settings ----------------------------------------------------------------------------------


def test_downloads_are_allowed_by_default_and_offline_mode_forbids_them(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.config import Settings

    monkeypatch.delenv("ASPVQA_OFFLINE")  # set for every test by the tests' conftest
    settings = Settings()
    assert not settings.models_offline and settings.detector_model is None
    assert (DETECTOR.name(settings.detector_model), CLASSIFIER.name(None)) == (DEFAULT_DETECTOR, DEFAULT_CLASSIFIER)
    monkeypatch.setenv("ASPVQA_OFFLINE", "1")
    assert Settings().models_offline
    monkeypatch.delenv("ASPVQA_OFFLINE")
    monkeypatch.setenv("ASPVQA_LOCAL_FILES_ONLY", "true")  # the older name
    assert Settings().models_offline


def test_the_tests_run_with_the_hubs_offline_mode_on() -> None:
    assert constants.is_offline_mode() and models.hub_offline()


# --- hub ids ---------------------------------------------------------------------------------------


def test_offline_a_hub_id_not_in_the_cache_is_refused_without_asking_the_hub(
    hub_cache: Path, online: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import transformers.utils.hub as transformers_hub

    monkeypatch.setattr(models, "reach_hub", refuse)
    monkeypatch.setattr(transformers_hub, "hf_hub_download", raising(LocalEntryNotFoundError("not cached")))
    monkeypatch.setattr(transformers_hub, "snapshot_download", raising(LocalEntryNotFoundError("not cached")))
    with pytest.raises(WeightsUnavailable) as info:
        load_classifier("aspvqa-tests/no-such-clip-model", offline=True)
    message = str(info.value)
    assert "not in the local model-hub cache and offline mode is on (ASPVQA_OFFLINE)" in message
    assert "aspvqa models pull" in message and CLASSIFIER_ENV in message and "classifier_model" in message


def test_the_hubs_own_offline_mode_is_named(hub_cache: Path) -> None:
    # HF_HUB_OFFLINE=1 is on for the tests; nothing here asks for offline mode.
    with pytest.raises(WeightsUnavailable, match=r"offline mode is on \(HF_HUB_OFFLINE\)"):
        load_detector("aspvqa-tests/no-such-owlvit-model", offline=False)


def test_an_unreachable_hub_is_one_clear_error(hub_cache: Path, online: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    error = httpx2.ConnectError("[Errno -2] Name or service not known")
    monkeypatch.setattr(huggingface_hub, "get_hf_file_metadata", raising(error))
    with pytest.raises(WeightsUnavailable) as info:
        load_detector(DEFAULT_DETECTOR)
    assert info.value.reason.startswith("the model hub cannot be reached to download them (ConnectError")
    assert "aspvqa models pull" in str(info.value) and DETECTOR_ENV in str(info.value)


def test_a_download_that_loses_the_hub_is_one_clear_error(
    hub_cache: Path, online: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import transformers.utils.hub as transformers_hub

    lost = LocalEntryNotFoundError("cannot find the requested files in the local cache")
    lost.__cause__ = httpx2.ConnectTimeout("timed out")
    monkeypatch.setattr(models, "reach_hub", lambda repo_id: None)
    monkeypatch.setattr(transformers_hub, "hf_hub_download", raising(lost))
    monkeypatch.setattr(transformers_hub, "snapshot_download", raising(lost))
    with pytest.raises(WeightsUnavailable, match="the model hub cannot be reached"):
        load_classifier(DEFAULT_CLASSIFIER)


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (RepositoryNotFoundError("404", response=response(404)), "has no model of that name"),
        (GatedRepoError("403", response=response(403)), "granted access"),
    ],
)
def test_the_hubs_answer_is_the_reason(
    hub_cache: Path, online: None, monkeypatch: pytest.MonkeyPatch, error: Exception, reason: str
) -> None:
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "get_hf_file_metadata", raising(error))
    with pytest.raises(WeightsUnavailable, match=reason):
        load_detector("aspvqa-tests/owlvit")


def test_a_hub_id_is_downloaded_on_first_use_then_read_from_the_cache(
    tiny: tuple[Path, Path], hub_cache: Path, online: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = StandInHub(hub_cache, {"aspvqa-tests/owlvit-tiny": tiny[0], "aspvqa-tests/clip-tiny": tiny[1]})
    hub.install(monkeypatch)
    assert cached_snapshot("aspvqa-tests/owlvit-tiny") is None
    assert "will be downloaded" in str(
        missing_weights_note("aspvqa-tests/owlvit-tiny", "aspvqa-tests/clip-tiny", False)
    )

    detector = load_detector("aspvqa-tests/owlvit-tiny")
    assert detector.model.config.model_type == "owlvit" and detector.source == "aspvqa-tests/owlvit-tiny"
    assert ("aspvqa-tests/owlvit-tiny", "model.safetensors") in hub.downloads
    assert hub.bars, "the weights came without a progress bar"
    assert cached_snapshot("aspvqa-tests/owlvit-tiny") == str(
        hub_cache / "models--aspvqa-tests--owlvit-tiny" / "snapshots" / COMMIT
    )

    # Cached: loaded offline, and online without asking the hub.
    hub.downloads.clear()
    assert load_detector("aspvqa-tests/owlvit-tiny", offline=True).model.config.model_type == "owlvit"
    monkeypatch.setattr(models, "reach_hub", refuse)
    load_detector("aspvqa-tests/owlvit-tiny")
    assert hub.downloads == []


def test_weights_in_the_cache_load_offline(tiny: tuple[Path, Path], hub_cache: Path) -> None:
    fill_cache(hub_cache, "aspvqa-tests/clip-tiny", tiny[1])
    loaded = load_classifier("aspvqa-tests/clip-tiny", offline=True)
    assert loaded.model.config.model_type == "clip"
    assert missing_weights_note(str(tiny[0]), "aspvqa-tests/clip-tiny", True) is None


def test_the_readiness_note_says_how_to_get_missing_weights(tiny: tuple[Path, Path], hub_cache: Path) -> None:
    note = missing_weights_note(None, str(tiny[1]), True)
    assert note is not None and DEFAULT_DETECTOR in note and DEFAULT_CLASSIFIER not in note
    assert "offline mode is on (ASPVQA_OFFLINE)" in note and "aspvqa models pull" in note and DETECTOR_ENV in note
