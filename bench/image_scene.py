"""Scene from an image: per-image time split by stage, with tiny random OWL-ViT and CLIP models.

The tiny models (64 px input, 2 layers) show the pipeline's own cost structure (image decoding,
preprocessing, crops, NMS, fact emission, solving) rather than real model cost; real-model numbers
come where weights exist (set ASPVQA_DETECTOR_MODEL / ASPVQA_CLASSIFIER_MODEL to run with them).
Each image gets three questions: the first pays for the image encoding ("cold"), the others reuse
the per-image cache ("warm"). Prints a table, writes bench/results/image_scene.json.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scene.classifier import ClipClassifier  # noqa: E402
from scene.concepts import concepts_from_program  # noqa: E402
from scene.detector import DetectorSettings, OwlViTDetector  # noqa: E402
from scene.image_scene import ImageSceneBuilder  # noqa: E402
from scene.models import CLASSIFIER_ENV, DETECTOR_ENV, load_classifier, load_detector, write_tiny_models  # noqa: E402
from theory import solve  # noqa: E402
from theory.flat import parse_flat  # noqa: E402

GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR", Path(__file__).resolve().parents[1] / "../shared/data/gqa"))
ATTRIBUTES = {
    "color": ["red", "blue", "white", "black", "green", "brown", "gray", "yellow"],
    "material": ["wood", "metal", "plastic", "glass"],
}
QUESTIONS = [
    "scene(0). select(1,0,man). relate(2,1,horse,riding,object). unique(3,2). query(4,3,color). end(4).",
    "scene(0). select(1,0,table). unique(2,1). query(3,2,material). end(3).",
    "scene(0). select(1,0,car). relate(2,1,person,near,subject). exist(3,2). end(3).",
]
STAGES = ["load", "detector_image", "detector_queries", "classifier_crops", "classifier_text", "facts", "solve"]


def main() -> None:
    images = sorted((GQA_DIR / "images").glob("*.jpg"))
    if not images:
        print(f"no GQA images at {GQA_DIR}; nothing to measure")
        return
    with tempfile.TemporaryDirectory() as tmp:
        real = bool(os.environ.get(DETECTOR_ENV) and os.environ.get(CLASSIFIER_ENV))
        if real:
            detector_src, classifier_src = None, None
        else:
            detector_src, classifier_src = write_tiny_models(tmp)
        detector = OwlViTDetector(load_detector(detector_src), DetectorSettings(threshold=0.05, max_per_query=5))
        classifier = ClipClassifier(load_classifier(classifier_src))
        builder = ImageSceneBuilder(detector, classifier)
        programs = [parse_flat(q) for q in QUESTIONS]
        concepts = [concepts_from_program(p, attributes=ATTRIBUTES) for p in programs]
        # One untimed run so lazy imports and first-call allocations do not land on one image.
        builder.build(images[0], concepts[0])
        builder.clear()
        rows: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
        sizes: list[tuple[int, int, int]] = []
        for path in images:
            for n, (program, concept) in enumerate(zip(programs, concepts)):
                before_det, before_cls = dict(detector.timings), dict(classifier.timings)
                started = time.perf_counter()
                result = builder.build(path, concept)
                t = time.perf_counter()
                solved = solve(program, result.scene)
                solve_s = time.perf_counter() - t
                stage = {
                    k: detector.timings.get(k, 0.0) - before_det.get(k, 0.0)
                    for k in ("detector_image", "detector_queries")
                }
                stage.update(
                    {
                        k: classifier.timings.get(k, 0.0) - before_cls.get(k, 0.0)
                        for k in ("classifier_crops", "classifier_text")
                    }
                )
                stage.update(load=result.timings["load"], facts=result.timings["facts"], solve=solve_s)
                stage["total"] = time.perf_counter() - started
                rows["cold" if n == 0 else "warm"].append(stage)
                sizes.append((len(result.detections), len(result.scene), result.scene.weak_constraint_count))
                assert solved.status.value in ("ok", "no_answer"), solved.message
    report: dict[str, object] = {
        "models": "configured" if real else "tiny random (64 px, 2 layers)",
        "images": len(images),
        "questions_per_image": len(QUESTIONS),
        "machine": f"{platform.machine()} {os.cpu_count()} cpus",
        "mean_detections": statistics.mean(s[0] for s in sizes),
        "mean_scene_facts": statistics.mean(s[1] for s in sizes),
        "mean_weak_constraints": statistics.mean(s[2] for s in sizes),
        "ms": {},
    }
    print(f"scene from an image, {report['models']}, {len(images)} images x {len(QUESTIONS)} questions (ms, median)")
    print(f"{'stage':<18}{'cold (1st question)':>22}{'warm (cached image)':>22}")
    for stage in [*STAGES, "total"]:
        cold = 1000 * statistics.median(r[stage] for r in rows["cold"])
        warm = 1000 * statistics.median(r[stage] for r in rows["warm"])
        report["ms"][stage] = {"cold_median": round(cold, 3), "warm_median": round(warm, 3)}  # type: ignore[index]
        print(f"{stage:<18}{cold:>22.2f}{warm:>22.2f}")
    print(
        f"mean per question: {report['mean_detections']:.1f} detections, {report['mean_scene_facts']:.0f} scene facts, "
        f"{report['mean_weak_constraints']:.0f} weak constraints"
    )
    out = Path(__file__).resolve().parent / "results" / "image_scene.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print("target: none (tiny random models: stage costs, not the real models' speed)")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
