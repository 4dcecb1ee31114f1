"""Model sources and loading: local directories, hub ids from the local cache, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("transformers")

from scene.models import (  # noqa: E402
    CLASSIFIER_ENV,
    DETECTOR_ENV,
    ModelNotAvailableError,
    load_classifier,
    load_detector,
    resolve_model_source,
    write_tiny_models,
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_tiny_models(tmp_path_factory.mktemp("models"))


def test_a_local_directory_resolves_to_itself(tiny: tuple[Path, Path]) -> None:
    assert resolve_model_source(tiny[0]) == str(tiny[0])


def test_a_directory_without_config_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelNotAvailableError, match="config.json"):
        resolve_model_source(tmp_path, setting="detector_model")


def test_a_missing_directory_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ModelNotAvailableError) as info:
        load_detector(tmp_path / "nowhere")
    assert DETECTOR_ENV in str(info.value) and "detector_model" in str(info.value)


def test_a_hub_id_not_in_the_local_cache_is_refused_without_downloading() -> None:
    with pytest.raises(ModelNotAvailableError) as info:
        load_classifier("aspvqa-tests/no-such-clip-model")
    message = str(info.value)
    assert "local hub cache" in message and CLASSIFIER_ENV in message


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


def test_a_directory_without_weights_is_a_clear_error(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text((tiny[1] / "config.json").read_text())
    with pytest.raises(ModelNotAvailableError, match="classifier_model"):
        load_classifier(tmp_path)
