"""Building the pipeline's heavy parts from `Settings`, each with a plain message when it cannot load."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Mapping

from app.config import Settings
from app.pipeline import ImageScene, PipelineError
from theory import Program, SceneFacts

if TYPE_CHECKING:
    from app.pipeline import Pipeline


@lru_cache(maxsize=4)
def taxonomy_for(taxonomy_dir: str | None) -> Any:
    """The curated taxonomy in `taxonomy_dir`, else WordNet (loaded once per process)."""
    from scene.taxonomy import load_taxonomy

    if taxonomy_dir:
        try:
            return load_taxonomy(taxonomy_dir)
        except (OSError, ValueError) as exc:
            raise PipelineError("model_unavailable", f"taxonomy in {taxonomy_dir} (ASPVQA_TAXONOMY_DIR): {exc}") from None
    try:
        taxonomy = load_taxonomy()
        taxonomy.wordnet  # loads now, so a missing WordNet is reported here and not mid-request
        return taxonomy
    except Exception as exc:  # the WordNet loader's own error names the fix
        raise PipelineError("model_unavailable", f"WordNet: {exc}") from None


def build_scene_graph_encoder(settings: Settings) -> Callable[[Mapping[str, Any], Program], SceneFacts]:
    """GQA scene graph -> perfect-information facts, restricted to the program's concepts."""
    from scene.scene_graph import program_concepts, scene_graph_facts

    taxonomy = taxonomy_for(settings.taxonomy_dir)

    def encode(graph: Mapping[str, Any], program: Program) -> SceneFacts:
        if not isinstance(graph, Mapping):
            raise ValueError("a scene graph is a JSON object with 'objects'")
        return scene_graph_facts(graph, taxonomy=taxonomy, concepts=program_concepts(program))

    return encode


def image_scene_builder(settings: Settings) -> Any:
    """A `scene.image_scene.ImageSceneBuilder` with OWL-ViT and CLIP from the configured weights."""
    from scene.classifier import ClipClassifier
    from scene.detector import OwlViTDetector
    from scene.image_scene import ImageSceneBuilder
    from scene.models import ModelNotAvailableError, load_classifier, load_detector

    try:
        taxonomy = taxonomy_for(settings.taxonomy_dir)
        detector = OwlViTDetector(load_detector(settings.detector_model, settings.local_files_only), taxonomy=taxonomy)
        classifier = ClipClassifier(load_classifier(settings.classifier_model, settings.local_files_only))
    except ModelNotAvailableError as exc:
        raise PipelineError("model_unavailable", str(exc)) from None
    return ImageSceneBuilder(detector, classifier)


def build_image_scene_builder(settings: Settings) -> Callable[[bytes, Program], ImageScene]:
    """Image bytes + program -> weighted scene via OWL-ViT and CLIP from the configured weights."""
    from scene.concepts import concepts_from_program

    builder = image_scene_builder(settings)
    taxonomy = taxonomy_for(settings.taxonomy_dir)

    def build(image: bytes, program: Program) -> ImageScene:
        result = builder.build(image, concepts_from_program(program, taxonomy))
        detections = [
            {
                "id": d.id,
                "label": d.label,
                "score": round(float(d.score), 4),
                "box": [round(float(v), 1) for v in (d.box.x0, d.box.y0, d.box.x1, d.box.y1)],
                "categories": sorted(d.categories),
                "hposition": d.hposition,
                "vposition": d.vposition,
            }
            for d in result.detections
        ]
        return ImageScene(result.scene, detections, result.timings)

    return build


def build_translator(settings: Settings) -> Any:
    """The question translator configured by `settings` (language model, bank, retrieval)."""
    from app.translation import AppTranslator

    return AppTranslator(settings)


def part_status(pipeline: "Pipeline") -> dict[str, str]:
    """Readiness of each part without loading anything new."""
    status = {}
    for name, attr in (("translator", "_translator"), ("scene_graphs", "_scene_graph_encoder"), ("images", "_image_scene_builder")):
        status[name] = "ready" if getattr(pipeline, attr) is not None else pipeline.load_errors.get(name, "not loaded")
    return status


def warm_up(pipeline: "Pipeline") -> None:
    """Load every part now; a part that fails keeps its reason for /ready."""
    for name, prop in (("translator", "translator"), ("scene_graphs", "scene_graph_encoder"), ("images", "image_scene_builder")):
        try:
            getattr(pipeline, prop)
        except PipelineError as exc:
            pipeline.load_errors[name] = exc.message
