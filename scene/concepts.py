"""What a question needs from an image: the classes to detect, the attributes and relations to score.

Blind extraction reads a question `Program` (the translator's output); oracle extraction reads the
GQA semantic program of the question. Category words ("furniture", "animal") expand to their member
classes through a taxonomy, so the detector is asked for concrete things.

Example:
    >>> from theory.flat import parse_flat
    >>> program = parse_flat("scene(0). select(1,0,ball). unique(2,1). query(3,2,color). end(3).")
    >>> concepts = concepts_from_program(program, attributes={"color": ["red", "blue"]})
    >>> sorted(concepts.classes), sorted(concepts.attributes["color"])
    (['ball'], ['blue', 'red'])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from scene.taxonomy import Taxonomy
from theory.operations import OPERATIONS, OTHER_CATEGORY, STRUCTURAL_CATEGORIES, Kind, operations_where
from theory.program import Program, Step
from theory.program_words import program_words
from theory.scene_facts import asp_constant

# The steps whose objects are of the class they name, and those whose objects are some of their
# input's (so of its class).
_NAMING_A_CLASS = operations_where(lambda spec: spec.output is Kind.STATE and "class" in spec.arguments)
_KEEPING_THE_CLASS = operations_where(lambda spec: spec.output is Kind.STATE and spec.family in ("attribute", "one"))


@dataclass(frozen=True)
class RelationQuery:
    """A relation to score between objects of two classes (None: any class)."""

    subject: str | None
    relation: str
    object: str | None


@dataclass
class Concepts:
    """Classes to detect, attribute values and relations to score (all as ASP constants)."""

    classes: set[str] = field(default_factory=set)
    # category word -> the member classes it was expanded to
    expanded: dict[str, set[str]] = field(default_factory=dict)
    attributes: dict[str, frozenset[str]] = field(default_factory=dict)
    relations: set[RelationQuery] = field(default_factory=set)
    # categories asked about as a whole (query, all_same, common...) whose values the vocabulary did not give
    open_categories: set[str] = field(default_factory=set)
    # the program asks about objects of unnamed class (relate_any, query name): the detector must
    # look for more than the named classes to answer it
    open_classes: bool = False

    def add_attribute(self, category: str, values: Iterable[str]) -> None:
        """Add values to an attribute category."""
        self.attributes[category] = frozenset(self.attributes.get(category, frozenset()) | set(values))

    def merge(self, other: Concepts) -> Concepts:
        """The union of two concept sets (several questions about one image)."""
        out = Concepts(
            set(self.classes | other.classes), {}, dict(self.attributes), set(self.relations | other.relations)
        )
        for source in (self.expanded, other.expanded):
            for word, members in source.items():
                out.expanded.setdefault(word, set()).update(members)
        for category, values in other.attributes.items():
            out.add_attribute(category, values)
        out.open_categories = (self.open_categories | other.open_categories) - set(out.attributes)
        out.open_classes = self.open_classes or other.open_classes
        return out


def _spaced(word: str) -> str:
    # Taxonomies are keyed by words ("tennis racket"), the program by ASP constants (tennis_racket).
    return word.replace("_", " ")


def _normalise_vocabulary(attributes: Mapping[str, Iterable[str]] | None) -> dict[str, frozenset[str]]:
    return {asp_constant(k): frozenset(asp_constant(v) for v in vs) for k, vs in (attributes or {}).items()}


class _Extractor:
    def __init__(
        self, program: Program, taxonomy: Taxonomy | None, vocabulary: dict[str, frozenset[str]], max_members: int
    ) -> None:
        self.program = program
        self.max_members = max_members
        self.fallback_classes: tuple[str, ...] = ()
        self.taxonomy = taxonomy
        self.vocabulary = vocabulary
        self.value_category = {v: c for c, vs in sorted(vocabulary.items(), reverse=True) for v in vs}
        self.concepts = Concepts()

    def add_class(self, word: str) -> str:
        word = asp_constant(word)
        members = {asp_constant(m) for m in self.taxonomy.members(_spaced(word))} if self.taxonomy else set()
        members.discard(word)
        # A very broad category ("object", "thing") is asked of the detector as itself instead.
        if members and len(members) <= self.max_members:
            self.concepts.expanded.setdefault(word, set()).update(members)
            self.concepts.classes.update(members)
        else:
            self.concepts.classes.add(word)
        return word

    def add_values(self, category: str, values: Iterable[str]) -> None:
        category = asp_constant(category)
        values = [asp_constant(v) for v in values]
        if category in ("class", "name"):
            for v in values:
                self.add_class(v)
        elif category not in STRUCTURAL_CATEGORIES:
            self.concepts.add_attribute(category, values)

    def add_value_any_category(self, value: str) -> None:
        value = asp_constant(value)
        category = self.value_category.get(value)
        known = self.taxonomy is not None and (
            self.taxonomy.members(_spaced(value)) or self.taxonomy.categories_of(_spaced(value))
        )
        if category is None and known:
            self.add_class(value)
            return
        self.add_values(category or OTHER_CATEGORY, [value])

    def add_category(self, category: str) -> None:
        category = asp_constant(category)
        if category in ("class", "name"):
            self.concepts.open_classes = True
        if category in STRUCTURAL_CATEGORIES:
            return
        if category in self.vocabulary:
            self.concepts.add_attribute(category, self.vocabulary[category])
        else:
            self.concepts.open_categories.add(category)

    def class_of(self, step_id: int, seen: frozenset[int] = frozenset()) -> str | None:
        """The class word of the objects a step yields, following filters back to their select."""
        if step_id in seen or step_id not in self.program:
            return None
        step = self.program.step(step_id)
        if step.operation in _NAMING_A_CLASS:
            return asp_constant(step.arguments[OPERATIONS[step.operation].arguments.index("class")])
        if step.operation in _KEEPING_THE_CLASS:
            return self.class_of(step.dependencies[0], seen | {step_id})
        if step.operation == "negate":
            return self.class_of(step.dependencies[1], seen | {step_id})
        return None

    def add_relation(self, step: Step, cls: str, relations: Iterable[str], position: str) -> None:
        other = self.class_of(step.dependencies[0])
        new = self.add_class(cls) if cls != "_" else None
        for relation in relations:
            relation = asp_constant(relation)
            query = (
                RelationQuery(new, relation, other) if position == "subject" else RelationQuery(other, relation, new)
            )
            self.concepts.relations.add(query)

    def run(self) -> Concepts:
        for words in program_words(self.program).steps:
            if words.relations:
                if not words.classes:  # relate_any: objects of any class
                    self.concepts.open_classes = True
                cls = words.classes[0] if words.classes else "_"
                self.add_relation(words.step, cls, words.relations, words.positions[0])
            elif words.classes:
                self.add_class(words.classes[0])
            if words.categories and words.values:
                self.add_values(words.categories[0], words.values)
            elif words.categories:
                self.add_category(words.categories[0])
            else:
                for value in words.values:
                    self.add_value_any_category(value)
            if words.every_category:
                for category in self.vocabulary:
                    self.add_category(category)
        if self.concepts.open_classes:
            for word in self.fallback_classes:
                self.add_class(word)
        return self.concepts


def concepts_from_program(
    program: Program,
    taxonomy: Taxonomy | None = None,
    attributes: Mapping[str, Iterable[str]] | None = None,
    max_members: int = 40,
    fallback_classes: Iterable[str] = (),
) -> Concepts:
    """Blind concepts: what `program` mentions, category words expanded through `taxonomy`.

    `attributes` (category -> values, e.g. GQA's attribute list) supplies the candidate values of
    categories the program asks about as a whole (query color) and the category of bare values.
    Categories with more than `max_members` members are detected as themselves. `fallback_classes`
    are added when the program asks about objects of unnamed class (what does the girl have on?).
    """
    extractor = _Extractor(program, taxonomy, _normalise_vocabulary(attributes), max_members)
    extractor.fallback_classes = tuple(fallback_classes)
    return extractor.run()
