"""Detection: boxes, positions, suppression, most specific class, and OWL-ViT on real images."""

from __future__ import annotations

from pathlib import Path

import pytest

from scene.boxes import Box
from scene.detector import DetectorSettings, make_detection, merge_queries, nms
from scene.image_cache import ImageCache
from scene.positions import third
from tests.support import GQA_DIR, DictTaxonomy

IMAGES = sorted((GQA_DIR / "images").glob("*.jpg")) if (GQA_DIR / "images").is_dir() else []


TAXONOMY = DictTaxonomy({"animal": {"dog", "cat"}, "pet": {"dog", "cat"}, "vehicle": {"car"}})


def test_box_geometry() -> None:
    a, b = Box(0, 0, 10, 10), Box(5, 0, 15, 10)
    assert a.area == 100 and a.center == (5, 5)
    assert a.iou(b) == pytest.approx(50 / 150)
    assert a.iou(Box(20, 20, 30, 30)) == 0.0
    assert a.union(b) == Box(0, 0, 15, 10)


def test_thirds() -> None:
    # The one thirds rule (scene.positions): a centre exactly on 2/3 is in the middle, as on 1/3.
    assert [third(x, 90, "hposition") for x in (0, 29.9, 30, 59.9, 60, 60.1, 90)] == [
        "left",
        "left",
        "middle",
        "middle",
        "middle",
        "right",
        "right",
    ]


def test_nms_keeps_the_best_of_overlapping_boxes() -> None:
    boxes = [Box(0, 0, 10, 10), Box(1, 1, 10, 10), Box(50, 50, 60, 60), Box(0, 0, 9, 10)]
    assert nms(boxes, [0.5, 0.9, 0.3, 0.8], iou=0.5) == [1, 2]
    assert nms(boxes, [0.5, 0.9, 0.3, 0.8], iou=0.5, limit=1) == [1]


def test_merge_queries_joins_one_box_found_by_two_classes() -> None:
    groups = merge_queries(
        [(Box(0, 0, 10, 10), "dog", 0.6), (Box(0, 0, 10, 10), "cat", 0.3), (Box(40, 40, 50, 50), "cat", 0.5)], 0.7, 10
    )
    assert groups == [(Box(0, 0, 10, 10), {"dog": 0.6, "cat": 0.3}), (Box(40, 40, 50, 50), {"cat": 0.5})]


def test_the_most_specific_class_wins_over_its_category() -> None:
    d = make_detection(1, Box(0, 0, 30, 30), {"animal": 0.8, "dog": 0.4}, (90, 90), TAXONOMY)
    assert d.label == "dog" and d.score == 0.8
    assert d.categories == {"animal", "pet"} and d.classes == {"dog", "animal", "pet"}
    assert d.alternatives == {}
    assert (d.hposition, d.vposition) == ("left", "top")


def test_unrelated_classes_of_one_box_become_alternatives() -> None:
    d = make_detection(2, Box(60, 30, 90, 60), {"dog": 0.4, "cat": 0.7, "tennis racket": 0.1}, (90, 90), TAXONOMY)
    assert d.label == "cat"
    assert d.alternatives == {"dog": 0.4, "tennis_racket": 0.1}
    assert d.alternative_categories["dog"] == {"animal", "pet"}
    assert (d.hposition, d.vposition) == ("right", "middle")


# --- OWL-ViT with tiny random weights on real images ------------------------------------------------


@pytest.fixture(scope="module")
def detector():  # type: ignore[no-untyped-def]
    pytest.importorskip("transformers")
    import tempfile

    from scene.detector import OwlViTDetector
    from scene.models import load_detector, write_tiny_models

    with tempfile.TemporaryDirectory() as tmp:
        detector_dir, _ = write_tiny_models(tmp)
        yield OwlViTDetector(load_detector(detector_dir), DetectorSettings(threshold=0.05, max_per_query=4), TAXONOMY)


@pytest.mark.skipif(not IMAGES, reason=f"GQA images not found at {GQA_DIR}")
@pytest.mark.parametrize("path", IMAGES[:4], ids=lambda p: p.stem)
def test_owlvit_detections_on_real_images(detector, path: Path) -> None:  # type: ignore[no-untyped-def]
    from scene.image_scene import load_image

    image = load_image(path)
    width, height = image.size
    classes = ["man", "dog", "car", "table"]
    detections = detector.detect(image, classes, ImageCache())
    assert detections, "the tiny model scores every patch; some pass a 0.05 threshold"
    assert len(detections) <= len(classes) * detector.settings.max_per_query
    assert [d.id for d in detections] == list(range(1, len(detections) + 1))
    for d in detections:
        assert 0 <= d.box.x0 < d.box.x1 <= width and 0 <= d.box.y0 < d.box.y1 <= height
        assert 0.0 <= d.score <= 1.0 and d.score >= detector.settings.threshold
        assert d.label in classes
        assert d.hposition == third(d.box.center[0], width, "hposition")
        assert d.vposition == third(d.box.center[1], height, "vposition")
        assert d.categories == TAXONOMY.categories_of(d.label)
    for a in detections:
        for b in detections:
            if a.id < b.id:
                assert a.box.iou(b.box) <= detector.settings.merge_iou


@pytest.mark.skipif(not IMAGES, reason=f"GQA images not found at {GQA_DIR}")
def test_scores_match_the_models_own_forward_pass(detector) -> None:  # type: ignore[no-untyped-def]
    import torch

    from scene.image_scene import load_image

    image = load_image(IMAGES[0])
    classes = ["man", "dog"]
    _, scores = detector.scores(image, classes, ImageCache())
    inputs = detector.processor(
        text=[[f"a photo of a {c}" for c in classes]],
        images=image,
        return_tensors="pt",
        padding="max_length",
        max_length=16,
        truncation=True,
    )
    with torch.inference_mode():
        reference = torch.sigmoid(detector.model(**inputs).logits[0])
    assert torch.allclose(scores, reference, atol=1e-4)


@pytest.mark.skipif(not IMAGES, reason=f"GQA images not found at {GQA_DIR}")
def test_the_image_is_encoded_once_per_cache(detector) -> None:  # type: ignore[no-untyped-def]
    from scene.image_scene import load_image

    image = load_image(IMAGES[1])
    cache = ImageCache()
    first: dict[str, float] = {}
    second: dict[str, float] = {}
    a = detector.detect(image, ["man"], cache, first)
    b = detector.detect(image, ["man", "car"], cache, second)
    assert "detector_image" in first and "detector_image" not in second
    assert {d.box for d in a if d.label == "man"} <= {d.box for d in b} | {d.box for d in a}
    assert detector.detect(image, [], cache) == []
