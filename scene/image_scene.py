"""An image and a question's concepts -> weighted scene facts, sharing work across questions.

Per image (keyed by the caller's id, else by the pixels) a cache keeps the detector's image
encoding and the classifier's crop embeddings, so a second question about the same image pays only
for its new class queries and prompts.

Example:
    >>> detector, classifier = OwlViTDetector(load_detector()), ClipClassifier(load_classifier())  # doctest: +SKIP
    >>> builder = ImageSceneBuilder(detector, classifier)                                         # doctest: +SKIP
    >>> result = builder.build("images/2375429.jpg", concepts)                                    # doctest: +SKIP
    >>> solve(program, result.scene)                                                               # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import io
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scene.classifier import Classifier
from scene.concepts import Concepts
from scene.detector import Detection, Detector
from scene.image_cache import ImageCache
from scene.likelihoods import AttributeLikelihood, RelationLikelihood
from scene.weighted import WeightSettings, weighted_scene
from theory.scene_facts import SceneFacts


@dataclass
class ImageSceneResult:
    """The weighted scene of one image for one set of concepts, with what it was built from."""

    scene: SceneFacts
    detections: list[Detection]
    attributes: list[AttributeLikelihood]
    relations: list[RelationLikelihood]
    # seconds per stage: load, detect, attributes, relations, facts
    timings: dict[str, float] = field(default_factory=dict)
    cached_image: bool = False


def load_image(image: Any) -> Any:
    """A PIL RGB image from a path, encoded bytes or a PIL image."""
    from PIL import Image

    if isinstance(image, (str, Path, bytes)):
        with Image.open(io.BytesIO(image) if isinstance(image, bytes) else image) as opened:
            return opened.convert("RGB")
    return image if image.mode == "RGB" else image.convert("RGB")


class ImageSceneBuilder:
    """Builds weighted scenes from images with a detector and a classifier, caching per image."""

    def __init__(
        self,
        detector: Detector,
        classifier: Classifier,
        weights: WeightSettings | None = None,
        cache_size: int = 16,
    ) -> None:
        self.detector = detector
        self.classifier = classifier
        self.weights = weights or WeightSettings()
        self.cache_size = cache_size
        self._cache: OrderedDict[str, ImageCache] = OrderedDict()

    def _entry(self, image: Any, image_key: str | None) -> tuple[ImageCache, bool]:
        pil = None
        if image_key is None:
            if isinstance(image, (str, Path)):
                image_key = f"path:{Path(image).resolve()}"
            elif isinstance(image, bytes):
                # Keyed by the encoded bytes: a repeated upload is found without decoding it.
                image_key = "bytes:" + hashlib.sha1(image).hexdigest()
            else:
                pil = load_image(image)
                image_key = "pixels:" + hashlib.sha1(pil.tobytes()).hexdigest() + f":{pil.size}"
        if image_key in self._cache:
            self._cache.move_to_end(image_key)
            return self._cache[image_key], True
        entry = ImageCache(image=pil if pil is not None else load_image(image))
        self._cache[image_key] = entry
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return entry, False

    def build(self, image: Any, concepts: Concepts, image_key: str | None = None) -> ImageSceneResult:
        """Detect the concepts' classes, score their attributes and relations, emit the weighted scene."""
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        entry, cached = self._entry(image, image_key)
        pil = entry.image
        t1 = time.perf_counter()
        detections = self.detector.detect(pil, sorted(concepts.classes), entry)
        t2 = time.perf_counter()
        attributes = self.classifier.attribute_likelihoods(pil, detections, concepts.attributes, entry)
        t3 = time.perf_counter()
        relations = self.classifier.relation_likelihoods(pil, detections, concepts.relations, entry)
        t4 = time.perf_counter()
        scene = weighted_scene(detections, attributes, relations, self.weights)
        t5 = time.perf_counter()
        timings.update(load=t1 - t0, detect=t2 - t1, attributes=t3 - t2, relations=t4 - t3, facts=t5 - t4)
        return ImageSceneResult(scene, detections, attributes, relations, timings, cached)

    def clear(self) -> None:
        """Forget every cached image."""
        self._cache.clear()
