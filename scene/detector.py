"""Open-vocabulary object detection with OWL-ViT: boxes for the classes a question mentions.

The image is encoded once per image (and kept in the per-image cache); each class query then costs
only a text embedding (cached across images) and the small class head. Per query, boxes above a
score threshold go through non-maximum suppression and a cap; boxes that several queries found
become one detection whose label is its most specific class.

Example:
    >>> detector = OwlViTDetector(load_detector("/models/owlvit"))          # doctest: +SKIP
    >>> detections = detector.detect(image, ["man", "horse"], ImageCache())  # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from scene.boxes import Box
from scene.image_cache import ImageCache
from scene.models import LoadedModel
from scene.positions import third
from scene.taxonomy import Taxonomy
from theory.scene_facts import asp_constant

if TYPE_CHECKING:
    from torch import Tensor


@dataclass(frozen=True)
class Detection:
    """One detected object: its box, most specific class and confidence, categories and position."""

    id: int
    box: Box
    label: str
    score: float
    categories: frozenset[str] = frozenset()
    # other classes the detector gave the same box, with their scores
    alternatives: Mapping[str, float] = field(default_factory=dict)
    # the categories of each alternative class
    alternative_categories: Mapping[str, frozenset[str]] = field(default_factory=dict)
    hposition: str = "middle"
    vposition: str = "middle"

    @property
    def classes(self) -> frozenset[str]:
        """The label and every category it belongs to (the `class` values of the object)."""
        return self.categories | {self.label}


def make_detection(
    id: int,
    box: Box,
    labels: dict[str, float],
    image_size: tuple[int, int],
    taxonomy: Taxonomy | None = None,
) -> Detection:
    """A detection from a box and the scores of the classes found there (width, height = image_size).

    The label is the most specific class: classes that are a category of another found class give
    way to it; among the rest the highest score wins. The score is the best score of the box.
    """
    labels = {asp_constant(k): v for k, v in labels.items()}
    categories_of = {
        name: {asp_constant(c) for c in taxonomy.categories_of(name.replace("_", " "))} if taxonomy else set()
        for name in labels
    }
    general = {c for name in labels for c in categories_of[name] if c != name}
    specific = {name: score for name, score in labels.items() if name not in general} or labels
    label = max(specific, key=lambda name: (specific[name], name))
    alternatives = {name: score for name, score in specific.items() if name != label}
    width, height = image_size
    cx, cy = box.center
    return Detection(
        id=id,
        box=box,
        label=label,
        score=max(labels.values()),
        categories=frozenset(categories_of[label] - {label}),
        alternatives=alternatives,
        alternative_categories={name: frozenset(categories_of[name] - {name}) for name in alternatives},
        hposition=third(cx, width, "hposition"),
        vposition=third(cy, height, "vposition"),
    )


class Detector(Protocol):
    """Finds objects of the given classes in an image."""

    def detect(self, image: Any, classes: Sequence[str], cache: ImageCache) -> list[Detection]: ...


@dataclass(frozen=True)
class DetectorSettings:
    """Detection thresholds and caps."""

    threshold: float = 0.1
    max_per_query: int = 5
    nms_iou: float = 0.5
    # boxes of different queries overlapping this much are one object
    merge_iou: float = 0.7
    max_detections: int = 50
    # boxes narrower or lower than this many pixels are not objects
    min_box_side: float = 2.0
    prompt: str = "a photo of a {}"


def nms(boxes: Sequence[Box], scores: Sequence[float], iou: float, limit: int | None = None) -> list[int]:
    """Indices of the boxes kept by greedy non-maximum suppression, best first."""
    # Hand-written: torchvision's nms does not load beside the pinned CPU torch, and the box counts
    # here (a few hundred patches per query) make the quadratic loop cheap.
    order = sorted(range(len(boxes)), key=lambda i: -scores[i])
    kept: list[int] = []
    for i in order:
        if limit is not None and len(kept) >= limit:
            break
        if all(boxes[i].iou(boxes[j]) <= iou for j in kept):
            kept.append(i)
    return kept


def merge_queries(
    candidates: Iterable[tuple[Box, str, float]], merge_iou: float, limit: int
) -> list[tuple[Box, dict[str, float]]]:
    """Group (box, class, score) candidates whose boxes overlap by more than `merge_iou`, best first."""
    groups: list[tuple[Box, dict[str, float]]] = []
    for box, name, score in sorted(candidates, key=lambda c: -c[2]):
        for group_box, labels in groups:
            if group_box.iou(box) > merge_iou:
                labels[name] = max(labels.get(name, 0.0), score)
                break
        else:
            if len(groups) < limit:
                groups.append((box, {name: score}))
    return groups


def _clip(value: float, limit: float) -> float:
    return min(max(value, 0.0), float(limit))


def _smaller_side(box: Box) -> float:
    return min(box.x1 - box.x0, box.y1 - box.y0)


def pooled_output(output: Any) -> Any:
    # transformers 5 returns a model output, earlier releases a tensor.
    return output if hasattr(output, "dim") else output.pooler_output


class OwlViTDetector:
    """OWL-ViT / OWLv2 through transformers, with the image encoding cached per image."""

    def __init__(
        self, loaded: LoadedModel, settings: DetectorSettings | None = None, taxonomy: Taxonomy | None = None
    ) -> None:
        self.processor = loaded.processor
        self.model = loaded.model
        self.settings = settings or DetectorSettings()
        self.taxonomy = taxonomy
        self._text_cache: dict[str, Tensor] = {}
        self._max_text = int(getattr(self.model.config.text_config, "max_position_embeddings", 16))
        # seconds spent so far: detector_image (image encodings), detector_queries (text, heads, NMS)
        self.timings: dict[str, float] = {}
        # OWLv2 pads the image to a square before resizing, so its boxes are relative to that square.
        self._square = self.model.config.model_type == "owlv2"

    def _features(self, image: Any, cache: ImageCache) -> tuple[Tensor, Tensor]:
        if cache.detector_features is None:
            import torch

            pixels = self.processor.image_processor(images=image, return_tensors="pt")["pixel_values"]
            pixels = pixels.to(self.model.device)
            with torch.inference_mode():
                feature_map = self.model.image_embedder(pixel_values=pixels)[0]
                b, h, w, d = feature_map.shape
                feats = feature_map.reshape(b, h * w, d)
                boxes = self.model.box_predictor(feats, feature_map)
            cache.detector_features = (feats, boxes[0])
        return cache.detector_features

    def text_embeddings(self, classes: Sequence[str]) -> Tensor:
        """Query embeddings of the classes, one row each (cached by class)."""
        import torch

        missing = [c for c in dict.fromkeys(classes) if c not in self._text_cache]
        if missing:
            prompts = [self.settings.prompt.format(c.replace("_", " ")) for c in missing]
            tokens = self.processor.tokenizer(
                prompts, padding="max_length", truncation=True, max_length=self._max_text, return_tensors="pt"
            ).to(self.model.device)
            with torch.inference_mode():
                embeds = pooled_output(
                    self.model.owlvit.get_text_features(
                        input_ids=tokens["input_ids"], attention_mask=tokens["attention_mask"]
                    )
                    if hasattr(self.model, "owlvit")
                    else self.model.owlv2.get_text_features(
                        input_ids=tokens["input_ids"], attention_mask=tokens["attention_mask"]
                    )
                )
            for name, row in zip(missing, embeds):
                self._text_cache[name] = row
        return torch.stack([self._text_cache[c] for c in classes])

    def scores(self, image: Any, classes: Sequence[str], cache: ImageCache) -> tuple[list[Box], Tensor]:
        """Every candidate box in pixels and its score per class (patches x classes, in [0, 1])."""
        import torch

        feats, norm_boxes = self._features(image, cache)
        queries = self.text_embeddings(classes)
        with torch.inference_mode():
            logits = self.model.class_predictor(feats, queries[None], None)[0][0]
        if cache.detector_boxes is None:
            width, height = image.size
            sx, sy = (max(width, height),) * 2 if self._square else (width, height)
            boxes = []
            for cx, cy, w, h in norm_boxes.tolist():
                x0, y0, x1, y1 = (cx - w / 2) * sx, (cy - h / 2) * sy, (cx + w / 2) * sx, (cy + h / 2) * sy
                boxes.append(Box(_clip(x0, width), _clip(y0, height), _clip(x1, width), _clip(y1, height)))
            cache.detector_boxes = boxes
        return cache.detector_boxes, torch.sigmoid(logits)

    def detect(
        self,
        image: Any,
        classes: Sequence[str],
        cache: ImageCache,
        timings: MutableMapping[str, float] | None = None,
    ) -> list[Detection]:
        """Detections of `classes` in a PIL image, best first, ids from 1."""
        classes = list(dict.fromkeys(asp_constant(c) for c in classes))
        if not classes:
            return []
        started = time.perf_counter()
        had_features = cache.detector_features is not None
        self._features(image, cache)
        encoded = time.perf_counter()
        boxes, scores = self.scores(image, classes, cache)
        s = self.settings
        candidates: list[tuple[Box, str, float]] = []
        for q, name in enumerate(classes):
            column = scores[:, q].tolist()
            above = [i for i, p in enumerate(column) if p >= s.threshold and _smaller_side(boxes[i]) >= s.min_box_side]
            for i in nms([boxes[i] for i in above], [column[i] for i in above], s.nms_iou, s.max_per_query):
                candidates.append((boxes[above[i]], name, column[above[i]]))
        groups = merge_queries(candidates, s.merge_iou, s.max_detections)
        detections = [
            make_detection(n, box, labels, image.size, self.taxonomy) for n, (box, labels) in enumerate(groups, 1)
        ]
        for target in (self.timings, timings):
            if target is None:
                continue
            if not had_features:
                target["detector_image"] = target.get("detector_image", 0.0) + encoded - started
            target["detector_queries"] = target.get("detector_queries", 0.0) + time.perf_counter() - encoded
        return detections
