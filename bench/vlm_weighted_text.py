"""Solve latency on weighted scene text as vision-language pipelines write it (GS-VQA's follow-up).

Every uncertain atom is a choice with two weak constraints named by one tuple, one on the atom and
one on its negation:

    {has_attr(o0, color, beige)}.
    :~ has_attr(o0, color, beige). [1083, (o0, color, beige)]
    :~ not has_attr(o0, color, beige). [413, (o0, color, beige)]

Data: generated (no such scene is stored here): 9 objects `o0`..`o8`, each with a certain class,
its category and its name (the classes of bench/solve.py), 20-30 uncertain colour values of 30,
and 40 uncertain relations (bench/solve.py's relations), weights `likelihood_weight(p)` and
`likelihood_weight(1 - p)` of a random likelihood p. Questions: colour questions (two_different,
query, filter, verify, choose, all_same) and relation questions on the scene's classes.

Paths, each the user's (`theory.solve` on the text as the API receives it), interleaved per case:
- `ast`: the reading before this reader admitted the form: clingo's AST reader
  (`theory.asp_data.read_ast`), made into `SceneFacts`, then solved (no reading kept);
- `new_text`: a text the process has not read (a few leading newlines make it new);
- `text`: a text asked about again (its reading is kept, as for several questions on one image).
Every path must give the same answers with the same costs.

Target: at least 3x faster than GS-VQA's theory on such a scene. GS-VQA's theory is not in this
repository and is not written again here; the AST reader path was measured at about 0.3x of its
speed on such a scene (78 ms on 234 uncertain colour atoms), so the target is derived: p50 of
`new_text` and of `text` at most 0.3 / 3 = a tenth of the AST path's p50 in the same run.
Prints a table, writes bench/results/vlm_weighted_text.json; exits non-zero on a miss.
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

from bench._machine import machine_check  # noqa: E402
from bench.solve import CLASSES, RELATIONS, percentile  # noqa: E402
from theory import SceneFacts, SolveResult, SolveStatus, likelihood_weight, solve  # noqa: E402
from theory.asp_data import read_ast  # noqa: E402
from theory.data_text import SceneText  # noqa: E402
from theory.operations import SCENE_PREDICATES  # noqa: E402
from theory.solver import KEPT_SCENE_TEXTS, read_scene  # noqa: E402

OBJECTS = 9
COLOURS = [
    "beige", "black", "blue", "brown", "cream", "dark_blue", "dark_brown", "gold", "gray", "green",
    "khaki", "light_blue", "light_brown", "lime", "maroon", "navy", "olive", "orange", "pink", "purple",
    "red", "silver", "tan", "teal", "turquoise", "violet", "white", "yellow", "dark_green", "light_gray",
]  # fmt: skip
COLOURS_PER_OBJECT = (20, 30)
UNCERTAIN_RELATIONS = 40
# The AST reader path runs at about 0.3x GS-VQA's speed: 3x GS-VQA's speed is 0.3 / 3 of its time.
AST_SPEED_OF_REFERENCE = 0.3
TARGET_SPEEDUP_OVER_REFERENCE = 3.0
TARGET_SHARE_OF_AST = AST_SPEED_OF_REFERENCE / TARGET_SPEEDUP_OVER_REFERENCE
NEW_TEXT_SPELLINGS = 4 * KEPT_SCENE_TEXTS  # more spellings than the solver keeps readings of


def _weighted(lines: list[str], name: str, args: tuple[str, ...], p: float) -> None:
    """One uncertain atom as the pipelines write it: a choice and a weak constraint of each sign."""
    atom = f"{name}({', '.join(args)})"
    terms = f"({', '.join(args)})"
    lines.append(f"{{{atom}}}.")
    lines.append(f":~ {atom}. [{likelihood_weight(p)}, {terms}]")
    lines.append(f":~ not {atom}. [{likelihood_weight(1.0 - p)}, {terms}]")


def vlm_scene(rng: random.Random) -> tuple[str, list[str]]:
    """A generated scene text of this form and the classes of its objects."""
    lines: list[str] = []
    objects = [f"o{i}" for i in range(OBJECTS)]
    classes = []
    for oid in objects:
        name = rng.choice(sorted(CLASSES))
        classes.append(name)
        lines.append(f"object({oid}). has_obj_weight({oid}, {rng.randint(0, 1500)}).")
        lines.append(f"has_attr({oid}, class, {name}). has_attr({oid}, class, {CLASSES[name]}).")
        lines.append(f"has_attr({oid}, name, {name}).")
    for oid in objects:
        for colour in rng.sample(COLOURS, rng.randint(*COLOURS_PER_OBJECT)):
            _weighted(lines, "has_attr", (oid, "color", colour), rng.uniform(0.02, 0.98))
    pairs = [(a, r, b) for a in objects for b in objects if a != b for r in RELATIONS]
    for args in rng.sample(pairs, UNCERTAIN_RELATIONS):
        _weighted(lines, "has_rel", args, rng.uniform(0.02, 0.98))
    lines.append("is_attr(color).")
    lines += [f"is_attr_value(color, {colour})." for colour in COLOURS]
    return "\n".join(lines) + "\n", classes


def question(rng: random.Random, classes: list[str]) -> str:
    """A colour or relation question about the scene's classes, as flat ASP."""
    c1, c2 = rng.sample(classes, 2) if len(set(classes)) > 1 else (classes[0], classes[0])
    colour, other = rng.sample(COLOURS, 2)
    relation = rng.choice(RELATIONS)
    one = f"scene(0). select(1, 0, {c1}). unique(2, 1)."
    templates = [
        f"{one} select(3, 0, {c2}). unique(4, 3). two_different(5, 2, 4, color). end(5).",
        f"{one} query(3, 2, color). end(3).",
        f"scene(0). select(1, 0, {c1}). filter(2, 1, color, {colour}). exist(3, 2). end(3).",
        f"{one} verify_attr(3, 2, color, {colour}). end(3).",
        f"{one} choose_attr(3, 2, color, {colour}, {other}). end(3).",
        f"scene(0). select(1, 0, {c1}). all_same(2, 1, color). end(2).",
        f"{one} verify_rel(3, 2, {c2}, {relation}, object). end(3).",
    ]
    return rng.choice(templates)


def ast_path(program: str, text: str, top_k: int) -> SolveResult:
    """The reading before the plain reader admitted this form: the AST reader, then the solve."""
    data = read_ast(text, what="scene", allow_choices=True, allowed=SCENE_PREDICATES)
    return solve(program, SceneFacts.from_statements(data), top_k=top_k)


def measure(cases: list[tuple[str, str]], repeats: int, top_k: int) -> dict[str, object]:
    """Each case on the three paths in turn, `repeats` times; latencies in ms."""
    times: dict[str, list[float]] = {"ast": [], "new_text": [], "text": []}
    statuses: dict[str, int] = {}
    fresh = 0
    for _ in range(repeats):
        for program, text in cases:
            fresh += 1
            new_text = "\n" * (1 + fresh % NEW_TEXT_SPELLINGS) + text
            read_scene(text)  # asked again: the process has read this text before
            outcomes = {}
            for path, run in (
                ("ast", lambda: ast_path(program, text, top_k)),  # noqa: B023
                ("new_text", lambda: solve(program, new_text, top_k=top_k)),  # noqa: B023
                ("text", lambda: solve(program, text, top_k=top_k)),  # noqa: B023
            ):
                started = time.perf_counter()
                result = run()
                times[path].append((time.perf_counter() - started) * 1000)
                assert result.status in (SolveStatus.OK, SolveStatus.NO_ANSWER), (program, result.message)
                outcomes[path] = (result.status, [(a.answer, a.cost) for a in result.answers])
            assert outcomes["ast"] == outcomes["new_text"] == outcomes["text"], program
            statuses[outcomes["text"][0].value] = statuses.get(outcomes["text"][0].value, 0) + 1
    row: dict[str, object] = {"top_k": top_k, "solves_per_path": len(times["ast"]), "statuses": statuses}
    for path, values in times.items():
        row[f"{path}_p50_ms"] = round(percentile(values, 50), 2)
        row[f"{path}_p99_ms"] = round(percentile(values, 99), 2)
        row[f"{path}_mean_ms"] = round(statistics.mean(values), 2)
    ast_p50 = float(row["ast_p50_ms"])  # type: ignore[arg-type]
    row["target_p50_ms"] = round(ast_p50 * TARGET_SHARE_OF_AST, 2)
    for path in ("new_text", "text"):
        row[f"{path}_speedup_over_ast"] = round(ast_p50 / float(row[f"{path}_p50_ms"]), 1)  # type: ignore[arg-type]
    row["met"] = all(float(row[f"{path}_p50_ms"]) <= float(row["target_p50_ms"]) for path in ("new_text", "text"))  # type: ignore[arg-type]
    return row


def main() -> int:
    rng = random.Random(43)
    scenes = [vlm_scene(rng) for _ in range(5)]
    cases = [(question(rng, classes), text) for text, classes in scenes for _ in range(6)]
    # The fast reader must take every generated text (no fallback to the AST reader).
    assert all(isinstance(read_scene(text), SceneText) for _, text in cases)
    solve(*cases[0])  # warm-up: imports, theory, patterns
    ast_path(*cases[0], 1)
    machine = {"start": machine_check()}
    rows = [measure(cases, 2, top_k) for top_k in (1, 5)]
    machine["end"] = machine_check()
    atoms = [text.count("{") for text, _ in scenes]
    colour_atoms = [text.count("{has_attr(") for text, _ in scenes]  # one choice per uncertain colour atom
    print(
        f"data: generated, {len(scenes)} scenes of {OBJECTS} objects, {min(colour_atoms)}-{max(colour_atoms)} "
        f"uncertain colour atoms and {UNCERTAIN_RELATIONS} uncertain relations ({min(atoms)}-{max(atoms)} "
        f"choices, two weak constraints each), {len(cases)} questions"
    )
    print(
        "target: GS-VQA's theory is not here; the AST reader path is about 0.3x its speed, so 3x "
        f"faster than it is p50 <= {TARGET_SHARE_OF_AST:.2f} x the AST path's p50 (same run)"
    )
    print(f"{'top-k':>5} {'path':9} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8} {'x AST':>6}")
    for row in rows:
        for path in ("ast", "new_text", "text"):
            speedup = row.get(f"{path}_speedup_over_ast", "")
            print(
                f"{row['top_k']:>5} {path:9} {row[f'{path}_p50_ms']:>8} {row[f'{path}_p99_ms']:>8} "
                f"{row[f'{path}_mean_ms']:>8} {speedup:>6}"
            )
        verdict = "met" if row["met"] else "MISSED"
        print(
            f"{'':5} target p50 <= {row['target_p50_ms']} ms (new text and text): {verdict}; statuses {row['statuses']}"
        )
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(
        f"load average {load}; {os.cpu_count()} cores; machine check (p50 ms) start {machine['start']}, end {machine['end']}"
    )
    out = Path(__file__).parent / "results" / "vlm_weighted_text.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({
        "data": {
            "source": "generated (bench/vlm_weighted_text.py, seed 43)", "scenes": len(scenes), "objects": OBJECTS,
            "uncertain_colour_atoms": colour_atoms, "uncertain_relations": UNCERTAIN_RELATIONS, "questions": len(cases),
        },
        "target": {
            "derived_from": "AST reader path about 0.3x GS-VQA's theory; GS-VQA's theory not in the repository",
            "speedup_over_reference": TARGET_SPEEDUP_OVER_REFERENCE, "share_of_ast_p50": TARGET_SHARE_OF_AST,
        },
        "machine": platform.machine(), "python": platform.python_version(), "cores": os.cpu_count(),
        "load_average": load, "machine_check": machine, "rows": rows,
    }, indent=2) + "\n")  # fmt: skip
    print(f"wrote {out}")
    return 0 if all(row["met"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
