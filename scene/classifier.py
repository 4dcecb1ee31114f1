"""Attribute and relation likelihoods with CLIP: a target prompt against a neutral prompt.

For an object crop (for a pair, the union of the two boxes) CLIP scores a target prompt ("a photo
of a red ball") and a neutral one ("a photo of a ball"); the likelihood is
``P = e^t / (e^t + e^n)`` of the two scaled similarities. Crops are embedded in batches and kept in
the per-image cache; prompt embeddings are kept across images.

Example:
    >>> classifier = ClipClassifier(load_classifier("/models/clip"))                      # doctest: +SKIP
    >>> classifier.attribute_likelihoods(image, detections, {"color": {"red"}}, ImageCache())  # doctest: +SKIP
    [AttributeLikelihood(object_id=1, category='color', value='red', likelihood=0.71)]
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from scene.boxes import Box
from scene.concepts import RelationQuery
from scene.detector import Detection, pooled_output
from scene.image_cache import ImageCache
from scene.likelihoods import AttributeKey, AttributeLikelihood, RelationKey, RelationLikelihood
from scene.models import LoadedModel

if TYPE_CHECKING:
    from torch import Tensor

__all__ = ["AttributeKey", "RelationKey", "Classifier", "ClipClassifier", "ClassifierSettings", "candidate_pairs"]


def pair_likelihood(target: float, neutral: float) -> float:
    """``e^t / (e^t + e^n)``, computed stably."""
    return 1.0 / (1.0 + math.exp(min(neutral - target, 700.0)))


class Classifier(Protocol):
    """Scores attributes of detected objects and relations between them."""

    def attribute_likelihoods(
        self,
        image: Any,
        detections: Sequence[Detection],
        attributes: Mapping[str, Iterable[str]],
        cache: ImageCache,
    ) -> list[AttributeLikelihood]: ...

    def relation_likelihoods(
        self,
        image: Any,
        detections: Sequence[Detection],
        relations: Iterable[RelationQuery],
        cache: ImageCache,
    ) -> list[RelationLikelihood]: ...


def candidate_pairs(
    detections: Sequence[Detection], relations: Iterable[RelationQuery], limit: int
) -> list[tuple[Detection, str, Detection]]:
    """(subject, relation, object) triples whose classes fit the relation queries, likeliest objects first."""
    triples: dict[tuple[int, str, int], tuple[Detection, str, Detection]] = {}
    for query in sorted(relations, key=lambda r: (r.relation, r.subject or "", r.object or "")):
        subjects = [
            d
            for d in detections
            if query.subject is None or query.subject in d.classes or query.subject in d.alternatives
        ]
        objects = [
            d for d in detections if query.object is None or query.object in d.classes or query.object in d.alternatives
        ]
        for s in subjects:
            for o in objects:
                if s.id != o.id:
                    triples.setdefault((s.id, query.relation, o.id), (s, query.relation, o))
    ranked = sorted(triples.values(), key=lambda t: (-t[0].score * t[2].score, t[0].id, t[1], t[2].id))
    return ranked[:limit]


def _words(name: str) -> str:
    return name.replace("_", " ")


@dataclass(frozen=True)
class ClassifierSettings:
    """Prompts, crop margin and batch size."""

    attribute_prompt: str = "a photo of a {value} {name}"
    attribute_neutral: str = "a photo of a {name}"
    relation_prompt: str = "a photo of a {subject} {relation} a {object}"
    relation_neutral: str = "a photo of a {subject} and a {object}"
    # context around a crop, as a fraction of the box's size on each side
    margin: float = 0.1
    batch_size: int = 32
    max_pairs: int = 200


class ClipClassifier:
    """CLIP through transformers; crop embeddings cached per image, prompt embeddings per prompt."""

    def __init__(self, loaded: LoadedModel, settings: ClassifierSettings | None = None) -> None:
        self.processor = loaded.processor
        self.model = loaded.model
        self.settings = settings or ClassifierSettings()
        self._text_cache: dict[str, Tensor] = {}
        self._max_text = int(getattr(self.model.config.text_config, "max_position_embeddings", 77))
        self.timings: dict[str, float] = {}

    @property
    def scale(self) -> float:
        return float(self.model.logit_scale.detach().exp())

    def _crop(self, image: Any, box: Box) -> Any:
        width, height = image.size
        mx = (box.x1 - box.x0) * self.settings.margin
        my = (box.y1 - box.y0) * self.settings.margin
        x0, y0 = max(0, math.floor(box.x0 - mx)), max(0, math.floor(box.y0 - my))
        x1, y1 = min(width, math.ceil(box.x1 + mx)), min(height, math.ceil(box.y1 + my))
        return image.crop((x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)))

    def crop_embeddings(self, image: Any, boxes: Sequence[Box], cache: ImageCache) -> Tensor:
        """Unit-length CLIP embeddings of the crops, one row per box (batched, cached per box)."""
        import torch

        store = cache.crop_embeddings
        keys = [b.key() for b in boxes]
        missing = list(dict.fromkeys(k for k in keys if k not in store))
        started = time.perf_counter()
        for start in range(0, len(missing), self.settings.batch_size):
            chunk = missing[start : start + self.settings.batch_size]
            crops = [self._crop(image, Box(*k)) for k in chunk]
            pixels = self.processor.image_processor(images=crops, return_tensors="pt")["pixel_values"]
            pixels = pixels.to(self.model.device)
            with torch.inference_mode():
                embeds = pooled_output(self.model.get_image_features(pixel_values=pixels))
            embeds = embeds / embeds.norm(dim=-1, keepdim=True)
            for k, row in zip(chunk, embeds):
                store[k] = row
        self.timings["classifier_crops"] = self.timings.get("classifier_crops", 0.0) + time.perf_counter() - started
        if not keys:
            return torch.zeros((0, 1), device=self.model.device)
        return torch.stack([store[k] for k in keys])

    def text_embeddings(self, prompts: Sequence[str]) -> Tensor:
        """Unit-length CLIP embeddings of the prompts (batched, cached per prompt)."""
        import torch

        started = time.perf_counter()
        missing = [p for p in dict.fromkeys(prompts) if p not in self._text_cache]
        for start in range(0, len(missing), self.settings.batch_size):
            chunk = missing[start : start + self.settings.batch_size]
            tokens = self.processor.tokenizer(
                chunk, padding=True, truncation=True, max_length=self._max_text, return_tensors="pt"
            ).to(self.model.device)
            with torch.inference_mode():
                embeds = pooled_output(
                    self.model.get_text_features(input_ids=tokens["input_ids"], attention_mask=tokens["attention_mask"])
                )
            embeds = embeds / embeds.norm(dim=-1, keepdim=True)
            for p, row in zip(chunk, embeds):
                self._text_cache[p] = row
        self.timings["classifier_text"] = self.timings.get("classifier_text", 0.0) + time.perf_counter() - started
        return torch.stack([self._text_cache[p] for p in prompts])

    def _likelihoods(self, crops: Tensor, targets: Sequence[str], neutrals: Sequence[str]) -> list[float]:
        """Row i: P(target i vs neutral i) on crop i."""
        if not targets:
            return []
        t = (crops * self.text_embeddings(targets)).sum(-1) * self.scale
        n = (crops * self.text_embeddings(neutrals)).sum(-1) * self.scale
        return [pair_likelihood(a, b) for a, b in zip(t.tolist(), n.tolist())]

    def attribute_likelihoods(
        self,
        image: Any,
        detections: Sequence[Detection],
        attributes: Mapping[str, Iterable[str]],
        cache: ImageCache,
    ) -> list[AttributeLikelihood]:
        """P(value) for every detection, category and value."""
        s = self.settings
        pairs = [(c, v) for c in sorted(attributes) for v in sorted(attributes[c])]
        rows = [(d, c, v) for d in detections for c, v in pairs]
        if not rows:
            return []
        crops = self.crop_embeddings(image, [d.box for d, _, _ in rows], cache)
        targets = [s.attribute_prompt.format(value=_words(v), name=_words(d.label)) for d, _, v in rows]
        neutrals = [s.attribute_neutral.format(name=_words(d.label)) for d, _, _ in rows]
        likelihoods = self._likelihoods(crops, targets, neutrals)
        return [AttributeLikelihood(d.id, c, v, p) for (d, c, v), p in zip(rows, likelihoods)]

    def relation_likelihoods(
        self,
        image: Any,
        detections: Sequence[Detection],
        relations: Iterable[RelationQuery],
        cache: ImageCache,
    ) -> list[RelationLikelihood]:
        """P(subject relation object) on the union box, for the pairs the relation queries allow."""
        s = self.settings
        triples = candidate_pairs(detections, relations, s.max_pairs)
        if not triples:
            return []
        crops = self.crop_embeddings(image, [a.box.union(b.box) for a, _, b in triples], cache)
        targets = [
            s.relation_prompt.format(subject=_words(a.label), relation=_words(r), object=_words(b.label))
            for a, r, b in triples
        ]
        neutrals = [s.relation_neutral.format(subject=_words(a.label), object=_words(b.label)) for a, _, b in triples]
        likelihoods = self._likelihoods(crops, targets, neutrals)
        return [RelationLikelihood(a.id, r, b.id, p) for (a, r, b), p in zip(triples, likelihoods)]
