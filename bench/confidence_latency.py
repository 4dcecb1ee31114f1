"""What confidence costs per answer: the n=1 path with and without the confidence step, with a
calibration's decision, and the cost of each extra sample (n=3).

The language model is replaced by recorded outputs (the replay backend) so that what is timed is
the pipeline's own work: retrieval, parsing, the scene, the solver, and the confidence. An extra
sample costs one more model call on top of what is timed here; its model time is read from the
translations bench/confidence_data.py made (the same model and settings) when they exist.

    .venv/bin/python bench/confidence_latency.py [--repeats 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from app.demo_scenes import demo_scenes  # noqa: E402
from app.inputs import AskedQuestion  # noqa: E402
from app.pipeline import Pipeline  # noqa: E402
from theory.cache import cache_dir  # noqa: E402
from trust.calibration import Calibration  # noqa: E402
from trust.confidence import confidence, confidence_parts  # noqa: E402

QUESTION = "What is the cat sitting on?"
OUTPUT = "query(unique(relate_any(unique(select(scene(), cat)), on, object)), name)"
# A second reading, so that n=3 groups two meanings (the grouping runs the equivalence check).
OTHER = "query(unique(relate_any(unique(select(scene(), cat)), sitting_on, object)), name)"
RESULTS = ROOT / "bench" / "results"


def timed(fn, repeats: int) -> list[float]:  # noqa: ANN001
    fn()  # first call loads the parts
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def summary(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "p50_ms": round(1000 * statistics.median(ordered), 3),
        "p90_ms": round(1000 * ordered[int(0.9 * (len(ordered) - 1))], 3),
    }


STEP_SHARE_TARGET = 5.0  # the confidence step's share of an n=1 answer that "leaves n=1 unchanged"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="aspvqa-bench-"))
    # One recording per pipeline: recorded outputs are used up as they are read, per recording.
    recordings = {}
    for name, outputs in (("plain", [OUTPUT]), ("calibrated", [OUTPUT]), ("sampled", [OUTPUT, OUTPUT, OTHER])):
        recordings[name] = folder / f"{name}.jsonl"
        repeated = outputs * (3 * (args.repeats + 10) // len(outputs) + 3)
        recordings[name].write_text(json.dumps({"question": QUESTION, "outputs": repeated}) + "\n")
    replay = recordings["plain"]
    scene = demo_scenes()["kitchen"]
    results: dict[str, dict[str, float]] = {}

    # The model's path (fill off): a filled program has no samples to group, and its confidence is cheaper.
    base = Settings(llm=f"replay:{replay}", sampling="jaccard", template_fill=False)
    pipeline = Pipeline(base)
    outcome = pipeline.answer(AskedQuestion(QUESTION), pipeline.scene_input(scene_graph=scene))
    translation = outcome.translation
    assert translation is not None
    costs = [a.cost for a in outcome.answers]
    step = timed(lambda: confidence(confidence_parts(translation.evidence, costs)), args.repeats * 10)

    components = pipeline.components
    calibration = folder / "calibration.json"
    Calibration.fit(
        [i / 100 for i in range(100)],
        [i % 3 == 0 for i in range(100)],
        risk=0.2,
        settings=components.confidence_settings(
            components.translation_settings({"llm": f"replay:{recordings['calibrated']}"})
        ),
        data={"questions": "bench"},
    ).save(calibration)
    calibrated = Pipeline(
        base.model_copy(update={"calibration": str(calibration), "llm": f"replay:{recordings['calibrated']}"})
    )
    sampled = Pipeline(base.model_copy(update={"confidence_samples": 3, "llm": f"replay:{recordings['sampled']}"}))
    paths = {
        "n=1 answer (translate + scene + solve + confidence)": pipeline,
        "n=1 answer with a calibration's decision": calibrated,
        "n=3 answer (model time excluded)": sampled,
    }
    # Round-robin, so that the load of a shared machine falls on every path alike.
    times: dict[str, list[float]] = {name: [] for name in paths}
    for p in paths.values():
        p.answer(AskedQuestion(QUESTION), p.scene_input(scene_graph=scene))  # loads the parts
    for _ in range(args.repeats):
        for name, p in paths.items():
            start = time.perf_counter()
            p.answer(AskedQuestion(QUESTION), p.scene_input(scene_graph=scene))
            times[name].append(time.perf_counter() - start)
    results = {name: summary(t) for name, t in times.items()}
    results["the confidence step alone"] = summary(step)

    log = cache_dir() / "bench" / "confidence.jsonl"
    model_s = []
    if log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["kind"] == "n1" and record["part"] == "tuning":
                model_s.append(record["seconds"])
    n1 = results["n=1 answer (translate + scene + solve + confidence)"]["p50_ms"]
    n3 = results["n=3 answer (model time excluded)"]["p50_ms"]
    extra = {
        "pipeline_ms_per_extra_sample": round((n3 - n1) / 2, 3),
        "model_s_per_extra_sample_p50": round(statistics.median(model_s), 3) if model_s else None,
        "model_translations_timed": len(model_s),
    }
    share = 100 * results["the confidence step alone"]["p50_ms"] / n1
    print(f"{'path':55s} {'p50 ms':>9s} {'p90 ms':>9s}")
    for name, row in results.items():
        print(f"{name:55s} {row['p50_ms']:9.3f} {row['p90_ms']:9.3f}")
    verdict = "met" if share <= STEP_SHARE_TARGET else "MISSED"
    print(
        f"confidence step: {share:.2f} % of the n=1 answer without the model "
        f"(target, n=1 latency unchanged: <= {STEP_SHARE_TARGET:g} %: {verdict})"
    )
    print(
        f"each extra sample: {extra['pipeline_ms_per_extra_sample']} ms of pipeline work (grouping by meaning) + one model call "
        f"(p50 {extra['model_s_per_extra_sample_p50']} s over {extra['model_translations_timed']} translations timed here)"
    )
    if args.write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "confidence_latency.json").write_text(
            json.dumps({"paths": results, "confidence_step_share_percent": round(share, 3)} | extra, indent=1) + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
