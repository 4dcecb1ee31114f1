"""Translation latency per local model (target: p50 <= 5 s with the embedded model on 2 cores).

Each model translates the same questions (GQA val sample questions when the shared data is
there, else the bundled bank's questions with each one left out of its own examples) with the
default speed settings: nested, MiniLM retrieval, k=5, the fixed-example prompt whose prefix stays
in llama.cpp's KV cache, grammar-constrained decoding. The first question (model load and prefix
evaluation) is reported apart. Writes bench/results/translate.json.

    .venv/bin/python bench/translate.py [--models qwen2.5-coder-1.5b,smollm2-135m] [--questions 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.components import Components  # noqa: E402
from app.config import Settings  # noqa: E402
from app.errors import PipelineError  # noqa: E402
from translators.backends.models import available_models  # noqa: E402
from translators.bundled import default_bank  # noqa: E402
from translators.translate import TranslationSettings  # noqa: E402


def questions(count: int) -> list[str]:
    path = (
        Path(os.environ.get("ASPVQA_GQA_DIR") or ROOT / ".." / "shared" / "data" / "gqa")
        / "questions"
        / "val_balanced_sample.json"
    )
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
        return [data[key]["question"] for key in sorted(data)[: count * 7 : 7]][:count]
    return [e.question for e in default_bank()][:count]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=",".join(available_models()))
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--examples", type=int, default=5)
    parser.add_argument("--prompt", default="v2-fixed")
    parser.add_argument("--repr", default="nested")
    args = parser.parse_args()
    components = Components(Settings())
    todo = questions(args.questions + 1)
    rows = []
    for model in [m for m in args.models.split(",") if m]:
        try:
            backend = components.backend(model)
            load_start = time.perf_counter()
            backend._load()  # timed apart from the first question
            load_s = time.perf_counter() - load_start
        except PipelineError as exc:
            print(f"{model}: skipped ({exc})")
            continue
        settings = TranslationSettings(
            llm=model, representation=args.repr, examples=args.examples, prompt_version=args.prompt, constrained=True
        )
        translator = components.translator(settings)
        first = translator.translate(todo[0])
        seconds, parsed, tokens = [], 0, []
        for question in todo[1:]:
            result = translator.translate(question)
            seconds.append(result.seconds)
            parsed += result.program is not None
            tokens.append(len(result.raw))
        rows.append(
            {
                "model": model,
                "load_s": load_s,
                "first_s": first.seconds,
                "n": len(seconds),
                "p50_s": statistics.median(seconds),
                "p90_s": sorted(seconds)[int(0.9 * (len(seconds) - 1))],
                "parsed": parsed / len(seconds),
                "settings": settings.model_dump(mode="json"),
            }
        )
    print(f"{'model':<22}{'load s':>8}{'first s':>9}{'n':>4}{'p50 s':>8}{'p90 s':>8}{'parsed':>8}")
    for row in rows:
        print(
            f"{row['model']:<22}{row['load_s']:>8.1f}{row['first_s']:>9.1f}{row['n']:>4}{row['p50_s']:>8.2f}"
            f"{row['p90_s']:>8.2f}{row['parsed']:>8.0%}"
        )
    out = ROOT / "bench" / "results" / "translate.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"rows": rows, "target_p50_s": 5.0, "cpu_count": os.cpu_count()}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
