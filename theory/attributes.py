"""The one attribute vocabulary: attribute category -> its values (``theory/data/attributes.json``).

The translator's ontology and the scene encoders read it, so a question's category and the one a
scene files a value under agree; a word may have several categories ("dark": color, tone,
brightness), and the scene files it under each.

Example:
    >>> sorted(attribute_categories_of("dark"))
    ['brightness', 'color', 'tone']
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

ATTRIBUTES_PATH = Path(__file__).resolve().parent / "data" / "attributes.json"


@cache
def attribute_table() -> dict[str, tuple[str, ...]]:
    """Category (as written, e.g. ``face expression``) -> its values (words, as written)."""
    data = json.loads(ATTRIBUTES_PATH.read_text(encoding="utf-8"))
    return {category: tuple(values) for category, values in data.items()}


@cache
def _categories_by_value() -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for category, values in attribute_table().items():
        for value in values:
            found.setdefault(value, set()).add(category)
    return {value: frozenset(categories) for value, categories in found.items()}


def attribute_categories_of(value: str) -> frozenset[str]:
    """The categories the table files `value` (a word, as written) under; empty when it has none."""
    return _categories_by_value().get(" ".join(value.lower().replace("_", " ").split()), frozenset())
