"""Translations of the validation part, record for record, against those of an earlier commit.

A refactor must not change what the service translates. This script translates every question of
the validation part of ../shared/data/gqa/questions/val_balanced_sample.json (the part
`evaluation.splits` holds out; used while writing rules, so a validation set) with the service's
default settings, the path `POST /translate` takes (`Pipeline.translate`), and records per question
id: declined or not, the program's source, the program (flat syntax) and its confidence.

    .venv/bin/python bench/same_translations.py --write bench/results/same_translations_before.json
    .venv/bin/python bench/same_translations.py --against bench/results/same_translations_before.json

With `--against`, prints the ids whose record differs, writes bench/results/same_translations.json
and exits 1 on any difference. Records name question ids only, never question text.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from app.config import load_settings  # noqa: E402
from app.pipeline import Pipeline, PipelineError  # noqa: E402
from evaluation.splits import split_questions  # noqa: E402
from theory.flat import format_flat  # noqa: E402
from trust.confidence import confidence_parts, program_confidence  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "same_translations.json"
# The records of the commit before the translators were put in rooms (e57eeb3), made from a checkout of it.
BEFORE = ROOT / "bench" / "results" / "before_refactor" / "same_translations.json"


def gqa_dir() -> Path:
    return Path(os.environ.get("ASPVQA_GQA_DIR") or ROOT / ".." / "shared" / "data" / "gqa")


def record(pipeline: Pipeline, question: str) -> dict[str, object]:
    """What the service makes of one question: a decline's kind, or the program, its source and score."""
    try:
        translation = pipeline.translate(question)
    except PipelineError as exc:
        return {"status": exc.kind}
    source = str(translation.details.source) if translation.details is not None else None
    score = round(program_confidence(confidence_parts(translation.evidence)), 6)
    return {"status": "ok", "source": source, "program": format_flat(translation.program), "confidence": score}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", type=Path, help="write the records to this file")
    group.add_argument("--against", type=Path, default=BEFORE, help="compare with the records in this file")
    args = parser.parse_args()
    path = gqa_dir() / "questions" / "val_balanced_sample.json"
    if not path.exists():
        sys.exit(f"no GQA questions at {path}")
    data = json.loads(path.read_text(encoding="utf-8"))
    ids = sorted(split_questions(data).test)
    pipeline = Pipeline(load_settings())
    pipeline.warm_up()
    started = time.perf_counter()
    records = {qid: record(pipeline, data[qid]["question"]) for qid in tqdm(ids, desc="validation part", unit="q")}
    seconds = round(time.perf_counter() - started, 1)
    if args.write:
        args.write.write_text(json.dumps({"questions": len(ids), "records": records}, indent=1) + "\n")
        print(f"{len(ids)} records written to {args.write} in {seconds} s")
        return
    before = json.loads(args.against.read_text(encoding="utf-8"))["records"]
    differ = sorted(qid for qid in set(before) | set(records) if before.get(qid) != records.get(qid))
    summary = {
        "data": "val_balanced_sample.json, the validation part (evaluation.splits), used while developing",
        "against": str(args.against.relative_to(ROOT) if args.against.is_relative_to(ROOT) else args.against),
        "questions": len(ids),
        "identical": len(ids) - len(differ),
        "differ": differ,
        "seconds": seconds,
    }
    RESULTS.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"{summary['identical']} of {len(ids)} records identical; differ: {differ or 'none'}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
