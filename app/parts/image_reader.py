"""Images into weighted scenes: OWL-ViT and CLIP asked for a program's concepts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.outcomes import Detected, PerceptionReport, SceneReading
from scene.concepts import concepts_from_program
from theory import Program

if TYPE_CHECKING:
    from scene.detector import Detection
    from scene.image_scene import ImageSceneBuilder
    from scene.taxonomy import Taxonomy


def detected(found: Detection) -> Detected:
    """A detection as the answer reports it (scores to 4 places, box to a tenth of a pixel)."""
    box = found.box
    return Detected(
        id=found.id,
        label=found.label,
        score=round(float(found.score), 4),
        box=(round(float(box.x0), 1), round(float(box.y0), 1), round(float(box.x1), 1), round(float(box.y1), 1)),
        categories=tuple(sorted(found.categories)),
        hposition=found.hposition,
        vposition=found.vposition,
    )


class ImageSceneReader:
    """The service's `ImageReader` on the detector path."""

    def __init__(self, builder: ImageSceneBuilder, taxonomy: Taxonomy) -> None:
        self.builder = builder
        self.taxonomy = taxonomy

    def __call__(self, image: bytes, program: Program) -> SceneReading:
        result = self.builder.build(image, concepts_from_program(program, self.taxonomy))
        detections = tuple(detected(d) for d in result.detections)
        return SceneReading(result.scene, detections, result.timings, PerceptionReport("detector"))
