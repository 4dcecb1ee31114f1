"""Taxonomies: which categories a class name belongs to, and which category an attribute value has.

Two class taxonomies share one protocol: :class:`WordNetTaxonomy` (hyponym closure in WordNet 3.0)
and :class:`CuratedTaxonomy` (a category -> classes file in the format of GQA's
``gqa_all_class.json``, plus optionally an attribute-type -> values file like
``gqa_all_attribute.json``). Attribute values get their categories from the curated attribute file
when given, else from :class:`HeuristicAttributes` (a short built-in vocabulary, then WordNet).

Example:
    >>> WordNetTaxonomy().is_a("puppy", "dog")
    True
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from scene.wordnet import READER_LOCK, lemma_key, load_wordnet
from theory.attributes import attribute_index, attribute_table
from theory.operations import OTHER_CATEGORY

CLASS_FILE = "gqa_all_class.json"
ATTRIBUTE_FILE = "gqa_all_attribute.json"


@runtime_checkable
class Taxonomy(Protocol):
    """Category membership of class names (e.g. dog -> animal); a taxonomy subclasses it for the
    defaults of `knows` and `attribute_categories`."""

    def categories_of(self, name: str) -> set[str]:
        """The categories `name` belongs to, not counting `name` itself."""
        ...

    def members(self, category: str) -> set[str]:
        """The class names that belong to `category`, not counting `category` itself."""
        ...

    def is_a(self, name: str, category: str) -> bool:
        """Whether `name` is `category` or belongs to it."""
        ...

    def knows(self, word: str) -> bool:
        """Whether the taxonomy has `word` at all; True when it cannot tell, so nothing is refused."""
        return True

    def attribute_categories(self) -> AttributeCategories | None:
        """Its own mapping of attribute values to categories (a curated file), None without one."""
        return None

    def similarity(self, first: str, second: str) -> float:
        """How alike two class names are, 0..1: here the share of categories they have in common."""
        a, b = _words(first.replace("_", " ")), _words(second.replace("_", " "))
        mine, theirs = self.categories_of(a) | {a}, self.categories_of(b) | {b}
        return len(mine & theirs) / len(mine | theirs)


@runtime_checkable
class AttributeCategories(Protocol):
    """The categories of attribute values (e.g. red -> color); a mapping subclasses it for the
    defaults of `index` and `categories`."""

    # value -> categories when the mapping is a closed list (a curated file); None for an open one.
    index: Mapping[str, frozenset[str]] | None = None

    def categories_of(self, value: str) -> set[str]:
        """The attribute categories of `value` (empty when unknown)."""
        ...

    def categories(self) -> set[str] | None:
        """Every category the mapping can give; None when it cannot list them."""
        return None


def _words(text: str) -> str:
    return " ".join(text.strip().lower().split())


# The share of a word's sense-tagged uses from which a sense counts as one the word is meant in.
MIN_SHARE = 0.2
SENSE_RULES = ("frequent", "tagged", "all")


class WordNetTaxonomy(Taxonomy):
    """Class categories by WordNet's hypernym/hyponym closure (instance links included), over the
    noun senses a word is meant in.

    ``senses="frequent"`` (default): a word is meant in WordNet's first sense (its commonest) and in
    every sense that has at least `min_share` (1/5) of the word's uses in WordNet's sense-tagged
    text; a word never seen there keeps its first sense only. Both sides of a membership use it:
    `name` belongs to `category` when a meant sense of `category` is a hypernym of a meant sense of
    `name`. So "head" (the body part in 208 of 254 tagged uses; "a single domestic animal" once) is
    no animal, "table" keeps its furniture sense (25 of 82), and an ear is no "structure" (the
    anatomical sense is 3 of the word's 47). ``senses="tagged"`` (every sense seen once, on the
    name's side only) and ``senses="all"`` are the earlier rules, kept for comparison
    (bench/taxonomy_senses.py); `max_senses` keeps only the first N. A phrase WordNet lacks
    ("brick wall") falls back to its last word ("wall"). Results are cached per word.
    """

    def __init__(
        self,
        wordnet_dir: str | Path | None = None,
        senses: str = "frequent",
        max_senses: int | None = None,
        min_share: float = MIN_SHARE,
    ) -> None:
        if senses not in SENSE_RULES:
            raise ValueError(f"senses must be one of {', '.join(SENSE_RULES)}")
        self._wordnet_dir = wordnet_dir
        self._senses = senses
        self._max_senses = max_senses
        self._min_share = min_share
        self._lock = threading.Lock()
        self._up: dict[str, frozenset[str]] = {}
        self._down: dict[str, frozenset[str]] = {}
        self._senses_of: dict[str, list[Any]] = {}
        self._meant_of: dict[str, frozenset[str]] = {}
        self._reader: Any = None
        self._alike: dict[str, float] = {}

    @property
    def wordnet(self) -> Any:
        # Finding the folder checks paths on disk: once per taxonomy, not once per word looked up.
        if self._reader is None:
            self._reader = load_wordnet(self._wordnet_dir)
        return self._reader

    def synsets(self, word: str) -> list[Any]:
        """The noun senses `word` is meant in (those of its last word when WordNet lacks the phrase)."""
        cached = self._senses_of.get(word)
        if cached is None:
            # Sense counts are binary searches in WordNet's files: slow enough to be worth keeping.
            with READER_LOCK:
                cached = self._find_synsets(word)
            with self._lock:
                self._senses_of[word] = cached
        return cached

    def _find_synsets(self, word: str) -> list[Any]:
        wn = self.wordnet
        key = lemma_key(word)
        found = wn.synsets(key, pos="n") if key else []
        if not found and "_" in key:
            key = key.rsplit("_", 1)[1]
            found = wn.synsets(key, pos="n")
        if self._senses != "all" and found:
            counts = self._counts(key, found)
            if self._senses == "tagged":
                kept = [s for s, count in zip(found, counts, strict=True) if count > 0]
            else:
                floor = self._min_share * sum(counts)
                kept = [
                    s for i, (s, count) in enumerate(zip(found, counts, strict=True)) if i == 0 or count >= floor > 0
                ]
            found = kept or found[:1]
        return found[: self._max_senses] if self._max_senses else found

    def category_synsets(self, word: str) -> list[Any]:
        """The senses `word` covers as a category: its meant senses and its other senses of the same
        lexicographer file (food.n.02 "solid food" of noun.food beside food.n.01, which heads it);
        every sense of a word never seen in tagged text, since nothing then tells its senses apart."""
        meant = self.synsets(word)
        if self._senses != "frequent" or not meant:
            return meant
        key = lemma_key(word)
        with READER_LOCK:
            every = self.wordnet.synsets(key, pos="n")
            if every and not any(self._counts(key, every)):
                return list(every)
        kinds = {_kind(s) for s in meant}
        return [s for s in every if s in meant or s.lexname() in kinds] or meant

    def _counts(self, key: str, found: list[Any]) -> list[int]:
        """How often each of `found` is the sense of `key` in WordNet's sense-tagged text."""
        base = self.wordnet.morphy(key, "n") or key
        return [sum(lemma.count() for lemma in s.lemmas() if lemma.name().lower() in (key, base)) for s in found]

    def _meant_in(self, word: str, synset: Any, as_category: bool) -> bool:
        """Whether `word` names `synset` in a sense it is meant in (always, under the earlier rules)."""
        if self._senses != "frequent":
            return True
        key = f"{int(as_category)}{word}"
        names = self._meant_of.get(key)
        if names is None and not as_category:
            # A word's first sense is always meant: most hyponyms are named in theirs, and this
            # saves counting the senses of thousands of words for a broad category's members.
            first = self.wordnet.synsets(lemma_key(word), pos="n")[:1]
            if first and first[0].name() == synset.name():
                return True
        if names is None:
            found = self.category_synsets(word) if as_category else self.synsets(word)
            names = frozenset(s.name() for s in found)
            with self._lock:
                self._meant_of[key] = names
        return synset.name() in names

    def _lemma_words(self, synsets: set[Any], as_category: bool) -> set[str]:
        """The words that name `synsets` in a sense they are meant in."""
        words = set()
        for synset in synsets:
            for name in synset.lemma_names():
                word = name.replace("_", " ").lower()
                if self._meant_in(word, synset, as_category):
                    words.add(word)
        return words

    def knows(self, word: str) -> bool:
        """Whether WordNet has a noun sense for `word`."""
        return bool(self.synsets(word))

    def similarity(self, first: str, second: str) -> float:
        """Wu-Palmer similarity of the two names' meant senses, the most alike pair (0 when unknown)."""
        a, b = _words(first.replace("_", " ")), _words(second.replace("_", " "))
        key = f"{a}\t{b}" if a <= b else f"{b}\t{a}"
        cached = self._alike.get(key)
        if cached is None:
            with READER_LOCK:
                pairs = [(s, o) for s in self.synsets(a) for o in self.synsets(b)]
                cached = max((s.wup_similarity(o) or 0.0 for s, o in pairs), default=0.0)
            with self._lock:
                self._alike[key] = cached
        return cached

    def categories_of(self, name: str) -> set[str]:
        key = _words(name)
        cached = self._up.get(key)
        if cached is None:
            with READER_LOCK:
                senses = self.synsets(key)
                ancestors = set()
                for synset in senses:
                    ancestors.update(synset.closure(_hypernyms))
                words = self._lemma_words(ancestors, as_category=True)
                head = key.rsplit(" ", 1)[-1]
                if senses and head != key and not self.wordnet.synsets(lemma_key(key), pos="n"):
                    words |= self._lemma_words(set(senses), as_category=True)  # "brick wall" is a wall
            cached = frozenset(words) - {key}
            with self._lock:
                self._up[key] = cached
        return set(cached)

    def members(self, category: str) -> set[str]:
        key = _words(category)
        cached = self._down.get(key)
        if cached is None:
            descendants = set()
            with READER_LOCK:
                for synset in self.category_synsets(key):
                    descendants.update(synset.closure(_hyponyms))
                cached = frozenset(self._lemma_words(descendants, as_category=False)) - {key}
            with self._lock:
                self._down[key] = cached
        return set(cached)

    def is_a(self, name: str, category: str) -> bool:
        name, category = _words(name), _words(category)
        return name == category or category in self._categories(name)

    def _categories(self, name: str) -> frozenset[str]:
        if name not in self._up:
            self.categories_of(name)
        return self._up[name]


def _kind(synset: Any) -> str:
    """The lexicographer file of `synset`; a unique beginner's is the file it heads (food.n.01: noun.food)."""
    if synset.lexname() == "noun.Tops":
        return f"noun.{synset.lemma_names()[0].lower()}"
    return str(synset.lexname())


def _hypernyms(synset: Any) -> list[Any]:
    return synset.hypernyms() + synset.instance_hypernyms()


def _hyponyms(synset: Any) -> list[Any]:
    return synset.hyponyms() + synset.instance_hyponyms()


@dataclass
class CuratedTaxonomy(Taxonomy):
    """A category -> classes taxonomy read from files (GQA's curated format), with attribute types."""

    classes: dict[str, frozenset[str]]
    attributes: dict[str, frozenset[str]] = field(default_factory=dict)
    _category_index: dict[str, frozenset[str]] = field(init=False, repr=False)
    _attribute_index: dict[str, frozenset[str]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._category_index = _invert(self.classes)
        self._attribute_index = _invert(self.attributes)

    @classmethod
    def from_dir(cls, path: str | Path) -> CuratedTaxonomy:
        """Read ``gqa_all_class.json`` (required) and ``gqa_all_attribute.json`` (optional) from `path`."""
        folder = Path(path)
        class_file = folder / CLASS_FILE
        if not class_file.is_file():
            raise FileNotFoundError(f"no {CLASS_FILE} in {folder}")
        attribute_file = folder / ATTRIBUTE_FILE
        return cls.from_files(class_file, attribute_file if attribute_file.is_file() else None)

    @classmethod
    def from_files(cls, class_file: str | Path, attribute_file: str | Path | None = None) -> CuratedTaxonomy:
        """Read a category -> classes file and optionally an attribute-type -> values file."""
        classes = _read_mapping(Path(class_file))
        attributes = _read_mapping(Path(attribute_file)) if attribute_file is not None else {}
        return cls(classes, attributes)

    def knows(self, word: str) -> bool:
        """Whether the file names `word` as a class or a category."""
        word = _words(word)
        return word in self.classes or word in self._category_index

    def categories_of(self, name: str) -> set[str]:
        name = _words(name)
        return set(self._category_index.get(name, frozenset())) - {name}

    def members(self, category: str) -> set[str]:
        category = _words(category)
        return set(self.classes.get(category, frozenset())) - {category}

    def is_a(self, name: str, category: str) -> bool:
        name, category = _words(name), _words(category)
        return name == category or category in self._category_index.get(name, frozenset())

    def attribute_categories(self) -> CuratedAttributes | None:
        """The attribute-type mapping of the attribute file, or None when there was none."""
        return CuratedAttributes(self._attribute_index) if self.attributes else None


def _read_mapping(path: Path) -> dict[str, frozenset[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read taxonomy file {path}: {exc}") from exc
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(x, str) for x in v) for k, v in data.items()
    ):
        raise ValueError(f"taxonomy file {path} must map names to lists of names")
    mapping: dict[str, set[str]] = {}
    for key, values in data.items():
        mapping.setdefault(_words(key), set()).update(_words(v) for v in values)
    return {k: frozenset(v) for k, v in mapping.items()}


def _invert(mapping: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    inverted: dict[str, set[str]] = {}
    for key, values in mapping.items():
        for value in values:
            inverted.setdefault(value, set()).add(key)
    return {k: frozenset(v) for k, v in inverted.items()}


@dataclass(frozen=True)
class CuratedAttributes(AttributeCategories):
    """Attribute value -> categories, from a curated attribute-type file."""

    index: dict[str, frozenset[str]]

    def categories_of(self, value: str) -> set[str]:
        return set(self.index.get(_words(value), frozenset()))

    def categories(self) -> set[str]:
        """Every attribute category the file names."""
        return {c for cats in self.index.values() for c in cats}


# WordNet anchors for words the vocabulary lacks: a noun sense under one of these synsets.
_WORDNET_ANCHORS = (("color.n.01", "color"), ("material.n.01", "material"), ("shape.n.02", "shape"))


class HeuristicAttributes(AttributeCategories):
    """Attribute categories without a curated file: the project's one attribute vocabulary
    (theory.attributes, which the translator's ontology reads too), then WordNet (a noun sense under
    color / material / shape, or an adjective whose WordNet attribute is size), else ``other``."""

    def __init__(self, wordnet_dir: str | Path | None = None, use_wordnet: bool = True) -> None:
        self._wordnet_dir = wordnet_dir
        self._use_wordnet = use_wordnet
        self._index = attribute_index()
        self._lookup = lru_cache(maxsize=65536)(self._categories)

    def categories_of(self, value: str) -> set[str]:
        return set(self._lookup(_words(value)))

    def categories(self) -> set[str]:
        """Every category this mapping can give."""
        return set(attribute_table()) | {c for _, c in _WORDNET_ANCHORS} | {OTHER_CATEGORY}

    def _categories(self, value: str) -> frozenset[str]:
        if value in self._index:
            return self._index[value]
        if self._use_wordnet:
            with READER_LOCK:
                found = _wordnet_attribute_categories(load_wordnet(self._wordnet_dir), value)
            if found:
                return frozenset(found)
        return frozenset({OTHER_CATEGORY})


def _wordnet_attribute_categories(wn: Any, value: str) -> set[str]:
    key = lemma_key(value)
    found: set[str] = set()
    for synset in wn.synsets(key, pos="n")[:2]:
        ancestors = {s.name() for s in synset.closure(_hypernyms)}
        found.update(category for anchor, category in _WORDNET_ANCHORS if anchor in ancestors)
    for synset in wn.synsets(key, pos="a")[:1]:
        heads = [synset, *synset.similar_tos()]
        if any(a.name() == "size.n.01" for head in heads for a in head.attributes()):
            found.add("size")
    return found


@lru_cache(maxsize=1)
def default_taxonomy() -> WordNetTaxonomy:
    """One shared WordNet taxonomy per process, so its caches serve every caller."""
    return WordNetTaxonomy()


def load_taxonomy(taxonomy_dir: str | Path | None = None) -> CuratedTaxonomy | WordNetTaxonomy:
    """The curated taxonomy in `taxonomy_dir` (GQA's class/attribute files), else the shared WordNet one."""
    return CuratedTaxonomy.from_dir(taxonomy_dir) if taxonomy_dir else default_taxonomy()
