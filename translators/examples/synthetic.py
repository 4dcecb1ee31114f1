"""Generated worked examples: (question, program) pairs from the project's own templates, filled
with an ontology's classes, attribute values and relations.

A template is a few phrasings and one nested program with slots (the templates are data:
``data/templates.toml``). Slots: ``{a}``, ``{b}`` classes;
``{g}`` a class group (``furniture``); ``{cat}``/``{v}`` an attribute category and one of its
values (``{v1}``, ``{v2}`` two values of it); ``{r}`` a relation whose subject/object groups fit
the classes; ``{r1}``/``{r2}`` a pair of opposite relations; ``{p}`` a position. The program
names words as ASP constants, the question in plain English. Generation is deterministic for a
given ontology, count and seed, so a bank can be rebuilt anywhere instead of shipped.

The families follow the kinds of questions GQA asks (existence, and/or, attribute query, verify
and choose, relation query, verify and choose, same/different, common, compare, position,
negation), plus counting, which GQA does not ask ("How many dogs are there?", "Are there more
dogs than cats?"). The wording is the project's own.

Example:
    >>> from translators.wording.ontology import bundled_ontology
    >>> examples = generate_examples(bundled_ontology(), per_template=2)
    >>> len(examples) > 100 and all(e.source == "generated" for e in examples)
    True
"""

from __future__ import annotations

import itertools
import random
import re
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from theory.nested import parse_nested
from theory.operations import OPPOSITE_PAIRS, POSITION_PHRASES
from theory.program import ProgramError
from translators.examples.bank import Example, normalise_question
from translators.wording.ontology import ANY_GROUP, Ontology, Relation

# Opposite relation pairs a "X or Y" choice is asked with, as the question writes them.
OPPOSITES = tuple((a.replace("_", " "), b.replace("_", " ")) for a, b in OPPOSITE_PAIRS)
COMMON_SHARE = 0.6
# How a choice between two opposite relations is usually phrased (one of these, at random).
_CHOICE_PHRASES = {
    ("to_the_left_of", "to_the_right_of"): (
        "to the left or to the right of",
        "on the left or on the right of",
        "left or right of",
    ),
    ("to_the_right_of", "to_the_left_of"): (
        "to the right or to the left of",
        "on the right or on the left of",
        "right or left of",
    ),
    ("in_front_of", "behind"): ("in front of or behind",),
    ("behind", "in_front_of"): ("behind or in front of",),
    ("above", "below"): ("above or below",),
    ("below", "above"): ("below or above",),
    ("on", "under"): ("on or under",),
    ("under", "on"): ("under or on",),
}
# How a group is named in questions besides its own word ("What is this article of clothing called?").
GROUP_WORDS = {
    "furniture": (("piece of furniture", "pieces of furniture"), ("item of furniture", "items of furniture")),
    "clothing": (
        ("article of clothing", "articles of clothing"),
        ("clothing item", "clothing items"),
        ("piece of clothing", "pieces of clothing"),
    ),
}
# Comparative -> (base value, polarity) for compare questions.
COMPARATIVES = {
    "bigger": ("big", "true"),
    "larger": ("large", "true"),
    "smaller": ("small", "true"),
    "taller": ("tall", "true"),
    "shorter": ("short", "true"),
    "older": ("old", "true"),
    "younger": ("young", "true"),
    "longer": ("long", "true"),
    "thinner": ("thin", "true"),
    "wider": ("wide", "true"),
    "heavier": ("heavy", "true"),
    "cleaner": ("clean", "true"),
    "dirtier": ("dirty", "true"),
    "darker": ("dark", "true"),
    "less tall": ("tall", "false"),
    "less clean": ("clean", "false"),
}


@dataclass(frozen=True)
class Template:
    """Phrasings of one question family and its nested program, over the same slots."""

    family: str
    phrasings: tuple[str, ...]
    program: str


def _t(family: str, program: str, *phrasings: str) -> Template:
    # {S} and {SB} abbreviate the selection of {a} and {b}.
    program = program.replace("{SB}", "select(scene(), {b})").replace("{S}", "select(scene(), {a})")
    return Template(family, phrasings, program)


# The templates and the wordings they are drawn with are data (read once at import).
TEMPLATES_PATH = Path(__file__).resolve().parents[1] / "data" / "templates.toml"


@dataclass(frozen=True)
class _Wordings:
    """What `TEMPLATES_PATH` holds (see its comments)."""

    common_relations: tuple[str, ...]
    verb_forms: dict[str, tuple[str, str]]
    category_questions: dict[str, list[str]]
    templates: tuple[Template, ...]


# Written by hand: the slots use braces too ("{a}"), and only a brace with a bar in it is a choice.
_ALTERNATIVES = re.compile(r"\{([^{}]*\|[^{}]*)\}")


def expand_alternatives(phrasing: str) -> list[str]:
    """Every wording a phrasing with choices writes ("{What|Which} place is {it|this}?": four), in
    order and without repeats; a phrasing without choices is itself."""
    parts = _ALTERNATIVES.split(phrasing)
    # split() alternates text and the inside of a choice: text, choice, text, ...
    options = [part.split("|") if i % 2 else [part] for i, part in enumerate(parts)]
    return list(dict.fromkeys("".join(chosen) for chosen in itertools.product(*options)))


def _read_wordings(path: Path) -> _Wordings:
    """The relations drawn most, the verb forms, the categories' own questions and the templates in
    draw order, from `path`."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    questions: dict[str, list[str]] = data["category_questions"]
    templates = []
    for entry in data["template"]:
        # A family asked in every wording of one category names the category instead of copying them.
        category = entry.get("phrasings_of_category")
        phrasings = (
            questions[category]
            if category is not None
            else [wording for phrasing in entry["phrasings"] for wording in expand_alternatives(phrasing)]
        )
        templates.append(_t(entry["family"], entry["program"], *phrasings))
    return _Wordings(
        common_relations=tuple(data["common_relations"]),
        verb_forms={relation: (third, base) for relation, (third, base) in data["verb_forms"].items()},
        category_questions=questions,
        templates=tuple(templates),
    )


_WORDINGS = _read_wordings(TEMPLATES_PATH)
# Relations photos show most: drawn more often, so that the everyday phrasings are well covered.
COMMON_RELATIONS = _WORDINGS.common_relations
# Relations also asked with a finite verb: relation -> (third person, base form).
VERB_FORMS = _WORDINGS.verb_forms
# Categories asked about with their own wording; the rest use "What is the {cat} of ...".
_CATEGORY_QUESTIONS = _WORDINGS.category_questions
TEMPLATES = _WORDINGS.templates


def _plural(noun: str) -> str:
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun if noun.endswith("s") else noun + "es"
    if noun.endswith("y") and len(noun) > 1 and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def _text(constant: str) -> str:
    return constant.replace("_", " ")


def _article_fix(text: str) -> str:
    return re.sub(r"\ba ([aeiou])", r"an \1", text)


class _Filler:
    """Draws slot values from an ontology, respecting which groups a relation or category fits."""

    def __init__(self, ontology: Ontology, rng: random.Random) -> None:
        self.o, self.rng = ontology, rng
        self.groups = sorted(g for g, members in ontology.groups.items() if members)
        self.categories = sorted(c for c, values in ontology.categories.items() if len(values) >= 2)
        self.relations = sorted(ontology.relations)
        self.common = [
            r for r in (c.replace(" ", "_") for c in COMMON_RELATIONS) if r in ontology.relations
        ] or self.relations
        self.opposites = [
            (a, b)
            for a, b in OPPOSITES
            if a.replace(" ", "_") in ontology.relations and b.replace(" ", "_") in ontology.relations
        ] or list(OPPOSITES)
        self.class_groups: dict[str, set[str]] = {}
        for group, members in ontology.groups.items():
            for member in members:
                self.class_groups.setdefault(member, set()).add(group)
        self._fitting: dict[str, list[str]] = {}
        self.verbs = [r for r in VERB_FORMS if r in ontology.relations]

    def relation(self) -> str:
        return self.rng.choice(self.common if self.rng.random() < COMMON_SHARE else self.relations)

    def value(self, category: str) -> str:
        """A value of `category`; the first listed (the everyday ones) are drawn more often."""
        values = self.o.categories[category]
        return self.rng.choice(values[:8] if self.rng.random() < 0.5 else values)

    def member(self, groups: tuple[str, ...]) -> str:
        pool = self.groups if ANY_GROUP in groups else [g for g in groups if self.o.groups.get(g)] or self.groups
        return self.rng.choice(self.o.groups[self.rng.choice(pool)])

    def category_for(self, cls: str, color_bias: float = 0.5) -> str:
        """A category that describes `cls` (color with probability `color_bias`, GQA's commonest)."""
        if "color" in self.categories and self.rng.random() < color_bias:
            return "color"
        if cls not in self._fitting:
            groups = self.class_groups.get(cls, set()) | {cls}
            self._fitting[cls] = [
                c
                for c in self.categories
                if ANY_GROUP in self.o.applies_to.get(c, (ANY_GROUP,)) or groups & set(self.o.applies_to[c])
            ]
        return self.rng.choice(self._fitting[cls] or self.categories)

    def fill(self, template: Template, phrasing: str) -> dict[str, str]:
        """Every slot drawn for `template` (asked as `phrasing`), in a fixed order: one bank anywhere."""
        needs_verb = self.verbs and any("{rv}" in p or "{rb}" in p for p in template.phrasings)
        relation = self.o.relations[self.rng.choice(self.verbs) if needs_verb else self.relation()]
        slots = self._classes(template, relation)
        self._choices(template, relation, slots)
        category = self._category(template, phrasing, slots)
        self._attributes(category, slots)
        self._phrases(slots)
        return slots

    def _classes(self, template: Template, relation: Relation) -> dict[str, str]:
        """The relation, the classes and the group, with two to choose between where the family asks."""
        rng, slots = self.rng, {}
        slots["r"] = relation.name
        slots["a"] = self.member(relation.subject)
        slots["b"] = self.member(relation.object)
        slots["c"] = self.member((ANY_GROUP,))
        slots["r2"] = self.relation()
        slots["g"] = rng.choice(self.groups)
        slots["ap"] = _plural(slots["a"])
        while slots["b"] == slots["a"]:
            slots["b"] = self.member((ANY_GROUP,))
        if template.family == "choose_name":
            members = self.o.groups[slots["g"]]
            if len(members) >= 2:
                slots["a"], slots["b"] = rng.sample(members, 2)
        if template.family == "choose_place" and len(self.o.categories.get("place", ())) >= 3:
            slots["a"], slots["b"] = rng.sample(self.o.categories["place"][1:], 2)  # not "place" itself
        return slots

    def _choices(self, template: Template, relation: Relation, slots: dict[str, str]) -> None:
        """The two names a relation question chooses between, and the group a group question asks."""
        rng = self.rng
        if template.family in ("choose_group_rel_s", "choose_group_rel_o", "choose_rel_any_o", "choose_who"):
            # Two names to choose between: of the asked group, of what the relation reaches, or people.
            if template.family == "choose_who":
                side: tuple[str, ...] = ("person",)
            else:
                side = relation.subject if template.family.endswith("_s") else relation.object
            if template.family in ("choose_group_rel_s", "choose_group_rel_o"):
                slots["g"] = rng.choice([g for g in side if len(self.o.groups.get(g, ())) >= 2] or self.groups)
                pool = self.o.groups[slots["g"]]
            else:
                pool = sorted({m for g in side for m in self.o.groups.get(g, ())})
            slots["x"], slots["y"] = rng.sample(pool, 2) if len(pool) >= 2 else (slots["a"], slots["b"])
        if template.family in ("query_group_rel_s",):
            slots["g"] = rng.choice([g for g in relation.subject if g in self.o.groups] or self.groups)
        if template.family in ("query_group_rel_o", "query_group_rel_o_do"):
            slots["g"] = rng.choice([g for g in relation.object if g in self.o.groups] or self.groups)

    def _category(self, template: Template, phrasing: str, slots: dict[str, str]) -> str:
        """The attribute category asked: color where the phrasing says so, else one that fits the class asked."""
        wants_color = "color" in phrasing
        category = "color" if wants_color and "color" in self.categories else self.category_for(slots["a"])
        if template.family.startswith("query_attr"):
            category = self.category_for(slots["a"], 0.4)
        elif template.family == "query_who_attr":
            category = self.category_for("person", 0.0)
        elif template.family.startswith("query_group"):
            category = self.category_for(slots["g"])
        elif template.family == "choose_weather" and "weather" in self.categories:
            category = "weather"  # the scene's weather, whatever the drawn class
        return category

    def _attributes(self, category: str, slots: dict[str, str]) -> None:
        """Values of the category, of another one, uncategorised values and materials."""
        rng = self.rng
        values = self.o.categories[category]
        slots["cat"] = category
        slots["cat_words"] = _text(category)
        slots["v"] = self.value(category)
        slots["v1"], slots["v2"] = rng.sample(values, 2)
        other = self.category_for(slots["a"], 0.2)
        slots["cat2"], slots["w"] = other, self.value(other)
        loose = self.o.uncategorised or ["plain", "fancy"]
        slots["u"], slots["u2"] = rng.sample(loose, 2) if len(loose) >= 2 else (loose[0], loose[0] + "_too")
        if "material" in self.o.categories:
            slots["m"] = rng.choice(self.o.categories["material"])
            slots["m1"], slots["m2"] = rng.sample(self.o.categories["material"], 2)

    def _phrases(self, slots: dict[str, str]) -> None:
        """A position, a pair of opposite relations, a group word and a comparative."""
        rng = self.rng
        pcat = rng.choice(sorted(POSITION_PHRASES))
        slots["pcat"] = pcat
        slots["p"], slots["pw"] = rng.choice(sorted(POSITION_PHRASES[pcat].items()))
        r1, r2 = rng.choice(self.opposites)
        if rng.random() < 0.5:
            r1, r2 = r2, r1
        slots["r1"], slots["r2_text"] = r1.replace(" ", "_"), r2
        slots["rr2"] = r2.replace(" ", "_")
        slots["choice"] = rng.choice(_CHOICE_PHRASES.get((slots["r1"], slots["rr2"]), (f"{r1} or {r2}",)))
        if slots["g"] in GROUP_WORDS and rng.random() < 0.5:
            slots["gw"], slots["gws"] = rng.choice(GROUP_WORDS[slots["g"]])
        comparative = rng.choice(sorted(COMPARATIVES))
        slots["cmp"], (slots["cv"], slots["pol"]) = comparative, COMPARATIVES[comparative]


def _category_questions(category: str) -> list[str]:
    return _CATEGORY_QUESTIONS.get(category, ["What is the {cat_words} of the {a}?", "Which {cat_words} is the {a}?"])


def _plural_phrasing(question: str) -> str:
    """A category question about one thing, asked about a thing named in the plural ("jeans")."""
    for singular, plural in (
        ("Is the {a}", "Are the {as}"),
        ("is the {a}", "are the {as}"),
        ("does the {a}", "do the {as}"),
        ("The {a} is", "The {as} are"),
        ("The {a} has", "The {as} have"),
        ("{a}", "{as}"),
    ):
        question = question.replace(singular, plural)
    return question


def _phrasings(template: Template, category: str) -> tuple[str, ...]:
    """The template's phrasings; ``CATEGORY_QUESTIONS|desc|...`` asks the category's questions of each description."""
    head, *descriptions = template.phrasings[0].split("|")
    if head == "CATEGORY_QUESTIONS_PL":
        return tuple(_plural_phrasing(q) for q in _category_questions(category))
    if head == "CATEGORY_QUESTIONS":
        return tuple(
            q.replace("the {a}", d).replace("The {a}", d)
            for d in descriptions or ["the {a}"]
            for q in _category_questions(category)
        )
    return template.phrasings


def _render(template: Template, phrasing: str, slots: dict[str, str]) -> tuple[str, str]:
    words = {k: _text(v) for k, v in slots.items()}
    words |= {
        "as": _plural(words["a"]),
        "bs": _plural(words["b"]),
        "gs": _plural(words["g"]),
        "r2": _text(slots["r2"]),
        "r1": _text(slots["r1"]),
        "choice": slots["choice"],
    }
    if "gw" in slots:
        words["g"], words["gs"] = slots["gw"], slots["gws"]
    words["rv"], words["rb"] = VERB_FORMS.get(slots["r"], (words["r"], words["r"]))
    # In questions the second relation of a choice is the opposite's text; in programs its constant.
    question_words = dict(words, r2=words["r2"])
    if template.family.startswith("choose_rel"):
        question_words["r2"] = slots["r2_text"]
    question = phrasing.format(**question_words)
    question = _article_fix(question[0].upper() + question[1:])
    program_slots = dict(slots)
    if template.family.startswith("choose_rel"):
        program_slots["r2"] = slots["rr2"]
    program = template.program.format(**program_slots)
    return question, program


def _consistent(template: Template, phrasing: str, slots: dict[str, str]) -> bool:
    if ("{rv}" in phrasing or "{rb}" in phrasing) and slots["r"] not in VERB_FORMS:
        return False
    if template.family == "or_verify" and slots["cat"] == slots["cat2"]:
        return False  # "Is the table wooden or metallic?" chooses between two values of one category
    # Phrasings that name color (or material) only fit programs about that category.
    if "{cat" in template.program:
        if "color" in phrasing and slots["cat"] != "color":
            return False
        if (
            "material" in phrasing
            and "{cat}" in template.program
            and slots["cat"] != "material"
            and "{m}" not in phrasing
        ):
            return False
    return True


# Families asked most (an attribute of an object named by its relation to another, and relation
# queries): their phrasings are spread over every category and relation, so each common wording
# ("What color is the mug on the table?") needs more draws to be in the bank at all.
FAMILY_WEIGHTS = {
    # The plainest questions, in many wordings each (a wording per category for query_attr).
    "query_attr": 3,
    "verify_attr": 2,
    "choose_attr": 2,
    "query_attr_rel_s": 3,
    "query_attr_rel_o": 2,
    "query_rel_s": 2,
    "query_rel_o": 2,
    "query_who_s": 2,
    # A count by relation is written with the relation's own words, so each relation needs examples.
    "count_rel": 3,
    "count_rel_attr": 2,
}


def _iter_examples(
    ontology: Ontology, per_template: int, seed: int, templates: Sequence[Template]
) -> Iterator[tuple[str, str, str]]:
    rng = random.Random(seed)
    filler = _Filler(ontology, rng)
    for template in templates:
        made = 0
        wanted = per_template * FAMILY_WEIGHTS.get(template.family, 1)
        for _ in range(wanted * 6):
            if made >= wanted:
                break
            slots = filler.fill(template, "")
            phrasing = rng.choice(_phrasings(template, slots["cat"]))
            if "color" in phrasing and "color" in ontology.categories and "{cat}" in template.program:
                slots = dict(slots, cat="color", cat_words="color")
                values = ontology.categories["color"]
                slots["v"] = rng.choice(values)
                slots["v1"], slots["v2"] = rng.sample(values, 2)
            if "material" in phrasing and "{cat}" in template.program and "material" in ontology.categories:
                values = ontology.categories["material"]
                slots = dict(slots, cat="material", cat_words="material", v=rng.choice(values))
                slots["v1"], slots["v2"] = rng.sample(values, 2)
            if not _consistent(template, phrasing, slots):
                continue
            question, program = _render(template, phrasing, slots)
            made += 1
            yield template.family, question, program


_PLACE_NAMED = re.compile(r"^(query|choose_attr)\(unique\(select\(scene\(\), place\)\), name(, [a-z_]+, [a-z_]+)?\)$")


def _place_as_scene(program: str) -> str | None:
    """A program drawn with `place` as a group, as GQA asks about the place: the scene's `place`
    ("What kind of place is it?"); None for other programs that select places as objects.

    >>> _place_as_scene("query(unique(select(scene(), place)), name)")
    'query(unique(select(scene(), scene)), place)'
    >>> _place_as_scene("query(unique(filter(select(scene(), place), material, wood)), name)") is None
    True
    """
    if "select(scene(), place)" not in program:
        return program
    named = _PLACE_NAMED.match(program)
    if named is None:
        return None
    return f"{named.group(1)}(unique(select(scene(), scene)), place{named.group(2) or ''})"


def generate_examples(
    ontology: Ontology,
    per_template: int = 400,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
    templates: Sequence[Template] = TEMPLATES,
) -> list[Example]:
    """Deduplicated generated examples (ids ``gen-<family>-<n>``), deterministic for the arguments;
    `templates` other than the question templates (claims, `trust.claim_bank`) use the same slots."""
    examples: list[Example] = []
    seen: set[str] = set()
    for family, question, drawn in _iter_examples(ontology, per_template, seed, templates):
        key = normalise_question(question)
        text = _place_as_scene(drawn)
        if key in seen or text is None:
            continue
        try:
            program = parse_nested(text)
        except ProgramError:
            continue  # a fill the operation table rejects (e.g. a value that is not a constant)
        seen.add(key)
        examples.append(Example(f"gen-{family}-{len(examples)}", question, program, source="generated"))
        if progress is not None:
            progress(len(examples))
    return examples
