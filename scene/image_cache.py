"""What the questions about one image share: the decoded image and the models' work on it.

One instance per image, kept by `scene.image_scene.ImageSceneBuilder`; the detector and the
classifier fill their own fields on first use and read them on every later question.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torch import Tensor

    from scene.boxes import Box

CropKey = tuple[int, int, int, int]  # a box's whole-pixel corners


@dataclass
class ImageCache:
    """Per-image work kept between questions (mutable: the models add to it)."""

    # the RGB PIL image
    image: Any = None
    # OWL-ViT: patch features and their normalised boxes; the boxes in pixels
    detector_features: tuple[Tensor, Tensor] | None = None
    detector_boxes: list[Box] | None = None
    # CLIP: unit-length embedding of each crop
    crop_embeddings: dict[CropKey, Tensor] = field(default_factory=dict)
    # room for other Detector or Classifier implementations, by a name of their choosing
    other: dict[str, object] = field(default_factory=dict)
