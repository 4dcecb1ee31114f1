"""How well the default bank covers real questions, without a language model: for each question of
one part of the split (evaluation.splits), whether the k examples retrieval shows include one with
the gold program's skeleton (operations and structure, words blanked), and retrieval time end to
end (question and template embedded in one call, then the search) with the embedding apart.

Cheap enough to run on every change of the templates; `--part tuning` is for tuning, the validation part
is reported once. Writes bench/results/bank_coverage.json with --write.

    .venv/bin/python bench/bank_coverage.py --part tuning
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import load_settings  # noqa: E402
from evaluation.splits import PART_ALIASES, split_questions  # noqa: E402
from theory.canonical import canonical  # noqa: E402
from theory.operations import OPERATIONS  # noqa: E402
from theory.program import Program, ProgramError  # noqa: E402
from translators.examples.bundled import default_bank  # noqa: E402
from translators.gqa.gqa_program import gqa_to_program  # noqa: E402
from translators.model.embeddings import load_embedder  # noqa: E402
from translators.model.retrieval import Retriever  # noqa: E402
from translators.wording.ontology import bundled_ontology  # noqa: E402
from translators.wording.templating import Templater  # noqa: E402

load_settings()  # hands ASPVQA_CACHE_DIR to every layer before the first cache path is made


def shape(program: Program) -> str:
    """The canonical program with every word argument blanked (positions and polarities kept)."""
    parts = []
    for step in canonical(program).steps:
        names = OPERATIONS[step.operation].arguments
        args = [a if n in ("position", "polarity") else "_" for n, a in zip(names, step.arguments)]
        parts.append(f"{step.operation}({','.join(map(str, step.dependencies))};{','.join(args)})")
    return " ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--part", choices=sorted(PART_ALIASES), default="tuning", help="test: the validation part's former name"
    )
    parser.add_argument("-k", type=int, default=5)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--misses", type=int, default=0, help="print this many uncovered questions")
    args = parser.parse_args()
    path = (
        Path(os.environ.get("ASPVQA_GQA_DIR") or ROOT / ".." / "shared" / "data" / "gqa")
        / "questions"
        / "val_balanced_sample.json"
    )
    if not path.exists():
        print(f"skipped: no GQA data at {path}")
        return 0
    data = json.loads(path.read_text(encoding="utf-8"))
    part = PART_ALIASES[args.part]
    ids = split_questions(data).part(part)
    bank = default_bank()
    embedder = load_embedder()
    # Template retrieval as the translator does it by default.
    templater = Templater(bundled_ontology())
    retriever = Retriever(bank, embedder, templater=templater)
    retriever.retrieve("warm up", args.k)
    covered, seconds, embed_seconds, misses = [], [], [], []
    by_type: dict[str, list[bool]] = defaultdict(list)
    for qid in ids:
        record = data[qid]
        try:
            gold = shape(gqa_to_program(record["semantic"]))
        except ProgramError:
            continue
        # The translator's path: one encoder call for the question and its template, then the search.
        start = time.perf_counter()
        embedder.encode([record["question"], templater(record["question"])])
        embed_seconds.append(time.perf_counter() - start)
        start = time.perf_counter()
        shown = retriever.retrieve(record["question"], args.k)
        seconds.append(time.perf_counter() - start)
        hit = any(shape(r.example.program) == gold for r in shown)
        covered.append(hit)
        by_type[(record.get("types") or {}).get("structural") or "-"].append(hit)
        if not hit:
            misses.append((record["question"], gold, shown[0].example.question if shown else ""))
    seconds.sort()
    embed_seconds.sort()
    result = {
        "part": part,
        "k": args.k,
        "bank_examples": len(bank),
        "questions": len(covered),
        "skeleton_in_top_k": sum(covered) / len(covered),
        "by_structural_type": {t: {"n": len(v), "covered": sum(v) / len(v)} for t, v in sorted(by_type.items())},
        "retrieval_end_to_end_ms_p50": 1000 * statistics.median(seconds),
        "retrieval_end_to_end_ms_p99": 1000 * seconds[int(0.99 * (len(seconds) - 1))],
        "embedding_ms_p50": 1000 * statistics.median(embed_seconds),
        "search_ms_p50": 1000 * (statistics.median(seconds) - statistics.median(embed_seconds)),
    }
    print(json.dumps(result, indent=2))
    search_ms = result["search_ms_p50"]
    print(f"target: search p50 <= 5 ms: {'met' if search_ms <= 5.0 else 'MISSED'} ({search_ms:.2f} ms)")
    for question, gold, nearest in misses[: args.misses]:
        print(f"MISS {question}\n     gold {gold}\n     nearest: {nearest}")
    if args.misses:
        print(Counter(g for _, g, _ in misses).most_common(15))
    if args.write:
        out = ROOT / "bench" / "results" / f"bank_coverage_{part}.json"
        out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
