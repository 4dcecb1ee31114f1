"""Shared test helpers: where the real GQA data is, a table-backed taxonomy, a fully related scene graph."""

from __future__ import annotations

import os
from pathlib import Path

from scene.taxonomy import Taxonomy

REPO = Path(__file__).resolve().parents[1]
# Real GQA data lives beside the repository (never inside it); ASPVQA_GQA_DIR points elsewhere.
GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR") or REPO / ".." / "shared" / "data" / "gqa")


class DictTaxonomy(Taxonomy):
    """A category -> members table with the `scene.taxonomy.Taxonomy` interface."""

    def __init__(self, table: dict[str, set[str]]) -> None:
        self.table = table

    def members(self, category: str) -> set[str]:
        return set(self.table.get(category, set()))

    def categories_of(self, name: str) -> set[str]:
        return {c for c, ms in self.table.items() if name in ms}

    def is_a(self, name: str, category: str) -> bool:
        return name == category or category in self.categories_of(name)


def related_graph(objects: int) -> dict:
    """A GQA scene graph of `objects` things, each `near` every other (a scene that is costly to solve)."""
    ids = [str(i) for i in range(objects)]
    return {
        "objects": {
            i: {
                "name": "thing",
                **{"x": 0, "y": 0, "w": 1, "h": 1},
                "attributes": [],
                "relations": [{"name": "near", "object": j} for j in ids if j != i],
            }
            for i in ids
        }
    }
