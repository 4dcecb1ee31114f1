"""Translations of GQA split questions with everything confidence needs, for bench/confidence.py.

For each question of one part of the split (evaluation.splits; questions in a fixed pseudo-random
order, a digest of the id), whether the program is semantically equivalent to the GQA program and
what the confidence reads: kind `n1fill`, the service's translator (a program filled from the
bank's examples of the question's form, or composed, else the model's; the source, the fill's vote
and retrieval score); kind `n1`, the model alone, with its retrieved examples and their scores,
attempts and schema fixes; kind `extra3`, for the first `--sampled` questions, the further samples
of an n-sample translation (the same model shown the retrieved examples in rotated order, as
`TranslationSettings.samples` does at temperature 0), each with its verdict. An `n1fill` record
whose question the rules (template fill, composition, coordination) do not translate takes the
model's program from the question's `n1` record, or from its n1fill record of earlier fill rules,
when there is one (fill does not change the model's prompt), so the model is asked once per
question. Records carry the fill rules they were made with (`FILL_RULES_VERSION`); those
of earlier rules are made again. They also name how the least likely token was read
(`LEAST_LIKELY_READING`), and bench/confidence.py fits on the current reading's records only.

Resumable: records are appended to ~/.cache/aspvqa/bench/confidence.jsonl (GQA texts stay out of
the repository) and skipped on the next run; `--budget-s` stops cleanly.

    .venv/bin/python bench/confidence_data.py --part tuning --size 300 --kinds n1fill
    .venv/bin/python bench/confidence_data.py --part test --size 300 --kinds n1 --from-accuracy-log
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.components import Components  # noqa: E402
from app.config import load_settings  # noqa: E402
from evaluation.splits import split_questions  # noqa: E402
from theory.cache import cache_dir  # noqa: E402
from theory.equivalence import equivalent  # noqa: E402
from theory.flat import format_flat, parse_flat  # noqa: E402
from theory.program import Program, ProgramError  # noqa: E402
from translators.evidence import LEAST_LIKELY_READING  # noqa: E402
from translators.examples.bundled import default_bank  # noqa: E402
from translators.gqa.gqa_program import GQAProgramError, gqa_to_program  # noqa: E402
from translators.model.backends.registry import get_backend  # noqa: E402
from translators.model.embeddings import load_embedder  # noqa: E402
from translators.model.retrieval import Retrieved, Retriever  # noqa: E402
from translators.rules.template_fill import FILL_RULES_VERSION  # noqa: E402
from translators.translate import TranslationSettings, Translator  # noqa: E402

load_settings()  # hands ASPVQA_CACHE_DIR to every layer before the first cache path is made
LOG = cache_dir() / "bench" / "confidence.jsonl"
SAMPLES = 3


def gqa_dir() -> Path:
    return Path(os.environ.get("ASPVQA_GQA_DIR") or ROOT / ".." / "shared" / "data" / "gqa")


def part_targets(part: str) -> list[dict[str, Any]]:
    """The part's questions with a convertible GQA program, in a fixed pseudo-random order."""
    data = json.loads((gqa_dir() / "questions" / "val_balanced_sample.json").read_text(encoding="utf-8"))
    split = split_questions(data)
    ids = sorted(getattr(split, part), key=lambda q: hashlib.sha256(q.encode()).hexdigest())
    targets = []
    for qid in ids:
        record = data[qid]
        try:
            program = gqa_to_program(record["semantic"])
        except (GQAProgramError, ProgramError):
            continue
        targets.append(
            {
                "id": qid,
                "question": record["question"],
                "program": program,
                "gold": format_flat(program),
                "equivalent": [e for e in record.get("equivalent", []) if e != qid],
            }
        )
    return targets


class RotatedRetriever:
    """The shared retriever with its examples shown in rotated order (sample `shift` of n)."""

    def __init__(self, retriever: Retriever, shift: int) -> None:
        self.bank = retriever.bank
        self._retriever = retriever
        self._shift = shift

    def retrieve(self, *args: Any, **kwargs: Any) -> list[Retrieved]:
        found = self._retriever.retrieve(*args, **kwargs)
        shift = self._shift % len(found) if found else 0
        return found[shift:] + found[:shift]


def accuracy_log_records(llm: str) -> dict[str, dict[str, Any]]:
    """The model-alone run's records of bench/translation_accuracy.py (current bundled bank), by question id."""
    sys.path.insert(0, str(ROOT / "bench"))
    import translation_accuracy

    (run,) = translation_accuracy.runs_for(["nofill"], llm, 10_000, 0)
    return {qid: r for (key, qid), r in translation_accuracy.read_log().items() if key == run.key}


def made_records() -> list[dict[str, Any]]:
    """Every record made so far."""
    if not LOG.exists():
        return []
    return [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines() if line.strip()]


def current_fill_rules(record: dict[str, Any]) -> bool:
    """Whether an n1fill record was made with today's template fill rules (records before versions: 1)."""
    return record.get("fill_rules", 1) == FILL_RULES_VERSION


def filled_record(
    translator: Translator,
    rules: Translator,
    target: dict[str, Any],
    exclude: list[str],
    model_record: dict[str, Any] | None,
) -> dict[str, Any]:
    """The default translator's record: the rules' program when they write one (`rules`: the same
    translator without a model); else the model's, taken from its "n1" record when there is one
    (template fill does not change the model's prompt, and at temperature 0 the model writes the same
    program) or translated now."""
    by_rules = rules.translate(target["question"], exclude_ids=exclude).program is not None
    if not by_rules and model_record is not None and "min_logprob" in model_record:
        keep = ("question", "program", "correct", "attempts", "schema_fixes", "examples", "seconds", "min_logprob")
        return {k: model_record[k] for k in keep} | {"source": "model"}
    result = translator.translate(target["question"], exclude_ids=exclude)
    return {
        "question": target["question"],
        "program": result.flat,
        "correct": verdict(result.flat, target["program"]),
        "attempts": len(result.attempts),
        "schema_fixes": len(result.schema_fixes),
        "examples": [{"id": e["id"], "score": e.get("score"), "program": e["program"]} for e in result.examples],
        "seconds": result.seconds,
        "source": result.source,
        "fill": result.fill,
        "min_logprob": result.min_logprob,
    }


def verdict(flat: str | None, gold: Program) -> bool:
    if flat is None:
        return False
    return equivalent(parse_flat(flat), gold, scenes=30).equivalent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("tuning", "test"), required=True)
    parser.add_argument("--size", type=int, default=150)
    parser.add_argument("--sampled", type=int, default=60)
    parser.add_argument("--llm", default="qwen2.5-coder-1.5b")
    parser.add_argument("--budget-s", type=float, default=3600.0)
    parser.add_argument(
        "--kinds",
        default="n1fill",
        help="comma-separated: n1fill (the default translator, template fill on), n1 (the model alone), extra3",
    )
    parser.add_argument(
        "--from-accuracy-log",
        action="store_true",
        help="take the n=1 programs of the validation part from bench/translation_accuracy.py's default run "
        "(same settings and bank) instead of translating again; their schema fixes were not kept",
    )
    args = parser.parse_args()
    start = time.monotonic()
    targets = part_targets(args.part)
    logged: dict[str, dict[str, Any]] = {}
    if args.from_accuracy_log:
        logged = accuracy_log_records(args.llm)
        targets = [t for t in targets if t["id"] in logged]
    targets = targets[: args.size]
    made = made_records()
    # n1fill records of earlier fill rules are made again (kept in the log; bench/confidence.py reads current ones).
    done = {(r["kind"], r["id"]) for r in made if r["kind"] != "n1fill" or current_fill_rules(r)}
    # Model-written programs by question id, for `filled_record`: the model-alone ("n1") records, and the
    # model's programs in n1fill records of earlier fill rules (the same prompt and model wrote them).
    earlier = {r["id"]: r for r in made if r["kind"] == "n1"}
    earlier |= {r["id"]: r for r in made if r["kind"] == "n1fill" and r.get("source") == "model"}
    settings = TranslationSettings(llm=args.llm, template_fill=False)  # the model alone
    bank = default_bank()
    translator = Translator(settings, bank, get_backend(args.llm), embedder=load_embedder())
    rotated = [
        Translator(settings, bank, translator.backend, retriever=RotatedRetriever(translator.retriever, shift))  # type: ignore[arg-type]
        for shift in range(1, SAMPLES)
    ]
    # The service's translator (its ontology and WordNet readers, template fill on), and the same
    # without a model: the rules alone.
    components = Components(load_settings())
    default = components.translator(components.translation_settings({"llm": args.llm}))
    rules = components.translator(components.translation_settings({"llm": "none"}))
    LOG.parent.mkdir(parents=True, exist_ok=True)
    kinds = args.kinds.split(",")
    jobs = [(kind, t) for kind in ("n1fill", "n1") if kind in kinds for t in targets]
    jobs += [(f"extra{SAMPLES}", t) for t in targets[: args.sampled] if f"extra{SAMPLES}" in kinds]
    for kind, target in jobs:
        if (kind, target["id"]) in done:
            continue
        if time.monotonic() - start > args.budget_s:
            print("budget used; run again to resume")
            return 0
        exclude = [target["id"], *target["equivalent"], f"gqa-{target['id']}"]
        exclude += [f"gqa-{e}" for e in target["equivalent"]]
        record: dict[str, Any] = {"kind": kind, "part": args.part, "id": target["id"], "gold": target["gold"]}
        record["least_likely"] = LEAST_LIKELY_READING
        if kind == "n1fill":
            record |= filled_record(default, rules, target, exclude, earlier.get(target["id"]))
            record["fill_rules"] = FILL_RULES_VERSION
        elif kind == "n1" and target["id"] in logged:
            found = logged[target["id"]]
            retrieved = translator.retriever.retrieve(
                target["question"], settings.examples, settings.sampling, exclude_ids={*exclude}, seed=settings.seed
            )
            record |= {
                "question": target["question"],
                "program": found["program"],
                "correct": found["semantic"],
                "attempts": found["attempts"],
                "schema_fixes": None,
                "examples": [
                    {"id": r.example.id, "score": round(r.score, 4), "program": format_flat(r.example.program)}
                    for r in retrieved
                ],
                "seconds": found["seconds"],
            }
            if [e["id"] for e in record["examples"]] != found["examples"]:
                raise SystemExit(f"retrieval differs from the logged run for {target['id']}")
        elif kind == "n1":
            result = translator.translate(target["question"], exclude_ids=exclude)
            record |= {
                "question": target["question"],
                "program": result.flat,
                "correct": verdict(result.flat, target["program"]),
                "attempts": len(result.attempts),
                "schema_fixes": len(result.schema_fixes),
                "examples": [
                    {
                        "id": e["id"],
                        "score": e["score"],
                        "program": format_flat(bank[bank.index_of(e["id"]) or 0].program),
                    }
                    for e in result.examples
                ],
                "seconds": result.seconds,
                "min_logprob": result.min_logprob,
            }
        else:
            extras = [t.translate(target["question"], exclude_ids=exclude) for t in rotated]
            record |= {
                "samples": [r.flat for r in extras],
                "correct": [verdict(r.flat, target["program"]) for r in extras],
                "seconds": [r.seconds for r in extras],
            }
        with LOG.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        print(kind, target["id"], record["correct"], flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
