"""The vocabulary entailment table: which general scene word may stand for a more specific one.

A question may ask for a word the scene does not use ("sitting on" where the scene says "on",
"kitten" where the detector says "cat"). With a table, the theory may read the general scene fact
as the specific one at a cost of ``-1000 ln p`` (p: how often the general word means the specific
one), on a priority above the scene's likelihoods, so such answers rank below every exact answer
and are marked approximate. The table is data (``theory/data/entailments.tsv``, tab-separated
``kind  specific  general  probability``), editable by hand; ``python -m scene.entailments``
derives it from the relation list and WordNet.

Example:
    >>> table = bundled_entailments()
    >>> ("sitting_on", "on") in table.relations
    True
    >>> table.generalisations("sitting_on")
    ['on']
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from pathlib import Path

import clingo

from theory.errors import TheoryError
from theory.scene_facts import asp_constant

KINDS = ("relation", "attribute", "synonym")
# One of arity 3 per kind, in KINDS' order; a synonym's third argument is 0 (it is read exactly).
ENTAILMENT_PREDICATES = ("rel_entails", "attr_entails", "attr_synonym")
DEFAULT_PROBABILITY = 0.5
# A material said as its noun in GQA's programs and as its adjective in scene graphs ("wood",
# "wooden"): one word to both. The table reads them as synonyms; translators name the noun.
MATERIAL_ADJECTIVES: tuple[tuple[str, str], ...] = (("metal", "metallic"), ("wood", "wooden"))


@dataclass(frozen=True)
class _AskedRows:
    """The rows about one set of asked words: as atoms by predicate, and the words they name."""

    facts: dict[str, list[clingo.Symbol]]
    words: tuple[frozenset[str], frozenset[str]]  # relations, attribute values (synonyms included)


def _row_facts(name: str, rows: list[tuple[tuple[str, str], int]]) -> list[clingo.Symbol]:
    return [clingo.Function(name, [clingo.Function(s), clingo.Function(g), clingo.Number(c)]) for (s, g), c in rows]


class EntailmentTableError(TheoryError, ValueError):
    """A line of an entailment table that cannot be read."""


@dataclass(frozen=True)
class Entailments:
    """(specific, general) -> cost, for relations and for attribute values (classes included)."""

    relations: dict[tuple[str, str], int] = field(default_factory=dict)
    attributes: dict[tuple[str, str], int] = field(default_factory=dict)
    # (asked, scene word) -> 0 for words that name the same thing ("bike", "bicycle"), both ways:
    # the scene's word is read as the asked one exactly, not approximately.
    synonyms: dict[tuple[str, str], int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.relations) + len(self.attributes) + len(self.synonyms)

    def facts(self, asked: Collection[str] | None = None) -> list[clingo.Symbol]:
        """The table as ``rel_entails/3`` and ``attr_entails/3`` atoms.

        With `asked`, only the rows about the general words of asked words (the rows of their
        other specific words tell the theory which objects already have a more specific word):
        grounding the whole table would cost more than the solve.
        """
        return [fact for facts in self.facts_by_predicate(asked).values() for fact in facts]

    def facts_by_predicate(self, asked: Collection[str] | None = None) -> dict[str, list[clingo.Symbol]]:
        """`facts(asked)` by predicate name, made once per set of asked words (do not change them)."""
        return self._asked(None if asked is None else frozenset(asked)).facts

    def words(self, asked: Collection[str]) -> tuple[frozenset[str], frozenset[str]]:
        """The relations and the attribute values that the rows `facts(asked)` gives name."""
        return self._asked(frozenset(asked)).words

    def _asked(self, key: frozenset[str] | None) -> _AskedRows:
        kept = self._rows_asked.get(key)
        if kept is None:
            relations, attributes, synonyms = self._rows(key)
            kept = self._rows_asked[key] = _AskedRows(
                {
                    name: _row_facts(name, rows)
                    for name, rows in zip(ENTAILMENT_PREDICATES, (relations, attributes, synonyms))
                },
                (
                    frozenset(w for (s, g), _ in relations for w in (s, g)),
                    frozenset(w for (s, g), _ in (*attributes, *synonyms) for w in (s, g)),
                ),
            )
            if len(self._rows_asked) > 4096:  # distinct word sets of questions: a few thousand at most
                self._rows_asked.clear()
        return kept

    @cached_property
    def _rows_asked(self) -> dict[frozenset[str] | None, _AskedRows]:
        # Symbols are immutable; the rows of one set of asked words are made once (1 ms each time),
        # and handed to clingo as they are (`theory.solver`: parsing them as text cost 3 us a row).
        return {}

    def _rows(self, asked: frozenset[str] | None) -> tuple[list[tuple[tuple[str, str], int]], ...]:
        """The relation rows and the attribute rows about the general words of `asked`, and the
        synonym rows of `asked` (all: None)."""
        rows = []
        for kind, table in (("relation", self.relations), ("attribute", self.attributes)):
            general = {g for (s, g) in table if asked is None or s in asked}
            if kind == "relation" and asked is not None:
                general |= asked  # an asked general relation holds through its specific ones
            rows.append([(pair, c) for pair, c in sorted(table.items()) if pair[1] in general])
        rows.append([(pair, c) for pair, c in sorted(self.synonyms.items()) if asked is None or pair[0] in asked])
        return tuple(rows)

    def generalisations(self, word: str) -> list[str]:
        """The general words that may stand for `word` (relation or attribute value)."""
        return list(self._general_of.get(word, ()))

    def specialisations(self, relation: str) -> list[str]:
        """The more specific relations that entail `relation` ("on top of", "sitting on" for "on")."""
        return list(self._specific_of.get(relation, ()))

    @cached_property
    def _specific_of(self) -> dict[str, tuple[str, ...]]:
        found: dict[str, set[str]] = {}
        for specific, general in self.relations:
            found.setdefault(general, set()).add(specific)
        return {word: tuple(sorted(specifics)) for word, specifics in found.items()}

    @cached_property
    def _general_of(self) -> dict[str, tuple[str, ...]]:
        # Indexed once: a why-not explanation asks for the general words of every scene word.
        found: dict[str, set[str]] = {}
        for table in (self.relations, self.attributes, self.synonyms):
            for specific, general in table:
                found.setdefault(specific, set()).add(general)
        return {word: tuple(sorted(generals)) for word, generals in found.items()}

    def to_tsv(self) -> str:
        """The table in its file format (six significant digits: the costs read back the same)."""
        lines = ["# kind\tspecific\tgeneral\tprobability"]
        for kind, table in (("relation", self.relations), ("attribute", self.attributes)):
            for (s, g), c in sorted(table.items()):
                lines.append(f"{kind}\t{s}\t{g}\t{math.exp(-c / 1000):.6g}")
        return "\n".join(lines) + "\n"


def entailment_cost(probability: float) -> int:
    """``round(-1000 ln p)``, at least 1 so an approximate reading is never free."""
    if not 0.0 < probability <= 1.0:
        raise EntailmentTableError(f"probability {probability} is not in (0, 1]")
    return max(1, round(-1000.0 * math.log(probability)))


def build_entailments(rows: Iterable[tuple[str, str, str, float]]) -> Entailments:
    """A table from (kind, specific, general, probability) rows; words become ASP constants."""
    relations: dict[tuple[str, str], int] = {}
    attributes: dict[tuple[str, str], int] = {}
    synonyms: dict[tuple[str, str], int] = {}
    for kind, specific, general, probability in rows:
        if kind not in KINDS:
            raise EntailmentTableError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
        key = (asp_constant(specific), asp_constant(general))
        if key[0] == key[1]:
            continue
        if kind == "synonym":
            synonyms[key] = synonyms[key[::-1]] = 0  # the probability column is ignored: both name one thing
            continue
        (relations if kind == "relation" else attributes)[key] = entailment_cost(probability)
    return Entailments(relations, attributes, synonyms)


def parse_entailments(text: str, source: str = "<table>") -> Entailments:
    """Read a tab-separated table (``#`` starts a comment); errors name the line."""
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split("\t")]
        if len(parts) not in (3, 4):
            raise EntailmentTableError(f"{source}:{number}: expected kind, specific, general[, probability]")
        try:
            probability = float(parts[3]) if len(parts) == 4 else DEFAULT_PROBABILITY
            rows.append((parts[0], parts[1], parts[2], probability))
            build_entailments(rows[-1:])
        except (ValueError, EntailmentTableError) as exc:
            raise EntailmentTableError(f"{source}:{number}: {exc}") from None
    return build_entailments(rows)


def load_entailments(path: str | Path) -> Entailments:
    """Read an entailment table file."""
    path = Path(path)
    return parse_entailments(path.read_text(encoding="utf-8"), str(path))


@cache
def bundled_entailments() -> Entailments:
    """The table the project ships (derived from its relation list and WordNet, then edited)."""
    text = (resources.files("theory") / "data" / "entailments.tsv").read_text(encoding="utf-8")
    return parse_entailments(text, "theory/data/entailments.tsv")
