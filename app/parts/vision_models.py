"""The detector path's vision models, OWL-ViT and CLIP, loaded from `Settings`."""

from __future__ import annotations

from app.config import Settings
from app.devices import DeviceChoice
from app.errors import PipelineError
from scene.classifier import ClipClassifier
from scene.detector import OwlViTDetector
from scene.image_scene import ImageSceneBuilder
from scene.models import load_classifier, load_detector
from scene.taxonomy import Taxonomy
from theory.errors import ModelNotAvailableError


def load_image_scene_builder(settings: Settings, device: DeviceChoice, taxonomy: Taxonomy) -> ImageSceneBuilder:
    """OWL-ViT and CLIP from the configured weights, with the per-image cache."""
    s = settings
    try:
        # Hub ids not in the hub's local cache are downloaded here, unless offline mode is on.
        detector = OwlViTDetector(
            load_detector(s.detector_model, s.models_offline, device=device.torch_device), taxonomy=taxonomy
        )
        classifier = ClipClassifier(load_classifier(s.classifier_model, s.models_offline, device=device.torch_device))
    except ModelNotAvailableError as exc:
        raise PipelineError("model_unavailable", str(exc)) from None
    return ImageSceneBuilder(detector, classifier)
