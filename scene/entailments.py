"""Derive the vocabulary entailment table (see `theory.entailment`) from a vocabulary and WordNet.

Three sources, each a "specific implies general" reading:
- a multi-word relation, class or attribute value that ends with another word of the same list
  ("sitting on" -> "on", "tennis player" -> "player", "dark blue" -> "blue");
- a class and the class group it belongs to ("kitten" -> "animal");
- WordNet: a class whose noun sense has another class among its hypernyms ("puppy" -> "dog");
plus a few readings no rule finds (``HAND_WRITTEN``). A general word that may stand for n
specific ones does so with probability 1/n (a uniform prior), so the more a word covers, the more
an approximate reading through it costs.

Run ``python -m scene.entailments --ontology translators/data/ontology.json --out
theory/data/entailments.tsv`` to rebuild the shipped table; edit the file by hand afterwards.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol, TypedDict

from theory.attributes import category_values
from theory.entailment import MATERIAL_ADJECTIVES, Entailments, build_entailments
from theory.scene_facts import asp_constant

# Readings that no suffix, group or hypernym rule finds: spatial words with one more general word,
# and what someone wears, holds or carries as something they have ("Does the man have a hat?").
HAND_WRITTEN: tuple[tuple[str, str, str], ...] = (
    ("relation", "on top of", "on"),
    ("relation", "inside", "in"),
    ("relation", "inside of", "in"),
    ("relation", "beside", "next to"),
    ("relation", "next to", "near"),
    ("relation", "close to", "near"),
    ("relation", "riding", "on"),
    ("relation", "riding on", "on"),
    ("relation", "wearing", "has"),
    ("relation", "holding", "has"),
    ("relation", "carrying", "has"),
)


# Words that name the same thing in scenes and questions, chosen by hand among the pairs that share a
# WordNet synset (tests/scene/test_entailments.py checks that each does): WordNet's shared senses alone
# also pair "bike" with "motorcycle" and "white" with "caucasian", so the choice is not automatic.
SYNONYMS: tuple[tuple[str, str], ...] = (
    ("airplane", "plane"),
    ("automobile", "car"),
    ("bicycle", "bike"),
    ("big", "large"),
    ("carpet", "rug"),
    ("child", "kid"),
    ("closed", "shut"),
    ("cloth", "fabric"),
    ("couch", "sofa"),
    ("forest", "woods"),
    ("french_fries", "fries"),
    ("handbag", "purse"),
    ("hazy", "misty"),
    ("photo", "photograph"),
    ("rail", "railing"),
    ("remote", "remote_control"),
    ("rock", "stone"),
    ("shop", "store"),
    ("television", "tv"),
)


class OntologyJSON(TypedDict, total=False):
    """The fields of an ontology file this module reads."""

    classes: dict[str, list[str]]
    # category -> its values, or a spec naming them (`theory.attributes.category_values`)
    attributes: dict[str, list[str] | dict[str, object]]
    # a relation name, or an entry with the name under "relation"
    relations: list[str | dict[str, str]]


class _Synset(Protocol):
    """The part of an NLTK WordNet synset the hypernym rule reads."""

    def name(self) -> str: ...
    def hypernyms(self) -> list[_Synset]: ...
    def instance_hypernyms(self) -> list[_Synset]: ...


# Function words that end many relations without being their meaning ("in front of" is not "of").
_TOO_GENERAL = frozenset({"of", "to", "by", "from"})


def _suffix_pairs(words: Iterable[str]) -> set[tuple[str, str]]:
    """(w, shorter) where `shorter` is a word-suffix of the multi-word `w`, both in `words`."""
    known = {asp_constant(w) for w in words}
    pairs: set[tuple[str, str]] = set()
    for word in known:
        parts = word.split("_")
        for start in range(1, len(parts)):
            tail = "_".join(parts[start:])
            if tail in known and tail not in _TOO_GENERAL:
                pairs.add((word, tail))
                break  # the longest known tail only: "sitting_on_top_of" -> "on_top_of", not "of"
    return pairs


def _hypernym_pairs(classes: set[str], wordnet: Any, depth: int) -> set[tuple[str, str]]:
    """(specific, general) class pairs where general names a hypernym of specific's first noun sense."""
    names: dict[str, set[str]] = defaultdict(set)  # synset name -> classes whose first sense it is
    first: dict[str, _Synset] = {}
    for cls in classes:
        synsets = wordnet.synsets(cls, pos="n")
        if synsets:
            first[cls] = synsets[0]
            names[synsets[0].name()].add(cls)
    pairs: set[tuple[str, str]] = set()
    for cls, synset in first.items():
        frontier, seen = [synset], set[str]()
        for _ in range(depth):
            frontier = [h for s in frontier for h in s.hypernyms() + s.instance_hypernyms() if h.name() not in seen]
            seen.update(h.name() for h in frontier)
            for hypernym in frontier:
                pairs.update((cls, general) for general in names.get(hypernym.name(), ()) if general != cls)
    return pairs


def derive_entailments(
    relations: Iterable[str],
    class_groups: Mapping[str, Iterable[str]],
    attribute_values: Mapping[str, Iterable[str]],
    wordnet: Any | None = None,
    hypernym_depth: int = 2,
) -> Entailments:
    """The table for a vocabulary: relation names, class group -> members, category -> values."""
    kinds: dict[tuple[str, str], str] = {}
    relation_words = [asp_constant(r) for r in relations]
    for pair in _suffix_pairs(relation_words):
        kinds[pair] = "relation"
    classes = {asp_constant(c) for members in class_groups.values() for c in members}
    for group, members in class_groups.items():
        for member in members:
            kinds[(asp_constant(member), asp_constant(group))] = "attribute"
    for pair in _suffix_pairs(classes):
        kinds.setdefault(pair, "attribute")
    for values in attribute_values.values():
        for pair in _suffix_pairs(values):
            kinds.setdefault(pair, "attribute")
    if wordnet is not None:
        for pair in _hypernym_pairs(classes, wordnet, hypernym_depth):
            kinds.setdefault(pair, "attribute")
    for kind, specific, general in HAND_WRITTEN:
        if kind != "relation" or {asp_constant(specific), asp_constant(general)} <= set(relation_words):
            kinds[(asp_constant(specific), asp_constant(general))] = kind
    covered: dict[tuple[str, str], int] = defaultdict(int)  # (kind, general) -> specific words it covers
    for (_, general), kind in kinds.items():
        covered[(kind, general)] += 1
    rows = [(kind, specific, general, 1.0 / covered[(kind, general)]) for (specific, general), kind in kinds.items()]
    return build_entailments([*rows, *(("synonym", a, b, 1.0) for a, b in (*SYNONYMS, *MATERIAL_ADJECTIVES))])


def entailments_from_ontology(data: OntologyJSON, wordnet: Any | None = None) -> Entailments:
    """The table for an ontology file's content (``classes``, ``attributes``, ``relations``)."""
    relations = [r["relation"] if isinstance(r, dict) else r for r in data.get("relations", [])]
    attributes = {
        category: category_values(category, spec) if isinstance(spec, dict) else spec
        for category, spec in data.get("attributes", {}).items()
    }
    return derive_entailments(relations, data.get("classes", {}), attributes, wordnet)


def write_table(argv: list[str] | None = None) -> None:
    """Write the entailment table derived from an ontology file (and WordNet when installed)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ontology", type=Path, required=True, help="ontology JSON (classes, attributes, relations)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the table (TSV)")
    parser.add_argument("--no-wordnet", action="store_true", help="skip the WordNet hypernym rule")
    args = parser.parse_args(argv)
    wordnet = None
    if not args.no_wordnet:
        from scene.wordnet import load_wordnet

        wordnet = load_wordnet()
    table = entailments_from_ontology(json.loads(args.ontology.read_text(encoding="utf-8")), wordnet)
    header = "# Vocabulary entailments (python -m scene.entailments), edited by hand where noted.\n"
    args.out.write_text(header + table.to_tsv(), encoding="utf-8")
    print(
        f"{len(table.relations)} relation and {len(table.attributes)} attribute entailments, "
        f"{len(table.synonyms) // 2} synonyms -> {args.out}"
    )


if __name__ == "__main__":
    write_table()
