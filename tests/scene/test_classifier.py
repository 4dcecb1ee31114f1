"""CLIP likelihoods: the target-vs-neutral formula, pair selection, batching and caching."""

from __future__ import annotations

import math
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scene.boxes import Box
from scene.classifier import ClassifierSettings, candidate_pairs, pair_likelihood
from scene.concepts import RelationQuery
from scene.detector import Detection
from scene.image_cache import ImageCache
from scene.likelihoods import AttributeLikelihood, RelationLikelihood
from tests.support import GQA_DIR

IMAGES = sorted((GQA_DIR / "images").glob("*.jpg")) if (GQA_DIR / "images").is_dir() else []

FINITE = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False)


def by_key(
    items: list[AttributeLikelihood] | list[RelationLikelihood],
) -> dict[tuple[int, str, str] | tuple[int, str, int], float]:
    return {item.key: item.likelihood for item in items}


@given(FINITE, FINITE)
def test_pair_likelihood_is_a_two_way_softmax(t: float, n: float) -> None:
    p = pair_likelihood(t, n)
    assert 0.0 <= p <= 1.0
    assert p + pair_likelihood(n, t) == pytest.approx(1.0)
    m = max(t, n)
    assert p == pytest.approx(math.exp(t - m) / (math.exp(t - m) + math.exp(n - m)), abs=1e-12)


def test_pair_likelihood_values() -> None:
    assert pair_likelihood(3.0, 3.0) == 0.5
    assert pair_likelihood(2.0, 1.0) == pytest.approx(math.e / (math.e + 1))
    assert pair_likelihood(-1e6, 1e6) < 1e-300 and pair_likelihood(1e6, -1e6) == 1.0


def _detection(id: int, label: str, score: float, categories: frozenset[str] = frozenset()) -> Detection:
    return Detection(id, Box(10 * id, 10, 10 * id + 20, 40), label, score, categories)


def test_candidate_pairs_follow_the_relation_classes() -> None:
    man, horse, dog = (
        _detection(1, "man", 0.9),
        _detection(2, "horse", 0.8),
        _detection(3, "dog", 0.5, frozenset({"animal"})),
    )
    pairs = candidate_pairs(
        [man, horse, dog], [RelationQuery("man", "riding", "animal"), RelationQuery(None, "near", "man")], 10
    )
    assert {(a.id, r, b.id) for a, r, b in pairs} == {(1, "riding", 3), (2, "near", 1), (3, "near", 1)}
    assert [(a.id, b.id) for a, _, b in candidate_pairs([man, horse, dog], [RelationQuery(None, "near", None)], 2)] == [
        (1, 2),
        (2, 1),
    ]


@pytest.fixture(scope="module")
def classifier():  # type: ignore[no-untyped-def]
    pytest.importorskip("transformers")
    from scene.classifier import ClipClassifier
    from scene.models import load_classifier, write_tiny_models

    with tempfile.TemporaryDirectory() as tmp:
        _, classifier_dir = write_tiny_models(tmp)
        yield ClipClassifier(load_classifier(classifier_dir))


@pytest.fixture(scope="module")
def image():  # type: ignore[no-untyped-def]
    if not IMAGES:
        pytest.skip(f"GQA images not found at {GQA_DIR}")
    from scene.image_scene import load_image

    return load_image(IMAGES[0])


def _objects(image) -> list[Detection]:  # type: ignore[no-untyped-def]
    w, h = image.size
    return [
        Detection(1, Box(0, 0, w / 2, h / 2), "man", 0.9),
        Detection(2, Box(w / 3, h / 3, w, h), "horse", 0.7),
        Detection(3, Box(w - 5, h - 5, w, h), "tennis_racket", 0.4),
    ]


def test_attribute_likelihoods_on_a_real_image(classifier, image) -> None:  # type: ignore[no-untyped-def]
    detections = _objects(image)
    attributes = {"color": {"red", "dark_blue"}, "material": {"wood"}}
    result = by_key(classifier.attribute_likelihoods(image, detections, attributes, ImageCache()))
    assert set(result) == {(d.id, c, v) for d in detections for c, vs in attributes.items() for v in vs}
    assert all(0.0 <= p <= 1.0 for p in result.values())


def test_likelihood_is_the_clip_softmax_of_target_and_neutral(classifier, image) -> None:  # type: ignore[no-untyped-def]
    import torch

    detection = _objects(image)[0]
    [red] = classifier.attribute_likelihoods(image, [detection], {"color": {"red"}}, ImageCache())
    assert red.key == (1, "color", "red")
    p = red.likelihood
    crop = classifier._crop(image, detection.box)
    inputs = classifier.processor(
        text=["a photo of a red man", "a photo of a man"], images=[crop], return_tensors="pt", padding=True
    )
    with torch.inference_mode():
        logits = classifier.model(**inputs).logits_per_image[0]
    expected = torch.softmax(logits, dim=0)[0].item()
    assert p == pytest.approx(expected, abs=1e-4)


def test_relation_likelihoods_use_the_allowed_pairs(classifier, image) -> None:  # type: ignore[no-untyped-def]
    detections = _objects(image)
    queries = [RelationQuery("man", "riding", "horse")]
    result = by_key(classifier.relation_likelihoods(image, detections, queries, ImageCache()))
    assert list(result) == [(1, "riding", 2)]
    assert 0.0 <= result[(1, "riding", 2)] <= 1.0


def test_batch_size_does_not_change_results_and_crops_are_cached(classifier, image) -> None:  # type: ignore[no-untyped-def]
    from scene.classifier import ClipClassifier
    from scene.models import LoadedModel

    detections = _objects(image)
    attributes = {"color": {"red", "blue", "white"}}
    cache = ImageCache()
    big = by_key(classifier.attribute_likelihoods(image, detections, attributes, cache))
    assert len(cache.crop_embeddings) == len(detections)
    single = ClipClassifier(
        LoadedModel(classifier.processor, classifier.model, "same"), ClassifierSettings(batch_size=1)
    )
    small = by_key(single.attribute_likelihoods(image, detections, attributes, ImageCache()))
    assert small.keys() == big.keys()
    assert all(small[k] == pytest.approx(big[k], abs=1e-5) for k in big)
    classifier.attribute_likelihoods(image, detections, {"material": {"wood"}}, cache)
    assert len(cache.crop_embeddings) == len(detections)
