"""Vocabulary grounding: words a program uses that the scene vocabulary does not know are mapped
to the nearest known term, and every mapping is reported.

Two sources, tried in order: an injected ``related_terms(word)`` function (the app passes
WordNet synonyms and hypernyms; translators do not import the scene package) and sentence
embeddings (cosine similarity above a threshold). A word neither knows stays as it is and is
reported as unknown.

Example:
    >>> v = Vocabulary(classes={"car"}, categories={"color"}, values={"color": {"red"}}, relations={"on"})
    >>> v.knows("class", "car"), v.knows("class", "automobile")
    (True, False)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from theory.operations import OPERATIONS, POSITION_VALUES, STRUCTURAL_CATEGORIES
from theory.program import Program
from theory.scene_facts import asp_constant

if TYPE_CHECKING:
    # The embedder's vectors are NumPy arrays; reading a question's words needs no NumPy otherwise,
    # and every `aspvqa answer` would import it.
    import numpy as np

RelatedTerms = Callable[[str], Iterable[str]]


@dataclass
class Vocabulary:
    """Known classes, attribute categories (with their values) and relations, as ASP constants."""

    classes: set[str] = field(default_factory=set)
    categories: set[str] = field(default_factory=set)
    values: dict[str, set[str]] = field(default_factory=dict)
    relations: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.categories = set(self.categories) | set(STRUCTURAL_CATEGORIES) | set(self.values)
        for category, values in POSITION_VALUES.items():
            self.values.setdefault(category, set()).update(values)

    def all_values(self) -> set[str]:
        """Every attribute value of every category."""
        return set().union(*self.values.values()) if self.values else set()

    def terms(self, role: str, category: str | None = None) -> set[str]:
        """The known words for an argument role (class, category, value, relation)."""
        if role == "class":
            return self.classes
        if role == "category":
            return self.categories
        if role == "relation":
            return self.relations
        if role == "value":
            if category in ("class", "name"):
                return self.classes
            if category is not None and category in self.values:
                return self.values[category]
            return self.all_values()
        return set()

    def knows(self, role: str, word: str, category: str | None = None) -> bool:
        """True when `word` is a known term for `role`."""
        return word in self.terms(role, category)

    @classmethod
    def from_gqa_metadata(cls, folder: str | Path) -> Vocabulary:
        """Read GQA's taxonomy files (gqa_all_class.json, gqa_all_attribute.json, gqa_relation.json)."""
        folder = Path(folder)
        class_data = json.loads((folder / "gqa_all_class.json").read_text(encoding="utf-8"))
        attribute_data = json.loads((folder / "gqa_all_attribute.json").read_text(encoding="utf-8"))
        relation_data = json.loads((folder / "gqa_relation.json").read_text(encoding="utf-8"))
        classes = {asp_constant(c) for c in class_data}
        for members in class_data.values():
            classes |= {asp_constant(m) for m in members}
        values = {asp_constant(cat): {asp_constant(v) for v in vals} for cat, vals in attribute_data.items()}
        relations = {
            asp_constant(r) for r in (relation_data if isinstance(relation_data, list) else relation_data.keys())
        }
        return cls(classes=classes, categories=set(values), values=values, relations=relations)


@dataclass(frozen=True)
class TermMapping:
    """One replaced word: where, what it became, how and how sure."""

    step: int
    role: str
    word: str
    term: str
    method: str  # "related" or "embedding"
    score: float | None = None


@dataclass(frozen=True)
class Grounding:
    """The grounded program, the mappings made and the words left unknown as (step, role, word)."""

    program: Program
    mappings: tuple[TermMapping, ...]
    unknown: tuple[tuple[int, str, str], ...]


# Argument names that are vocabulary words (the others: positions, polarities).
_WORD_ROLES = frozenset({"class", "category", "value", "relation"})


class Grounder:
    """Maps unknown words onto a vocabulary; term embeddings are computed once per role."""

    def __init__(
        self,
        vocabulary: Vocabulary,
        embedder=None,  # noqa: ANN001 - any translators.model.embeddings.Embedder
        related_terms: RelatedTerms | None = None,
        threshold: float = 0.55,
    ) -> None:
        self.vocabulary = vocabulary
        self.embedder = embedder
        self.related_terms = related_terms
        self.threshold = threshold
        self._term_vectors: dict[tuple[str, str | None], tuple[list[str], np.ndarray]] = {}

    def nearest(self, role: str, word: str, category: str | None = None) -> tuple[str, str, float | None] | None:
        """(term, method, score) for an unknown word, or None."""
        known = self.vocabulary.terms(role, category)
        if not known:
            return None
        if self.related_terms is not None:
            for candidate in self.related_terms(word):
                term = asp_constant(candidate)
                if term in known and term != word:
                    return term, "related", None
        if self.embedder is None:
            return None
        key = (role, category if role == "value" else None)
        if key not in self._term_vectors:
            terms = sorted(known)
            self._term_vectors[key] = (terms, self.embedder.encode([t.replace("_", " ") for t in terms]))
        terms, matrix = self._term_vectors[key]
        scores = matrix @ self.embedder.encode([word.replace("_", " ")])[0]
        best = int(scores.argmax())
        if float(scores[best]) < self.threshold:
            return None
        return terms[best], "embedding", round(float(scores[best]), 4)

    def ground(self, program: Program) -> Grounding:
        """Replace unknown class, category, value and relation words by their nearest known terms."""
        mappings: list[TermMapping] = []
        unknown: list[tuple[int, str, str]] = []
        steps = []
        for step in program.steps:
            spec = OPERATIONS[step.operation]
            arguments = list(step.arguments)
            category: str | None = None
            for index, (role, word) in enumerate(zip(spec.arguments, arguments)):
                if role not in _WORD_ROLES:
                    continue
                if not self.vocabulary.knows(role, word, category):
                    found = self.nearest(role, word, category)
                    if found is None:
                        unknown.append((step.id, role, word))
                    else:
                        term, method, score = found
                        mappings.append(TermMapping(step.id, role, word, term, method, score))
                        arguments[index] = term
                if role == "category":
                    category = arguments[index]
            steps.append(replace(step, arguments=tuple(arguments)))
        return Grounding(Program(tuple(steps), program.answer), tuple(mappings), tuple(unknown))
