"""Valid requests within the size limits that cost a naive service minutes (shared by the load benchmarks).

- `related_scene(n)`: n objects, each `near` every other (n * (n - 1) relations);
- `NEAR_PROGRAM`: a relate over that scene, whose `unique` has n readings to rank;
- `relate_chain(steps)`: a program of `steps` relate steps, each widening the last.
"""

from __future__ import annotations

from typing import Any

NEAR_PROGRAM = "query(unique(relate(select(scene(), thing), thing, near, subject)), name)"


def related_scene(objects: int) -> dict[str, Any]:
    """A GQA scene graph of `objects` things, each `near` every other."""
    ids = [str(i) for i in range(objects)]
    return {
        "width": 1000,
        "height": 1000,
        "objects": {
            i: {
                "name": "thing",
                "x": (k * 7) % 990,
                "y": (k * 13) % 990,
                "w": 10,
                "h": 10,
                "attributes": [],
                "relations": [{"name": "near", "object": j} for j in ids if j != i],
            }
            for k, i in enumerate(ids)
        },
    }


def relate_chain(steps: int) -> str:
    """A flat program of `steps` relate steps over `thing`s, each from the last one's objects."""
    facts = ["scene(0).", "select(1, 0, thing)."]
    facts += [f"relate({i + 1}, {i}, thing, near, subject)." for i in range(1, steps + 1)]
    facts += [f"exist({steps + 2}, {steps + 1}).", f"end({steps + 2})."]
    return " ".join(facts)
