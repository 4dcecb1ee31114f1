"""Image + concepts -> weighted scene, with the per-image cache shared by several questions."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from scene.boxes import Box
from scene.concepts import RelationQuery, concepts_from_program
from scene.detector import Detection
from scene.image_cache import ImageCache
from scene.image_scene import ImageSceneBuilder
from scene.likelihoods import AttributeLikelihood, RelationLikelihood
from tests.support import GQA_DIR
from theory import SceneFacts, SolveStatus, solve
from theory.flat import parse_flat

IMAGES = sorted((GQA_DIR / "images").glob("*.jpg")) if (GQA_DIR / "images").is_dir() else []
COLORS = {"color": ["red", "blue", "green"]}


class ScriptedDetector:
    """Returns fixed detections for the requested classes and counts image encodings."""

    def __init__(self, detections: list[Detection]) -> None:
        self.detections = detections
        self.encodings = 0

    def detect(self, image: Any, classes: Sequence[str], cache: ImageCache) -> list[Detection]:
        if "encoded" not in cache.other:
            cache.other["encoded"] = True
            self.encodings += 1
        return [d for d in self.detections if d.label in classes]


class ScriptedClassifier:
    """Fixed likelihoods; counts the objects whose crops it had to embed."""

    def __init__(
        self, attributes: dict[tuple[int, str, str], float], relations: dict[tuple[int, str, int], float]
    ) -> None:
        self.attributes = attributes
        self.relations = relations
        self.embedded = 0

    def attribute_likelihoods(
        self,
        image: Any,
        detections: Sequence[Detection],
        attributes: Mapping[str, Iterable[str]],
        cache: ImageCache,
    ) -> list[AttributeLikelihood]:
        seen = cache.other.setdefault("crops", set())
        assert isinstance(seen, set)
        self.embedded += len({d.id for d in detections} - seen)
        seen.update(d.id for d in detections)
        wanted = {(c, v) for c, vs in attributes.items() for v in vs}
        ids = {d.id for d in detections}
        return [
            AttributeLikelihood(*k, p) for k, p in self.attributes.items() if k[0] in ids and (k[1], k[2]) in wanted
        ]

    def relation_likelihoods(
        self,
        image: Any,
        detections: Sequence[Detection],
        relations: Iterable[RelationQuery],
        cache: ImageCache,
    ) -> list[RelationLikelihood]:
        names = {r.relation for r in relations}
        return [RelationLikelihood(*k, p) for k, p in self.relations.items() if k[1] in names]


def _image():  # type: ignore[no-untyped-def]
    from PIL import Image

    return Image.new("RGB", (90, 60), (120, 30, 30))


def _builder() -> ImageSceneBuilder:
    detector = ScriptedDetector(
        [
            Detection(1, Box(0, 0, 20, 20), "ball", 0.85, hposition="left", vposition="top"),
            Detection(2, Box(60, 30, 80, 50), "ball", 0.3, hposition="right", vposition="bottom"),
            Detection(3, Box(30, 30, 50, 60), "dog", 0.9, hposition="middle", vposition="bottom"),
        ]
    )
    classifier = ScriptedClassifier(
        {(1, "color", "red"): 0.9, (1, "color", "blue"): 0.05, (2, "color", "blue"): 0.9, (2, "color", "red"): 0.05},
        {(3, "near", 1): 0.2, (3, "near", 2): 0.9},
    )
    return ImageSceneBuilder(detector, classifier)


def _answers(program: str, scene: SceneFacts) -> list[str]:
    result = solve(program, scene)
    assert result.status is SolveStatus.OK, result.message
    return [a.answer for a in result.answers]


def test_unsure_detector_ranks_the_likelier_object_first() -> None:
    builder = _builder()
    program = parse_flat("scene(0). select(1,0,ball). unique(2,1). query(3,2,color). end(3).")
    result = builder.build(_image(), concepts_from_program(program, attributes=COLORS))
    assert [d.label for d in result.detections] == ["ball", "ball"]
    assert _answers(program, result.scene) == ["red", "blue"]


def test_relation_evidence_can_outweigh_detection_confidence() -> None:
    builder = _builder()
    program = parse_flat(
        "scene(0). select(1,0,dog). relate(2,1,ball,near,object). unique(3,2). query(4,3,color). end(4)."
    )
    result = builder.build(_image(), concepts_from_program(program, attributes=COLORS))
    assert _answers(program, result.scene) == ["blue", "red"]


def test_questions_about_one_image_share_the_cache() -> None:
    builder = _builder()
    image = _image()
    q1 = concepts_from_program(
        parse_flat("scene(0). select(1,0,ball). unique(2,1). query(3,2,color). end(3)."), attributes=COLORS
    )
    q2 = concepts_from_program(parse_flat("scene(0). select(1,0,ball). filter(2,1,color,red). exist(3,2). end(3)."))
    first = builder.build(image, q1)
    second = builder.build(image.copy(), q2)
    assert not first.cached_image and second.cached_image
    assert builder.detector.encodings == 1 and builder.classifier.embedded == 2
    builder.build(_image().resize((30, 20)), q2)
    assert builder.detector.encodings == 2
    assert set(first.timings) == {"load", "detect", "attributes", "relations", "facts"}


def test_the_cache_is_bounded() -> None:
    from PIL import Image

    builder = _builder()
    builder.cache_size = 2
    concepts = concepts_from_program(parse_flat("scene(0). select(1,0,ball). exist(2,1). end(2)."))
    for shade in (10, 20, 30, 10):
        builder.build(Image.new("RGB", (8, 8), (shade, 0, 0)), concepts)
    assert builder.detector.encodings == 4  # the first image had been evicted


# --- tiny random OWL-ViT and CLIP, end to end on real images ------------------------------------------


@pytest.fixture(scope="module")
def real_builder():  # type: ignore[no-untyped-def]
    pytest.importorskip("transformers")
    from scene.classifier import ClipClassifier
    from scene.detector import DetectorSettings, OwlViTDetector
    from scene.models import load_classifier, load_detector, write_tiny_models

    with tempfile.TemporaryDirectory() as tmp:
        detector_dir, classifier_dir = write_tiny_models(tmp)
        yield ImageSceneBuilder(
            OwlViTDetector(load_detector(detector_dir), DetectorSettings(threshold=0.05, max_per_query=3)),
            ClipClassifier(load_classifier(classifier_dir)),
        )


@pytest.mark.skipif(not IMAGES, reason=f"GQA images not found at {GQA_DIR}")
@pytest.mark.parametrize("path", IMAGES[:3], ids=lambda p: p.stem)
def test_tiny_models_give_scenes_clingo_accepts(real_builder, path: Path) -> None:  # type: ignore[no-untyped-def]
    program = parse_flat(
        "scene(0). select(1,0,man). relate(2,1,horse,riding,object). unique(3,2). query(4,3,color). end(4)."
    )
    result = real_builder.build(path, concepts_from_program(program, attributes=COLORS))
    assert result.detections
    assert all(0.0 <= f.likelihood <= 1.0 for f in [*result.attributes, *result.relations])
    assert SceneFacts.from_asp(result.scene.to_asp()).to_asp() == result.scene.to_asp()
    solved = solve(program, result.scene)
    assert solved.status in (SolveStatus.OK, SolveStatus.NO_ANSWER), solved.message
    if solved.status is SolveStatus.OK:
        assert {a.answer for a in solved.answers} <= {"red", "blue", "green"}
        costs = [a.cost for a in solved.answers]
        assert costs == sorted(costs)
    again = real_builder.build(path, concepts_from_program(program, attributes={"color": ["red"]}))
    assert again.cached_image
    assert again.detections == result.detections
