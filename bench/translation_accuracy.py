"""Translation accuracy on questions the system has not seen: the share of translated programs
that are equivalent to the question's GQA program (canonical equality, and semantic equivalence
on generated scenes), per structural and semantic type.

Protocol (evaluation.splits): the shared GQA val sample is split once by question family (GQA's
answer group and program skeleton) and then by image into a tuning part and a validation part. Every
number this script reports is on the validation part; nothing here looks at the tuning part. Runs:

  default  - the service's defaults (bundled bank, template retrieval, nested, bert, k=3, prompt v3, schema on)
  before   - the same settings over the first bundled bank (records kept from before the bank's digest
             was part of the run key; nothing new is translated for it once complete)
  legacy   - the hand-written 251-question bank alone, prompt v2-fixed, no schema, plain similarity
             retrieval (the translator before; k as the default)
  schema   - legacy plus schema-aware decoding (prompt v3 with the direction rule, grammar, repair)
  noschema - the bundled bank without schema-aware decoding
  routed   - the default with routing (trust.routing): the examples and prompt of the question's predicted type
  loo      - the old protocol, for comparison: bank = every val question + bundled bank, each
             target's own id and its `equivalent` ids left out (leave-one-out); it lets questions
             of the target's template and vocabulary into the prompt, so it overstates accuracy
  grid     - the thesis' axis: sampling x k x cover_operators with prompt v1-short (no fixed
             examples, so k=0 would be zero-shot), bundled bank; on the first --grid-size questions

Resumable and bounded: each translation is appended to ~/.cache/aspvqa/bench/translation_accuracy.jsonl
and skipped on the next run; `--budget-s` stops cleanly. bench/results/translation_accuracy.{json,md}
are written only by `--write` and only with the rows that covered their whole question set, so a
short run (`make bench`) prints its partial table but never replaces committed results.

    .venv/bin/python bench/translation_accuracy.py --runs default,legacy --budget-s 3600 --write
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import load_settings  # noqa: E402
from evaluation.splits import split_questions  # noqa: E402
from theory.cache import cache_dir  # noqa: E402
from theory.equivalence import equivalent  # noqa: E402
from theory.flat import format_flat, parse_flat  # noqa: E402
from theory.program import ProgramError  # noqa: E402
from translators.examples.bank import Example, ExampleBank, legacy_bank, load_bank, save_bank  # noqa: E402
from translators.examples.bundled import bundled_digest, default_bank  # noqa: E402
from translators.gqa.gqa_program import GQAProgramError, gqa_to_program  # noqa: E402
from translators.model.backends.registry import DEFAULT_WRITER, get_backend  # noqa: E402
from translators.model.embeddings import load_embedder  # noqa: E402
from translators.model.retrieval import Retriever  # noqa: E402
from translators.rules.compositional_fill import COMPOSITION_VERSION  # noqa: E402
from translators.rules.template_fill import FILL_RULES_VERSION, TemplateFiller  # noqa: E402
from translators.translate import GROUNDING_VERSION, TranslationSettings, Translator  # noqa: E402
from translators.wording.ontology import bundled_ontology  # noqa: E402
from translators.wording.templating import Templater  # noqa: E402
from trust.routing import RoutedTranslator  # noqa: E402

RESULTS = ROOT / "bench" / "results"
# The fill rules and, from the sixth, the composition rules: records of other rules are not reused.
FILL_VERSIONS = f"{FILL_RULES_VERSION}.{COMPOSITION_VERSION}"
# The per-question log holds GQA question texts, so it lives in the user cache, not the repository.
load_settings()  # hands ASPVQA_CACHE_DIR to every layer before the first cache path is made
LOG = cache_dir() / "bench" / "translation_accuracy.jsonl"
GRID = [(s, k, c) for s in ("bert", "jaccard", "random") for k in (1, 5, 10) for c in (False, True)]


def gqa_dir() -> Path:
    return Path(os.environ.get("ASPVQA_GQA_DIR") or ROOT / ".." / "shared" / "data" / "gqa")


@functools.cache
def _bundled_bank_digest() -> str:
    # Computed once: it reads the hand-written bank, and run keys are compared for every record.
    return bundled_digest(bundled_ontology())


@dataclass(frozen=True)
class Run:
    """One row of the table: a name, its settings, the bank it retrieves from and its questions."""

    name: str
    settings: TranslationSettings
    bank: str  # "bundled", "legacy" or "loo"
    size: int
    # Records of the bundled bank are tied to its digest; `versioned=False` reads those made before
    # the digest was part of the key (the first bundled bank), shown under `label`.
    versioned: bool = True
    label: str = ""
    bank_digest: str = ""  # records of an earlier bundled bank ("name@digest")
    routed: bool = False  # trust.routing: examples and prompt of the question's predicted type
    # Records made before questions were read in their own words (grounded arguments, frames,
    # compositional fill): their keys carry the fill rules of then and no grounding version.
    before_grounding: bool = False

    @property
    def key(self) -> str:
        s = self.settings
        return (
            f"{self.name}|{self.bank}|{s.representation}|{s.sampling.value}|{s.examples}|{int(s.cover_operators)}|"
            f"{s.prompt_version}|schema={int(s.schema_decoding)}|n={s.samples}|{s.llm}"
            + ("|tmpl=1" if s.template_retrieval and self.bank != "legacy" else "")
            + (
                f"|bank={self.bank_digest or _bundled_bank_digest()}"
                if self.bank == "bundled" and self.versioned
                else ""
            )
            + ("|route=1" if self.routed else "")
            + (f"|fill={2 if self.before_grounding else FILL_VERSIONS}" if s.template_fill else "")
            + ("" if self.before_grounding else f"|ground={GROUNDING_VERSION}")
            + ("" if self.before_grounding else DECODING)
        )


# The local model's decoding: with llama.cpp's fused attention (LlamaCppBackend's flash_attn) its
# logits differ in the last bits, and so do a draft batch's where drafts stop before an end token
# (`SpeculativeLlama`, which also ends where the grammar allows nothing else), so its translations
# are records of their own.
DECODING = "|attn=fused|end=grammar"


# What the default run must reach on the validation part (semantic equivalence), and its median time.
TARGETS = {
    "overall": 0.85,
    "new forms": 0.70,  # validation questions whose form the bank lacks: what users meet
    "model": 0.65,  # the questions left to the model
    "logical": 0.75,
    "verify": 0.75,
    "choose": 0.75,
}
TARGET_P50_S = 2.0


def load_targets() -> tuple[list[dict], list[Example], dict[str, Any]]:
    """The validation part's convertible questions (in a fixed order), every val question as a bank example, the split."""
    data = json.loads((gqa_dir() / "questions" / "val_balanced_sample.json").read_text(encoding="utf-8"))
    split = split_questions(data)
    test = set(split.test)
    targets, examples = [], []
    for qid, record in sorted(data.items()):
        try:
            program = gqa_to_program(record["semantic"])
        except (GQAProgramError, ProgramError):
            continue
        examples.append(
            Example(
                f"gqa-{qid}",
                record["question"],
                program,
                tuple(record["semantic"]),
                "gqa-val",
                frozenset(record.get("equivalent", [])),
            )
        )
        if qid in test:
            types = record.get("types") or {}
            targets.append(
                {
                    "id": qid,
                    "question": record["question"],
                    "program": program,
                    "gold": format_flat(program),
                    "structural": types.get("structural"),
                    "semantic_type": types.get("semantic"),
                    "equivalent": [e for e in record.get("equivalent", []) if e != qid],
                }
            )
    info = {
        "questions": len(data),
        "tuning": len(split.tuning),
        "test": len(split.test),
        "dropped_for_images": len(split.dropped),
        "test_convertible": len(targets),
    }
    return targets, examples, info


def runs_for(names: list[str], llm: str, size: int, grid_size: int) -> list[Run]:
    filled = TranslationSettings(llm=llm)
    # Every run but "default" is the model alone, as these runs were first made (their records keep their keys).
    default = filled.model_copy(update={"template_fill": False})
    runs = []
    full_size = size
    for spec in names:
        # "name:n" runs `name` on the first n questions only (ablations cost as much as the default).
        name, _, limit = spec.partition(":")
        size = min(int(limit), full_size) if limit else full_size
        # "name@digest" reads the records of an earlier bundled bank (shown, never extended).
        name, _, digest = name.partition("@")
        count = len(runs)
        if name == "default":
            runs.append(Run("default", filled, "bundled", size))
        elif name == "ungrounded":
            label = "default before grounded words, frames and composition"
            runs.append(Run("default", filled, "bundled", size, label=label, before_grounding=True))
        elif name == "nofill":
            runs.append(Run("default", default, "bundled", size, label="default without template fill"))
        elif name == "before":
            runs.append(
                Run("default", default, "bundled", size, versioned=False, label="default, first generated bank")
            )
        elif name == "legacy":
            legacy = {"schema_decoding": False, "prompt_version": "v2-fixed", "template_retrieval": False}
            runs.append(Run("legacy", default.model_copy(update=legacy), "legacy", size))
        elif name == "schema":
            runs.append(Run("schema", default, "legacy", size))
        elif name == "noschema":
            runs.append(Run("noschema", default.model_copy(update={"schema_decoding": False}), "bundled", size))
        elif name == "candidates":
            runs.append(Run("candidates", default.model_copy(update={"samples": 3}), "bundled", size))
        elif name == "routed":
            runs.append(Run("routed", default, "bundled", size, routed=True))
        elif name == "loo":
            runs.append(Run("loo", default, "loo", size))
        elif name == "grid":
            for sampling, k, cover in GRID:
                update = {"sampling": sampling, "examples": k, "cover_operators": cover, "prompt_version": "v1-short"}
                runs.append(Run("grid", default.model_copy(update=update), "bundled", grid_size))
        elif name in ("flat", "code", "gqa"):
            runs.append(Run(name, default.model_copy(update={"representation": name}), "bundled", size))
        else:
            raise SystemExit(f"unknown run {name!r}")
        if digest:
            for i in range(count, len(runs)):
                runs[i] = replace(runs[i], bank_digest=digest, label=f"{runs[i].name}, bank {digest}")
    return runs


def read_log() -> dict[tuple[str, str], dict]:
    done = {}
    if LOG.exists():
        for line in LOG.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                done[(record["run"], record["id"])] = record
    return done


def score(
    translated: str | None, target: dict, verdicts: dict[tuple[str, str], tuple[bool, bool]]
) -> tuple[bool, bool]:
    """(canonical, semantic) equivalence to the gold program, remembered per (translation, gold) pair."""
    if translated is None:
        return False, False
    key = (translated, target["gold"])
    if key not in verdicts:
        verdict = equivalent(parse_flat(translated), target["program"], scenes=30)
        verdicts[key] = verdict.same_canonical, verdict.equivalent
    return verdicts[key]


def _rates(records: list[dict]) -> dict[str, Any]:
    n = len(records)
    seconds = sorted(r["seconds"] for r in records)
    return {
        "n": n,
        "parsed": sum(r["program"] is not None for r in records) / n,
        "canonical": sum(r["canonical"] for r in records) / n,
        "semantic": sum(r["semantic"] for r in records) / n,
        "p50_s": statistics.median(seconds),
        "p90_s": seconds[int(0.9 * (n - 1))],
    }


def summarise(done: dict, runs: list[Run], new_forms: set[str]) -> dict[str, dict]:
    table = {}
    # Runs that stopped at different points are also compared on the questions all of them did.
    per_run = [{qid for (key, qid) in done if key == run.key} for run in runs]
    shared = set.intersection(*per_run) if per_run and all(per_run) else set()
    for run in runs:
        records = [r for (key, _), r in done.items() if key == run.key]
        if not records:
            continue
        common = [r for r in records if r["id"] in shared]
        row = _rates(records) | {
            "shared_n": len(common),
            "shared_semantic": sum(r["semantic"] for r in common) / len(common) if common else None,
            "run": run.label or run.name,
            "bank": run.bank,
            "complete": len(records) >= run.size,
            "settings": run.settings.model_dump(mode="json"),
        }
        novel = [r for r in records if r["id"] in new_forms]
        row["new_forms"] = _rates(novel) if novel else None
        for field in ("structural", "semantic_type", "source"):
            groups: dict[str, list[dict]] = defaultdict(list)
            for record in records:
                groups[record.get(field) or "-"].append(record)
            row[f"by_{field}"] = {
                g: {"n": len(rs), "semantic": sum(r["semantic"] for r in rs) / len(rs)}
                for g, rs in sorted(groups.items())
            }
        table[run.key] = row
    return table


def render(table: dict[str, dict], llm: str, info: dict[str, Any]) -> str:
    lines = [
        f"# Translation accuracy on the validation part (used while rules were written) ({llm})",
        "",
        f"Split of the shared GQA val sample (evaluation/splits.py): {info['questions']} questions, tuning part "
        f"{info['tuning']}, validation part {info['test']} ({info['test_convertible']} with a convertible GQA program), "
        f"{info['dropped_for_images']} dropped because their image is in the validation part. Every row is on the validation part.",
        "",
        f"New forms: the {info.get('new_forms', 0)} validation questions whose form (translators.rules.template_fill) the bank "
        "the service uses has no example of: the questions a user meets. Bank examples whose question is a "
        "target's word for word are left out of its translation.",
        "",
        "| run | bank | repr | sampling | k | cover | prompt | schema | n | parsed | canonical | semantic | "
        "semantic on new forms | semantic on the shared questions | p50 s | p90 s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in table.values():
        s = row["settings"]
        lines.append(
            f"| {row['run']}{'' if row['complete'] else ' (partial)'} | {row['bank']} | {s['representation']} | "
            f"{s['sampling']} | {s['examples']} | {'on' if s['cover_operators'] else 'off'} | {s['prompt_version']} | "
            f"{'on' if s['schema_decoding'] else 'off'} | {row['n']} | {row['parsed']:.0%} | {row['canonical']:.0%} | "
            f"{row['semantic']:.0%} | "
            + (f"{row['new_forms']['semantic']:.0%} ({row['new_forms']['n']})" if row["new_forms"] else "")
            + " | "
            + (f"{row['shared_semantic']:.0%} ({row['shared_n']})" if row["shared_semantic"] is not None else "")
            + f" | {row['p50_s']:.1f} | {row['p90_s']:.1f} |"
        )
    for field, title in (
        ("structural", "structural type"),
        ("semantic_type", "semantic type"),
        ("source", "source (template: filled from the form's examples; composed: from references and a form)"),
    ):
        groups = sorted({g for row in table.values() for g in row[f"by_{field}"]})
        lines += [
            "",
            f"Semantic equivalence by {title}:",
            "",
            "| run | bank | " + " | ".join(groups) + " |",
            "|---|---|" + "---|" * len(groups),
        ]
        for row in table.values():
            cells = []
            for g in groups:
                cell = row[f"by_{field}"].get(g)
                cells.append(f"{cell['semantic']:.0%} ({cell['n']})" if cell else "")
            lines.append(f"| {row['run']} | {row['bank']} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "p50/p90 s: wall time per translation in this run (2 threads on a 2-core machine). "
        "The latency benchmark is bench/translate.py.",
    ]
    return "\n".join(lines) + "\n"


def write_results(table: dict[str, dict], llm: str, info: dict[str, Any]) -> None:
    # Rows of a run stopped early are kept (marked partial) only beside a complete one, never alone.
    complete = table if any(v["complete"] for v in table.values()) else {}
    if not complete:
        print("no run covered its whole question set: results not written")
        return
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "translation_accuracy.json").write_text(
        json.dumps({"llm": llm, "split": info, "runs": list(complete.values())}, indent=2) + "\n"
    )
    (RESULTS / "translation_accuracy.md").write_text(render(complete, llm, info))


def is_new_form(filler: TemplateFiller, question: str) -> bool:
    """Whether the bank has no example of the question's form other than the question itself."""
    text = question.strip().lower()
    return all(e.question.strip().lower() == text for e, _ in filler.index.get(filler.form(question), ()))


def check_targets(row: dict[str, Any]) -> int:
    """Print each target of a complete default row; the number missed."""
    found = {
        "overall": row["semantic"],
        "new forms": row["new_forms"]["semantic"] if row["new_forms"] else 0.0,
        "model": row["by_source"].get("model", {}).get("semantic", 1.0),
        **{g: row["by_structural"].get(g, {}).get("semantic", 1.0) for g in ("logical", "verify", "choose")},
    }
    missed = 0
    for name, target in TARGETS.items():
        ok = found[name] >= target
        missed += not ok
        print(f"target: {name} semantic equivalence >= {target:.0%}: {'met' if ok else 'MISSED'} ({found[name]:.1%})")
    ok = row["p50_s"] <= TARGET_P50_S
    missed += not ok
    print(f"target: translation p50 <= {TARGET_P50_S:.1f} s: {'met' if ok else 'MISSED'} ({row['p50_s']:.2f} s)")
    return missed


def make_bank(kind: str, val_examples: list[Example]) -> ExampleBank:
    if kind == "legacy":
        return legacy_bank()
    if kind == "bundled":
        return default_bank()
    # The val-derived bank lives in the user cache, never in the repository (GQA data stays outside).
    path = cache_dir() / "banks" / "gqa_val_sample.jsonl"
    if not path.exists():
        save_bank(ExampleBank(val_examples), path)
    return load_bank(path).merged(default_bank())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--llm", default=DEFAULT_WRITER, help="the writer of what the rules leave (the service's default)"
    )
    parser.add_argument(
        "--runs",
        default="default",
        help="comma-separated, each optionally name:n for its first n questions: default, ungrounded, nofill, before, legacy, schema, noschema, candidates, routed, loo, grid, flat, code, gqa",
    )
    parser.add_argument("--budget-s", type=float, default=300.0)
    parser.add_argument("--limit", type=int, default=0, help="questions per run (0: the whole validation part)")
    parser.add_argument("--grid-size", type=int, default=40)
    parser.add_argument("--round", type=int, default=5, help="questions per round across the runs")
    parser.add_argument("--write", action="store_true", help="write bench/results (complete rows only)")
    parser.add_argument("--report-only", action="store_true", help="rebuild the table from the log and stop")
    args = parser.parse_args()
    if not (gqa_dir() / "questions" / "val_balanced_sample.json").exists():
        print(f"skipped: no GQA data at {gqa_dir()}")
        return 0
    start = time.monotonic()
    targets, val_examples, info = load_targets()
    size = min(args.limit or len(targets), len(targets))
    runs = runs_for(args.runs.split(","), args.llm, size, min(args.grid_size, size))
    done = read_log()
    bundled = default_bank()
    filler = TemplateFiller(bundled, bundled_ontology())
    new_forms = {t["id"] for t in targets if is_new_form(filler, t["question"])}
    info["new_forms"] = len(new_forms)
    same_text: dict[str, list[str]] = defaultdict(list)
    for example in bundled:
        same_text[example.question.strip().lower()].append(example.id)

    def report() -> int:
        table = summarise(done, runs, new_forms)
        print(render(table, args.llm, info))
        missed = 0
        for row in table.values():
            if row["run"] == "default" and row["complete"]:
                missed += check_targets(row)
        if args.write:
            write_results(table, args.llm, info)
        return 1 if missed else 0

    if args.report_only:
        return report()
    embedder = load_embedder()
    backend = get_backend(args.llm)
    banks: dict[str, ExampleBank] = {}
    translators = []
    for run in runs:
        if run.bank not in banks:
            banks[run.bank] = make_bank(run.bank, val_examples)
        if run.routed:
            retriever = Retriever(banks[run.bank], embedder, templater=Templater(bundled_ontology()))
            routed = RoutedTranslator(run.settings, banks[run.bank], backend, retriever=retriever, embedder=embedder)
            translators.append((run, routed))
        else:
            translators.append((run, Translator(run.settings, banks[run.bank], backend, embedder=embedder)))
    verdicts = {(r["program"], r["gold"]): (r["canonical"], r["semantic"]) for r in done.values() if r["program"]}
    LOG.parent.mkdir(parents=True, exist_ok=True)
    for round_start in range(0, size, args.round):
        for run, translator in translators:
            for target in targets[round_start : min(run.size, round_start + args.round)]:
                if (run.key, target["id"]) in done:
                    continue
                if time.monotonic() - start > args.budget_s:
                    outcome = report()
                    print(f"budget of {args.budget_s:.0f} s used; run again to resume")
                    return outcome
                # Both spellings: bank ids carry a prefix, `equivalent` lists hold the dataset's own ids.
                exclude = [
                    target["id"],
                    *target["equivalent"],
                    f"gqa-{target['id']}",
                    *(f"gqa-{e}" for e in target["equivalent"]),
                    # The bank's generated examples include some GQA questions word for word.
                    *same_text.get(target["question"].strip().lower(), ()),
                ]
                result = translator.translate(target["question"], f"gqa-{target['id']}", exclude_ids=exclude)
                canonical_ok, semantic_ok = score(result.flat, target, verdicts)
                record = {
                    "run": run.key,
                    "id": target["id"],
                    "question": target["question"],
                    "program": result.flat,
                    "gold": target["gold"],
                    "structural": target["structural"],
                    "semantic_type": target["semantic_type"],
                    "canonical": canonical_ok,
                    "semantic": semantic_ok,
                    "seconds": result.seconds,
                    "attempts": len(result.attempts),
                    "source": result.source,
                    "error": result.error,
                    "examples": [e["id"] for e in result.examples],
                }
                if result.route is not None:
                    record["route"] = result.route
                done[(run.key, target["id"])] = record
                with LOG.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(record) + "\n")
    return report()


if __name__ == "__main__":
    raise SystemExit(main())
