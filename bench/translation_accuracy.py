"""Translation accuracy on the shared GQA val sample: the share of translated programs that are
equivalent to the question's GQA program (canonical equality, and semantic equivalence on
generated scenes).

Phases (as in the thesis):
  grid  - sampling {bert, jaccard, random} x k {1, 5, 10} x cover_operators {off, on}, nested, 40 questions
  repr  - flat, nested, code, gqa at the best grid setting, 100 questions
  best  - the best setting on 300 questions

Bank: every shared val question (converted with the GQA converter) plus the project's bank; for
each target its own id and its `equivalent` questions are left out (leave-one-out).

Resumable and bounded: every translation is appended to ~/.cache/aspvqa/bench/translation_accuracy.jsonl
and skipped on the next run; `--budget-s` stops cleanly; questions are processed in rounds across
all settings of a phase, so a partial run compares the settings on the same questions. Writes
bench/results/translation_accuracy.json and .md.

    nohup .venv/bin/python bench/translation_accuracy.py --budget-s 3600 &
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from theory.equivalence import equivalent  # noqa: E402
from theory.flat import format_flat, parse_flat  # noqa: E402
from theory.program import ProgramError  # noqa: E402
from translators.backends.models import cache_dir  # noqa: E402
from translators.backends.registry import get_backend  # noqa: E402
from translators.bank import Example, ExampleBank, default_bank, load_bank, save_bank  # noqa: E402
from translators.embeddings import load_embedder  # noqa: E402
from translators.gqa_program import GQAProgramError, gqa_to_program  # noqa: E402
from translators.retrieval import Retriever  # noqa: E402
from translators.translate import TranslationSettings, Translator  # noqa: E402

RESULTS = ROOT / "bench" / "results"
# The per-question log holds GQA question texts, so it lives in the user cache, not the repository.
LOG = cache_dir().parent / "bench" / "translation_accuracy.jsonl"
GRID = [(s, k, c) for s in ("bert", "jaccard", "random") for k in (1, 5, 10) for c in (False, True)]
PHASE_SIZES = {"grid": 40, "repr": 100, "best": 300}


def gqa_dir() -> Path:
    return Path(os.environ.get("ASPVQA_GQA_DIR") or ROOT / ".." / "shared" / "data" / "gqa")


def load_targets() -> tuple[list[dict], ExampleBank]:
    """The convertible val questions (shuffled with a fixed seed) and the bank built from them."""
    data = json.loads((gqa_dir() / "questions" / "val_balanced_sample.json").read_text(encoding="utf-8"))
    targets, examples = [], []
    for qid, record in sorted(data.items()):
        try:
            program = gqa_to_program(record["semantic"])
        except (GQAProgramError, ProgramError):
            continue
        targets.append({"id": qid, "question": record["question"], "program": program, "gold": format_flat(program),
                        "equivalent": [e for e in record.get("equivalent", []) if e != qid]})
        examples.append(Example(f"gqa-{qid}", record["question"], program, tuple(record["semantic"]), "gqa-val",
                                frozenset(record.get("equivalent", []))))
    random.Random(0).shuffle(targets)
    # The derived bank lives in the user cache, never in the repository (GQA data stays outside).
    path = cache_dir().parent / "banks" / "gqa_val_sample.jsonl"
    if not path.exists():
        save_bank(ExampleBank(examples), path)
    return targets, load_bank(path).merged(default_bank())


def setting_key(phase: str, settings: TranslationSettings) -> str:
    key = f"{phase}|{settings.representation}|{settings.sampling.value}|{settings.examples}|{int(settings.cover_operators)}"
    return key if settings.prompt_version == "v1-short" else f"{key}|{settings.prompt_version}"


def settings_for(phase: str, llm: str, best: dict | None, prompt: str = "v1-short") -> list[TranslationSettings]:
    common = dict(llm=llm, prompt_version=prompt if phase != "grid" else "v1-short", constrained=True)
    if phase == "grid":
        return [TranslationSettings(representation="nested", sampling=s, examples=k, cover_operators=c, **common)
                for s, k, c in GRID]
    assert best is not None
    base = dict(sampling=best["sampling"], examples=best["examples"], cover_operators=best["cover_operators"], **common)
    if phase == "repr":
        return [TranslationSettings(representation=r, **base) for r in ("flat", "nested", "code", "gqa")]
    return [TranslationSettings(representation=best.get("representation", "nested"), **base)]


def read_log() -> dict[tuple[str, str], dict]:
    done = {}
    if LOG.exists():
        for line in LOG.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                done[(record["setting"], record["id"])] = record
    return done


def score(translated: str | None, target: dict, verdicts: dict[tuple[str, str], tuple[bool, bool]]) -> tuple[bool, bool]:
    """(canonical, semantic) equivalence to the gold program, remembered per (translation, gold) pair:
    settings often write the same program, and a semantic check solves up to 60 generated scenes."""
    if translated is None:
        return False, False
    key = (translated, target["gold"])
    if key not in verdicts:
        verdict = equivalent(parse_flat(translated), target["program"], scenes=30)
        verdicts[key] = verdict.same_canonical, verdict.equivalent
    return verdicts[key]


def translation_key(setting: str) -> str:
    """The setting without its phase: phases that share a setting share its translations (temperature 0)."""
    return setting.split("|", 1)[1]


def summarise(done: dict) -> dict[str, dict]:
    by_setting: dict[str, list[dict]] = defaultdict(list)
    for (setting, _), record in done.items():
        by_setting[setting].append(record)
    table = {}
    for setting, records in by_setting.items():
        n = len(records)
        seconds = sorted(r["seconds"] for r in records)
        table[setting] = {
            "n": n,
            "parsed": sum(r["program"] is not None for r in records) / n,
            "canonical": sum(r["canonical"] for r in records) / n,
            "semantic": sum(r["semantic"] for r in records) / n,
            "p50_s": seconds[n // 2],
        }
    return table


def best_setting(table: dict[str, dict]) -> dict | None:
    grid = [(k, v) for k, v in table.items() if k.startswith("grid|")]
    if not grid:
        return None
    key, _ = max(grid, key=lambda kv: (kv[1]["semantic"], kv[1]["canonical"], -int(kv[0].split("|")[3])))
    _, representation, sampling, k, cover, *_ = key.split("|")
    best = {"sampling": sampling, "examples": int(k), "cover_operators": cover == "1", "representation": representation}
    repr_rows = [(k2, v) for k2, v in table.items() if k2.startswith("repr|")]
    if repr_rows and min(v["n"] for _, v in repr_rows) >= 20:
        best["representation"] = max(repr_rows, key=lambda kv: kv[1]["semantic"])[0].split("|")[1]
    return best


def write_report(done: dict, llm: str, forced: str = "") -> None:
    table = summarise(done)
    best = best_setting(table)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "translation_accuracy.json").write_text(
        json.dumps({"llm": llm, "best": best, "forced_setting": forced or None, "settings": table}, indent=2)
    )
    lines = [f"# Translation accuracy ({llm}, GQA val sample, leave-one-out bank)", "",
             "| phase | repr | sampling | k | cover | prompt | n | parsed | canonical | semantic | p50 s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(table, key=lambda k: (["grid", "repr", "best"].index(k.split("|")[0]), k)):
        phase, representation, sampling, k, cover, *prompt = key.split("|")
        row = table[key]
        lines.append(f"| {phase} | {representation} | {sampling} | {k} | {'on' if cover == '1' else 'off'} | "
                     f"{prompt[0] if prompt else 'v1-short'} | {row['n']} | "
                     f"{row['parsed']:.0%} | {row['canonical']:.0%} | {row['semantic']:.0%} | {row['p50_s']:.1f} |")
    lines += ["", f"Best setting so far (the grid's best, then the best representation once each has 20 questions): {best}",
              "", "p50 s is the wall time of a translation during this run (llama.cpp on 2 threads; some rows include "
              "translations made while other work shared the CPU). The latency benchmark is bench/translate.py."]
    if forced:
        lines.append(f"The repr and best phases ran with a setting chosen by hand (--best {forced}), not the grid's best.")
    (RESULTS / "translation_accuracy.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm", default="qwen2.5-coder-1.5b")
    parser.add_argument("--phases", default="grid,repr,best")
    parser.add_argument("--budget-s", type=float, default=300.0)
    parser.add_argument("--round", type=int, default=5, help="questions per round across a phase's settings")
    parser.add_argument("--limit", type=int, default=0, help="cap the questions of every phase (0: as in the thesis)")
    parser.add_argument("--best", default="", help="force the setting of the repr/best phases: SAMPLING,K,COVER[,REPR]")
    parser.add_argument("--prompt", default="v1-short", help="prompt version for the repr/best phases")
    parser.add_argument("--report-only", action="store_true", help="rewrite the table from the log and stop")
    args = parser.parse_args()
    if not (gqa_dir() / "questions" / "val_balanced_sample.json").exists():
        print(f"skipped: no GQA data at {gqa_dir()}")
        return 0
    if args.report_only:
        write_report(read_log(), args.llm, args.best)
        return 0
    start = time.monotonic()
    targets, bank = load_targets()
    embedder = load_embedder()
    retriever = Retriever(bank, embedder)
    backend = get_backend(args.llm)
    done = read_log()
    verdicts = {(r["program"], r["gold"]): (r["canonical"], r["semantic"]) for r in done.values() if r["program"]}
    translated = {(translation_key(setting), qid): r for (setting, qid), r in done.items()}
    LOG.parent.mkdir(parents=True, exist_ok=True)
    for phase in args.phases.split(","):
        table = summarise(done)
        best = best_setting(table)
        if args.best:
            sampling, k, cover, *representation = args.best.split(",")
            best = {"sampling": sampling, "examples": int(k), "cover_operators": cover in ("1", "on", "true"),
                    "representation": representation[0] if representation else "nested"}
        settings_list = settings_for(phase, args.llm, best, args.prompt)
        size = min(PHASE_SIZES[phase], args.limit or PHASE_SIZES[phase], len(targets))
        translators = [Translator(s, bank, backend, embedder=embedder, retriever=retriever) for s in settings_list]
        for round_start in range(0, size, args.round):
            for translator in translators:
                key = setting_key(phase, translator.settings)
                for target in targets[round_start:min(size, round_start + args.round)]:
                    if (key, target["id"]) in done:
                        continue
                    if time.monotonic() - start > args.budget_s:
                        write_report(done, args.llm, args.best)
                        print(f"budget of {args.budget_s:.0f} s used; run again to resume")
                        return 0
                    earlier = translated.get((translation_key(key), target["id"]))
                    if earlier is not None:
                        record = {**earlier, "setting": key}
                    else:
                        result = translator.translate(target["question"], f"gqa-{target['id']}",
                                                      exclude_ids=[f"gqa-{e}" for e in target["equivalent"]])
                        canonical_ok, semantic_ok = score(result.flat, target, verdicts)
                        record = {"setting": key, "id": target["id"], "question": target["question"],
                                  "program": result.flat, "gold": target["gold"],
                                  "canonical": canonical_ok, "semantic": semantic_ok, "seconds": result.seconds,
                                  "attempts": len(result.attempts), "error": result.error}
                        translated[(translation_key(key), target["id"])] = record
                    done[(key, target["id"])] = record
                    with LOG.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(record) + "\n")
            write_report(done, args.llm, args.best)
    write_report(done, args.llm, args.best)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
