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
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

ATTRIBUTES_PATH = Path(__file__).resolve().parent / "data" / "attributes.json"


@cache
def attribute_table() -> dict[str, tuple[str, ...]]:
    """Category (as written, e.g. ``face expression``) -> its values (words, as written)."""
    data = json.loads(ATTRIBUTES_PATH.read_text(encoding="utf-8"))
    return {category: tuple(values) for category, values in data.items()}


@cache
def attribute_index() -> dict[str, frozenset[str]]:
    """Value (a word, as written) -> the categories the table files it under."""
    found: dict[str, set[str]] = {}
    for category, values in attribute_table().items():
        for value in values:
            found.setdefault(value, set()).add(category)
    return {value: frozenset(categories) for value, categories in found.items()}


def category_values(category: str, spec: Mapping[str, object]) -> Sequence[str]:
    """An ontology file's attribute category: the values it lists, else the one table's."""
    if "values" not in spec:
        return attribute_table()[category]
    values = spec["values"]
    # Read from JSON: a list of words is the only form an ontology file gives them in.
    if not isinstance(values, list | tuple) or not all(isinstance(value, str) for value in values):
        raise ValueError(f"the values of attribute category {category!r} are not a list of words")
    return values


def attribute_categories_of(value: str) -> frozenset[str]:
    """The categories the table files `value` (a word, as written) under; empty when it has none."""
    return attribute_index().get(" ".join(value.lower().replace("_", " ").split()), frozenset())
