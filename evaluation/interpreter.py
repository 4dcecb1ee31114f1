"""The GQA semantic interpreter: run a GQA program on a GQA scene graph, operation by operation.

Each step gives a set of objects, a value or yes/no; the last step's result, sanitised, is the
answer. When the scene graph or the metadata cannot decide a question the interpreter raises one
of these typed failures (all :class:`InterpreterFailure`):

- :class:`EmptyQuery`: a step needs an object (or a value) and has none;
- :class:`AmbiguousAnswer`: the objects of a step disagree, or one object has several answers;
- :class:`MissingEdge`: ``choose rel`` finds neither relation;
- :class:`EmptyChoice`: ``choose`` finds neither alternative (a comparative: not exactly one side);
- :class:`NonTrivialCategory`: a category that is neither name, class, a position nor an attribute
  category of the metadata (e.g. ``place``);
- :class:`NotInWordnet`: a class word that no object is named and WordNet does not know;
- :class:`IncompleteMetadata`: the metadata does not put a value in the category the program
  names (``filter color: sloped``), an object lacks every value of a category being compared, or
  a curated taxonomy does not know a class word no object is named.

Semantics follow the ASP theory (``theory/lp/operations.lp``) so that a GQA program converted by
:func:`translators.gqa.gqa_program.gqa_to_program` gives the same answer on the perfect-information
encoding of :func:`scene.scene_graph.scene_graph_facts`: class membership is "equal or hyponym"
in the taxonomy, attribute categories come from the same mapping, positions from the same thirds.

Example:
    >>> graph = {"width": 90, "height": 90, "objects": {"1": {"name": "dog", "x": 0, "y": 0, "w": 9,
    ...     "h": 9, "attributes": ["brown"], "relations": []}}}
    >>> program = [{"operation": "select", "argument": "animal (1)", "dependencies": []},
    ...            {"operation": "query", "argument": "color", "dependencies": [0]}]
    >>> Interpreter().run(program, graph)
    'brown'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from evaluation.gqa_json import SceneGraph, SemanticStep
from evaluation.interpreter_failures import (
    FAILURES,
    AmbiguousAnswer,
    EmptyChoice,
    EmptyQuery,
    IncompleteMetadata,
    InterpreterFailure,
    MissingEdge,
    NonTrivialCategory,
    NotInWordnet,
)
from scene.scene_graph import GraphObject, default_attributes, graph_objects
from scene.taxonomy import AttributeCategories, Taxonomy, WordNetTaxonomy, default_taxonomy
from theory.operations import OTHER_CATEGORY, RELATION_ANSWER_WORDS, STRUCTURAL_CATEGORIES
from theory.scene_facts import asp_constant
from translators.gqa.gqa_program import (
    GQA_CATEGORY_ALIASES,
    GQA_NEGATED,
    GQA_OBJECT_IDS,
    comparative_value,
    gqa_relation_parts,
)

# The failures are imported from here by other modules and the tests.
__all__ = [
    "FAILURES",
    "AmbiguousAnswer",
    "EmptyChoice",
    "EmptyQuery",
    "IncompleteMetadata",
    "Interpreter",
    "InterpreterFailure",
    "MissingEdge",
    "NonTrivialCategory",
    "NotInWordnet",
    "Scene",
    "SceneObject",
    "interpret",
    "sanitise_answer",
]


# GQA answers name a side, not the relation ("to the left of" -> left), as the solver does.
_ANSWER_FORMS = {
    **{relation.replace("_", " "): word for relation, word in RELATION_ANSWER_WORDS.items()},
    "true": "yes",
    "false": "no",
}


def sanitise_answer(answer: object) -> str:
    """An answer in GQA's form: booleans to yes/no, ASP constants to words, relations to sides."""
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    text = " ".join(str(answer).replace("_", " ").strip().lower().split())
    return _ANSWER_FORMS.get(text, text)


@dataclass
class SceneObject:
    """One object prepared for interpretation: every word as an ASP constant."""

    id: int
    name: str
    values: dict[str, set[str]]  # attribute category -> values (attributes and positions)
    all_values: set[str]  # every attribute value and position
    relations: list[tuple[str, int]]


@dataclass
class Scene:
    """A scene graph prepared once for many questions."""

    objects: dict[int, SceneObject]
    names: set[str]


# What a step gives: objects (their ids), a value, or yes/no.
Value = frozenset[int] | str | bool
A = TypeVar("A", str, bool)


def _constant(word: str) -> str:
    try:
        return asp_constant(word)
    except ValueError:
        raise EmptyQuery(f"empty word {word!r}") from None


class Interpreter:
    """Runs GQA semantic programs; one instance caches taxonomy look-ups across questions."""

    def __init__(self, taxonomy: Taxonomy | None = None, attributes: AttributeCategories | None = None) -> None:
        self.taxonomy = taxonomy if taxonomy is not None else default_taxonomy()
        self.attributes = attributes if attributes is not None else default_attributes(self.taxonomy)
        known = self.attributes.categories()
        self._known_categories = {asp_constant(c) for c in known} if known is not None else None
        self._is_a: dict[tuple[str, str], bool] = {}
        self._value_categories: dict[str, frozenset[str]] = {}
        self._names: dict[str, str] = {}  # ASP constant -> a spelling of it, for the taxonomy
        # GQA operation head -> its step, named once (a typo in a program is an unknown operation).
        self._operations: dict[str, Callable[[Scene, str, str, list[Value]], Value]] = {
            "select": self._op_select,
            "relate": self._op_relate,
            "filter": self._op_filter,
            "query": self._op_query,
            "exist": self._op_exist,
            "verify": self._op_verify,
            "choose": self._op_choose,
            "same": self._op_same,
            "different": self._op_different,
            "common": self._op_common,
            "and": self._op_and,
            "or": self._op_or,
        }

    # -- utilities ---------------------------------------------------------------------------

    def is_a(self, name: str, category: str) -> bool:
        """Equal-or-hyponym: `name` is `category` or belongs to it in the taxonomy (ASP constants)."""
        if name == category:
            return True
        key = (name, category)
        found = self._is_a.get(key)
        if found is None:
            spelled = self._names.get(name, name.replace("_", " "))
            found = category in {asp_constant(c) for c in self.taxonomy.categories_of(spelled)}
            self._is_a[key] = found
        return found

    def category_of(self, value: str) -> frozenset[str]:
        """The attribute categories of a value (ASP constants)."""
        found = self._value_categories.get(value)
        if found is None:
            found = frozenset(asp_constant(c) for c in self.attributes.categories_of(value.replace("_", " ")))
            self._value_categories[value] = found
        return found

    def pick_attribute(self, obj: SceneObject, category: str) -> set[str]:
        """The values of `obj` in `category` (name, hposition, vposition or an attribute category)."""
        if category == "name":
            return {obj.name}
        return set(obj.values.get(category, ()))

    def prepare(self, graph: SceneGraph | Scene) -> Scene:
        """A scene graph ready for :meth:`run` (do it once per image)."""
        if isinstance(graph, Scene):
            return graph
        objects: dict[int, SceneObject] = {}
        for raw in graph_objects(graph).values():
            objects[raw.id] = self._prepare_object(raw)
        return Scene(objects, {o.name for o in objects.values()})

    def _prepare_object(self, raw: GraphObject) -> SceneObject:
        name = asp_constant(raw.name)
        self._names.setdefault(name, raw.name)
        values: dict[str, set[str]] = {"hposition": {raw.hposition}, "vposition": {raw.vposition}}
        for attribute in raw.attributes:
            value = asp_constant(attribute)
            for category in self.category_of(value) or (OTHER_CATEGORY,):
                values.setdefault(category, set()).add(value)
        everything = {v for vs in values.values() for v in vs}
        relations = list(dict.fromkeys((asp_constant(r), t) for r, t in raw.relations))
        return SceneObject(raw.id, name, values, everything, relations)

    # -- running -----------------------------------------------------------------------------

    def run(self, semantic: Sequence[SemanticStep], graph: SceneGraph | Scene) -> str:
        """The sanitised answer of a GQA program on a scene graph; raises an :class:`InterpreterFailure`."""
        scene = self.prepare(graph)
        results: list[Value] = []
        if not semantic:
            raise ValueError("empty GQA program")
        for index, step in enumerate(semantic):
            operation = " ".join(str(step["operation"]).split())
            argument = GQA_OBJECT_IDS.sub("", str(step.get("argument") or "")).strip()
            deps = [results[d] for d in step.get("dependencies") or ()]
            head, _, rest = operation.partition(" ")
            handler = self._operations.get(head)
            if handler is None:
                raise ValueError(f"GQA step {index}: unknown operation {operation!r}")
            results.append(handler(scene, rest, argument, deps))
        answer = results[-1]
        if isinstance(answer, frozenset):
            raise ValueError("the last GQA step gives objects, not an answer")
        return sanitise_answer(answer)

    # -- helpers -----------------------------------------------------------------------------

    def _class_word(self, scene: Scene, word: str) -> str:
        cls = _constant(word)
        if cls not in scene.names:
            if not self.taxonomy.knows(word):
                if isinstance(self.taxonomy, WordNetTaxonomy):
                    raise NotInWordnet(f"{word!r} names no object and is not in WordNet")
                raise IncompleteMetadata(f"{word!r} names no object and is not in the taxonomy")
        return cls

    def _category(self, word: str) -> str:
        category = GQA_CATEGORY_ALIASES.get(_constant(word), _constant(word))
        if category in STRUCTURAL_CATEGORIES:
            return category
        if self._known_categories is not None and category not in self._known_categories:
            raise NonTrivialCategory(f"category {word!r} is not in the attribute metadata")
        return category

    def _check_value(self, category: str, value: str) -> None:
        if category in STRUCTURAL_CATEGORIES:
            return
        if category not in self.category_of(value):
            raise IncompleteMetadata(f"the metadata does not list {value!r} under {category!r}")

    def _has(self, obj: SceneObject, category: str, value: str) -> bool:
        if category == "class":
            return self.is_a(obj.name, value)
        if category == "name":
            return obj.name == value
        return value in obj.values.get(category, ())

    def _has_any(self, obj: SceneObject, value: str) -> bool:
        # Any category, as filter_any in the theory: attributes, positions, name and classes.
        return value in obj.all_values or self.is_a(obj.name, value)

    @staticmethod
    def _one_answer(answers: Iterable[A], what: str) -> A:
        distinct = set(answers)
        if not distinct:
            raise EmptyQuery(f"{what}: no object")
        if len(distinct) > 1:
            raise AmbiguousAnswer(f"{what}: {sorted(map(str, distinct))}")
        return distinct.pop()

    @staticmethod
    def _objects(scene: Scene, dep: Value) -> list[SceneObject]:
        if not isinstance(dep, frozenset):
            raise ValueError("an operation that reads objects got a value")
        return [scene.objects[i] for i in sorted(dep)]

    def _linked(
        self, scene: Scene, obj: SceneObject, cls: str | None, relations: set[str], position: str
    ) -> set[tuple[str, int]]:
        """(relation, other) edges between `obj` and objects of class `cls` (None: any class).
        position=subject: the other object is the subject (other REL obj)."""
        found = set()
        if position == "object":
            for relation, target in obj.relations:
                if relation in relations and (cls is None or self.is_a(scene.objects[target].name, cls)):
                    found.add((relation, target))
        else:
            for other in scene.objects.values():
                if cls is not None and not self.is_a(other.name, cls):
                    continue
                for relation, target in other.relations:
                    if target == obj.id and relation in relations:
                        found.add((relation, other.id))
        return found

    @staticmethod
    def _pair(text: str) -> tuple[str, str]:
        parts = [p.strip() for p in text.split("|")]
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"{text!r} is not two alternatives 'a|b'")
        return _constant(parts[0]), _constant(parts[1])

    def _single(self, scene: Scene, dep: Value, what: str) -> SceneObject:
        objects = self._objects(scene, dep)
        if not objects:
            raise EmptyQuery(f"{what}: no object")
        if len(objects) > 1:
            raise AmbiguousAnswer(f"{what}: {len(objects)} objects")
        return objects[0]

    # -- operations ----------------------------------------------------------------------------

    def _op_select(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> frozenset[int]:
        cls = self._class_word(scene, argument)
        return frozenset(o.id for o in scene.objects.values() if self.is_a(o.name, cls))

    def _op_relate(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> frozenset[int]:
        word, relation, position = gqa_relation_parts(argument)
        inputs = self._objects(scene, deps[0])
        cls: str | None
        if relation.startswith("same "):
            cls = self._class_word(scene, word)
            category = self._category(relation[5:])
            found = set()
            for obj in inputs:
                shared = self.pick_attribute(obj, category)
                for other in scene.objects.values():
                    if (
                        other.id != obj.id
                        and self.is_a(other.name, cls)
                        and shared & self.pick_attribute(other, category)
                    ):
                        found.add(other.id)
            return frozenset(found)
        cls = None if word == "_" else self._class_word(scene, word)
        rel = {_constant(relation)}
        return frozenset(other for obj in inputs for _, other in self._linked(scene, obj, cls, rel, position))

    def _op_filter(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> frozenset[int]:
        negated = GQA_NEGATED.match(argument)
        value = _constant(negated.group(1) if negated else argument)
        inputs = self._objects(scene, deps[0])
        if rest:
            category = self._category(rest)
            self._check_value(category, value)
            kept = {o.id for o in inputs if self._has(o, category, value)}
        else:
            kept = {o.id for o in inputs if self._has_any(o, value)}
        return frozenset(o.id for o in inputs if o.id not in kept) if negated else frozenset(kept)

    def _op_query(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> str:
        category = self._category(rest or argument)
        objects = self._objects(scene, deps[0])
        if not objects:
            raise EmptyQuery(f"query {category}: no object")
        answers = set()
        for obj in objects:
            values = self.pick_attribute(obj, category)
            if not values:
                raise EmptyQuery(f"query {category}: object {obj.id} ({obj.name}) has no {category}")
            answers |= values
        return self._one_answer(answers, f"query {category}")

    def _op_exist(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> bool:
        return bool(self._objects(scene, deps[0]))

    def _op_verify(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> bool:
        objects = self._objects(scene, deps[0])
        if rest == "rel":
            word, relation, position = gqa_relation_parts(argument)
            cls = None if word == "_" else self._class_word(scene, word)
            rel = {_constant(relation)}
            return self._one_answer(
                (bool(self._linked(scene, o, cls, rel, position)) for o in objects), f"verify rel {relation}"
            )
        if GQA_NEGATED.match(argument):
            raise ValueError(f"verify with a negated value {argument!r}")
        value = _constant(argument)
        if rest:
            category = self._category(rest)
            self._check_value(category, value)
            return self._one_answer((self._has(o, category, value) for o in objects), f"verify {category}")
        return self._one_answer((self._has_any(o, value) for o in objects), "verify")

    def _op_choose(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> str:
        if len(deps) == 2:
            return self._compare(scene, rest, deps)
        objects = self._objects(scene, deps[0])
        if rest == "rel":
            word, relations, position = gqa_relation_parts(argument)
            first, second = self._pair(relations)
            cls = None if word == "_" else self._class_word(scene, word)
            answers = set()
            for obj in objects:
                found = {r for r, _ in self._linked(scene, obj, cls, {first, second}, position)}
                if not found:
                    raise MissingEdge(f"choose rel: neither {first} nor {second} links object {obj.id}")
                answers |= found
            return self._one_answer(answers, "choose rel")
        first, second = self._pair(argument)
        answers = set()
        for obj in objects:
            if rest:
                category = self._category(rest)
                for value in (first, second):
                    self._check_value(category, value)
                found = {v for v in (first, second) if self._has(obj, category, v)}
            else:
                found = {v for v in (first, second) if self._has_any(obj, v)}
            if not found:
                raise EmptyChoice(f"choose: object {obj.id} ({obj.name}) is neither {first} nor {second}")
            answers |= found
        return self._one_answer(answers, "choose")

    def _compare(self, scene: Scene, rest: str, deps: list[Value]) -> str:
        value, polarity = comparative_value(rest)
        first = self._single(scene, deps[0], f"choose {rest}")
        second = self._single(scene, deps[1], f"choose {rest}")
        has_first, has_second = self._has_any(first, value), self._has_any(second, value)
        if has_first == has_second:
            raise EmptyChoice(f"choose {rest}: {'both' if has_first else 'neither'} {value}")
        chosen = first if has_first == (polarity == "true") else second
        return chosen.name

    def _same_category(self, rest: str, argument: str) -> str:
        return self._category(rest or argument or "type")

    def _values(self, obj: SceneObject, category: str) -> set[str]:
        values = self.pick_attribute(obj, category)
        if not values:
            raise IncompleteMetadata(f"object {obj.id} ({obj.name}) has no {category}")
        return values

    def _op_same(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> bool:
        category = self._same_category(rest, argument)
        if len(deps) == 2:
            a, b = (self._single(scene, d, "same") for d in deps)
            return a.id != b.id and bool(self._values(a, category) & self._values(b, category))
        objects = self._objects(scene, deps[0])
        if not objects:
            raise EmptyQuery("same: no object")
        common = set.intersection(*(self._values(o, category) for o in objects))
        return bool(common)

    def _op_different(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> bool:
        category = self._same_category(rest, argument)
        if len(deps) == 2:
            a, b = (self._single(scene, d, "different") for d in deps)
            return not (a.id != b.id and self._values(a, category) & self._values(b, category))
        objects = self._objects(scene, deps[0])
        if not objects:
            raise EmptyQuery("different: no object")
        seen: set[str] = set()
        for obj in objects:
            values = self._values(obj, category)
            if values & seen:
                return False
            seen |= values
        return True

    def _op_common(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> str:
        a, b = (self._single(scene, d, "common") for d in deps)
        shared = {
            category
            for category, values in a.values.items()
            if category not in STRUCTURAL_CATEGORIES and a.id != b.id and values & b.values.get(category, set())
        }
        return self._one_answer(shared, "common")

    def _op_and(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> bool:
        return bool(deps[0]) and bool(deps[1])

    def _op_or(self, scene: Scene, rest: str, argument: str, deps: list[Value]) -> bool:
        return bool(deps[0]) or bool(deps[1])


def interpret(
    semantic: Sequence[SemanticStep],
    graph: SceneGraph,
    taxonomy: Taxonomy | None = None,
) -> str:
    """One-off convenience: the answer of a GQA program on a scene graph."""
    return Interpreter(taxonomy).run(semantic, graph)
