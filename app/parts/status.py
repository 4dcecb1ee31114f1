"""What `/ready` reports of each service part, without loading anything new (but for a look at a
vision-language model's server)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.config import Settings
from app.errors import PipelineError
from app.parts.lazy import Lazy
from app.parts.loaders import ChosenCalibration
from app.parts.roles import ImageReader, QuestionTranslator, SceneGraphEncoder
from scene.models import missing_weights_note

if TYPE_CHECKING:
    from app.parts.vlm_reader import VLMSceneReader


@dataclass(frozen=True)
class ServiceParts:
    """The parts the service reports on, each built on first use."""

    question_translator: Lazy[QuestionTranslator]
    scene_graph_encoder: Lazy[SceneGraphEncoder]
    image_reader: Lazy[ImageReader]
    vlm_reader: Lazy[VLMSceneReader]
    calibration: Lazy[ChosenCalibration]


def calibration_configured(settings: Settings) -> bool:
    """Whether the settings name a calibration to abstain by."""
    return settings.calibration not in (None, "", "off")


def service_status(settings: Settings, parts: ServiceParts) -> dict[str, str]:
    """Readiness of each service part: 'ready', 'not loaded' or why it cannot load."""
    return {
        "translator": parts.question_translator.status,
        "scene_graphs": parts.scene_graph_encoder.status,
        "images": _image_status(settings, parts.image_reader),
        "perception": _perception_status(settings, parts.vlm_reader),
    } | (_calibration_status(parts.calibration) if calibration_configured(settings) else {})


def _calibration_status(calibration: Lazy[ChosenCalibration]) -> dict[str, str]:
    # A bundled calibration that does not hold for these settings is not an error: the service is
    # ready and does not abstain, and says why.
    status = {"calibration": calibration.status}
    chosen = calibration.built
    if chosen is not None and chosen.note:
        status["abstention"] = f"off: {chosen.note}"
    elif calibration.status == "ready":
        status["abstention"] = "on"
    return status


def _perception_status(settings: Settings, vlm_reader: Lazy[VLMSceneReader]) -> str:
    # Which perception images get by default, and for a vision-language model whether its server answers.
    if not settings.scene_vlm:
        return "detector"
    try:
        reader = vlm_reader.get()
    except PipelineError as exc:
        return f"vlm {settings.scene_vlm}: {exc.message}"
    return f"vlm {settings.scene_vlm}: {reader.probe.status()}"


def _image_status(settings: Settings, image_reader: Lazy[ImageReader]) -> str:
    # Before the first image: whether the vision weights are on this machine, and how to get them.
    status = image_reader.status
    if status != "not loaded":
        return status
    note = missing_weights_note(settings.detector_model, settings.classifier_model, settings.models_offline)
    return f"not loaded: {note}" if note else status
