"""Shared test helpers: where the real GQA data is, and a table-backed taxonomy."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Real GQA data lives beside the repository (never inside it); ASPVQA_GQA_DIR points elsewhere.
GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR") or REPO / ".." / "shared" / "data" / "gqa")


class DictTaxonomy:
    """A category -> members table with the `scene.taxonomy.Taxonomy` interface."""

    def __init__(self, table: dict[str, set[str]]) -> None:
        self.table = table

    def members(self, category: str) -> set[str]:
        return set(self.table.get(category, set()))

    def categories_of(self, name: str) -> set[str]:
        return {c for c, ms in self.table.items() if name in ms}

    def is_a(self, name: str, category: str) -> bool:
        return name == category or category in self.categories_of(name)
