"""Routing by question type: how often the classifier predicts GQA's structural and semantic type of
unseen questions, what it costs per question, and translation accuracy with and without routing.

The classifier (trust.routing) is trained on the bundled bank only, each example labelled by its
own program; it is scored against GQA's labels on the validation part of the family/image split
(evaluation.splits) and, for reference, on the tuning part (where the labelling rules were
checked). Translation with and without routing is read from bench/translation_accuracy.py's log
(runs `default` and `routed`, the same first N validation questions, the bundled model). Prints a table
and writes bench/results/routing.json.

    ASPVQA_THREADS=1 .venv/bin/python bench/translation_accuracy.py --runs default:100,routed:100 --budget-s 7200
    .venv/bin/python bench/routing.py
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from translation_accuracy import LOG, gqa_dir, read_log, runs_for  # noqa: E402

from evaluation.splits import split_questions  # noqa: E402
from translators.examples.bundled import default_bank  # noqa: E402
from translators.model.embeddings import load_embedder  # noqa: E402
from translators.model.retrieval import Retriever  # noqa: E402
from translators.wording.ontology import bundled_ontology  # noqa: E402
from translators.wording.templating import Templater  # noqa: E402
from trust.routing import router_for  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "routing.json"


def main() -> int:
    path = gqa_dir() / "questions" / "val_balanced_sample.json"
    if not path.exists():
        print(f"skipped: no GQA data at {path}")
        return 0
    data = json.loads(path.read_text(encoding="utf-8"))
    split = split_questions(data)
    bank, embedder = default_bank(), load_embedder()
    started = time.perf_counter()
    router = router_for(bank, Retriever(bank, embedder, templater=Templater(bundled_ontology())))
    load_s = time.perf_counter() - started
    result: dict = {"bank": len(bank), "router_ready_s": round(load_s, 2), "parts": {}}
    for part in ("tuning", "test"):
        records = [data[q] for q in getattr(split, part)]
        vectors = embedder.encode([r["question"] for r in records])
        timings = []
        for vector in vectors[:200]:
            t = time.perf_counter()
            router.classify(vector[None, :])
            timings.append(time.perf_counter() - t)
        predicted = router.classify(vectors)
        row = {"n": len(records), "classify_p50_ms": round(1000 * statistics.median(timings), 3)}
        for label in ("structural", "semantic"):
            truth = [r["types"][label] for r in records]
            guess = [getattr(p, label) for p in predicted]
            row[label] = float(np.mean([a == b for a, b in zip(guess, truth)]))
            row[f"{label}_confusions"] = {
                f"{t}->{g}": n for (t, g), n in Counter(zip(truth, guess)).most_common() if t != g
            }
            row[f"{label}_by_type"] = {
                t: {"n": n, "accuracy": sum(g == t for g, tt in zip(guess, truth) if tt == t) / n}
                for t, n in sorted(Counter(truth).items())
            }
        result["parts"][part] = row
        print(
            f"{part:7} n={row['n']:4d}  structural {row['structural']:.1%}  semantic {row['semantic']:.1%}  "
            f"classify p50 {row['classify_p50_ms']} ms (target structural >= 90 %: "
            f"{'met' if row['structural'] >= 0.9 else 'MISSED'})"
        )
    # Translation with and without routing on the same questions (records of bench/translation_accuracy.py).
    done = read_log()
    default, routed = runs_for(["default", "routed"], "qwen2.5-coder-1.5b", 10_000, 0)
    by_run = {run.name: {qid: r for (key, qid), r in done.items() if key == run.key} for run in (default, routed)}
    shared = sorted(set(by_run["default"]) & set(by_run["routed"]))
    if shared:
        rows = {}
        for name, records in by_run.items():
            chosen = [records[q] for q in shared]
            rows[name] = {
                "n": len(chosen),
                "semantic": sum(r["semantic"] for r in chosen) / len(chosen),
                "canonical": sum(r["canonical"] for r in chosen) / len(chosen),
                "by_structural": {
                    t: {
                        "n": sum(r["structural"] == t for r in chosen),
                        "semantic": sum(r["semantic"] for r in chosen if r["structural"] == t)
                        / max(1, sum(r["structural"] == t for r in chosen)),
                    }
                    for t in sorted({r["structural"] for r in chosen})
                },
            }
        routed_records = [by_run["routed"][q] for q in shared]
        rows["routed"]["route_structural_accuracy"] = sum(
            r.get("route", {}).get("structural") == r["structural"] for r in routed_records
        ) / len(routed_records)
        result["translation"] = {
            "questions": "the first test-part questions both runs translated",
            "log": str(LOG.name),
        } | rows
        for name, row in rows.items():
            print(
                f"translation {name:8} n={row['n']}  semantic {row['semantic']:.1%}  canonical {row['canonical']:.1%}"
            )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
