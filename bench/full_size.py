"""A full-size GQA val run on generated data: 132,062 questions over 10,696 scene graphs in GQA's
format, through `aspvqa evaluate -s asp-oracle` with streaming input, killed with SIGKILL half-way
and resumed.

Prints and writes bench/results/full_size.json: the time of each part, the peak memory (VmHWM) of
the job process, whether the resumed results are exactly one per question, and the load average
at the start and the end (the machine may be shared). The generated files
live in a temporary folder that is removed afterwards (never in the repository).

    python bench/full_size.py [--questions 132062] [--images 10696] [--kill-at 0.5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results" / "full_size.json"
TAXONOMY = Path(os.environ.get("ASPVQA_GQA_DIR") or REPO / ".." / "shared" / "data" / "gqa") / "metadata"

CLASSES = ("horse building fence car table chair dog cat man woman tree shirt bag cup plate window door lamp "
           "bus truck boat bench ball bottle bowl clock pillow sofa bed book").split()  # fmt: skip
COLORS = "white black red blue green brown yellow gray".split()
MATERIALS = "wood metal plastic glass".split()
RELATIONS = ("near", "on", "behind", "to the left of")


def scene_graph(rng: random.Random, obj_base: int) -> tuple[dict, list[tuple[str, dict]]]:
    """One image's GQA scene graph and its objects (id, record), every class at most once."""
    names = rng.sample(CLASSES, rng.randint(8, 16))
    objects: dict[str, dict] = {}
    for index, name in enumerate(names):
        objects[str(obj_base + index)] = {
            "name": name, "x": rng.randint(0, 400), "y": rng.randint(0, 300), "w": rng.randint(10, 90),
            "h": rng.randint(10, 90), "attributes": [rng.choice(COLORS), rng.choice(MATERIALS)], "relations": [],
        }  # fmt: skip
    ids = list(objects)
    for subject in ids:
        for target in rng.sample([i for i in ids if i != subject], 2):
            objects[subject]["relations"].append({"object": target, "name": rng.choice(RELATIONS)})
    return {"width": 500, "height": 400, "objects": objects}, list(objects.items())


def step(operation: str, argument: str, *deps: int) -> dict:
    return {"operation": operation, "argument": argument, "dependencies": list(deps)}


def question(rng: random.Random, graph: dict, objects: list[tuple[str, dict]]) -> tuple[str, list[dict], str]:
    """A question about the graph with its GQA program and the right answer."""
    oid, obj = rng.choice(objects)
    name, (color, material) = obj["name"], obj["attributes"]
    kind = rng.randrange(6)
    if kind == 0:
        return f"What color is the {name}?", [step("select", f"{name} ({oid})"), step("query", "color", 0)], color
    if kind == 1:
        return (
            f"What is the {name} made of?",
            [step("select", f"{name} ({oid})"), step("query", "material", 0)],
            material,
        )
    if kind == 2:
        asked = color if rng.random() < 0.5 else rng.choice([c for c in COLORS if c != color])
        program = [step("select", f"{name} ({oid})"), step("verify color", asked, 0)]
        return f"Is the {name} {asked}?", program, "yes" if asked == color else "no"
    if kind == 3:
        present = {o["name"] for _, o in objects}
        absent = rng.choice([c for c in CLASSES if c not in present] or CLASSES)
        return f"Is there a {absent}?", [step("select", f"{absent} (-)"), step("exist", "?", 0)], "no"
    if kind == 4:
        return f"Is there a {name}?", [step("select", f"{name} ({oid})"), step("exist", "?", 0)], "yes"
    # Who or what relates to this object, when exactly one object does so.
    incoming: dict[str, list[str]] = {}
    for sid, s in objects:
        for r in s["relations"]:
            if r["object"] == oid:
                incoming.setdefault(r["name"], []).append(sid)
    unique = [(rel, subjects[0]) for rel, subjects in incoming.items() if len(subjects) == 1]
    if not unique:
        return f"Is there a {name}?", [step("select", f"{name} ({oid})"), step("exist", "?", 0)], "yes"
    rel, sid = rng.choice(unique)
    other = graph["objects"][sid]["name"]
    program = [step("select", f"{name} ({oid})"), step("relate", f"_,{rel},s ({sid})", 0), step("query", "name", 1)]
    return f"What is {rel} the {name}?", program, other


def generate(folder: Path, n_questions: int, n_images: int, seed: int = 0) -> tuple[Path, Path]:
    """Write GQA-format scene graphs and questions (each file one JSON object, written as it goes)."""
    rng = random.Random(seed)
    graphs_path, questions_path = folder / "val_sceneGraphs.json", folder / "val_balanced_questions.json"
    per_image = [n_questions // n_images + (i < n_questions % n_images) for i in range(n_images)]
    with graphs_path.open("w") as graphs, questions_path.open("w") as questions:
        graphs.write("{")
        questions.write("{")
        qn = 0
        for index in range(n_images):
            image_id = str(2_000_000 + index)
            graph, objects = scene_graph(rng, 1_000_000 + 20 * index)
            graphs.write(("," if index else "") + json.dumps(image_id) + ":" + json.dumps(graph))
            for _ in range(per_image[index]):
                text, semantic, answer = question(rng, graph, objects)
                record = {"imageId": image_id, "question": text, "answer": answer, "semantic": semantic,
                          "types": {"structural": "query"}, "isBalanced": True}  # fmt: skip
                questions.write(("," if qn else "") + json.dumps(f"{qn:08d}") + ":" + json.dumps(record))
                qn += 1
        graphs.write("}")
        questions.write("}")
    return questions_path, graphs_path


def lines(path: Path) -> int:
    if not path.is_file():
        return 0
    with path.open("rb") as handle:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))


def peak_rss(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def load_average() -> list[float]:
    return [float(v) for v in Path("/proc/loadavg").read_text().split()[:3]]


def run(command: list[str], results: Path, kill_at: int | None, env: dict[str, str]) -> dict:
    """Run the job; with `kill_at`, SIGKILL it once that many results are written."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    killed = False
    seen, offset = lines(results), results.stat().st_size if results.is_file() else 0
    while process.poll() is None:
        peak = max(peak, peak_rss(process.pid) or 0)
        if kill_at is not None and results.is_file():
            with results.open("rb") as handle:  # only the bytes written since the last look
                handle.seek(offset)
                chunk = handle.read()
            seen, offset = seen + chunk.count(b"\n"), offset + len(chunk)
            if seen >= kill_at:
                process.send_signal(signal.SIGKILL)
                killed = True
                break
        time.sleep(0.5)
    out, err = process.communicate()
    return {
        "seconds": round(time.perf_counter() - start, 1),
        "peak_rss_mib": round(peak / 2**20, 1),
        "returncode": process.returncode,
        "killed": killed,
        "results_after": lines(results),
        "stdout": out.strip()[-300:],
        "stderr": err.strip()[-300:],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=132_062)
    parser.add_argument("--images", type=int, default=10_696)
    parser.add_argument("--kill-at", type=float, default=0.5)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if not TAXONOMY.is_dir():
        sys.exit(f"GQA's taxonomy files are not in {TAXONOMY} (set ASPVQA_GQA_DIR)")
    env = dict(os.environ, PYTHONPATH=str(REPO), ASPVQA_THREADS="1")
    load_start = load_average()
    with tempfile.TemporaryDirectory(prefix="aspvqa-full-size-") as tmp:
        folder = Path(tmp)
        env["ASPVQA_CACHE_DIR"] = str(folder / "cache")  # the scene-graph index goes with the data
        start = time.perf_counter()
        questions, graphs = generate(folder, args.questions, args.images)
        generated = time.perf_counter() - start
        out = folder / "out"
        command = [sys.executable, "-m", "app", "evaluate", "-q", str(questions), "-g", str(graphs),
                   "-t", str(TAXONOMY), "-s", "asp-oracle", "-o", str(out), "-w", str(args.workers),
                   "--no-progress", "--no-report"]  # fmt: skip
        results = out / "results.jsonl"
        first = run(command, results, int(args.questions * args.kill_at), env)
        second = run(command, results, None, env)
        keys = set()
        correct = records = 0
        with results.open() as handle:
            for line in handle:
                record = json.loads(line)
                keys.add((record["run"], record["setting"], record["questionId"]))
                correct += bool(record["correct"])
                records += 1
        summary = {
            "questions": args.questions,
            "images": args.images,
            "workers": args.workers,
            "input_mib": {
                "questions": round(questions.stat().st_size / 2**20, 1),
                "scene_graphs": round(graphs.stat().st_size / 2**20, 1),
            },
            "generate_seconds": round(generated, 1),
            "killed_run": first,
            "resumed_run": second,
            "results_lines": records,
            "distinct_results": len(keys),
            "exactly_one_per_question": records == len(keys) == args.questions,
            "correct": correct,
            "questions_per_second": round(args.questions / (first["seconds"] + second["seconds"]), 1),
            "load_average_start": load_start,
            "load_average_end": load_average(),
        }
    print(json.dumps(summary, indent=2))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
