"""Questions the latency benchmarks ask: GQA val sample questions when the shared data is there
(every `step`-th in id order, so consecutive ones are not near-copies), else the bundled bank's."""

from __future__ import annotations

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# The given programs of the service's load report (issue 30): one answered on every scene graph,
# two with no answer on most of them (so the why-not explanation runs).
LOAD_PROGRAMS = [
    "exist(select(scene(), horse))",
    "query(unique(select(scene(), man)), name)",
    "query(unique(select(scene(), sky)), color)",
]


def gqa_dir() -> Path:
    """The shared GQA data ($ASPVQA_GQA_DIR, else ../shared/data/gqa); it may be absent."""
    return Path(os.environ.get("ASPVQA_GQA_DIR") or ROOT / ".." / "shared" / "data" / "gqa")


def val_sample_path() -> Path:
    """The shared GQA val sample's questions; it may be absent."""
    return gqa_dir() / "questions" / "val_balanced_sample.json"


def scene_graphs() -> list[dict]:
    """The shared sample's four real GQA scene graphs."""
    return list(json.loads((gqa_dir() / "scene_graphs" / "val_sceneGraphs_sample.json").read_text()).values())


def val_questions(count: int, step: int = 1) -> list[str]:
    """`count` question texts as a user would send them."""
    from translators.examples.bundled import default_bank

    path = val_sample_path()
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
        return [data[key]["question"] for key in sorted(data)[: count * step : step]][:count]
    return [e.question for e in default_bank()][:count]
