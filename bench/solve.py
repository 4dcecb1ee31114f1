"""Solve latency on the paths users take: scenes given as objects (SceneFacts) and as text.

Cases:
- GQA perfect information: the project's 54 questions on the 4 real GQA val scene graphs
  (../shared/data/gqa or $ASPVQA_GQA_DIR), each question's GQA program converted by
  `gqa_to_program` and its scene built by `scene_graph_facts` as the asp-oracle evaluation does
  (restricted to the program's concepts), and once more from the whole scene graph;
- weighted: a generated scene the size of a vision-language model's (about 470 weak constraints,
  no real one is available here), with random question programs;
- weighted text in the format vision-language pipelines write (GS-VQA's: `{ atom }.` and one
  `:~ atom. [W, (ARGS)]` per uncertain atom; 9 objects, 756 uncertain atoms), issue 28's size;
- synthetic perfect information (20-50 objects, 100 relations), as before.
Each case is solved once first, timed apart (what the process reads once per program or kind of
question: the program, the theory's part for its operations, its rules' text), then each solve is
timed on both paths, interleaved, at top-1 and at top-5, text both as a text the
process has read before (the reading of the last few scene texts is kept, as when several questions
are asked of one image) and as a text it has not (`new_text`); both paths must give the
same answers with the same costs, and the same support but where an answer has several equally
cheap witnesses: a text scene reaches clingo without the facts the program cannot read, so the
search may meet another witness first (counted; its facts must be the scene's). (Both hand uncertain atoms to clingo as one
`scene_choice_P` fact each; tests/theory/test_data_text.py checks that these ground to the very
program the former fact-per-statement encoding gave, so answers, costs and support are unchanged.)

Targets (issue 16): text scenes at most half of GS-VQA's published theory on the same cases.
GS-VQA's theory is not available here, so the issue's measured reference numbers are used:
perfect information p50 5.2 ms and p99 9.1 ms (targets 2.6 and 4.55 ms), weighted p50 37.7 ms
(target 18.85 ms; no p99 reference was measured); the GS-VQA-format weighted text: p50 <= 9 ms
(issue 28: about a third of the reference solver's 28.9 ms on such a scene). Earlier targets: p50 <= 10 ms and p99 <= 100 ms
on synthetic perfect information. Issue 28 also asks perfect information (GQA and synthetic) text
solves at p50 <= 1.2 ms, a third of the reference solver's 3.7 ms on pairs of median 210 facts.
Perfect information on GQA (both GQA rows: 54 questions x 2 scene forms, 108 pairs) is also held to
the reference as a ratio, reference / measured: at least 3x at p50 (5.2 ms / 3 = 1.73 ms) and 2x at
p99 (9.1 ms / 2 = 4.55 ms), in every column: scenes as objects, as text asked again and as new text,
at top-1 and at top-5; the lowest ratio of a row is the one that counts.
Timings from one run only are compared with the reference figures; the load average is printed
and stored at the start and the end (a shared machine's other work lengthens the tail most).
Prints a table, writes bench/results/solve.json; exits non-zero when a target is missed.
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from clingo import Function  # noqa: E402

from bench._machine import machine_check  # noqa: E402
from theory import SceneFacts, SolveStatus, format_flat, solve  # noqa: E402
from theory.scene_facts import WeightedAtom, likelihood_weight  # noqa: E402
from theory.solver import KEPT_SCENE_TEXTS, read_scene  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR", ROOT / "../shared/data/gqa"))
QUESTIONS = ROOT / "tests" / "data" / "gqa_questions.json"
REFERENCE: dict[str, dict[str, float | None]] = {
    "perfect": {"p50": 5.2, "p99": 9.1},
    "weighted": {"p50": 37.7, "p99": None},
}  # GS-VQA, issue 16
PERFECT_TEXT_P50 = 1.2  # issue 28: text solves of perfect information, top-1 and top-5
# Perfect information on GQA against the reference, reference / measured, in every column.
REFERENCE_RATIO = {"p50": 3.0, "p99": 2.0}
# Spellings of one scene text used in turn as new texts: more than the solver keeps readings of.
NEW_TEXT_SPELLINGS = 4 * KEPT_SCENE_TEXTS

CLASSES = {
    "man": "person",
    "woman": "person",
    "boy": "person",
    "dog": "animal",
    "cat": "animal",
    "horse": "animal",
    "car": "vehicle",
    "bus": "vehicle",
    "bike": "vehicle",
    "table": "furniture",
    "chair": "furniture",
    "shirt": "clothing",
    "hat": "clothing",
    "tree": "plant",
    "building": "structure",
    "window": "structure",
    "cup": "container",
    "bag": "container",
    "ball": "toy",
    "sign": "object",
}
ATTRIBUTES = {
    "color": ["red", "blue", "white", "black", "green", "brown", "gray", "yellow"],
    "material": ["wood", "metal", "plastic", "glass", "cotton"],
    "size": ["small", "large", "tall", "short"],
    "pose": ["standing", "sitting", "walking"],
}
RELATIONS = [
    "on",
    "near",
    "holding",
    "wearing",
    "behind",
    "in_front_of",
    "to_the_left_of",
    "to_the_right_of",
    "next_to",
    "in",
]
POSITIONS = {"hposition": ["left", "middle", "right"], "vposition": ["top", "middle", "bottom"]}


def add_object(scene: SceneFacts, rng: random.Random, oid: int) -> None:
    """An object with a class, its category, its name and a position."""
    name = rng.choice(list(CLASSES))
    scene.add_fact("object", oid)
    scene.add_fact("has_attr", oid, "class", name)
    scene.add_fact("has_attr", oid, "class", CLASSES[name])
    scene.add_fact("has_attr", oid, "name", name)
    for category, values in POSITIONS.items():
        scene.add_fact("has_attr", oid, category, rng.choice(values))


def perfect_scene(rng: random.Random, n_objects: int, n_relations: int) -> SceneFacts:
    scene = SceneFacts()
    for oid in range(1, n_objects + 1):
        add_object(scene, rng, oid)
        for category, values in rng.sample(sorted(ATTRIBUTES.items()), 2):
            scene.add_fact("has_attr", oid, category, rng.choice(values))
    for _ in range(n_relations):
        a, b = rng.sample(range(1, n_objects + 1), 2)
        scene.add_fact("has_rel", a, rng.choice(RELATIONS), b)
    return scene


def weighted_scene(rng: random.Random, n_objects: int, target_constraints: int) -> SceneFacts:
    """Detected objects with certain classes and uncertain attributes/relations (two weak constraints each)."""
    scene = SceneFacts()
    choices = 0
    for oid in range(1, n_objects + 1):
        add_object(scene, rng, oid)
        scene.add_fact("has_obj_weight", oid, rng.randint(0, 1500))
    for category in ATTRIBUTES:
        scene.add_fact("exclusive", category)
    while choices * 2 < target_constraints:
        oid = rng.randint(1, n_objects)
        if rng.random() < 0.7:
            category = rng.choice(sorted(ATTRIBUTES))
            scene.add_likely("has_attr", (oid, category, rng.choice(ATTRIBUTES[category])), rng.uniform(0.02, 0.98))
        else:
            other = rng.randint(1, n_objects)
            if other == oid:
                continue
            scene.add_likely("has_rel", (oid, rng.choice(RELATIONS), other), rng.uniform(0.02, 0.98))
        choices = len(scene.weighted)
    return scene


def tuple_weighted_scene(rng: random.Random, n_objects: int = 9, n_weighted: int = 756) -> tuple[SceneFacts, str]:
    """A weighted scene in the format vision-language pipelines write (GS-VQA's), as objects and as
    that text: `{ atom }.` and one `:~ atom. [W, (ARGS)]` per uncertain atom, objects `o0`..."""
    scene = SceneFacts()
    lines: list[str] = []
    objects = [f"o{i}" for i in range(n_objects)]
    for oid in objects:
        name = rng.choice(list(CLASSES))
        weight = rng.randint(0, 1500)
        scene.add_fact("object", oid)
        scene.add_fact("has_obj_weight", oid, weight)
        lines.append(f"object({oid}). has_obj_weight({oid}, {weight}).")
        for category, value in (("class", name), ("class", CLASSES[name]), ("name", name)):
            scene.add_fact("has_attr", oid, category, value)
            lines.append(f"has_attr({oid}, {category}, {value}).")
    uncertain = [(oid, c, v) for oid in objects for c, values in sorted(ATTRIBUTES.items()) for v in values]
    pairs = [(a, r, b) for a in objects for b in objects if a != b for r in RELATIONS]
    chosen = [("has_attr", args) for args in uncertain]
    chosen += [("has_rel", args) for args in rng.sample(pairs, n_weighted - len(chosen))]
    for name, args in chosen:
        cost = likelihood_weight(rng.uniform(0.02, 0.98))
        atom = Function(name, [Function(a) for a in args])
        scene.weighted[atom] = WeightedAtom(atom, cost, 0)
        text = f"{name}({', '.join(args)})"
        lines.append(f"{{{text}}}.\n:~ {text}. [{cost}, ({', '.join(args)})]")
    for category, values in sorted(ATTRIBUTES.items()):
        scene.add_fact("is_attr", category)
        lines.append(f"is_attr({category}).")
        for value in values:
            scene.add_fact("is_attr_value", category, value)
            lines.append(f"is_attr_value({category}, {value}).")
    return scene, "\n".join(lines)


def random_program(rng: random.Random) -> str:
    c1, c2 = rng.sample(list(CLASSES) + sorted(set(CLASSES.values())), 2)
    cat = rng.choice(sorted(ATTRIBUTES))
    val = rng.choice(ATTRIBUTES[cat])
    rel = rng.choice(RELATIONS)
    templates = [
        f"scene(0). select(1, 0, {c1}). unique(2, 1). query(3, 2, {cat}). end(3).",
        f"scene(0). select(1, 0, {c1}). relate(2, 1, {c2}, {rel}, subject). unique(3, 2). query(4, 3, name). end(4).",
        f"scene(0). select(1, 0, {c1}). filter(2, 1, {cat}, {val}). exist(3, 2). end(3).",
        f"scene(0). select(1, 0, {c1}). unique(2, 1). verify_rel(3, 2, {c2}, {rel}, object). end(3).",
        f"scene(0). select(1, 0, {c1}). exist(2, 1). select(3, 0, {c2}). exist(4, 3). and(5, 2, 4). end(5).",
        f"scene(0). select(1, 0, {c1}). unique(2, 1). select(3, 0, {c2}). unique(4, 3). two_same(5, 2, 4, {cat}). end(5).",
        f"scene(0). select(1, 0, {c1}). all_same(2, 1, {cat}). end(2).",
        f"scene(0). select(1, 0, {c1}). unique(2, 1). choose_attr(3, 2, {cat}, {val}, {ATTRIBUTES[cat][0]}). end(3).",
        f"scene(0). select(1, 0, {c1}). filter(2, 1, {cat}, {val}). negate(3, 2, 1). unique(4, 3). query(5, 4, hposition). end(5).",
        f"scene(0). select(1, 0, {c1}). relate_any(2, 1, {rel}, object). unique(3, 2). query(4, 3, name). end(4).",
        f"scene(0). select(1, 0, {c1}). unique(2, 1). select(3, 0, {c2}). unique(4, 3). common(5, 2, 4). end(5).",
    ]
    return rng.choice(templates)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


Case = tuple[str, SceneFacts, str]  # program text, scene objects, scene text
# Scenes as objects; as text asked again (the reading of the last few texts is kept, as when
# several questions are asked of one image); as text the process has not seen.
PATHS = ("objects", "text", "new_text")


def gqa_cases(whole_graph: bool) -> tuple[list[Case], list[str | None]]:
    """The project's GQA questions on the real scene graphs, as the asp-oracle setting builds them."""
    from evaluation.job import Evaluator, EvaluatorConfig, load_questions
    from scene.scene_graph import scene_graph_facts

    evaluator = Evaluator(EvaluatorConfig(scene_graphs=str(GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json")))
    context = evaluator.context
    cases, golds = [], []
    for question in load_questions(json.loads(QUESTIONS.read_text())):
        program = context.reference(question)
        if whole_graph:
            scene = scene_graph_facts(
                context.graph(question) or {}, taxonomy=context.taxonomy, attributes=context.attributes
            )
        else:
            scene = context.true_scene(question, program)
        cases.append((format_flat(program), scene, scene.to_asp()))
        golds.append(question.answer)
    cases_matcher.append(context.matcher)
    return cases, golds


cases_matcher: list = []  # the evaluator's answer matcher, kept from the first GQA load


def random_cases(scenes: list[SceneFacts], rng: random.Random, n: int) -> list[Case]:
    return [(random_program(rng), scene, scene.to_asp()) for scene in (scenes[i % len(scenes)] for i in range(n))]


def scene_facts(scene: SceneFacts) -> set[str]:
    """The scene's facts as clingo prints them (support lists them so)."""
    return {str(fact) for fact in scene.facts} | {str(atom) for atom in scene.weighted}


def first_solves(cases: list[Case]) -> list[float]:
    """Each case's first solve in the process (its scene as objects, top-1), in ms: what is read once
    per program or per set of operations (the program, the theory's part for it, its rules' text)."""
    times = []
    for program, scene, _ in cases:
        started = time.perf_counter()
        solve(program, scene, top_k=1)
        times.append((time.perf_counter() - started) * 1000)
    return times


def measure(name: str, kind: str, cases: list[Case], repeats: int, golds: list[str | None] | None = None) -> dict:
    """Each case solved on both paths at top-1 and top-5, interleaved; latencies in ms. Texts new to
    the process are solved in a pass of their own after each pass of the others: the kept readings
    are of the last few texts, so new ones in between would leave none of the asked-again ones.
    Each case is solved once before (`first_solves`, timed apart), so the passes time questions of
    a kind the process has answered before, as a service does after its first few requests."""
    first = first_solves(cases)
    times: dict[str, list[float]] = {f"{path}_top{k}": [] for path in PATHS for k in (1, 5)}
    statuses: dict[str, int] = {}
    correct = ties = 0
    fresh = 0
    passes = [("objects", "text"), ("new_text",)] * repeats
    kept: dict[tuple[int, str, int], list] = {}
    for paths in passes:
        for index, (program, scene, text) in enumerate(cases):
            outcomes = {}
            for k in (1, 5):
                fresh += 1
                # Leading newlines make a text the process has not read (of the last few it keeps
                # readings of), a few of them: a text thousands of characters longer would cost more.
                new_text = "\n" * (1 + fresh % NEW_TEXT_SPELLINGS) + text
                for path, given in (("objects", scene), ("text", text), ("new_text", new_text)):
                    if path not in paths:
                        continue
                    if path == "text":
                        # Asked again: the process has read this text before (a case's own scene
                        # text, as the asp-oracle's, would otherwise be new at top-1).
                        read_scene(given)
                    started = time.perf_counter()
                    result = solve(program, given, top_k=k)
                    times[f"{path}_top{k}"].append((time.perf_counter() - started) * 1000)
                    assert result.status in (SolveStatus.OK, SolveStatus.NO_ANSWER), (program, result.message)
                    outcomes[path, k] = kept[index, path, k] = [(a.answer, a.cost, a.support) for a in result.answers]
            if paths == ("new_text",):
                for k in (1, 5):
                    assert outcomes["new_text", k] == kept[index, "text", k], program
                continue
            for k in (1, 5):
                by_objects, by_text = outcomes["objects", k], outcomes["text", k]
                assert [a[:2] for a in by_objects] == [a[:2] for a in by_text], program  # answers and costs
                for (_, _, support), (_, _, other) in zip(by_objects, by_text):
                    if support != other:
                        # Equally cheap witnesses of one answer: the text path gives the scene only
                        # the facts the program can read, so the search may meet another one first.
                        assert set(other.facts) <= scene_facts(scene), program
                        ties += 1
            statuses[result.status.value] = statuses.get(result.status.value, 0) + 1
            if golds is not None and outcomes["text", 1] and golds[index] is not None:
                correct += cases_matcher[0].matches(outcomes["text", 1][0][0], golds[index])
    row: dict = {
        "case": name,
        "kind": kind,
        "solves_per_column": len(cases) * repeats,
        "scene_facts": round(statistics.mean(len(c[1]) for c in cases)),
        "weak_constraints": round(statistics.mean(c[1].weak_constraint_count for c in cases)),
        "statuses": statuses,
        "same_answers_both_paths": True,
        "other_witness_of_a_tie": ties,
        "first_solve_p50_ms": round(percentile(first, 50), 2),
        "first_solve_max_ms": round(max(first), 2),
    }
    if golds is not None:
        row["top1_correct"] = f"{correct // repeats}/{sum(g is not None for g in golds)}"
    for column, values in times.items():
        row[f"{column}_p50_ms"] = round(percentile(values, 50), 2)
        row[f"{column}_p99_ms"] = round(percentile(values, 99), 2)
    return row


def targets(kind: str) -> dict[str, float | None]:
    """Half of the reference (GS-VQA) on GQA-like cases; the earlier targets on synthetic ones."""
    if kind == "synthetic":
        return {"p50": 10.0, "p99": 100.0}
    if kind == "weighted_text":
        return {"p50": 9.0, "p99": None}  # issue 28: about a third of the reference solver's 28.9 ms
    reference = REFERENCE[kind]
    return {q: (None if v is None else round(v / 2, 2)) for q, v in reference.items()}


def reference_ratios(row: dict) -> dict:
    """Reference / measured at p50 and p99 for each column of a perfect-information row, the
    lowest of each and whether it reaches `REFERENCE_RATIO`."""
    ratios = {
        f"{path}_top{k}": {q: round(REFERENCE["perfect"][q] / row[f"{path}_top{k}_{q}_ms"], 2) for q in ("p50", "p99")}
        for path in PATHS
        for k in (1, 5)
    }
    lowest = {q: min(ratios.items(), key=lambda item: item[1][q]) for q in ("p50", "p99")}
    return {
        "by_column": ratios,
        "lowest": {q: {"ratio": column[q], "column": name} for q, (name, column) in lowest.items()},
        "target": REFERENCE_RATIO,
        "met": all(lowest[q][1][q] >= REFERENCE_RATIO[q] for q in ("p50", "p99")),
    }


def print_ratios(row: dict) -> None:
    lowest = row["reference_ratio"]["lowest"]
    print(
        f"{'':34} vs the reference (p50 {REFERENCE['perfect']['p50']}, p99 {REFERENCE['perfect']['p99']} ms): "
        f"x{lowest['p50']['ratio']} at p50 ({lowest['p50']['column']}), x{lowest['p99']['ratio']} at p99 "
        f"({lowest['p99']['column']}), the lowest of {len(row['reference_ratio']['by_column'])} columns; "
        f"target x{REFERENCE_RATIO['p50']:g} and x{REFERENCE_RATIO['p99']:g} {'met' if row['reference_ratio']['met'] else 'MISSED'}"
    )


def main() -> int:
    rng = random.Random(7)
    solve(random_program(rng), perfect_scene(rng, 20, 40))  # warm-up: imports, theory, patterns
    machine = {"start": machine_check()}
    load_start = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"load average at the start {load_start}; {os.cpu_count()} cores")
    rows = []
    if (GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json").is_file():
        cases, golds = gqa_cases(whole_graph=False)
        # Five passes each: 270 solves a column, so that p99 is not the second-longest solve.
        rows.append(measure("GQA pairs, asp-oracle scenes", "perfect", cases, 5, golds))
        cases, golds = gqa_cases(whole_graph=True)
        rows.append(measure("GQA pairs, whole scene graphs", "perfect", cases, 5, golds))
    else:
        print(f"GQA scene graphs not found in {GQA_DIR}: GQA rows left out (set ASPVQA_GQA_DIR)")
    weighted = [weighted_scene(rng, 30, 468) for _ in range(5)]
    rows.append(measure("weighted (~470 weak constraints)", "weighted", random_cases(weighted, rng, 60), 2))
    tuple_scenes = [tuple_weighted_scene(rng) for _ in range(5)]
    tuple_cases = [(random_program(rng), *tuple_scenes[i % 5]) for i in range(60)]
    rows.append(measure("weighted, GS-VQA text (756 atoms)", "weighted_text", tuple_cases, 2))
    perfect = [perfect_scene(rng, rng.randint(20, 50), 100) for _ in range(20)]
    rows.append(measure("synthetic perfect information", "synthetic", random_cases(perfect, rng, 100), 2))

    print(
        "GS-VQA's theory is not available here: targets are half of the issue's measured reference numbers, "
        f"and GQA perfect information x{REFERENCE_RATIO['p50']:g} (p50) and x{REFERENCE_RATIO['p99']:g} (p99) of them"
    )
    print(
        f"{'case':34} {'facts':>5} {'weak':>4}  {'path':8} {'top-1 p50':>9} {'p99':>7} {'top-5 p50':>9} {'p99':>7}  target (text and new text, top-1 and top-5)"
    )
    for row in rows:
        goal = targets(row["kind"])
        row["target_p50_ms"], row["target_p99_ms"] = goal["p50"], goal["p99"]
        # Text asked again and text new to the process: both must meet the targets.
        met = all(
            row[f"{path}_top{k}_p50_ms"] <= goal["p50"]
            and (goal["p99"] is None or row[f"{path}_top{k}_p99_ms"] <= goal["p99"])
            for k in (1, 5)
            for path in ("text", "new_text")
        )
        if row["kind"] in ("perfect", "synthetic"):
            row["target_issue28_p50_ms"] = PERFECT_TEXT_P50
            row["met_issue28"] = all(
                row[f"{path}_top{k}_p50_ms"] <= PERFECT_TEXT_P50 for k in (1, 5) for path in ("text", "new_text")
            )
            met = met and row["met_issue28"]
        if row["kind"] == "perfect":
            row["reference_ratio"] = reference_ratios(row)
            met = met and row["reference_ratio"]["met"]
        row["met"] = met
        for path in ("text", "new_text", "objects"):
            label = f"p50<={goal['p50']}" + (
                f", p99<={goal['p99']}" if goal["p99"] is not None else ", p99 no reference"
            )
            if "met_issue28" in row:
                label += f", issue 28 p50<={PERFECT_TEXT_P50}"
            if "reference_ratio" in row:
                label += f", x{REFERENCE_RATIO['p50']:g} / x{REFERENCE_RATIO['p99']:g} of the reference in every column"
            verdict = f"{label} {'met' if met else 'MISSED'}" if path == "text" else ""
            print(
                f"{row['case'] if path == 'text' else '':34} {row['scene_facts'] if path == 'text' else '':>5} "
                f"{row['weak_constraints'] if path == 'text' else '':>4}  {path:8} "
                f"{row[f'{path}_top1_p50_ms']:>9} {row[f'{path}_top1_p99_ms']:>7} {row[f'{path}_top5_p50_ms']:>9} {row[f'{path}_top5_p99_ms']:>7}  {verdict}"
            )
        correct = f"top-1 correct {row['top1_correct']}; " if "top1_correct" in row else ""
        print(
            f"{'':34} {correct}same answers and costs on both paths; support the same but for "
            f"{row['other_witness_of_a_tie']} answers with another equally cheap witness"
        )
        print(
            f"{'':34} each case's first solve in the process, before the timed passes (objects, top-1): "
            f"p50 {row['first_solve_p50_ms']} ms, longest {row['first_solve_max_ms']} ms"
        )
        if "reference_ratio" in row:
            print_ratios(row)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    machine["end"] = machine_check()
    print(f"load average at the end {load}; {os.cpu_count()} cores (timings on a busy machine run long)")
    print(f"machine check (fixed work, p50 ms; bench/_machine.py): start {machine['start']}, end {machine['end']}")
    out = Path(__file__).parent / "results" / "solve.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({
        "machine": platform.machine(), "python": platform.python_version(), "cores": os.cpu_count(),
        "load_average_start": load_start, "load_average": load,
        "machine_check": machine,
        "reference": {"source": "issue 16 (GS-VQA theory, clingo, not available here)", **REFERENCE}, "rows": rows,
    }, indent=2) + "\n")  # fmt: skip
    print(f"wrote {out}")
    return 0 if all(row["met"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
