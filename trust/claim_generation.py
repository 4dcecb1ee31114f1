"""Claims about a GQA scene graph with known verdicts, for measuring verification.

True claims are read off the graph's facts (an object, an attribute, a relation, a position, a
count); each false one changes exactly one thing of a true one: the attribute to another value of
its category the object does not have, the relation to one that does not link the two objects
(its opposite where it has one), the class to one the scene does not have, the side to the
other side (a side is claimed of an object on the left or the right), the count by one. Claims
the scene cannot decide are made too (an attribute category the graph does not give the object,
a "the" that fits several objects differently):
their verdict must be unverifiable, never supported. Each claim has an English text in one of
several phrasings and the program it means, built directly (no language model).

Objects are named by their name when the scene has one object of that name, so "the bus" is one
object; relations and positions are only claimed of such objects.

Example:
    >>> graph = {"width": 300, "height": 300, "objects": {
    ...     "1": {"name": "bus", "x": 0, "y": 100, "w": 50, "h": 50, "attributes": ["red"],
    ...           "relations": [{"name": "to the left of", "object": "2"}]},
    ...     "2": {"name": "car", "x": 200, "y": 100, "w": 50, "h": 50, "attributes": ["white"], "relations": []}}}
    >>> claims = generate_claims(graph, absent_classes=["dog"], attribute_values={"color": ["red", "white", "blue"]})
    >>> sorted({(c.kind, c.expected) for c in claims})[:3]
    [('attribute', 'refuted'), ('attribute', 'supported'), ('object', 'refuted')]
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from scene.scene_graph import GraphObject, graph_objects
from scene.taxonomy import AttributeCategories
from theory.operations import OPPOSITE_RELATIONS, OTHER_CATEGORY, POSITION_PHRASES
from theory.program import Program, Step
from theory.scene_facts import asp_constant
from trust.claims import Claim, at_least

# Relations a false claim may swap in where a relation has no opposite.
OTHER_RELATIONS = ("holding", "wearing", "on", "under", "behind", "in_front_of", "inside", "carrying", "near")
# Categories an unverifiable claim may ask about, with a value each.
PROBED = {"material": "metal", "color": "purple", "size": "tiny", "pattern": "striped", "shape": "round"}
_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


@dataclass(frozen=True)
class GeneratedClaim:
    """A claim, the verdict it must get, what it is about and how it was made."""

    kind: str  # object | attribute | relation | position | count
    perturbation: str  # "none" (true), the kind changed, or "unverifiable" / "ambiguous"
    text: str
    claim: Claim
    expected: str  # supported | refuted | unverifiable


class _Builder:
    """Programs of one claim, step by step."""

    def __init__(self) -> None:
        self.steps: list[Step] = [Step(0, "scene")]

    def add(self, operation: str, dependencies: tuple[int, ...] = (), arguments: tuple[str, ...] = ()) -> int:
        step = Step(len(self.steps) and max(s.id for s in self.steps) + 1, operation, dependencies, arguments)
        self.steps.append(step)
        return step.id

    def described(self, name: str, attribute: tuple[str, str] | None = None) -> int:
        found = self.add("select", (0,), (name,))
        return self.add("filter", (found,), attribute) if attribute else found

    def claim(self, answer: int) -> Claim:
        return Claim(Program(tuple(self.steps), answer=answer))


def _words(constant: str) -> str:
    return constant.replace("_", " ")


def _article(phrase: str) -> str:
    return ("an " if phrase[:1] in "aeiou" else "a ") + phrase


def _plural(noun: str) -> str:
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun if noun.endswith("s") else noun + "es"
    return noun + "s"


def _exists(name: str, attribute: tuple[str, str] | None = None) -> Claim:
    b = _Builder()
    return b.claim(b.add("exist", (b.described(name, attribute),)))


def _has(name: str, category: str, value: str) -> Claim:
    b = _Builder()
    return b.claim(b.add("verify_attr", (b.add("unique", (b.described(name),)),), (category, value)))


def _related(subject: str, relation: str, target: str, attributes: tuple[tuple[str, str] | None, ...]) -> Claim:
    b = _Builder()
    if attributes == (None, None):
        one = b.add("unique", (b.described(subject),))
        return b.claim(b.add("verify_rel", (one,), (target, relation, "object")))
    other = b.described(target, attributes[1])
    related = b.add("relate", (other,), (subject, relation, "subject"))
    if attributes[0] is not None:
        related = b.add("filter", (related,), attributes[0])
    return b.claim(b.add("exist", (related,)))


def _counted(name: str, count: int) -> Claim:
    b = _Builder()
    base = b.described(name)
    top = at_least(b.steps, base, count)
    return b.claim(b.add("exist", (top,)))


def _object_text(name: str, turn: int) -> str:
    phrase = _article(_words(name))
    return (f"There is {phrase}.", f"The picture shows {phrase}.", f"I can see {phrase} in the image.")[turn % 3]


def _attribute_text(name: str, value: str, turn: int) -> str:
    n, v = _words(name), _words(value)
    return (f"The {n} is {v}.", f"The {n} looks {v}.", f"The {n} in the picture is {v}.")[turn % 3]


def _position_text(name: str, value: str, turn: int) -> str:
    n, where = _words(name), POSITION_PHRASES["hposition"][value]
    return (f"The {n} is {where}.", f"The {n} is {where} of the picture.")[turn % 2]


def _relation_text(
    subject: str, relation: str, target: str, attributes: tuple[tuple[str, str] | None, ...], turn: int
) -> str:
    first = f"{_words(attributes[0][1])} {_words(subject)}" if attributes[0] else _words(subject)
    second = f"{_words(attributes[1][1])} {_words(target)}" if attributes[1] else _words(target)
    relation = _words(relation)
    if attributes == (None, None):
        return (f"The {first} is {relation} the {second}.", f"The {first} is {relation} {_article(second)}.")[turn % 2]
    return (f"The {first} is {relation} the {second}.", f"There is {_article(first)} {relation} the {second}.")[
        turn % 2
    ]


def _count_text(name: str, count: int, turn: int) -> str:
    number = _NUMBERS[count] if count < len(_NUMBERS) else str(count)
    noun = _plural(_words(name))
    return (f"There are {number} {noun}.", f"The picture shows {number} {noun}.", f"I count {number} {noun}.")[turn % 3]


@dataclass
class _Claims:
    """The claims about one scene graph, kept by kind and perturbation, drawn with one random stream.

    The steps draw from `rng` in a fixed order, so a seed gives the same claims."""

    rng: random.Random
    objects: list[GraphObject]
    attribute_values: Mapping[str, Sequence[str]]
    attributes: AttributeCategories | None
    names: Counter[str] = field(init=False)
    by_number: dict[int, GraphObject] = field(init=False)
    out: dict[str, list[GeneratedClaim]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.names = Counter(asp_constant(o.name) for o in self.objects)
        self.by_number = {o.id: o for o in self.objects}

    def keep(self, item: GeneratedClaim) -> None:
        self.out.setdefault(f"{item.kind}/{item.perturbation}", []).append(item)

    def categories(self, value: str) -> list[str]:
        """The categories of an attribute value (OTHER_CATEGORY when none is known)."""
        if self.attributes is not None:
            return sorted(asp_constant(c) for c in self.attributes.categories_of(value)) or [OTHER_CATEGORY]
        return [c for c, vs in self.attribute_values.items() if value in vs] or [OTHER_CATEGORY]

    def attribute_pairs(self, obj: GraphObject) -> list[tuple[str, str]]:
        """(category, value) of each attribute of `obj` in a known category."""
        pairs = []
        for value in obj.attributes:
            constant = asp_constant(value)
            for category in self.categories(value):
                if category != OTHER_CATEGORY:
                    pairs.append((category, constant))
        return pairs

    def about_object(self, obj: GraphObject, turn: int, absent: Sequence[str]) -> None:
        """Every claim about one object its name identifies."""
        name = asp_constant(obj.name)
        self.keep(GeneratedClaim("object", "none", _object_text(name, turn), _exists(name), "supported"))
        if absent:
            other = self.rng.choice(absent)
            self.keep(GeneratedClaim("object", "object", _object_text(other, turn), _exists(other), "refuted"))
        pairs = self.attribute_pairs(obj)
        self.attribute_claims(name, pairs, turn)
        self.position_claims(name, obj.hposition, turn)
        for relation, target_id in obj.relations:
            self.relation_claims(obj, relation, target_id, pairs, turn)

    def attribute_claims(self, name: str, pairs: list[tuple[str, str]], turn: int) -> None:
        """The object's attributes, each with a value it does not have, and one category it lacks."""
        held = {v for _, v in pairs}
        for category, value in pairs:
            text = _attribute_text(name, value, turn)
            self.keep(GeneratedClaim("attribute", "none", text, _has(name, category, value), "supported"))
            others = self.attribute_values.get(category, ())
            wrong = [v for v in others if v not in held and category in self.categories(v)]
            if wrong:
                changed = self.rng.choice(wrong)
                text = _attribute_text(name, changed, turn)
                self.keep(GeneratedClaim("attribute", "attribute", text, _has(name, category, changed), "refuted"))
        described = {c for c, _ in pairs}
        for category, value in PROBED.items():
            if category not in described and category in self.attribute_values:
                text = _attribute_text(name, value, turn)
                claim = _has(name, category, value)
                self.keep(GeneratedClaim("attribute", "unverifiable", text, claim, "unverifiable"))
                break

    def position_claims(self, name: str, side: str, turn: int) -> None:
        """The object's side and the other side."""
        # Only a side has a phrase: "in the middle" says the vertical middle (theory.operations).
        sides = POSITION_PHRASES["hposition"]
        if side not in sides:
            return
        text = _position_text(name, side, turn)
        self.keep(GeneratedClaim("position", "none", text, _has(name, "hposition", side), "supported"))
        moved = self.rng.choice([p for p in sides if p != side])
        text = _position_text(name, moved, turn)
        self.keep(GeneratedClaim("position", "position", text, _has(name, "hposition", moved), "refuted"))

    def relation_claims(
        self, obj: GraphObject, relation: str, target_id: int, pairs: list[tuple[str, str]], turn: int
    ) -> None:
        """One relation of the object to another its name identifies, and a relation that does not link them."""
        target = self.by_number.get(target_id)
        if target is None or self.names[asp_constant(target.name)] != 1 or target_id == obj.id:
            return
        name, rel, tname = asp_constant(obj.name), asp_constant(relation), asp_constant(target.name)
        linking = {asp_constant(r) for r, t in obj.relations if t == target_id}
        target_pairs = self.attribute_pairs(target)
        rng = self.rng
        described_by = (
            rng.choice(pairs) if pairs and rng.random() < 0.5 else None,
            rng.choice(target_pairs) if target_pairs and rng.random() < 0.5 else None,
        )
        text = _relation_text(name, rel, tname, described_by, turn)
        self.keep(GeneratedClaim("relation", "none", text, _related(name, rel, tname, described_by), "supported"))
        swapped = OPPOSITE_RELATIONS.get(rel)
        if swapped is None or swapped in linking:
            choices = [r for r in OTHER_RELATIONS if r not in linking]
            swapped = rng.choice(choices) if choices else None
        if swapped is not None and swapped not in linking:
            text = _relation_text(name, swapped, tname, described_by, turn)
            claim = _related(name, swapped, tname, described_by)
            self.keep(GeneratedClaim("relation", "relation", text, claim, "refuted"))

    def count_claims(self, classes: Mapping[int, set[str]]) -> None:
        """How many objects of a class there are (2 to 6), and one more or fewer."""
        counts = Counter(c for cs in classes.values() for c in cs)
        for turn, (cls, count) in enumerate(sorted(counts.items())):
            if not 2 <= count <= 6:
                continue
            self.keep(GeneratedClaim("count", "none", _count_text(cls, count, turn), _counted(cls, count), "supported"))
            wrong_n = count + 1 if count == 2 or turn % 2 == 0 else count - 1
            text = _count_text(cls, wrong_n, turn)
            self.keep(GeneratedClaim("count", "count", text, _counted(cls, wrong_n), "refuted"))

    def ambiguous_claims(self) -> None:
        """A "the" that fits several objects, which differ in an attribute: the claim cannot be decided."""
        for turn, (name, count) in enumerate(sorted(self.names.items())):
            if count < 2:
                continue
            group = [o for o in self.objects if asp_constant(o.name) == name]
            values = Counter(p for o in group for p in set(self.attribute_pairs(o)))
            split = [p for p, n in sorted(values.items()) if n < len(group)]
            if split:
                category, value = split[0]
                text = _attribute_text(name, value, turn)
                self.keep(GeneratedClaim("attribute", "ambiguous", text, _has(name, category, value), "unverifiable"))

    def chosen(self, per_kind: int) -> list[GeneratedClaim]:
        """At most `per_kind` claims of each kind and perturbation, drawn at random."""
        chosen: list[GeneratedClaim] = []
        for key in sorted(self.out):
            items = self.out[key]
            chosen += self.rng.sample(items, per_kind) if len(items) > per_kind else items
        return chosen


def generate_claims(
    graph: Mapping[str, object],
    *,
    absent_classes: Sequence[str],
    attribute_values: Mapping[str, Sequence[str]],
    attributes: AttributeCategories | None = None,
    classes_of: Mapping[str, set[str]] | None = None,
    per_kind: int = 25,
    seed: int = 0,
) -> list[GeneratedClaim]:
    """True, false and undecidable claims about one GQA scene graph (see the module docstring).

    `attribute_values`: category -> values a false attribute may take; `attributes` places a
    graph's attribute values in categories (default: the first category in `attribute_values`
    listing it); `classes_of`: every class of each object id (its name and categories), as the
    scene encodes them, so a count counts what `select` selects; `absent_classes`: classes
    for false object claims (those the scene has are skipped).
    """
    objects = list(graph_objects(graph).values())
    claims = _Claims(random.Random(seed), objects, attribute_values, attributes)
    classes = {o.id: (classes_of or {}).get(str(o.id), set()) | {asp_constant(o.name)} for o in objects}
    present = set().union(*classes.values()) if classes else set()
    absent = [asp_constant(c) for c in absent_classes if asp_constant(c) not in present]
    unique = [o for o in objects if claims.names[asp_constant(o.name)] == 1]
    for turn, obj in enumerate(unique):
        claims.about_object(obj, turn, absent)
    claims.count_claims(classes)
    claims.ambiguous_claims()
    return claims.chosen(per_kind)
