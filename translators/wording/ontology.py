"""The ontology translation works in: class groups and their members, attribute categories and
their values, relations with the groups they link.

It drives the schema-aware grammar (closed categories and relations), the deterministic category
repair, and the generated example bank. The project ships its own everyday-scene ontology
(`translators/data/ontology.json`); a folder with GQA's taxonomy files (``gqa_all_class.json``,
``gqa_all_attribute.json``, ``gqa_relation.json``) can replace it.

Example:
    >>> o = bundled_ontology()
    >>> o.category_of("red")
    'color'
    >>> "to_the_left_of" in o.relations
    True
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path

from theory.attributes import category_values
from theory.operations import OTHER_CATEGORY as OTHER_CATEGORY  # re-exported: the translators read it here
from theory.operations import POSITION_VALUES, STRUCTURAL_CATEGORIES
from theory.scene_facts import asp_constant
from translators.wording.vocabulary import Vocabulary

ANY_GROUP = "*"


@dataclass(frozen=True)
class Relation:
    """A relation and the class groups that may fill its subject and object."""

    name: str
    subject: tuple[str, ...] = (ANY_GROUP,)
    object: tuple[str, ...] = (ANY_GROUP,)


@dataclass
class Ontology:
    """Words as ASP constants (``to_the_left_of``), grouped by role."""

    groups: dict[str, list[str]]  # group -> member classes
    categories: dict[str, list[str]]  # attribute category -> values
    applies_to: dict[str, tuple[str, ...]] = field(default_factory=dict)  # category -> groups
    relations: dict[str, Relation] = field(default_factory=dict)
    source: str = "bundled"
    # Adjectives questions use without a category (sleeveless, ripe): programs name them with
    # filter_any or the category `other`.
    uncategorised: list[str] = field(default_factory=list)

    @cached_property
    def classes(self) -> set[str]:
        """Every class word: the members and the group names themselves (``furniture``)."""
        return set(self.groups) | {m for members in self.groups.values() for m in members}

    @cached_property
    def _value_categories(self) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for category, values in self.categories.items():
            for value in values:
                found.setdefault(value, set()).add(category)
        for category, positions in POSITION_VALUES.items():
            for value in positions:
                found.setdefault(value, set()).add(category)
        return found

    def categories_of(self, value: str) -> set[str]:
        """The categories a value is listed under."""
        return set(self._value_categories.get(value, set()))

    def category_of(self, value: str) -> str | None:
        """The category a value fixes, or None when it has none or several."""
        found = self._value_categories.get(value, set())
        return next(iter(found)) if len(found) == 1 else None

    @property
    def query_categories(self) -> list[str]:
        """The categories a program may ask for: the attribute categories and the structural ones."""
        return sorted(set(self.categories) | set(STRUCTURAL_CATEGORIES))

    def digest(self) -> str:
        """A short digest of the contents (part of cache keys and generated-bank names)."""
        payload = json.dumps([self.groups, self.categories, sorted(self.relations), self.uncategorised], sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:12]

    def vocabulary(self) -> Vocabulary:
        """The same words as a grounding `Vocabulary`."""
        return Vocabulary(
            classes=set(self.classes),
            categories=set(self.categories),
            values={c: set(v) for c, v in self.categories.items()},
            relations=set(self.relations),
        )


def _constants(words: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for word in words:
        try:
            seen.setdefault(asp_constant(word), None)
        except ValueError:
            continue
    return list(seen)


def ontology_from_json(data: dict, source: str = "file") -> Ontology:
    """An ontology from the bundled file's layout (see `translators/data/ontology.json`)."""
    groups = {asp_constant(g): _constants(members) for g, members in data["classes"].items()}
    categories, applies = {}, {}
    for category, spec in data["attributes"].items():
        name = asp_constant(category)
        # The bundled file names its categories; their values are the one table scenes read too.
        categories[name] = _constants(list(category_values(category, spec)))
        applies[name] = tuple(
            ANY_GROUP if g == ANY_GROUP else asp_constant(g) for g in spec.get("applies_to", [ANY_GROUP])
        )
    relations = {}
    for entry in data["relations"]:
        name = asp_constant(entry["relation"])
        side = lambda key, entry=entry: tuple(  # noqa: E731
            ANY_GROUP if g == ANY_GROUP else asp_constant(g) for g in entry.get(key, [ANY_GROUP])
        )
        relations[name] = Relation(name, side("subject"), side("object"))
    return Ontology(groups, categories, applies, relations, source, _constants(data.get("uncategorised", [])))


def ontology_from_gqa_metadata(folder: str | Path) -> Ontology:
    """An ontology from GQA's taxonomy files; relations link any groups (the files do not say)."""
    folder = Path(folder)
    class_data = json.loads((folder / "gqa_all_class.json").read_text(encoding="utf-8"))
    attribute_data = json.loads((folder / "gqa_all_attribute.json").read_text(encoding="utf-8"))
    relation_data = json.loads((folder / "gqa_relation.json").read_text(encoding="utf-8"))
    relations = relation_data if isinstance(relation_data, list) else list(relation_data)
    data = {
        "classes": class_data,
        # hposition/vposition are structural: their values come from theory.operations.
        "attributes": {c: {"values": v} for c, v in attribute_data.items() if asp_constant(c) not in POSITION_VALUES},
        "relations": [{"relation": r} for r in relations if not r.startswith("same ")],
    }
    return ontology_from_json(data, source=str(folder))


def bundled_ontology_path() -> Path:
    return Path(__file__).resolve().parents[1] / "data" / "ontology.json"


@cache
def bundled_ontology() -> Ontology:
    """The project's own everyday-scene ontology."""
    return ontology_from_json(json.loads(bundled_ontology_path().read_text(encoding="utf-8")), source="bundled")


def load_ontology(folder: str | Path | None = None) -> Ontology:
    """GQA's taxonomy files in `folder` when given, else the bundled ontology; errors name the missing file."""
    if folder is None:
        return bundled_ontology()
    folder = Path(folder)
    missing = [
        n for n in ("gqa_all_class.json", "gqa_all_attribute.json", "gqa_relation.json") if not (folder / n).is_file()
    ]
    if missing:
        raise FileNotFoundError(f"ontology folder {folder} lacks {', '.join(missing)}")
    return ontology_from_gqa_metadata(folder)
