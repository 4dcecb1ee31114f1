"""A question's wording before translation: phrases about the image itself read as the whole scene.

"Is there a cat in the picture?" asks what "Is there a cat?" asks; GQA's programs never select a
`picture`. The image is named by the frame phrases below; they are taken out (or, where that
would leave a dangling verb, replaced by "this") so that neither template fill nor the model
reads the image as an object. "Do you see"/"can you see" ask whether something is there,
"piece of furniture" or "clothing item" names the group itself, and a name spelled with a hyphen
is the one word its joined spelling is ("t-shirt": `grounded_words.SPELLINGS` knows "tshirt"). A
relation said again before the second of two things offered is said once ("on the chair or on the
table"), and a value said of "anything" before a relation is said of a thing ("a white thing on
the table").

Example:
    >>> read_as_scene("Who in the photo is sitting?")
    'Who is sitting?'
    >>> read_as_scene("What color is the bench on the left side of the image?")
    'What color is the bench on the left?'
    >>> read_as_scene("What fruit is in this image?")
    'What fruit is this?'
    >>> read_as_scene("Is this a photo of a park or maybe a farm?")
    'Is this a park or a farm?'
    >>> read_as_scene("Do you see any cats?")
    'Are there any cats?'
    >>> read_as_scene("What the scarf on the chair is called?")
    'What is the scarf on the chair called?'
    >>> read_as_scene("Where in the picture is the lamp, on the left or on the right?")
    'Is the lamp on the left or on the right?'
    >>> read_as_scene("What room might it be?"), read_as_scene("The cat is on what rug?")
    ('What room is it?', 'What rug is the cat on?')
    >>> read_as_scene("Which size is the black cat, large or little?")
    'Is the black cat large or little?'
    >>> read_as_scene("Where is the cat sitting, on the chair or on the table?")
    'Is the cat sitting on the chair or the table?'
    >>> read_as_scene("Is there anything white on the table?")
    'Is there a white thing on the table?'
    >>> read_as_scene("Who wears the t-shirt?"), read_as_scene("Is the shirt short-sleeved?")
    ('Who wears the tshirt?', 'Is the shirt short-sleeved?')
"""

from __future__ import annotations

import re

from theory.attributes import attribute_table
from translators.wording.grounded_words import SPELLINGS
from translators.wording.ontology import bundled_ontology

_IMAGE = r"(?:picture|photo|photograph|image|pic|scene|shot)"
_THE = r"(?:the|this|that)"
# A subject said before its verb: an object ("the snow", "the man that is near the car") or a pronoun.
_SUBJECT = r"(?:the|he|she|it|they|this|that)\b[^?,]*(?<!\bthat)(?<!\bwhich)(?<!\bwho)"
_PHRASES = (
    # "on the right side of the picture" -> "on the right"; "which side of the photo" -> "which side"
    (
        re.compile(
            rf"\b(left|right|top|bottom|middle|center)(?:\s+(?:side|part|half|corner))?\s+of\s+{_THE}\s+{_IMAGE}\b",
            re.I,
        ),
        r"\1",
    ),
    (re.compile(rf"\b(side|part|half|corner)\s+of\s+{_THE}\s+{_IMAGE}\b", re.I), r"\1"),
    # "the animal that is shown in the picture", "the man in this photo", "presented in the image"
    (
        re.compile(
            rf"(?:\s+(?:that|which)\s+(?:is|are))?(?:\s+(?:shown|pictured|presented|seen|visible))?"
            rf"\s+(?:in|on)\s+{_THE}\s+{_IMAGE}\b",
            re.I,
        ),
        "",
    ),
    # "the animal that is shown?" -> "the animal?"
    (re.compile(r"\s+(?:that|which)\s+(?:is|are)\s+(?:shown|pictured|presented|visible)\b", re.I), ""),
    # "Is this a photo of a park or a farm?" -> "Is this a park or a farm?"
    (re.compile(rf"\b(is|are)\s+(this|it|that)\s+(?:an?\s+)?{_IMAGE}\s+of\s+", re.I), r"\1 \2 "),
    # "What room is shown (here)?" -> "What room is this?"
    (
        re.compile(r"\b(is|are)\s+(?:shown|pictured|presented)(?:\s+here)?\s*(?=\?|$)", re.I),
        lambda m: _this(m.group(1)),
    ),
    # "What room is the photo in?", "What room is this image in?" -> "What room is this?"
    (re.compile(rf"\b(is|are)\s+{_THE}\s+{_IMAGE}\s+(?:in|at|of)\s*(?=\?|$)", re.I), lambda m: _this(m.group(1))),
)
# "piece of furniture", "clothing item", "article of clothing" name the group itself, as GQA reads
# them; "in front or behind" is GQA's "in front of or behind"; a choice of sides is read in the bank's order.
_GROUP_PHRASES = (
    # What the picture shows, asked of the picture as a whole, is the place it shows (GQA's reading).
    (re.compile(rf"^\s*what (?:is|does) {_THE} {_IMAGE} show(?:ing|s)?\b", re.I), "Which place is it"),
    (re.compile(r"\bin front or behind\b", re.I), "in front of or behind"),
    # GQA's "before" is a place, "in front of" ("What animal is the wall before?"); time is out of scope.
    (re.compile(r"\bbefore\b", re.I), "in front of"),
    # "a restaurant or maybe a church": the hedge changes nothing that is asked.
    (re.compile(r"\bor\s+(?:maybe|perhaps|possibly)\s+", re.I), "or "),
    # A choice means the same in either order; the bank says "left or right" and "top or bottom".
    (re.compile(r"\b(the |on the )?right or (the |on the )?left\b", re.I), r"\1left or \2right"),
    (re.compile(r"\b(the |at the |in the )?bottom or (the |at the |in the )?top\b", re.I), r"\1top or \2bottom"),
    (re.compile(r"\b(?:piece|pieces|item|items|article|articles)\s+of\s+(furniture|clothing)\b", re.I), r"\1"),
    (re.compile(r"\b(clothing|furniture)\s+(?:item|items|article|articles|piece|pieces)\b", re.I), r"\1"),
    # GQA's "What the scarf is called?" asks "What is the scarf called?".
    (re.compile(r"^\s*what\s+(the\s+.+?)\s+(is|are)\s+called\s*\?", re.I), r"What \2 \1 called?"),
    # "the animal that that fence is in front of": the second "that" points at the fence, as "the" does.
    (re.compile(r"\b(that|which)\s+that\b", re.I), r"\1 the"),
    # The weather asked after however it is worded is the scene's weather, as "What is the weather like?" asks.
    (
        re.compile(r"^\s*how\s+is\s+the\s+weather(?:\s+(?:today|now|outside|here|on\s+this\s+day))?\b", re.I),
        "What is the weather like",
    ),
    (
        re.compile(
            r"^\s*(?:what|which)\s+(?:(?:type|kind|sort)\s+of\s+)?weather\s+"
            r"(?:is\s+(?:it|this|that|there|shown|pictured)|(?:do|can)\s+you\s+see)\b",
            re.I,
        ),
        "What is the weather like",
    ),
    # "What room might it be?", "What room does it represent?", "Where was this shot taken?" ask
    # what the bank asks plainly: the place or room the picture shows.
    (
        re.compile(
            r"^(\s*(?:what|which|where)\b[^?,]*?)\s+(?:could|might|may|would|can)\s+(this|it|that)\s+be\b", re.I
        ),
        r"\1 is \2",
    ),
    (
        re.compile(r"^(\s*(?:what|which)\s+\w+)\s+(?:does|do)\s+(this|it|that)\s+(?:represent|depict|portray)\b", re.I),
        r"\1 is \2",
    ),
    (re.compile(rf"\b(?:was|were|is)\s+{_THE}\s+{_IMAGE}\s+taken(?:\s+(?:at|in))?\s*(?=\?|$)", re.I), "is this"),
    (re.compile(r"^(\s*(?:what|which))\s+(?:venue|location|setting)\s+is\s+(this|it|that)\b", re.I), r"\1 place is \2"),
    (re.compile(r"\broom\s+of\s+(?:the|a|this)\s+(?:house|home|apartment)\b", re.I), "room"),
    (
        re.compile(r"^(\s*(?:what|which))\s+(?:kind|type|sort)\s+of\s+(place|room)\s+is\s+(this|it|that)\b", re.I),
        r"\1 \2 is \3",
    ),
    (re.compile(r"^\s*what\s+is\s+(?:this|that)\s+(place|room)\s*\?", re.I), r"What \1 is this?"),
    # "on the left or right of the bus" relates as "to the left or to the right of the bus" does.
    (
        re.compile(r"\bon\s+the\s+(left|right)\s+or\s+(?:on\s+)?(?:the\s+)?(left|right)\s+of\b", re.I),
        r"to the \1 or to the \2 of",
    ),
    # "The lamp is where?", "The cat is on what rug?": the wh-word said last asks what it asks first.
    (
        re.compile(rf"^\s*({_SUBJECT})\s+(is|are)\s+where\s*\?", re.I),
        lambda m: f"Where {m[2]} {_lower_first(m[1])}?",
    ),
    (
        re.compile(rf"^\s*({_SUBJECT})\s+(is|are)\s+(?:([a-z ]+?)\s+)?(what|which|who)((?:\s+\w+)?)\s*\?", re.I),
        lambda m: f"{m[4].capitalize()}{m[5]} {m[2]} {_lower_first(m[1])}{' ' + m[3] if m[3] else ''}?",
    ),
    # "in the center" is GQA's middle; "in the bottom part" is at the bottom.
    (re.compile(r"\b(?:in|at)\s+the\s+(?:center|centre)\b", re.I), "in the middle"),
    (re.compile(r"\b(?:in|at)\s+the\s+(top|bottom)\s+(?:part|half)\b", re.I), r"at the \1"),
    # "Are there bicycles or fences there?": the second "there" points at the picture again.
    (re.compile(r"^(\s*(?:are|is)\s+there\s+[^?]+?)\s+there(?=\s*\?|\s+(?:that|which)\b)", re.I), r"\1"),
    # "Is there either any cow or fence?": "either" only announces the choice.
    (re.compile(r"\b(is|are)\s+there\s+either\b", re.I), r"\1 there"),
    # "Which material makes up the floor, ...?" asks what "What material is the floor, ...?" asks.
    (
        re.compile(r"^(\s*(?:what|which)\s+material)\s+(?:is\s+used\s+to\s+make|makes\s+up|forms)\b", re.I),
        r"\1 is",
    ),
    # "What color do you think the shirt has?": the frame in the middle, the verb in the plural or not.
    (
        re.compile(r"^(\s*(?:what|which)\s+\w+)\s+do\s+you\s+think\s+(.+?)\s+(?:has|have)\s*\?", re.I),
        r"\1 does \2 have?",
    ),
    # "Where is the lamp, on the left or on the right?" (or after a colon) offers the two places it asks between.
    (
        re.compile(
            r"^\s*where\s+(is|are)\s+(.+?)\s*[,:]\s*((?:on|at|in)\s+the\s+\w+\s+or\s+(?:(?:on|at|in)\s+)?the\s+\w+)\s*\?",
            re.I,
        ),
        lambda m: f"{m[1].capitalize()} {m[2]} {m[3]}?",
    ),
)
# "on the chair or on the table": a preposition said again before the second thing offered relates
# it as the first ("on the chair or the table", the bank's wording); not a choice of sides.
_REPEATED_RELATION = re.compile(
    r"\b(on|in|at|under|behind|near|beside|inside|above|below|by|over)\s+(the|a|an)\s+([a-z]+(?:\s[a-z]+)?)"
    r"\s+or\s+\1\s+(the|a|an)\s+([a-z]+)\b",
    re.I,
)
_SIDES = frozenset("left right top bottom middle center centre front back side".split())
# "Is there anything white on the table?": a value said of "anything" before a relation is said of a
# thing ("a white thing on the table"), which composition reads, as it reads "a white cup on the table".
_ANYTHING_VALUE = re.compile(
    r"\b(is|are)\s+there\s+(?:anything|something)\s+([a-z]+)\s+"
    r"(on|in|at|under|behind|near|beside|inside|above|below|by|over|next|to)\b",
    re.I,
)


def _value_of_a_thing(match: re.Match[str]) -> str:
    value, preposition = match[2].lower(), match[3].lower()
    if not any(value in values for values in attribute_table().values()):
        return match[0]
    # A value that makes a relation with the preposition after it is that relation ("anything parked
    # on the tent", "anything sitting under the menu").
    made = f"{value}_{preposition}"
    if value.endswith("ing") or any(r == made or r.startswith(made + "_") for r in bundled_ontology().relations):
        return match[0]
    return f"{match[1]} there a {match[2]} thing {match[3]}"


def _relation_once(match: re.Match[str]) -> str:
    if {match[3].split()[-1].lower(), match[5].lower()} & _SIDES:
        return match[0]
    return f"{match[1]} {match[2]} {match[3]} or {match[4]} {match[5]}"


_DANGLING = re.compile(r"\b(is|are)\s*(\?)?$", re.I)
_SEE = re.compile(r"^\s*(?:do|can|could)\s+you\s+see\b(?=\s+(an?\b)?)", re.I)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _this(verb: str) -> str:
    return f"{verb} {'these' if verb.lower() == 'are' else 'this'}"


# "Which size is the animal, large or little?": a category named, then two of its values offered.
_CATEGORY_CHOICE = re.compile(
    r"^\s*(?:what|which)\s+([a-z]+)\s+(is|are)\s+([^,?]+?),\s*([a-z]+(?:\s[a-z]+)?)\s+or\s+([a-z]+(?:\s[a-z]+)?)\s*\?\s*$",
    re.I,
)


def _category_choice(match: re.Match[str]) -> str:
    """ "Is the animal large or little?" where both offered words are values of the category named."""
    values = attribute_table().get(match[1].lower(), ())
    if match[4].lower() not in values or match[5].lower() not in values:
        return match[0]
    return f"{match[2].capitalize()} {match[3]} {match[4]} or {match[5]}?"


_HYPHENATED = re.compile(r"\b([a-z]+)-([a-z]+)\b", re.I)


def _joined(match: re.Match[str]) -> str:
    # Every tokenizer of the translators splits at a hyphen, and "t shirt" would read as a shirt
    # that is "t"; the joined spelling is the name.
    joined = (match[1] + match[2]).lower()
    return joined if joined in SPELLINGS else match[0]


def read_as_scene(question: str) -> str:
    """The question with its phrases about the image read as the whole scene (see the module docstring)."""
    text = question.strip()
    for pattern, replacement in _PHRASES:
        changed = pattern.sub(replacement, text)
        if changed != text:
            text = changed
            if _DANGLING.search(text) and not _DANGLING.search(question.strip()):
                # "What fruit is in this photo?" -> "What fruit is?" -> "What fruit is this?"
                text = _DANGLING.sub(lambda m: f"{_this(m.group(1))}{m.group(2) or ''}", text)
    # "Do you see a fly?" asks "Is there a fly?", in the number the object is said in.
    text = _SEE.sub(lambda m: "Is there" if m[1] else "Are there", text)
    for pattern, replacement in _GROUP_PHRASES:
        text = pattern.sub(replacement, text)
    text = _CATEGORY_CHOICE.sub(_category_choice, text)
    text = _REPEATED_RELATION.sub(_relation_once, text)
    text = _ANYTHING_VALUE.sub(_value_of_a_thing, text)
    text = _HYPHENATED.sub(_joined, text)
    return re.sub(r"\s+([?,.])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()
