"""The facts of a certain scene text the theory reads for a question's words: found by `str.find`
for a few words, through an index of the text kept per text for many or for a text asked often."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol, TypeVar

from theory.operations import SCENE_PREDICATES, STRUCTURAL_CATEGORIES, operations_where
from theory.solver.scene_readings import KEPT_SCENE_CHARS, KEPT_SCENE_TEXTS, kept_per_text


@lru_cache(maxsize=64)
def _facts_of(names: tuple[str, ...]) -> re.Pattern[str]:
    """Every fact of `names` in text without blanks that starts with a period."""
    return re.compile(rf"\.((?:{'|'.join(names)})\([^()]*\))")


_BLANKS = str.maketrans("", "", " \t\r\n")


@kept_per_text
def _compact(text: str) -> str:
    """Scene text without blanks, after a period (kept per text, as the reading is)."""
    return "." + text.translate(_BLANKS)


_ATTRIBUTE_FACT = re.compile(r"\.(has_attr\([^,()]*,([^,()]*),[^()]*\))")
# Operations that read has_attr(O,A,V) for any A their step does not name (and any V): a comparison
# by sameness that names no category (what two objects have in common).
EVERY_CATEGORY = operations_where(lambda spec: spec.family == "sameness" and "category" not in spec.arguments)


_Place = TypeVar("_Place")


class WordIndex(Protocol[_Place]):
    """Where has_attr facts stand by category and by value, has_rel facts by relation."""

    @property
    def attribute_category(self) -> dict[str, list[_Place]]: ...
    @property
    def attribute_value(self) -> dict[str, list[_Place]]: ...
    @property
    def relation(self) -> dict[str, list[_Place]]: ...


def named_places(
    index: WordIndex[_Place],
    middle: frozenset[str],
    last: frozenset[str],
    attributes: bool,
    relations: bool,
    every_category: bool,
) -> set[_Place]:
    """The places of the has_attr and has_rel facts the theory reads for the words named (see `narrowed`)."""
    chosen: set[_Place] = set()
    for words, by_word, read in (
        (middle, index.attribute_category, attributes),
        (last, index.attribute_value, attributes),
        (middle, index.relation, relations),
    ):
        if read:
            for word in words:
                chosen.update(by_word.get(word, ()))
    if every_category and attributes:
        for category, places in index.attribute_category.items():
            if category not in STRUCTURAL_CATEGORIES:
                chosen.update(places)
    return chosen


@dataclass(frozen=True)
class _FactIndex:
    """The facts of a compact scene text (in text order) by the words where the theory reads them."""

    facts: list[str]
    attribute_category: dict[str, list[int]]  # has_attr(O,A,V) by A
    attribute_value: dict[str, list[int]]  # has_attr(O,A,V) by V
    relation: dict[str, list[int]]  # has_rel(S,R,O) by R
    predicate: dict[str, list[int]]  # every fact by its predicate


# Up to this many words a question's facts are found by `str.find` on the text (0.07 ms on a whole
# scene graph for a question's dozen words); with more, as with the entailment table's 40-70 words
# (0.5-0.8 ms by `str.find`), or from the third question about one text on, through an index of the
# text (0.3 ms to build, 0.02 to use), kept per text. (Built at the first or second question, it
# cost more than it saved where a text is asked about twice, as a question at top-1 and top-5.)
_PROBED_WORDS = 16
_INDEXED_FROM = 3
_INDEXES: dict[str, _FactIndex | int] = {}  # an index, or how often the text was asked about
_INDEXES_KEPT = KEPT_SCENE_TEXTS


def _keep_index(text: str, index: _FactIndex | int) -> None:
    if text not in _INDEXES and len(_INDEXES) >= _INDEXES_KEPT:
        _INDEXES.pop(next(iter(_INDEXES)), None)
    _INDEXES[text] = index


_FACT = re.compile(r"\.(([a-z][A-Za-z0-9_']*)\(([^()]*)\))")


def _fact_index(compact: str) -> _FactIndex:
    """The index of a compact text of certain facts without strings or comments."""
    index = _FactIndex([], defaultdict(list), defaultdict(list), defaultdict(list), defaultdict(list))
    for at, (fact, name, arguments) in enumerate(_FACT.findall(compact)):
        index.facts.append(fact)
        index.predicate[name].append(at)
        if name == "has_attr" or name == "has_rel":
            _, middle, last = arguments.split(",")
            place_by_words(index, name, middle, last, at)
    return index


def place_by_words(index: WordIndex[_Place], name: str, middle: str, last: str, place: _Place) -> None:
    """Where a has_attr(O,middle,last) or has_rel(S,middle,O) fact stands, under the words the theory reads it by."""
    if name == "has_attr":
        index.attribute_category[middle].append(place)
        index.attribute_value[last].append(place)
    else:
        index.relation[middle].append(place)


def named_facts(
    text: str, middle: frozenset[str], last: frozenset[str], reads: frozenset[tuple[str, int]], every_category: bool
) -> list[str]:
    """The facts of a text of certain facts without strings or comments that the theory can read
    for steps naming the categories and relations `middle` and the classes and values `last`:
    has_attr(O,A,V) with A or V named (with `every_category`, also any A that is not structural),
    has_rel(S,R,O) with R named, and every fact of the other predicates of `reads`."""
    # Text without blanks: a category or relation W stands between commas (",W,": the category of
    # has_attr, the relation of has_rel), a class or value before the closing parenthesis (",W)":
    # the value of has_attr), and each fact runs from the period before it to the next. str.find
    # scans in C: a dozen words cost less than one pass of a pattern made for them (compiling
    # one costs 0.5 ms, for every question with new words).
    given, kept = text, len(text) <= KEPT_SCENE_CHARS
    text = _compact(text)
    attributes, relations = ("has_attr", 3) in reads, ("has_rel", 3) in reads
    others = tuple(
        sorted(name for name, _ in reads if name in SCENE_PREDICATES and name not in ("has_attr", "has_rel"))
    )
    # Kept by the text as given: its hash is already known (the reading is kept by it too).
    index = _INDEXES.get(given, 0) if kept else 0
    if not isinstance(index, _FactIndex):
        if index + 1 >= _INDEXED_FROM or len(middle) + len(last) > _PROBED_WORDS:
            index = _fact_index(text)
        if kept:
            _keep_index(given, index + 1 if isinstance(index, int) else index)
    if isinstance(index, _FactIndex):
        chosen = named_places(index, middle, last, attributes, relations, every_category)
        for name in others:
            chosen.update(index.predicate.get(name, ()))
        return [index.facts[position] for position in sorted(chosen)]
    found: dict[int, str] = {}
    probes = [(f",{word},", relations) for word in middle] + [(f",{word})", False) for word in last]
    for probe, relation in probes:
        at = text.find(probe)
        while at >= 0:
            start = text.rfind(".", 0, at) + 1
            if (attributes and text.startswith("has_attr(", start)) or (
                relation and text.startswith("has_rel(", start)
            ):
                found[start] = text[start : text.find(".", at)]
            at = text.find(probe, at + 1)
    facts = [found[start] for start in sorted(found)]
    if every_category and attributes:
        named = set(facts)
        facts += [
            fact
            for fact, category in _ATTRIBUTE_FACT.findall(text)
            if category not in STRUCTURAL_CATEGORIES and fact not in named
        ]
    return facts + (_facts_of(others).findall(text) if others else [])
