"""Generated worked examples: (question, program) pairs from the project's own templates, filled
with an ontology's classes, attribute values and relations.

A template is a few phrasings and one nested program with slots. Slots: ``{a}``, ``{b}`` classes;
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
    >>> from translators.ontology import bundled_ontology
    >>> examples = generate_examples(bundled_ontology(), per_template=2)
    >>> len(examples) > 100 and all(e.source == "generated" for e in examples)
    True
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from theory.nested import parse_nested
from theory.operations import OPPOSITE_PAIRS, POSITION_PHRASES
from theory.program import ProgramError
from translators.bank import Example, normalise_question
from translators.ontology import ANY_GROUP, Ontology

# Opposite relation pairs a "X or Y" choice is asked with, as the question writes them.
OPPOSITES = tuple((a.replace("_", " "), b.replace("_", " ")) for a, b in OPPOSITE_PAIRS)
# Relations photos show most (people wear and hold things, objects sit on and next to each other):
# drawn more often so that the everyday phrasings are well covered. Our own judgement, not counts.
COMMON_RELATIONS = (
    "on",
    "in",
    "wearing",
    "holding",
    "to the left of",
    "to the right of",
    "near",
    "behind",
    "next to",
    "in front of",
    "on top of",
    "sitting on",
    "standing on",
    "carrying",
    "under",
    "above",
    "of",
    "with",
    "riding",
    "by",
    "beside",
    "sitting in",
    "standing in",
    "hanging on",
    "eating",
    "looking at",
    "watching",
    "covered in",
    "inside",
    "at",
    "lying on",
    "parked on",
    "walking on",
    "playing with",
    "using",
    "below",
    "full of",
    "covering",
)
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
# Relations also asked with a finite verb ("Who wears the hat?", "What does the man hold?"):
# relation -> (third person, base form). Only these get the verb phrasings.
VERB_FORMS = {
    "wearing": ("wears", "wear"),
    "holding": ("holds", "hold"),
    "carrying": ("carries", "carry"),
    "riding": ("rides", "ride"),
    "eating": ("eats", "eat"),
    "using": ("uses", "use"),
    "watching": ("watches", "watch"),
    "looking_at": ("looks at", "look at"),
    "sitting_on": ("sits on", "sit on"),
    "standing_on": ("stands on", "stand on"),
    "lying_on": ("lies on", "lie on"),
    "walking_on": ("walks on", "walk on"),
    "playing_with": ("plays with", "play with"),
    "covering": ("covers", "cover"),
    "hanging_on": ("hangs on", "hang on"),
    "throwing": ("throws", "throw"),
    "swinging": ("swings", "swing"),
    "pulling": ("pulls", "pull"),
    "pushing": ("pushes", "push"),
    "catching": ("catches", "catch"),
    "hitting": ("hits", "hit"),
    "touching": ("touches", "touch"),
    "feeding": ("feeds", "feed"),
    "drinking": ("drinks", "drink"),
    "driving": ("drives", "drive"),
    "flying": ("flies", "fly"),
    "leaning_on": ("leans on", "lean on"),
    "surrounding": ("surrounds", "surround"),
    "reading": ("reads", "read"),
    "chasing": ("chases", "chase"),
    "cutting": ("cuts", "cut"),
    "kicking": ("kicks", "kick"),
    "grazing_on": ("grazes on", "graze on"),
    "crossing": ("crosses", "cross"),
}
# How a group is named in questions besides its own word ("What is this piece of furniture called?").
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
# Categories asked about with their own wording; the rest use "What is the {cat} of ...".
_CATEGORY_QUESTIONS = {
    "color": [
        "What color is the {a}?",
        "Which color is the {a}?",
        "What is the color of the {a}?",
        "The {a} is what color?",
        "What color does the {a} have?",
        "Of what color is the {a}?",
        "The {a} has what color?",
        "The {a} is of which color?",
        "What colour is the {a}?",
        "What color do you think the {a} is?",
    ],
    "material": [
        "What is the {a} made of?",
        "What material is the {a} made of?",
        "What is the material of the {a}?",
        "Which material is the {a} made of?",
        "The {a} is made of what material?",
        "What is the {a} made out of?",
        "What material is the {a}?",
        "Which material was used to make the {a}?",
    ],
    "shape": ["What shape is the {a}?", "What is the shape of the {a}?", "Which shape does the {a} have?"],
    "size": ["How big is the {a}?", "What size is the {a}?", "What is the size of the {a}?", "How large is the {a}?"],
    "pose": ["What is the {a} doing?", "What pose is the {a} in?"],
    "activity": ["What is the {a} doing?", "Which activity is the {a} doing?"],
    "pattern": ["What pattern does the {a} have?", "What is the pattern of the {a}?"],
    "age": ["How old is the {a}?", "What age is the {a}?"],
    "length": ["How long is the {a}?", "What is the length of the {a}?"],
    "height": ["How tall is the {a}?", "What height is the {a}?"],
    "cleanliness": ["How clean is the {a}?", "Is the {a} clean or dirty?"],
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


TEMPLATES: tuple[Template, ...] = (
    # --- existence and logic -------------------------------------------------------------------
    _t(
        "exist",
        "exist({S})",
        "Is there a {a} in the picture?",
        "Is a {a} visible?",
        "Are any {as} visible in this picture?",
        "Are there any {as}?",
        "Do you see any {as}?",
        "Is there a {a}?",
        "Are there {as} in this image?",
        "Do you see a {a} there?",
        "Is there any {a} in the photo?",
    ),
    _t(
        "exist_attr",
        "exist(filter({S}, {cat}, {v}))",
        "Is there a {v} {a}?",
        "Are there {v} {as}?",
        "Do you see any {v} {as}?",
        "Is there a {a} that is {v}?",
        "Are there any {v} {as} in the picture?",
    ),
    _t(
        "exist_rel",
        "exist(relate({SB}, {a}, {r}, subject))",
        "Is there a {a} {r} the {b}?",
        "Are there {as} {r} the {b}?",
        "Do you see a {a} {r} the {b}?",
        "Is there any {a} {r} the {b} in the image?",
    ),
    _t(
        "exist_rel_attr",
        "exist(relate(filter({SB}, {cat}, {v}), {a}, {r}, subject))",
        "Do you see any {as} {r} the {v} {b}?",
        "Is there a {a} {r} the {v} {b}?",
        "Are there {as} {r} the {b} that is {v}?",
    ),
    _t(
        "exist_rel_pos",
        "exist(relate(filter({SB}, {pcat}, {p}), {a}, {r}, subject))",
        "Is there a {a} {r} the {b} {pw}?",
        "Are there {as} {r} the {b} {pw}?",
    ),
    _t(
        "exist_rel_any",
        "exist(relate_any({SB}, {r}, subject))",
        "Is there anything {r} the {b}?",
        "Is anything {r} the {b}?",
    ),
    _t(
        "and_exist",
        "and(exist({S}), exist({SB}))",
        "Are there both {as} and {bs} in the picture?",
        "Are there both a {a} and a {b}?",
        "Do you see both {as} and {bs}?",
        "Is there a {a} and a {b} in the image?",
    ),
    _t(
        "or_exist",
        "or(exist({S}), exist({SB}))",
        "Are there {as} or {bs}?",
        "Are there any {as} or {bs}?",
        "Do you see any {as} or {bs} there?",
        "Is there a {a} or a {b} in the picture?",
        "Is there a {a} or a {b}?",
        "Is there any {a} or {b} in the image?",
        "Is there either a {a} or a {b}?",
    ),
    _t(
        "or_exist_attr",
        "or(exist(filter({S}, {cat}, {v})), exist(filter({SB}, {cat}, {v})))",
        "Are there {v} {as} or {bs}?",
        "Is there a {v} {a} or {b}?",
        "Are there any {v} {as} or {bs} in the image?",
        "Is there either a {v} {a} or {b}?",
        "Are there either {v} {as} or {bs}?",
    ),
    _t(
        "and_exist_attr",
        "and(exist(filter({S}, {cat}, {v})), exist(filter({SB}, {cat}, {v})))",
        "Are there both {v} {as} and {bs}?",
        "Are there both a {v} {a} and a {v} {b}?",
    ),
    _t(
        "and_verify",
        "and(verify_attr(unique({S}), {cat}, {v}), verify_attr(unique({S}), {cat2}, {w}))",
        "Is the {a} {v} and {w}?",
        "Does the {a} look {v} and {w}?",
        "Is the {a} both {v} and {w}?",
    ),
    _t(
        "or_verify",
        "or(verify_attr(unique({S}), {cat}, {v}), verify_attr(unique({S}), {cat2}, {w}))",
        "Is the {a} {v} or {w}?",
        "Does the {a} look {v} or {w}?",
    ),
    _t(
        "both_verify",
        "and(verify_attr(unique({S}), {cat}, {v}), verify_attr(unique({SB}), {cat}, {v}))",
        "Are both the {a} and the {b} {v}?",
        "Are the {a} and the {b} both {v}?",
    ),
    _t(
        "either_verify",
        "or(verify_attr(unique({S}), {cat}, {v}), verify_attr(unique({SB}), {cat}, {v}))",
        "Is either the {a} or the {b} {v}?",
        "Are either the {a} or the {b} {v}?",
        "Is the {a} or the {b} {v}?",
    ),
    _t(
        "not_exist",
        "exist(negate(filter({S}, {cat}, {v}), {S}))",
        "Is there a {a} that is not {v}?",
        "Are there any {as} that are not {v}?",
    ),
    # --- attributes ----------------------------------------------------------------------------
    _t("query_attr", "query(unique({S}), {cat})", "CATEGORY_QUESTIONS|the {a}|this {a}"),
    _t("query_attr_pl", "query(unique(select(scene(), {ap})), {cat})", "CATEGORY_QUESTIONS_PL"),
    # The material in each of its wordings (query_attr draws it too seldom for each to be there).
    _t("query_material", "query(unique({S}), material)", *_CATEGORY_QUESTIONS["material"]),
    _t(
        "query_attr_rel_s",
        "query(unique(relate({SB}, {a}, {r}, subject)), {cat})",
        "CATEGORY_QUESTIONS|the {a} {r} the {b}|the {a} that is {r} the {b}",
    ),
    _t(
        "query_attr_rel_o",
        "query(unique(relate({S}, {b}, {r}, object)), {cat})",
        "CATEGORY_QUESTIONS|the {b} the {a} is {r}|the {b} that the {a} is {r}",
    ),
    _t(
        "query_attr_rel_other",
        "query(unique(relate({S}, {a}, {r}, subject)), {cat})",
        "CATEGORY_QUESTIONS|the {a} {r} the other {a}|the {a} that is {r} the other {a}",
    ),
    _t(
        "query_attr_his",
        "query(unique(relate(select(scene(), he), {a}, of, subject)), {cat})",
        "CATEGORY_QUESTIONS|his {a}",
    ),
    _t(
        "query_attr_her",
        "query(unique(relate(select(scene(), she), {a}, of, subject)), {cat})",
        "CATEGORY_QUESTIONS|her {a}",
    ),
    _t(
        "query_material_rel_s",
        "query(unique(relate({SB}, {a}, {r}, subject)), material)",
        "What is the {a} {r} the {b} made of?",
        "What material is the {a} that is {r} the {b}?",
    ),
    _t(
        "query_attr_pos",
        "query(unique(filter({S}, {pcat}, {p})), {cat})",
        "CATEGORY_QUESTIONS|the {a} {pw}|the {a} that is {pw}|the {a} {pw} of the picture",
    ),
    _t(
        "query_attr_filter",
        "query(unique(filter({S}, {cat2}, {w})), {cat})",
        "CATEGORY_QUESTIONS|the {w} {a}|the {a} that is {w}",
    ),
    _t(
        "verify_attr",
        "verify_attr(unique({S}), {cat}, {v})",
        "Is the {a} {v}?",
        "Does the {a} look {v}?",
        "Is that {a} {v}?",
        "Do you think the {a} is {v}?",
        "Is the {a} {v} or not?",
        "Does the {a} appear to be {v}?",
        "Is this {a} {v}?",
        "Is the color of the {a} {v}?",
        "Does the {a} have {v} color?",
        "Is the {a} {v} in color?",
    ),
    _t(
        "verify_material",
        "verify_attr(unique({S}), material, {m})",
        "Is the {a} made of {m}?",
        "Is the {a} made out of {m}?",
        "Is the {a} made from {m}?",
    ),
    _t(
        "verify_attr_pl",
        "verify_attr(unique(select(scene(), {ap})), {cat}, {v})",
        "Are the {as} {v}?",
        "Do the {as} look {v}?",
        "Are these {as} {v}?",
    ),
    _t(
        "verify_attr_rel",
        "verify_attr(unique(relate({SB}, {a}, {r}, subject)), {cat}, {v})",
        "Is the {a} {r} the {b} {v}?",
        "Is the {a} that is {r} the {b} {v}?",
        "Does the {a} {r} the {b} look {v}?",
    ),
    _t(
        "choose_attr_pl",
        "choose_attr(unique(select(scene(), {ap})), {cat}, {v1}, {v2})",
        "Are the {as} {v1} or {v2}?",
        "Do the {as} look {v1} or {v2}?",
        "Which color are the {as}, {v1} or {v2}?",
    ),
    _t(
        "choose_attr",
        "choose_attr(unique({S}), {cat}, {v1}, {v2})",
        "Is the {a} {v1} or {v2}?",
        "Does the {a} look {v1} or {v2}?",
        "What color is the {a}, {v1} or {v2}?",
        "Is that {a} {v1} or {v2}?",
        "Which color is the {a}, {v1} or {v2}?",
        "Do you think the {a} is {v1} or {v2}?",
        "Is the color of the {a} {v1} or {v2}?",
        "What is the color of the {a}, {v1} or {v2}?",
        "Which color do you think the {a} is, {v1} or {v2}?",
    ),
    _t(
        "choose_material",
        "choose_attr(unique({S}), material, {m1}, {m2})",
        "Is the {a} made of {m1} or {m2}?",
        "What is the {a} made of, {m1} or {m2}?",
        "Is the {a} made of {m1} or of {m2}?",
        "Which material is the {a} made of, {m1} or {m2}?",
    ),
    _t(
        "choose_attr_filter",
        "choose_attr(unique(filter({S}, {cat2}, {w})), {cat}, {v1}, {v2})",
        "Is the {w} {a} {v1} or {v2}?",
        "Does the {w} {a} look {v1} or {v2}?",
    ),
    _t(
        "choose_other_filter",
        "choose_attr(unique(filter({S}, {cat}, {v})), other, {u}, {u2})",
        "Is the {v} {a} {u} or {u2}?",
    ),
    _t(
        "choose_attr_rel",
        "choose_attr(unique(relate({SB}, {a}, {r}, subject)), {cat}, {v1}, {v2})",
        "Is the {a} {r} the {b} {v1} or {v2}?",
        "What color is the {a} {r} the {b}, {v1} or {v2}?",
    ),
    _t(
        "choose_name",
        "choose_attr(unique(select(scene(), {g})), name, {a}, {b})",
        "Which {g} is this, a {a} or a {b}?",
        "What {g} is it, a {a} or a {b}?",
        "Is the {g} a {a} or a {b}?",
        "Which kind of {g} is this, a {a} or a {b}?",
    ),
    # A choice between two names of what a relation reaches ("What fruit is on the plate, an apple or
    # a banana?", "Who is wearing the hat, the man or the woman?").
    _t(
        "choose_group_rel_s",
        "choose_attr(unique(relate({SB}, {g}, {r}, subject)), name, {x}, {y})",
        "What {g} is {r} the {b}, a {x} or a {y}?",
        "Which {g} is {r} the {b}, a {x} or a {y}?",
        "Which kind of {g} is {r} the {b}, a {x} or a {y}?",
        "Is the {g} {r} the {b} a {x} or a {y}?",
    ),
    _t(
        "choose_group_rel_o",
        "choose_attr(unique(relate({S}, {g}, {r}, object)), name, {x}, {y})",
        "What {g} is the {a} {r}, a {x} or a {y}?",
        "Which {g} is the {a} {r}, a {x} or a {y}?",
        "What kind of {g} is the {a} {r}, a {x} or a {y}?",
    ),
    _t(
        "choose_rel_any_o",
        "choose_attr(unique(relate_any({S}, {r}, object)), name, {x}, {y})",
        "Is the {a} {r} a {x} or a {y}?",
        "What is the {a} {r}, a {x} or a {y}?",
        "What does the {a} {rb}, a {x} or a {y}?",
    ),
    _t(
        "choose_who",
        "choose_attr(unique(relate({SB}, person, {r}, subject)), name, {x}, {y})",
        "Who is {r} the {b}, the {x} or the {y}?",
        "Who {rv} the {b}, the {x} or the {y}?",
    ),
    _t(
        "same_two",
        "two_same(unique({S}), unique({SB}), {cat})",
        "Do the {a} and the {b} have the same color?",
        "Are the {a} and the {b} the same color?",
        "Is the {a} the same color as the {b}?",
        "Do the {a} and the {b} have the same {cat_words}?",
        "Are the {a} and the {b} made of the same material?",
        "Does the {a} have the same color as the {b}?",
        "Is the {a} made of the same material as the {b}?",
        "Are both the {a} and the {b} the same color?",
    ),
    _t(
        "different_two",
        "two_different(unique({S}), unique({SB}), {cat})",
        "Do the {a} and the {b} have different colors?",
        "Are the {a} and the {b} different in color?",
        "Is the {a} a different color than the {b}?",
        "Are the {a} and the {b} different colors?",
        "Do the {a} and the {b} have a different {cat_words}?",
    ),
    _t(
        "all_same",
        "all_same({S}, {cat})",
        "Are all the {as} the same color?",
        "Do all the {as} have the same color?",
        "Are all the {as} the same {cat_words}?",
        "Do the {as} all have the same {cat_words}?",
    ),
    _t(
        "all_different",
        "all_different({S}, {cat})",
        "Are all the {as} different colors?",
        "Do all the {as} have different colors?",
        "Do the {as} have different {cat_words}s?",
    ),
    _t(
        "common",
        "common(unique({S}), unique({SB}))",
        "What do the {a} and the {b} have in common?",
        "What is common to the {a} and the {b}?",
        "What do both the {a} and the {b} have in common?",
    ),
    _t(
        "compare",
        "query(compare(unique({S}), unique({SB}), {cv}, {pol}), name)",
        "Which is {cmp}, the {a} or the {b}?",
        "Which one is {cmp}, the {a} or the {b}?",
        "Is the {a} or the {b} {cmp}?",
        "What is {cmp}, the {a} or the {b}?",
        "Who is {cmp}, the {a} or the {b}?",
    ),
    # --- categories ----------------------------------------------------------------------------
    _t(
        "query_group",
        "query(unique(select(scene(), {g})), name)",
        "What kind of {g} is it?",
        "Which kind of {g} is this?",
        "What {g} is this?",
        "What kind of {g} is shown in the picture?",
        "What type of {g} is it?",
        "Which {g} is it?",
        "What {gs} are shown?",
        "What is this {g} called?",
        "How is this {g} called?",
        "What is the name of this {g}?",
        "What is the {g} called?",
        "What are the {gs} called?",
        "How are these {gs} called?",
        "What is the {g} in the photo?",
        "What are the {gs} in the picture?",
        "What type of {g} is in the photo?",
        "How is the {g} in the image called?",
    ),
    _t(
        "query_group_attr",
        "query(unique(filter(select(scene(), {g}), {cat}, {v})), name)",
        "What kind of {g} is {v}?",
        "Which kind of {g} is {v}?",
        "What {g} is {v}?",
        "What is the name of the {v} {g}?",
        "What is the {v} {g} called?",
        "Which {g} is {v}?",
        "What type of {g} is {v}?",
        "What are the {v} {gs} called?",
        "What are the {v} {gs}?",
        "How is the {v} {g} called?",
    ),
    _t(
        "query_group_material",
        "query(unique(filter(select(scene(), {g}), material, {m})), name)",
        "What kind of {g} is made of {m}?",
        "Which {g} is made of {m}?",
        "What type of {g} is made of {m}?",
        "What are the {gs} that are made of {m}?",
    ),
    _t(
        "query_group_not",
        "query(unique(negate(filter(select(scene(), {g}), {cat}, {v}), select(scene(), {g}))), name)",
        "Which kind of {g} is not {v}?",
        "What {g} is not {v}?",
    ),
    _t(
        "query_same_attr",
        "query(unique(relate_attr({S}, {g}, {cat})), name)",
        "Which kind of {g} has the same color as the {a}?",
        "What {g} is the same color as the {a}?",
    ),
    _t(
        "query_group_loose",
        "query(unique(filter_any(select(scene(), {g}), {u})), name)",
        "What kind of {g} is {u}?",
        "Which {g} is {u}?",
        "What is the {u} {g} called?",
    ),
    _t("verify_loose", "exist(filter_any(unique({S}), {u}))", "Is the {a} {u}?", "Does the {a} look {u}?"),
    _t("exist_loose", "exist(filter_any({S}, {u}))", "Are there {u} {as}?", "Is there a {u} {a}?"),
    _t(
        "choose_other",
        "choose_attr(unique({S}), other, {u}, {u2})",
        "Is the {a} {u} or {u2}?",
        "Does the {a} look {u} or {u2}?",
    ),
    _t("query_who_attr", "query(unique(filter(select(scene(), person), {cat}, {v})), name)", "Who is {v}?"),
    # --- relations -----------------------------------------------------------------------------
    _t(
        "query_rel_s",
        "query(unique(relate_any({SB}, {r}, subject)), name)",
        "What is {r} the {b}?",
        "What is {r} {bs}?",
        "What is {r} a {b}?",
        "What's {r} the {b}?",
        "Which object is {r} the {b}?",
        "What is the thing {r} the {b}?",
        "What can you see {r} the {b}?",
    ),
    _t(
        "query_who_verb",
        "query(unique(relate({SB}, person, {r}, subject)), name)",
        "Who {rv} the {b}?",
        "Who {rv} a {b}?",
        "Who {rv} {bs}?",
    ),
    _t(
        "query_rel_o_verb",
        "query(unique(relate_any({S}, {r}, object)), name)",
        "What does the {a} {rb}?",
        "What does that {a} {rb}?",
        "What does this {a} {rb}?",
    ),
    _t(
        "query_rel2_o_verb",
        "query(unique(relate_any(relate({SB}, {a}, {r2}, subject), {r}, object)), name)",
        "What does the {a} {r2} the {b} {rb}?",
        "What does the {a} that is {r2} the {b} {rb}?",
    ),
    _t(
        "query_rel_attr_o_verb",
        "query(unique(relate_any(filter({S}, {cat}, {v}), {r}, object)), name)",
        "What does the {a} that is {v} {rb}?",
        "What does the {v} {a} {rb}?",
    ),
    _t("where_place", "query(unique(relate({S}, place, on, object)), name)", "Where is the {a}?", "Where is this {a}?"),
    _t(
        "query_rel_o",
        "query(unique(relate_any({S}, {r}, object)), name)",
        "What is the {a} {r}?",
        "What is this {a} {r}?",
        "The {a} is {r} what?",
        "What is that {a} {r}?",
        "What object is the {a} {r}?",
    ),
    _t(
        "query_who_s",
        "query(unique(relate({SB}, person, {r}, subject)), name)",
        "Who is {r} the {b}?",
        "Who is {r} {bs}?",
        "Who is {r} a {b}?",
        "Who is {r} that {b}?",
        "Who is the person {r} the {b}?",
    ),
    _t(
        "query_group_rel_s",
        "query(unique(relate({SB}, {g}, {r}, subject)), name)",
        "What kind of {g} is {r} the {b}?",
        "Which kind of {g} is {r} the {b}?",
        "What {g} is {r} the {b}?",
        "What is the {g} {r} the {b}?",
        "What type of {g} is {r} the {b}?",
        "What is the name of the {g} {r} the {b}?",
        "What is the name of the {g} that is {r} the {b}?",
        "What is the {g} {r} the {b} called?",
        "The {g} {r} the {b} is what kind of {g}?",
    ),
    _t(
        "query_group_rel_o",
        "query(unique(relate({S}, {g}, {r}, object)), name)",
        "What kind of {g} is the {a} {r}?",
        "Which kind of {g} is the {a} {r}?",
        "What {g} is the {a} {r}?",
        "Which {g} is the {a} {r}?",
    ),
    _t(
        "query_rel2_o",
        "query(unique(relate_any(relate({SB}, {a}, {r2}, subject), {r}, object)), name)",
        "What is the {a} {r2} the {b} {r}?",
        "What is the {a} that is {r2} the {b} {r}?",
    ),
    _t(
        "query_rel2_s",
        "query(unique(relate_any(relate({SB}, {a}, {r2}, subject), {r}, subject)), name)",
        "What is {r} the {a} {r2} the {b}?",
        "What is {r} the {a} that is {r2} the {b}?",
    ),
    _t(
        "query_who_rel2",
        "query(unique(relate(relate({SB}, {a}, {r2}, subject), person, {r}, subject)), name)",
        "Who is {r} the {a} {r2} the {b}?",
        "Who is {r} the {a} that is {r2} the {b}?",
    ),
    _t(
        "query_rel_attr_o",
        "query(unique(relate_any(filter({S}, {cat}, {v}), {r}, object)), name)",
        "What is the {v} {a} {r}?",
        "What is the {a} that is {v} {r}?",
    ),
    _t(
        "query_rel_attr_s",
        "query(unique(relate_any(filter({SB}, {cat}, {v}), {r}, subject)), name)",
        "What is {r} the {v} {b}?",
        "What is {r} the {b} that is {v}?",
    ),
    _t(
        "query_who_attr_s",
        "query(unique(relate(filter({SB}, {cat}, {v}), person, {r}, subject)), name)",
        "Who is {r} the {v} {b}?",
    ),
    _t(
        "query_rel_pos_o",
        "query(unique(relate_any(filter({S}, {pcat}, {p}), {r}, object)), name)",
        "What is the {a} {pw} {r}?",
    ),
    _t(
        "verify_rel",
        "verify_rel(unique({S}), {b}, {r}, object)",
        "Is the {a} {r} the {b}?",
        "Is the {a} {r} a {b}?",
        "Is that {a} {r} a {b}?",
    ),
    _t(
        "verify_rel_verb",
        "verify_rel(unique({S}), {b}, {r}, object)",
        "Does the {a} {rb} a {b}?",
        "Does the {a} {rb} the {b}?",
        "Does that {a} {rb} a {b}?",
    ),
    _t(
        "choose_rel",
        "choose_rel(unique({SB}), {a}, {r1}, {r2}, subject)",
        "Is the {a} {r1} or {r2} the {b}?",
        "Is the {a} {choice} the {b}?",
        "Is the {a} {choice} that {b}?",
        "Is the {v} {a} {choice} the {b}?",
        "Is the {a} {choice} a {b}?",
    ),
    _t(
        "choose_rel_pl",
        "choose_rel(unique({SB}), {ap}, {r1}, {r2}, subject)",
        "Are the {as} {choice} the {b}?",
        "Are the {v} {as} {choice} the {b}?",
    ),
    _t(
        "choose_rel_pos",
        "choose_rel(unique(filter({SB}, {pcat}, {p})), {a}, {r1}, {r2}, subject)",
        "Is the {a} {choice} the {b} {pw}?",
        "Is the {a} {choice} the {b} {pw} of the image?",
        "Is the {v} {a} {choice} the {b} {pw}?",
    ),
    _t(
        "choose_rel_rel_verb",
        "choose_rel(unique(relate(select(scene(), {c}), {b}, {r}, subject)), {a}, {r1}, {r2}, subject)",
        "Is the {a} {choice} the {b} that {rv} the {c}?",
        "Is the {a} {choice} the {b} that {rv} a {c}?",
        "Is the {v} {a} {choice} the {b} who {rv} the {c}?",
    ),
    _t(
        "choose_rel_rel_o",
        "choose_rel(unique(relate(select(scene(), {c}), {b}, {r}, object)), {a}, {r1}, {r2}, subject)",
        "Is the {a} {choice} the {b} the {c} is {r}?",
        "Is the {a} {choice} the {b} that the {c} is {r}?",
    ),
    _t(
        "choose_rel_rel",
        "choose_rel(unique(relate(select(scene(), {c}), {b}, {r}, subject)), {a}, {r1}, {r2}, subject)",
        "Is the {a} {choice} the {b} that is {r} the {c}?",
        "Is the {a} {choice} the {b} {r} the {c}?",
        "Is the {a} {choice} the {b} that is {r} a {c}?",
        "Is the {v} {a} {choice} the {b} that is {r} the {c}?",
        "Is the {a} {choice} the {b} who is {r} a {c}?",
        "Is the {v} {a} {choice} the {b} {r} the {c}?",
    ),
    _t(
        "choose_rel_attr",
        "choose_rel(unique(filter({SB}, {cat}, {v})), {a}, {r1}, {r2}, subject)",
        "Is the {a} {choice} the {v} {b}?",
        "Is the {a} {choice} the {b} that is {v}?",
    ),
    # --- positions and the scene ---------------------------------------------------------------
    _t(
        "query_hposition",
        "query(unique({S}), hposition)",
        "On which side is the {a}?",
        "Which side of the picture is the {a} on?",
        "On which side of the photo is the {a}?",
        "Where in the image is the {a}?",
    ),
    _t(
        "choose_hposition",
        "choose_attr(unique({S}), hposition, left, right)",
        "Is the {a} on the left or on the right?",
        "Which side is the {a} on, the left or the right?",
        "Is the {a} on the left or right side of the image?",
        "Is the {a} on the left side or on the right side of the photo?",
        "On which side of the picture is the {a}, the left or the right?",
    ),
    _t(
        "verify_hposition", "verify_attr(unique({S}), {pcat}, {p})", "Is the {a} {pw}?", "Is the {a} {pw} of the image?"
    ),
    _t(
        "choose_vposition",
        "choose_attr(unique({S}), vposition, top, bottom)",
        "Is the {a} at the top or at the bottom of the picture?",
        "In which part is the {a}, the top or the bottom?",
        "Is the {a} in the top or in the bottom part of the image?",
        "Is the {a} at the top or bottom?",
    ),
    _t(
        "query_place",
        "query(unique(select(scene(), scene)), place)",
        "What place is it?",
        "Which place is this?",
        "What type of place is this?",
        "Where is this?",
        "Where was this photo taken?",
        "What kind of place is it?",
        "What is the image showing?",
        "What place could this be?",
        "Which place could this be?",
        "What is the picture showing?",
        "What does this picture show?",
        "What place was this picture taken at?",
        "What place does this show?",
    ),
    _t(
        "query_weather",
        "query(unique(select(scene(), scene)), weather)",
        "How is the weather?",
        "What is the weather like?",
        "How is the weather in this picture?",
    ),
    _t("query_room", "query(unique(select(scene(), scene)), room)", "Which room is this?", "What room is it?"),
    # --- counting (GQA asks none; last, so the families above draw exactly what they drew before) ---
    _t(
        "count",
        "count({S})",
        "How many {as} are there?",
        "How many {as} are in the picture?",
        "How many {as} are in the image?",
        "How many {as} do you see?",
        "How many {as} can you see?",
        "How many {as} are visible?",
        "What is the number of {as}?",
        "How many {as} are there in the photo?",
    ),
    _t(
        "count_attr",
        "count(filter({S}, {cat}, {v}))",
        "How many {v} {as} are there?",
        "How many {as} are {v}?",
        "How many {v} {as} are in the picture?",
        "How many {v} {as} do you see?",
        "How many {as} that are {v} are there?",
    ),
    _t(
        "count_rel",
        "count(relate({SB}, {a}, {r}, subject))",
        "How many {as} are {r} the {b}?",
        "How many {as} are there {r} the {b}?",
        "How many {as} do you see {r} the {b}?",
    ),
    _t(
        "count_rel_attr",
        "count(filter(relate({SB}, {a}, {r}, subject), {cat}, {v}))",
        "How many {v} {as} are {r} the {b}?",
        "How many {v} {as} are there {r} the {b}?",
    ),
    _t("count_rel_o", "count(relate({S}, {b}, {r}, object))", "How many {bs} is the {a} {r}?"),
    _t("count_rel_verb", "count(relate({S}, {b}, {r}, object))", "How many {bs} does the {a} {rb}?"),
    _t(
        "count_pos",
        "count(filter({S}, {pcat}, {p}))",
        "How many {as} are {pw}?",
        "How many {as} are there {pw}?",
    ),
    _t(
        "count_more",
        "compare_count(count({S}), count({SB}), more)",
        "Are there more {as} than {bs}?",
        "Are there more {as} than {bs} in the picture?",
        "Do you see more {as} than {bs}?",
        "Is the number of {as} greater than the number of {bs}?",
        "Is the number of {as} larger than the number of {bs}?",
    ),
    _t(
        "count_fewer",
        "compare_count(count({S}), count({SB}), fewer)",
        "Are there fewer {as} than {bs}?",
        "Are there less {as} than {bs}?",
        "Do you see fewer {as} than {bs}?",
        "Is the number of {as} smaller than the number of {bs}?",
        "Is the number of {as} lower than the number of {bs}?",
    ),
    _t(
        "count_same",
        "compare_count(count({S}), count({SB}), same)",
        "Are there as many {as} as {bs}?",
        "Are there the same number of {as} and {bs}?",
        "Is the number of {as} the same as the number of {bs}?",
        "Is the number of {as} equal to the number of {bs}?",
        "Is there the same number of {as} as {bs}?",
        "Do you see as many {as} as {bs}?",
    ),
    _t(
        "count_more_attr",
        "compare_count(count(filter({S}, {cat}, {v})), count(filter({SB}, {cat}, {v})), more)",
        "Are there more {v} {as} than {v} {bs}?",
    ),
    _t(
        "count_fewer_attr",
        "compare_count(count(filter({S}, {cat}, {v})), count(filter({SB}, {cat}, {v})), fewer)",
        "Are there fewer {v} {as} than {v} {bs}?",
    ),
    # --- the scene's place chosen between two (after counting, so earlier families draw as before) ---
    _t(
        "choose_place",
        "choose_attr(unique(select(scene(), scene)), place, {a}, {b})",
        "Is this a {a} or a {b}?",
        "Is it a {a} or a {b}?",
        "Is this place a {a} or a {b}?",
        "Which place is this, a {a} or a {b}?",
        "What kind of place is this, a {a} or a {b}?",
        "Is this a {a} or {b}?",
    ),
)


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
        rng, slots = self.rng, {}
        needs_verb = self.verbs and any("{rv}" in p or "{rb}" in p for p in template.phrasings)
        relation = self.o.relations[rng.choice(self.verbs) if needs_verb else self.relation()]
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
        if template.family in ("query_group_rel_o",):
            slots["g"] = rng.choice([g for g in relation.object if g in self.o.groups] or self.groups)
        wants_color = "color" in phrasing
        category = "color" if wants_color and "color" in self.categories else self.category_for(slots["a"])
        if template.family.startswith("query_attr"):
            category = self.category_for(slots["a"], 0.4)
        elif template.family == "query_who_attr":
            category = self.category_for("person", 0.0)
        elif template.family.startswith("query_group"):
            category = self.category_for(slots["g"])
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
        return slots


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
