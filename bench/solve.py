"""Solve latency: perfect-information scenes (20-50 objects, ~100 relations) and a weighted scene.

Targets (2-core machine): p50 <= 10 ms and p99 <= 100 ms on perfect information, p50 <= 50 ms
on a weighted scene with ~500 weak constraints. Prints a table, writes bench/results/solve.json.
"""

from __future__ import annotations

import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from theory import SceneFacts, SolveStatus, solve  # noqa: E402

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


def measure(name: str, scenes: list[SceneFacts], rng: random.Random, n: int) -> dict:
    latencies, statuses = [], {}
    for i in range(n):
        scene = scenes[i % len(scenes)]
        program = random_program(rng)
        started = time.perf_counter()
        result = solve(program, scene, top_k=5)
        latencies.append((time.perf_counter() - started) * 1000)
        statuses[result.status.value] = statuses.get(result.status.value, 0) + 1
        assert result.status in (SolveStatus.OK, SolveStatus.NO_ANSWER), (program, result.message)
    return {
        "case": name,
        "solves": n,
        "scene_facts": round(statistics.mean(len(s) for s in scenes)),
        "weak_constraints": round(statistics.mean(s.weak_constraint_count for s in scenes)),
        "p50_ms": round(percentile(latencies, 50), 2),
        "p90_ms": round(percentile(latencies, 90), 2),
        "p99_ms": round(percentile(latencies, 99), 2),
        "max_ms": round(max(latencies), 2),
        "statuses": statuses,
    }


def main() -> None:
    rng = random.Random(7)
    perfect = [perfect_scene(rng, rng.randint(20, 50), 100) for _ in range(20)]
    weighted = [weighted_scene(rng, 30, 500) for _ in range(5)]
    solve(random_program(rng), perfect[0])  # warm-up: imports, theory text
    rows = [
        measure("perfect information", perfect, rng, 400),
        measure("weighted (~500 weak constraints)", weighted, rng, 200),
    ]
    targets = {"perfect information": (10, 100), "weighted (~500 weak constraints)": (50, None)}
    print(f"{'case':34} {'facts':>6} {'weak':>5} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}  target")
    for row in rows:
        p50_target, p99_target = targets[row["case"]]
        target = f"p50<={p50_target}" + (f", p99<={p99_target}" if p99_target else "")
        ok = row["p50_ms"] <= p50_target and (p99_target is None or row["p99_ms"] <= p99_target)
        row["target"], row["met"] = target, ok
        print(
            f"{row['case']:34} {row['scene_facts']:>6} {row['weak_constraints']:>5} {row['p50_ms']:>8} {row['p90_ms']:>8} "
            f"{row['p99_ms']:>8} {row['max_ms']:>8}  {target} {'met' if ok else 'MISSED'}"
        )
    out = Path(__file__).parent / "results" / "solve.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps({"machine": platform.machine(), "python": platform.python_version(), "rows": rows}, indent=2)
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
