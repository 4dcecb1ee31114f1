"""Fuzzing every parser with hypothesis: no exception but the parser's own typed error.

Parsers: flat, nested and code-like programs (`theory`), GQA semantic programs as JSON steps and
as compact text (`translators.gqa.gqa_program`), a user's program of unknown syntax
(`translators.program_text.read_program`), scene text (`theory.data_text` / `SceneFacts.from_asp`)
and GQA scene-graph JSON (`scene.scene_graph`). Inputs are mutations of valid seeds (the bundled
bank's programs, real GQA programs and scene graphs when ../shared/data/gqa is present, the demo
scenes), random text over each syntax's characters, and arbitrary text or JSON.

Usage: python bench/fuzz.py [--examples 10000] [--only flat,nested] [--seed 0]
Prints a table and writes bench/results/fuzz.json. The test suite's property tests run the same
parsers at their usual, small example counts; this script is the long run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.config import load_settings  # noqa: E402
from scene.scene_graph import SceneGraphError, scene_graph_facts  # noqa: E402
from theory.data_text import plain_scene  # noqa: E402
from theory.operations import SCENE_PREDICATES  # noqa: E402
from theory.program import ProgramError  # noqa: E402
from theory.representations import format_program, parse_program  # noqa: E402
from theory.scene_facts import SceneFacts  # noqa: E402
from translators.gqa.gqa_program import format_gqa, gqa_to_program, parse_gqa  # noqa: E402
from translators.program_text import read_program  # noqa: E402

load_settings()  # hands ASPVQA_CACHE_DIR to every layer before the first cache path is made

ROOT = Path(__file__).resolve().parents[1]
GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR", ROOT / "../shared/data/gqa"))
RESULTS = ROOT / "bench" / "results" / "fuzz.json"

# Characters each syntax is made of, plus the ones that break parsers: quotes, escapes, NUL,
# non-ASCII letters, surrogates are left to st.text() below.
PROGRAM_CHARS = "abcdefgilmnopqrstuvwxyz_ABCXYZ0123456789(),.=:[]{} \t\n%#\"\\'-*/|~;&<>!?@$^\x00é"
SCENE_CHARS = 'abcdehijlmnorstwy_0123456789(),.{}:~[]@ \t\n%*#"\\-+;&|<>=!\x00é'


# --- seeds ------------------------------------------------------------------------------------------
def real_gqa_semantic() -> list[list[dict[str, Any]]]:
    """Real GQA programs when the shared sample is present, else the project's test questions."""
    real = GQA_DIR / "questions" / "val_balanced_sample.json"
    source = real if real.is_file() else ROOT / "tests" / "data" / "gqa_questions.json"
    return [q["semantic"] for q in json.loads(source.read_text()).values() if q.get("semantic")]


def scene_graph_seeds() -> list[dict[str, Any]]:
    """The demo scenes and, when present, the real GQA scene graphs."""
    graphs = list(json.loads((ROOT / "app/data/demo/scenes.json").read_text()).values())
    real = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
    if real.is_file():
        graphs += list(json.loads(real.read_text()).values())
    return graphs


def program_seeds() -> list[str]:
    """Flat programs of the hand-written bank."""
    lines = (ROOT / "translators/data/bank.jsonl").read_text().splitlines()
    return [json.loads(line)["program"] for line in lines if line.strip()]


def scene_text_seeds(graphs: list[dict[str, Any]]) -> list[str]:
    """Scene text as the project prints it (certain and weighted), the demo's uncertain scene, and
    a weighted scene in the tuple form other writers use (`:~ a. [W, (ARGS)]`)."""
    texts = [(ROOT / "app/data/demo/kitchen_uncertain.lp").read_text()]
    for graph in graphs[:4]:
        texts.append(scene_graph_facts(graph).to_asp())
    texts.append(
        "object(o0). has_obj_weight(o0, 903). has_attr(o0, class, logo).\n"
        "{has_attr(o0, color, beige)}.\n:~ has_attr(o0, color, beige). [1083, (o0, color, beige)]\n"
        "{has_rel(o0, on, o1)}.\n:~ has_rel(o0, on, o1). [300, (o0, on, o1)]\n"
        "is_attr(color). is_attr_value(color, beige).\n"
    )
    return texts


# --- strategies -------------------------------------------------------------------------------------
EDITS = ("delete", "insert", "replace", "duplicate", "truncate")


def apply_edits(text: str, edits: list[tuple[str, int, int, str]]) -> str:
    """`text` with each edit applied at positions taken modulo its current length."""
    for kind, at, length, piece in edits:
        size = len(text) + 1
        start = at % size
        end = min(len(text), start + length % 12)
        if kind == "delete":
            text = text[:start] + text[end:]
        elif kind == "insert":
            text = text[:start] + piece + text[start:]
        elif kind == "replace":
            text = text[:start] + piece + text[end:]
        elif kind == "duplicate":
            text = text[:end] + text[start:end] + text[end:]
        else:
            text = text[:start]
    return text


def texts(seeds: list[str], chars: str) -> st.SearchStrategy[str]:
    """Edited seeds (most inputs), random text over `chars`, and arbitrary text."""
    piece = st.text(alphabet=st.sampled_from(chars), max_size=8) | st.text(max_size=4)
    edit = st.tuples(st.sampled_from(EDITS), st.integers(0, 1 << 16), st.integers(0, 64), piece)
    mutated = st.builds(apply_edits, st.sampled_from(seeds), st.lists(edit, min_size=0, max_size=6))
    return st.one_of(
        mutated, mutated, mutated, st.text(alphabet=st.sampled_from(chars), max_size=300), st.text(max_size=120)
    )


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


@st.composite
def mutated_json(draw: st.DrawFn, value: Any, depth: int = 0) -> Any:
    """`value` with some of its parts replaced, removed or added (JSON values anywhere)."""
    roll = draw(st.integers(0, 9))
    if roll == 0 or depth > 6:
        return draw(JSON_VALUES) if roll == 0 else value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            action = draw(st.integers(0, 11))
            if action == 0:
                continue  # drop the key
            out[key] = draw(mutated_json(item, depth + 1)) if action < 6 else item
        if draw(st.integers(0, 7)) == 0:
            out[draw(st.text(max_size=8))] = draw(JSON_VALUES)
        return out
    if isinstance(value, list):
        items = [draw(mutated_json(item, depth + 1)) if draw(st.integers(0, 3)) == 0 else item for item in value]
        if items and draw(st.integers(0, 5)) == 0:
            del items[draw(st.integers(0, len(items) - 1))]
        return items
    if isinstance(value, str) and draw(st.integers(0, 2)) == 0:
        return apply_edits(
            value, [draw(st.tuples(st.sampled_from(EDITS), st.integers(0, 99), st.integers(0, 9), st.text(max_size=3)))]
        )
    if isinstance(value, int | float) and not isinstance(value, bool) and draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from([-1, 0, 10**9, -(10**12), 0.5, float("nan"), float("inf"), 2**70]))
    return value


def json_inputs(seeds: list[Any]) -> st.SearchStrategy[Any]:
    """Mutated seeds (most inputs) and arbitrary JSON."""
    mutated = st.sampled_from(seeds).flatmap(mutated_json)
    return st.one_of(mutated, mutated, mutated, JSON_VALUES)


# --- the parsers as the service and the command line call them -------------------------------------
def parse_scene_text(text: str) -> object:
    """The solver's reading of scene text: the fast plain reader, else the AST reader."""
    plain = plain_scene(text, SCENE_PREDICATES)
    return plain if plain is not None else SceneFacts.from_asp(text)


def parse_scene_graph(graph: Any) -> object:
    """A scene graph as `POST /answer` receives it: any JSON value."""
    if not isinstance(graph, Mapping):
        raise SceneGraphError("a scene graph is a JSON object")  # the API's schema refuses other types first
    return scene_graph_facts(graph)


def parse_gqa_steps(semantic: Any) -> object:
    """GQA steps as JSON (what `aspvqa convert --from gqa` and the evaluation read)."""
    if not isinstance(semantic, list):
        raise ProgramError("a GQA program is a list of steps")  # the readers check the outer type first
    return gqa_to_program(semantic)


@dataclass
class Fuzzed:
    """One parser under fuzzing, its inputs, its typed errors and what came out."""

    name: str
    parse: Callable[[Any], object]
    inputs: st.SearchStrategy[Any]
    typed: tuple[type[BaseException], ...]
    counts: dict[str, int] = field(default_factory=lambda: {"inputs": 0, "parsed": 0, "typed_errors": 0})
    unexpected: list[str] = field(default_factory=list)


def fuzzed_parsers() -> list[Fuzzed]:
    flat = program_seeds()
    programs = [parse_program(t, "flat") for t in flat]
    nested = [format_program(p, "nested") for p in programs]
    code = [format_program(p, "code") for p in programs]
    semantic = real_gqa_semantic()
    compact = [format_gqa(s) for s in semantic]
    graphs = scene_graph_seeds()
    return [
        Fuzzed("flat", lambda t: parse_program(t, "flat"), texts(flat, PROGRAM_CHARS), (ProgramError,)),
        Fuzzed("nested", lambda t: parse_program(t, "nested"), texts(nested, PROGRAM_CHARS), (ProgramError,)),
        Fuzzed("code", lambda t: parse_program(t, "code"), texts(code, PROGRAM_CHARS), (ProgramError,)),
        Fuzzed("gqa_json", parse_gqa_steps, json_inputs(semantic), (ProgramError,)),
        Fuzzed("gqa_text", lambda t: gqa_to_program(parse_gqa(t)), texts(compact, PROGRAM_CHARS), (ProgramError,)),
        Fuzzed(
            "detected",
            read_program,
            texts(flat + nested + code + compact + [json.dumps(s) for s in semantic[:50]], PROGRAM_CHARS),
            (ProgramError,),
        ),
        Fuzzed("scene_text", parse_scene_text, texts(scene_text_seeds(graphs), SCENE_CHARS), (ProgramError,)),
        Fuzzed("scene_graph", parse_scene_graph, json_inputs(graphs), (SceneGraphError,)),
    ]


def run(fuzzed: Fuzzed, examples: int, random_seed: int) -> float:
    """Run one parser on `examples` generated inputs; returns the seconds taken."""

    def check(value: Any) -> None:
        fuzzed.counts["inputs"] += 1
        try:
            fuzzed.parse(value)
        except fuzzed.typed:
            fuzzed.counts["typed_errors"] += 1
            return
        except RecursionError as exc:  # reported, never a crash of the run
            fuzzed.unexpected.append(f"RecursionError: {exc} on {value!r:.200}")
            raise
        except Exception as exc:
            fuzzed.unexpected.append(f"{type(exc).__name__}: {exc} on {value!r:.300}")
            raise
        fuzzed.counts["parsed"] += 1

    test = seed(random_seed)(
        settings(
            max_examples=examples,
            database=None,
            deadline=None,
            phases=[Phase.generate, Phase.shrink],
            suppress_health_check=list(HealthCheck),
        )(given(fuzzed.inputs)(check))
    )
    started = time.perf_counter()
    try:
        test()
    except Exception:
        fuzzed.unexpected.append("smallest failing input:\n" + traceback.format_exc(limit=-3))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=10_000, help="inputs per parser (default 10,000)")
    parser.add_argument("--only", default="", help="comma-separated parser names")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-write", action="store_true", help="print only; leave bench/results alone")
    args = parser.parse_args()
    chosen = {name for name in args.only.split(",") if name}
    rows: list[dict[str, Any]] = []
    print(f"{'parser':<12} {'inputs':>8} {'parsed':>8} {'typed err':>10} {'other':>6} {'seconds':>8}")
    for fuzzed in fuzzed_parsers():
        if chosen and fuzzed.name not in chosen:
            continue
        seconds = run(fuzzed, args.examples, args.seed)
        row = {
            "parser": fuzzed.name,
            **fuzzed.counts,
            "other_exceptions": len(fuzzed.unexpected),
            "seconds": round(seconds, 1),
            "typed": [t.__name__ for t in fuzzed.typed],
            "unexpected": fuzzed.unexpected[:5],
        }
        rows.append(row)
        print(
            f"{fuzzed.name:<12} {row['inputs']:>8} {row['parsed']:>8} {row['typed_errors']:>10} "
            f"{row['other_exceptions']:>6} {row['seconds']:>8}"
        )
        for line in fuzzed.unexpected[:3]:
            print("   ", line.replace("\n", "\n    "))
    if not args.no_write:
        if chosen and RESULTS.is_file():  # a run of some parsers keeps the others' last rows
            kept = [r for r in json.loads(RESULTS.read_text())["results"] if r["parser"] not in chosen]
            order = [f.name for f in fuzzed_parsers()]
            rows = sorted(kept + rows, key=lambda r: order.index(r["parser"]))
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(
            json.dumps(
                {
                    "benchmark": "fuzz",
                    "examples_per_parser": args.examples,
                    "seed": args.seed,
                    "gqa_data": (GQA_DIR / "questions").is_dir(),
                    "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
                    "results": rows,
                },
                indent=2,
            )
            + "\n"
        )
    if any(row["other_exceptions"] for row in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
