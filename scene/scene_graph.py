"""Perfect-information scenes: one GQA scene graph -> certain scene facts (no weights).

Per object O (its GQA id as an integer): ``object(O)``; ``has_attr(O,class,N)`` for its name N and
every category of N in the taxonomy; ``has_attr(O,name,N)``; ``has_attr(O,hposition,P)`` and
``has_attr(O,vposition,P)`` by thirds of the image of the box centre; ``has_attr(O,C,V)`` for each
attribute V and each category C of V; ``has_rel(O,R,T)`` for each relation. Words pass through
:func:`theory.scene_facts.asp_constant`. ``is_attr(C)`` / ``is_attr_value(C,V)`` list the
attribute vocabulary used.

Attribute categories come from the `attributes` mapping (e.g. a curated GQA attribute file);
without one, from :class:`scene.taxonomy.HeuristicAttributes` (built-in vocabulary, then WordNet,
else category ``other``; values a curated file does not list also go under ``other``).

Example:
    >>> graph = {"width": 300, "height": 300, "objects": {"1": {"name": "ball", "x": 0, "y": 0,
    ...     "w": 10, "h": 10, "attributes": ["red"], "relations": []}}}
    >>> "has_attr(1,color,red)." in scene_graph_facts(graph).to_asp()
    True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from scene.errors import SceneError
from scene.positions import third
from scene.taxonomy import (
    AttributeCategories,
    HeuristicAttributes,
    Taxonomy,
    default_taxonomy,
)
from theory.operations import OTHER_CATEGORY, POSITION_VALUES
from theory.program import Program
from theory.program_words import program_words
from theory.scene_facts import SceneFacts, asp_constant

POSITION_CATEGORIES = tuple(POSITION_VALUES)


class SceneGraphError(SceneError, ValueError):
    """A scene graph that does not have the GQA shape."""


@dataclass(frozen=True)
class GraphObject:
    """One object of a scene graph, normalised."""

    id: int
    name: str
    attributes: tuple[str, ...]
    relations: tuple[tuple[str, int], ...]  # (relation, target id)
    hposition: str
    vposition: str


def _is_number(text: str) -> bool:
    # str.isdigit() also accepts digits int() refuses, such as superscripts ("³")
    return text.isascii() and text.isdigit()


def object_number(object_id: str | int, fallback: dict[str, int]) -> int:
    """A GQA object id as an integer (ids that are not numbers get numbers after the largest)."""
    text = str(object_id)
    if _is_number(text):
        return int(text)
    return fallback[text]


def _number(value: object) -> float:
    if isinstance(value, (int, float, str)):
        return float(value)
    raise TypeError(f"{value!r} is not a number")


def _iterable(value: object) -> Iterable[object]:
    if isinstance(value, Iterable):
        return value
    raise TypeError(f"'{type(value).__name__}' object is not iterable")


def _mapping(value: object) -> Mapping[object, object]:
    if isinstance(value, Mapping):
        return value
    raise TypeError(f"'{type(value).__name__}' is not a JSON object")


def _graph_object(
    key: object, obj: object, objects: Mapping[object, object], fallback: dict[str, int], size: tuple[float, float]
) -> GraphObject:
    """One object of the graph's JSON (its key in ``objects``) as a `GraphObject`."""
    fields = _mapping(obj)
    cx = _number(fields["x"]) + _number(fields["w"]) / 2
    cy = _number(fields["y"]) + _number(fields["h"]) / 2
    relations = tuple(
        (str(r["name"]), object_number(str(r["object"]), fallback))
        for r in map(_mapping, _iterable(fields.get("relations", ())))
        if str(r["object"]) in objects
    )
    return GraphObject(
        id=object_number(str(key), fallback),
        name=str(fields["name"]),
        attributes=tuple(dict.fromkeys(str(a) for a in _iterable(fields.get("attributes", ())))),
        relations=relations,
        hposition=third(cx, size[0], "hposition"),
        vposition=third(cy, size[1], "vposition"),
    )


def graph_objects(graph: Mapping[str, object]) -> dict[str, GraphObject]:
    """The objects of a GQA scene graph (JSON read from outside) by their GQA id, with positions and integer ids."""
    try:
        objects = graph["objects"]
        width = _number(graph.get("width") or 0)
        height = _number(graph.get("height") or 0)
    except (KeyError, TypeError, ValueError) as exc:
        raise SceneGraphError(f"not a GQA scene graph: {exc}") from exc
    if not isinstance(objects, Mapping):
        raise SceneGraphError("scene graph 'objects' must map object ids to objects")
    numeric = [int(k) for k in objects if _is_number(str(k))]
    start = max(numeric, default=0) + 1
    fallback = {str(k): start + i for i, k in enumerate(sorted(str(k) for k in objects if not _is_number(str(k))))}
    result: dict[str, GraphObject] = {}
    for key, obj in objects.items():
        try:
            result[str(key)] = _graph_object(key, obj, objects, fallback, (width, height))
        except (KeyError, TypeError, ValueError) as exc:
            raise SceneGraphError(f"object {key}: missing or bad field {exc}") from exc
    return result


def program_constants(program: Program) -> frozenset[str] | None:
    """The words a program mentions as ASP constants, or None when it needs every attribute
    (``common`` compares all categories): `theory.program_words.ProgramWords.constants`."""
    return program_words(program).constants()


@lru_cache(maxsize=1)
def _heuristic_attributes() -> HeuristicAttributes:
    # One shared instance: its per-word cache is what makes repeated encodings cheap.
    return HeuristicAttributes()


def default_attributes(taxonomy: Taxonomy | None) -> AttributeCategories:
    """The taxonomy's own attribute categories when it has them (a curated attribute file), else
    the heuristic mapping."""
    curated = taxonomy.attribute_categories() if taxonomy is not None else None
    return curated if curated is not None else _heuristic_attributes()


def scene_graph_size(graph: Mapping[str, object]) -> int:
    """A lower bound of the facts `scene_graph_facts` writes for `graph`, counted without encoding:
    four per object (object, class, name, position), one per attribute and per relation.

    >>> scene_graph_size({"objects": {"1": {"name": "cup", "attributes": ["red"], "relations": []}}})
    5
    """
    objects = graph.get("objects") if isinstance(graph, Mapping) else None
    if not isinstance(objects, Mapping):
        return 0
    total = 0
    for obj in objects.values():
        if isinstance(obj, Mapping):
            attributes, relations = obj.get("attributes"), obj.get("relations")
            total += 4 + (len(attributes) if isinstance(attributes, list) else 0)
            total += len(relations) if isinstance(relations, list) else 0
    return total


def scene_graph_facts(
    graph: Mapping[str, object],
    *,
    taxonomy: Taxonomy | None = None,
    attributes: AttributeCategories | None = None,
    concepts: Iterable[str] | None = None,
) -> SceneFacts:
    """The perfect-information facts of one GQA scene graph (see the module docstring).

    `concepts` (ASP constants, e.g. from :func:`program_constants`) keeps only the class, attribute
    and relation facts whose word or category is mentioned; names and positions are always kept.
    """
    return graph_objects_facts(graph_objects(graph), taxonomy=taxonomy, attributes=attributes, concepts=concepts)


def graph_objects_facts(
    objects: Mapping[str, GraphObject],
    *,
    taxonomy: Taxonomy | None = None,
    attributes: AttributeCategories | None = None,
    concepts: Iterable[str] | None = None,
) -> SceneFacts:
    """`scene_graph_facts` of a graph already read by `graph_objects` (keyed by GQA id)."""
    wanted = None if concepts is None else frozenset(concepts)

    def keep(*words: str) -> bool:
        return wanted is None or any(w in wanted for w in words)

    scene = SceneFacts()
    vocabulary = _write_objects(_Writer(scene), objects, taxonomy, attributes, keep)
    scene.add_vocabulary(vocabulary)
    return _deduplicated(scene)


# One fact of a graph's encoding before it becomes a clingo symbol: the words it was written for
# ((category, value) for an attribute, ("", relation) for a relation, ("object", "") for an
# object), its predicate and its arguments.
Row = tuple[tuple[str, str], str, tuple[int | str, ...]]


@dataclass(frozen=True)
class EncodedGraph:
    """A graph's whole encoding as plain rows (in order, without duplicates) and its vocabulary.

    Symbols are made only for the facts a caller takes: a program's part (`restricted_facts`) or
    the whole graph (`whole_facts`), so that keeping the whole encoding costs little more than
    encoding one program's part.
    """

    rows: tuple[Row, ...]
    vocabulary: tuple[tuple[str, tuple[str, ...]], ...]

    def whole_facts(self) -> SceneFacts:
        """`graph_objects_facts` without concepts."""
        scene = SceneFacts()
        for _, predicate, arguments in self.rows:
            scene.add_fact(predicate, *arguments)
        scene.add_vocabulary(dict(self.vocabulary))
        return scene


def encode_graph(
    objects: Mapping[str, GraphObject],
    *,
    taxonomy: Taxonomy | None = None,
    attributes: AttributeCategories | None = None,
) -> EncodedGraph:
    """The whole encoding of a graph (`graph_objects_facts` without concepts), kept with the words
    each fact was written for, so that a program's part is taken from it by `restricted_facts`."""
    writer = _Writer(None, [])
    vocabulary = _write_objects(writer, objects, taxonomy, attributes, lambda *words: True)
    assert writer.rows is not None
    # Duplicate relations occur in GQA graphs: one fact each, where it first occurs.
    seen: set[tuple[str, tuple[int | str, ...]]] = set()
    rows: list[Row] = []
    for row in writer.rows:
        if (row[1], row[2]) not in seen:
            seen.add((row[1], row[2]))
            rows.append(row)
    return EncodedGraph(tuple(rows), tuple((c, tuple(sorted(v))) for c, v in sorted(vocabulary.items())))


# Facts of a graph's encoding that every program's part of it keeps (`graph_objects_facts`).
_ALWAYS_KEPT = frozenset({"name", *POSITION_CATEGORIES})


def restricted_facts(whole: EncodedGraph, concepts: Iterable[str]) -> SceneFacts:
    """The facts `graph_objects_facts(..., concepts=concepts)` writes, taken from the graph's whole
    encoding without encoding it again.

    A graph is encoded once per process, whatever the programs asked of it: the answer's part and
    the whole graph a missing answer is explained from are both made from that one encoding.
    """
    wanted = frozenset(concepts)
    scene = SceneFacts()
    vocabulary: dict[str, set[str]] = {c: set() for c in POSITION_CATEGORIES}
    for (category, value), predicate, arguments in whole.rows:
        if category == "object" or (not category and value in wanted):
            scene.add_fact(predicate, *arguments)
        elif category in _ALWAYS_KEPT:
            scene.add_fact(predicate, *arguments)
            if category != "name":
                vocabulary[category].add(value)
        elif category and (category in wanted or value in wanted):
            scene.add_fact(predicate, *arguments)
            if category != "class":
                vocabulary.setdefault(category, set()).add(value)
    scene.add_vocabulary(vocabulary)
    return scene


@dataclass
class _Writer:
    """Scene facts being written as symbols, or (for a whole encoding) as plain rows."""

    scene: SceneFacts | None
    rows: list[Row] | None = None

    def add(self, words: tuple[str, str], predicate: str, *arguments: int | str) -> None:
        if self.scene is not None:
            self.scene.add_fact(predicate, *arguments)
        if self.rows is not None:
            self.rows.append((words, predicate, arguments))


def _write_objects(
    writer: _Writer,
    objects: Mapping[str, GraphObject],
    taxonomy: Taxonomy | None,
    attributes: AttributeCategories | None,
    keep: Callable[..., bool],
) -> dict[str, set[str]]:
    """Every object's facts; returns the vocabulary (category -> values) they used."""
    taxonomy = taxonomy if taxonomy is not None else default_taxonomy()
    attributes = attributes if attributes is not None else default_attributes(taxonomy)
    vocabulary: dict[str, set[str]] = {c: set() for c in POSITION_CATEGORIES}
    for key, obj in objects.items():
        try:
            _add_object(writer, vocabulary, obj, taxonomy, attributes, keep)
        except ValueError as exc:  # a name, attribute or relation with no letter or digit in it
            raise SceneGraphError(f"object {key}: {exc}") from None
    return vocabulary


def _add_object(
    writer: _Writer,
    vocabulary: dict[str, set[str]],
    obj: GraphObject,
    taxonomy: Taxonomy,
    attributes: AttributeCategories,
    keep: Callable[..., bool],
) -> None:
    """The facts of one object: its classes, name, position, attributes and relations."""
    name = asp_constant(obj.name)
    writer.add(("object", ""), "object", obj.id)
    classes = [name] + sorted({asp_constant(c) for c in taxonomy.categories_of(obj.name)} - {name})
    for cls in classes:
        if keep(cls, "class"):
            writer.add(("class", cls), "has_attr", obj.id, "class", cls)
    writer.add(("name", name), "has_attr", obj.id, "name", name)
    writer.add(("hposition", obj.hposition), "has_attr", obj.id, "hposition", obj.hposition)
    writer.add(("vposition", obj.vposition), "has_attr", obj.id, "vposition", obj.vposition)
    vocabulary["hposition"].add(obj.hposition)
    vocabulary["vposition"].add(obj.vposition)
    for value in obj.attributes:
        constant = asp_constant(value)
        # A value the mapping does not place still counts, under the unnamed category.
        categories = attributes.categories_of(value) or {OTHER_CATEGORY}
        for category in sorted(asp_constant(c) for c in categories):
            if keep(category, constant):
                writer.add((category, constant), "has_attr", obj.id, category, constant)
                vocabulary.setdefault(category, set()).add(constant)
    for relation, target in obj.relations:
        constant = asp_constant(relation)
        if keep(constant):
            writer.add(("", constant), "has_rel", obj.id, constant, target)


def _deduplicated(scene: SceneFacts) -> SceneFacts:
    # Duplicate relations occur in GQA graphs; one fact each keeps the encoding and the support small.
    scene.facts = list(dict.fromkeys(scene.facts))
    return scene
