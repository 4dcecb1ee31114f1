"""Answer matching: strict, generous (WordNet synonyms and hyponyms of the gold answer) and
generous+ (also hypernyms of the gold answer up to N levels), at top-k.

Both answers are sanitised first (:func:`evaluation.interpreter.sanitise_answer`). yes/no answers
only ever match strictly: WordNet relates the nouns "yes" and "no" to each other and to other
replies, which would make a wrong boolean look right. The hierarchy is read from the gold answer's
first `gold_senses` noun/verb senses (WordNet lists senses by frequency; default 1, None: all) and
every sense of the prediction; distances count hypernym links (instance links included) along the
shortest path, so "entity" is 8 levels above "dog" (dog.n.01 -> domestic_animal -> animal -> ...).

Example:
    >>> Matcher().matches("puppy", "dog", MatchMode.GENEROUS)
    True
    >>> Matcher().matches("animal", "dog", MatchMode.GENEROUS)
    False
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import Any

from evaluation.interpreter import sanitise_answer
from scene.wordnet import lemma_key, load_wordnet

BOOLEANS = frozenset({"yes", "no"})
DEFAULT_HYPERNYM_LEVELS = 5


class MatchMode(str, Enum):
    """How far a predicted answer may be from the gold one."""

    STRICT = "strict"
    GENEROUS = "generous"
    GENEROUS_PLUS = "generous+"


class Matcher:
    """Compares predicted answers with gold answers through WordNet (loaded on first use)."""

    def __init__(
        self,
        hypernym_levels: int = DEFAULT_HYPERNYM_LEVELS,
        wordnet_dir: str | Path | None = None,
        gold_senses: int | None = 1,
    ) -> None:
        if hypernym_levels < 0:
            raise ValueError("hypernym_levels must be >= 0")
        self.hypernym_levels = hypernym_levels
        self.gold_senses = gold_senses
        self._wordnet_dir = wordnet_dir
        self._lock = threading.Lock()
        self._synsets: dict[str, tuple[Any, ...]] = {}
        self._ancestors: dict[str, dict[Any, int]] = {}

    def synsets(self, word: str) -> tuple[Any, ...]:
        """Every WordNet sense of `word` (all parts of speech)."""
        found = self._synsets.get(word)
        if found is None:
            found = tuple(load_wordnet(self._wordnet_dir).synsets(lemma_key(word))) if word else ()
            with self._lock:
                self._synsets[word] = found
        return found

    def hierarchy_senses(self, word: str, limit: int | None = None) -> list[Any]:
        """The noun and verb senses of `word`, the first `limit` of each part of speech."""
        senses = self.synsets(word)
        return [s for pos in ("n", "v") for s in [x for x in senses if x.pos() == pos][:limit]]

    def ancestors(self, word: str, limit: int | None = None) -> dict[Any, int]:
        """Every hypernym of the first `limit` noun/verb senses of `word`, with its distance in
        links (the senses themselves: 0)."""
        key = f"{limit}:{word}"
        found = self._ancestors.get(key)
        if found is None:
            found = {}
            frontier = self.hierarchy_senses(word, limit)
            for synset in frontier:
                found[synset] = 0
            depth = 0
            while frontier:
                depth += 1
                nxt = []
                for synset in frontier:
                    for parent in synset.hypernyms() + synset.instance_hypernyms():
                        if parent not in found:
                            found[parent] = depth
                            nxt.append(parent)
                frontier = nxt
            with self._lock:
                self._ancestors[key] = found
        return found

    def is_synonym(self, predicted: str, gold: str) -> bool:
        """The two words share a WordNet sense."""
        return bool(set(self.synsets(predicted)) & set(self.synsets(gold)))

    def is_hyponym(self, predicted: str, gold: str) -> bool:
        """Some sense of `predicted` lies under some sense of `gold` (any depth)."""
        ancestors = self.ancestors(predicted)
        return any(ancestors.get(s, 0) > 0 for s in self.hierarchy_senses(gold, self.gold_senses))

    def hypernym_distance(self, predicted: str, gold: str) -> int | None:
        """How many links some sense of `predicted` lies above some sense of `gold` (None: not above)."""
        ancestors = self.ancestors(gold, self.gold_senses)
        distances = [ancestors[s] for s in self.synsets(predicted) if ancestors.get(s, 0) > 0]
        return min(distances, default=None)

    def matches(self, predicted: str, gold: str, mode: MatchMode | str = MatchMode.STRICT) -> bool:
        """Whether one predicted answer counts as the gold answer under `mode`."""
        mode = MatchMode(mode)
        predicted, gold = sanitise_answer(predicted), sanitise_answer(gold)
        if predicted == gold:
            return True
        if mode is MatchMode.STRICT or not predicted or predicted in BOOLEANS or gold in BOOLEANS:
            return False
        if self.is_synonym(predicted, gold) or self.is_hyponym(predicted, gold):
            return True
        if mode is MatchMode.GENEROUS:
            return False
        distance = self.hypernym_distance(predicted, gold)
        return distance is not None and distance <= self.hypernym_levels

    def matches_top_k(
        self, predictions: Sequence[str], gold: str, mode: MatchMode | str = MatchMode.STRICT, k: int = 1
    ) -> bool:
        """Whether any of the first `k` ranked predictions matches the gold answer."""
        if k < 1:
            raise ValueError("k must be >= 1")
        return any(self.matches(p, gold, mode) for p in predictions[:k])

    def scores(self, predictions: Sequence[str], gold: str, ks: Sequence[int] = (1, 3, 5)) -> dict[str, bool]:
        """Every mode at every k, keyed like ``generous+@3``."""
        return {f"{mode.value}@{k}": self.matches_top_k(predictions, gold, mode, k) for mode in MatchMode for k in ks}
