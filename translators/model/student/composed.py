"""Pairs whose object is named by a phrase rather than a word: one object of a bank example
("the cup") described further ("the cup on the table", "the red cup", "the cup that is not
white", "the hat the man wears"), in the question and in the program alike.

The bank's templates each combine a few steps; GQA's questions combine them freely ("Is the van
behind the bus small and white?"). Describing one object of an example keeps every other step
of its program and wording, so each family learns every description without a template per
pairing. An object's description replaces its selection, `select(scene(), cup)`, wherever the
program reads it, and the object's words in the question; examples that name the class otherwise
("cups", "the cup holder") are left as they are.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from theory.nested import parse_nested
from theory.program import ProgramError
from translators.examples.synthetic import COMMON_RELATIONS, VERB_FORMS
from translators.model.student.pairs import Pair
from translators.model.student.vocabulary import program_text, program_tokens
from translators.wording.ontology import ANY_GROUP, Ontology, Relation

# The share of bank pairs drawn to be described (some draws fit nothing).
SHARE = 0.5
# Descriptions drawn for a pair that reads one object twice ("Is the dog large and brown?"): the
# student must copy the whole description into both readings, which it learns slowest.
REPEATED_DRAWS = 4
# The longest program the student writes (`network.Shape.max_tokens`): a longer pair would teach it to stop short.
MAX_TOKENS = 64
_SELECTED = re.compile(r"select\(scene\(\), ([a-z_]+)\)")


@dataclass(frozen=True)
class Description:
    """One way to describe an object: the phrase after its determiner (``{x}`` stands for the
    object's name), the program that selects what it describes, and the category it uses, if any."""

    phrase: str
    program: str
    category: str | None = None


class Describer:
    """Draws descriptions of an object from an ontology: its attributes, relations and uncategorised values."""

    def __init__(self, ontology: Ontology, rng: random.Random) -> None:
        self.o, self.rng = ontology, rng
        self.class_groups: dict[str, set[str]] = {}
        for group, members in ontology.groups.items():
            for member in members:
                self.class_groups.setdefault(member, set()).add(group)
        self.groups = sorted(g for g, members in ontology.groups.items() if members)
        common = [r.replace(" ", "_") for r in COMMON_RELATIONS]
        self.common = [r for r in common if r in ontology.relations]
        self.relations = sorted(ontology.relations)
        self.kinds: tuple[tuple[Callable[[str], Description | None], float], ...] = (
            (self._related, 0.3),
            (self._relating, 0.1),
            (self._related_to_described, 0.1),
            (self._attribute, 0.2),
            (self._not_attribute, 0.15),
            (self._loose, 0.05),
            (self._attribute_and_related, 0.1),
        )

    def describe(self, cls: str) -> Description | None:
        """A description of an object of `cls`, or None where the draw fits nothing."""
        kinds, weights = zip(*self.kinds)
        return self.rng.choices(kinds, weights)[0](cls)

    def _fits(self, cls: str, groups: tuple[str, ...]) -> bool:
        return ANY_GROUP in groups or bool(self.class_groups.get(cls, set()) & set(groups))

    def _member(self, groups: tuple[str, ...], other_than: str) -> str:
        pool = self.groups if ANY_GROUP in groups else [g for g in groups if self.o.groups.get(g)] or self.groups
        for _ in range(5):
            member = self.rng.choice(self.o.groups[self.rng.choice(pool)])
            if member != other_than:
                return member
        return member

    def _relation(self, cls: str, side: str, verbs_only: bool = False) -> Relation | None:
        """A relation `cls` can be the subject (or object) of, the everyday ones drawn more often."""
        pool = [r for r in self.relations if r in VERB_FORMS] if verbs_only else self.common
        for _ in range(8):
            name = self.rng.choice(pool if self.rng.random() < 0.6 else self.relations)
            if verbs_only and name not in VERB_FORMS:
                continue
            relation = self.o.relations[name]
            if self._fits(cls, relation.subject if side == "subject" else relation.object):
                return relation
        return None

    def _value(self, cls: str) -> tuple[str, str] | None:
        """A category fitting `cls` and one of its values (the everyday ones drawn more often)."""
        groups = self.class_groups.get(cls, set()) | {cls}
        fitting = [
            c
            for c, values in self.o.categories.items()
            if len(values) >= 2
            and c not in ("place", "room", "weather")
            and (ANY_GROUP in self.o.applies_to.get(c, (ANY_GROUP,)) or groups & set(self.o.applies_to[c]))
        ]
        if not fitting:
            return None
        category = "color" if "color" in fitting and self.rng.random() < 0.4 else self.rng.choice(fitting)
        values = self.o.categories[category]
        return category, self.rng.choice(values[:8] if self.rng.random() < 0.5 else values)

    def _related(self, cls: str) -> Description | None:
        relation = self._relation(cls, "subject")
        if relation is None:
            return None
        other = self._member(relation.object, cls)
        said, words, name = other.replace("_", " "), relation.name.replace("_", " "), relation.name
        phrase = self.rng.choice(
            [f"{{x}} {words} the {said}", f"{{x}} that is {words} the {said}", f"{{x}} which is {words} the {said}"]
            + ([f"{{x}} that {VERB_FORMS[name][0]} the {said}"] if name in VERB_FORMS else [])
        )
        return Description(phrase, f"relate(select(scene(), {other}), {cls}, {name}, subject)")

    def _relating(self, cls: str) -> Description | None:
        """The object of another's action: "the hat (that) the man wears"."""
        relation = self._relation(cls, "object", verbs_only=True)
        if relation is None:
            return None
        other = self._member(relation.subject, cls)
        verb = VERB_FORMS[relation.name][0]
        words = other.replace("_", " ")
        phrase = self.rng.choice([f"{{x}} that the {words} {verb}", f"{{x}} the {words} {verb}"])
        return Description(phrase, f"relate(select(scene(), {other}), {cls}, {relation.name}, object)")

    def _related_to_described(self, cls: str) -> Description | None:
        relation = self._relation(cls, "subject")
        if relation is None:
            return None
        other = self._member(relation.object, cls)
        drawn = self._value(other)
        if drawn is None:
            return None
        category, value = drawn
        words = relation.name.replace("_", " ")
        return Description(
            f"{{x}} {words} the {value.replace('_', ' ')} {other.replace('_', ' ')}",
            f"relate(filter(select(scene(), {other}), {category}, {value}), {cls}, {relation.name}, subject)",
            category,
        )

    def _valued(self, cls: str, phrasings: Sequence[str], program: str) -> Description | None:
        """A description by a value of `cls`: one of `phrasings` with ``{v}`` the value's words, and
        `program` with ``{cls}``, ``{category}`` and ``{value}`` filled."""
        drawn = self._value(cls)
        if drawn is None:
            return None
        category, value = drawn
        phrase = self.rng.choice([p.replace("{v}", value.replace("_", " ")) for p in phrasings])
        filled = program.replace("{cls}", cls).replace("{category}", category).replace("{value}", value)
        return Description(phrase, filled, category)

    def _attribute(self, cls: str) -> Description | None:
        return self._valued(
            cls,
            ("{v} {x}", "{x} that is {v}", "{x} that looks {v}", "{x} which is {v}"),
            "filter(select(scene(), {cls}), {category}, {value})",
        )

    def _not_attribute(self, cls: str) -> Description | None:
        return self._valued(
            cls,
            ("{x} that is not {v}", "{x} that isn't {v}", "{x} which is not {v}"),
            "negate(filter(select(scene(), {cls}), {category}, {value}), select(scene(), {cls}))",
        )

    def _loose(self, cls: str) -> Description | None:
        if not self.o.uncategorised:
            return None
        value = self.rng.choice(self.o.uncategorised)
        words = value.replace("_", " ")
        phrase = self.rng.choice([f"{words} {{x}}", f"{{x}} that is {words}"])
        return Description(phrase, f"filter_any(select(scene(), {cls}), {value})")

    def _attribute_and_related(self, cls: str) -> Description | None:
        related, drawn = self._related(cls), self._value(cls)
        if related is None or drawn is None or not related.phrase.startswith("{x} ") or " that " in related.phrase:
            return None
        category, value = drawn
        return Description(
            f"{value.replace('_', ' ')} {related.phrase}", f"filter({related.program}, {category}, {value})", category
        )


def _mentions(question: str, cls: str, classes: set[str]) -> list[re.Match[str]]:
    """Where the question names one object of `cls` with a determiner ("the cup", "that cup"),
    but not as the first word of a longer class name ("the cup holder")."""
    words = cls.replace("_", " ")
    found = []
    for match in re.finditer(rf"\b(the|that|this) {re.escape(words)}\b(?= ([a-z]+))?", question, re.IGNORECASE):
        if f"{cls}_{match.group(2)}" not in classes:
            found.append(match)
    return found


def _only_selected(text: str, cls: str) -> bool:
    """Whether the program names `cls` only to select it: an object the question already describes
    names it again ("the cup on the table" relates to cups), and a second description would garble it."""
    return len(re.findall(rf"\b{cls}\b", text)) == text.count(f"select(scene(), {cls})")


def describe_pair(pair: Pair, describer: Describer, classes: set[str]) -> Pair | None:
    """`pair` with one of its objects described further, or None where none can be."""
    text = program_text(pair.tokens)
    selected = sorted(set(_SELECTED.findall(text)) - {"scene"})
    describer.rng.shuffle(selected)
    for cls in selected:
        mentions = _mentions(pair.question, cls, classes)
        if len(mentions) != 1 or not _only_selected(text, cls):
            continue
        description = describer.describe(cls)
        # "What color is the red cup?" says its answer: a description never uses the category asked.
        if description is None or (description.category and re.search(rf"\b{description.category}\b", text)):
            continue
        mention = mentions[0]
        start, end = mention.start(), mention.end()
        phrase = description.phrase.replace("{x}", cls.replace("_", " "))
        question = f"{pair.question[:start]}{mention.group(1)} {phrase}{pair.question[end:]}"
        program = text.replace(f"select(scene(), {cls})", description.program)
        tokens = tuple(program_tokens(program))
        if len(tokens) > MAX_TOKENS:
            continue
        try:
            parse_nested(program)
        except ProgramError:
            continue
        return Pair(question, tokens, "composed")
    return None


def composed_pairs(pairs: Sequence[Pair], ontology: Ontology, seed: int = 0) -> Iterator[Pair]:
    """Described versions of a seeded share (`SHARE`) of `pairs`, and of every pair that reads one
    object twice (`REPEATED_DRAWS` each); deterministic for the arguments.

    Each described pair joins the pairs drawn from in turn, so descriptions nest ("the cup on the
    table that is not white") until no object is left that only a word names or the program would
    pass `MAX_TOKENS`."""
    rng = random.Random(seed)
    describer = Describer(ontology, rng)
    classes = ontology.classes
    queue = list(pairs)
    for pair in queue:  # grows while it is read
        text = program_text(pair.tokens)
        repeated = any(text.count(f"select(scene(), {c})") > 1 for c in set(_SELECTED.findall(text)) - {"scene"})
        draws = REPEATED_DRAWS if repeated else int(rng.random() < SHARE)
        for _ in range(draws):
            described = describe_pair(pair, describer, classes)
            if described is not None:
                queue.append(described)
                yield described
