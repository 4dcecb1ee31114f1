"""Questions outside what the programs can express, told apart by their wording.

The operations select, relate, filter, query, verify, choose, compare and count objects, their
attributes and relations in one scene. A question that asks for a reason ("why"), a manner or a
way ("how did", "how can"), a hypothetical ("what if"), what will happen ("about to", "going to
eat", "do next"), an opinion or advice ("would you",
"should I", "do you like"), a time ("when"), a smell or taste, or text read off the picture ("what
does the sign say") has no program in that language; a model would still write one and answer something. Such
a question is refused with what the service can answer instead. The forms are a short declared
table, each with the kind it names; on GQA's questions (which have none of these forms) none fires.

Example:
    >>> out_of_scope("Why is the man smiling?").kind
    'reason'
    >>> out_of_scope("How many dogs are there?") is None, out_of_scope("Do you see a cat?") is None
    (True, True)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

# What the programs can answer, for the refusal message.
ANSWERABLE = (
    "this service answers questions about the objects in the picture: whether there are any, what they are, "
    "their attributes (color, material, size, ...), where they are and how they relate, comparisons, and counts"
)

# (kind, pattern on the lower-cased question with single spaces). Verbs of seeing ("do you see",
# "can you see") are how GQA asks about existence and "do you think" is its filler ("What color do
# you think the coat is?"), so neither is an opinion.
_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("reason", r"^(why|how come)\b|\bfor what reason\b|\bwhat is the reason\b"),
        ("hypothetical", r"^(what if|what would happen|what will happen|suppose|imagine)\b"),
        # "What is the boy about to eat?" was answered with what he eats, "What will the dog do next?"
        # with what the dog is next to. "Going to the station" is a destination and stays.
        (
            "future",
            r"\b(about|going) to (?!(the|a|an|this|that|these|those|his|her|its|their|my|your)\b)\w+"
            r"|^(what|where|who|which|how) will\b|^will (the|this|that|these|those|it|he|she|they)\b"
            r"|\b(do|does|happen|happens) next\b",
        ),
        ("manner", r"^how (did|does|do|can|could|would|will|should|to)\b(?!.*\b(look|looks|seem|seems)\b)"),
        # "How long has the car been waiting?", "How long do dogs live?": a duration. "How long is the
        # table?" asks for a length and stays.
        (
            "time",
            r"^when\b|\bwhat time is it\b|\bwhat (day|year|season) is it\b"
            r"|\bhow long (has|have|had|did|does|do|will|would|can|could|should|ago|until)\b|\bhow long\b.*\bbeen\b",
        ),
        # "make" as a noun is a maker's name: "What make is the car?", "what make of car".
        ("brand", r"\bwhat make\b|\bmake (and model )?of (the |this |that |a )?\w+"),
        # What a thing costs or is worth ("What is the bicycle worth?", "How much does the lamp cost?");
        # a price tag is a thing and stays.
        ("price", r"\b(worth|costs?|priced)\b|\b(the|what|a) price (of|is)\b"),
        ("ownership", r"^whose\b|\bbelong(s|ed)? to\b|\b(owner|owners|owns|owned)\b"),
        (
            "opinion",
            r"^(would|should|could|will|shall) (you|i|we|one|someone|anyone)\b(?! see\b)"
            r"|^(do|does|did) (you|i|we) (like|love|hate|prefer|want|need|enjoy|recommend)\b"
            r"|\b(in your opinion|your favou?rite)\b",
        ),
        # How a thing smells or tastes: a picture shows neither ("What does the plant smell like?").
        ("sense", r"\b(smell|smells|smelled|smelling|taste|tastes|tasted|tasting)\b"),
        (
            "text",
            r"\bwhat (does|do|did) (the|this|that|these|those|it)\b.*\b(say|says|read|reads|spell|spells)\b"
            r"|\bwhat is (written|printed|spelled)\b|\bwhat (word|words|letter|letters|text) (is|are)\b",
        ),
    )
)

_EXPLANATIONS = {
    "wordless": "it has no words to translate (a question needs a word of two letters or more)",
    "reason": "it asks why, and a picture shows what is there, not reasons",
    "hypothetical": "it asks about something that is not in the picture (what if)",
    "future": "it asks what will happen, and a picture shows one moment",
    "manner": "it asks how something is done, not what the picture shows",
    "time": "it asks when or for how long, and the scene has no time",
    "brand": "it asks for a make or a brand, a name the scene does not hold",
    "price": "it asks what something costs or is worth, which a picture does not show",
    "ownership": "it asks whose something is, and the scene does not say who owns what",
    "opinion": "it asks for an opinion or advice",
    "text": "it asks for text written in the picture, which the scene does not read",
    "maker": "it asks who did something before the picture was taken, and the scene shows only what is there",
    "sense": "it asks how something smells or tastes, which a picture does not show",
    "identity": "it asks who someone is, and the scene knows what people are and do, not who they are",
    "measurement": "it asks for a measurement or an amount (how far, how much, how old in years), and the scene "
    "has no units",
}
# Categories whose answer may be a number in units (years, metres, kilograms) or a word of the
# category ("How tall is the fence?": tall or short). A question that names a unit asks for the number.
MEASURED_CATEGORIES = frozenset({"age", "height", "length", "width", "depth", "thickness", "weight", "temperature"})
_DEGREE = re.compile(r"^how (\w+) (?:is|are|was|were|does|do|did|can|could|will|would)\b")
_UNITS = re.compile(
    r"\b(?:in|how many) (?:meters?|metres?|feet|foot|inch(?:es)?|yards?|miles?|centimet(?:er|re)s?|cm"
    r"|kilomet(?:er|re)s?|km|kilos?|kilograms?|kg|grams?|pounds?|lbs?|tons?|degrees?|years?|months?|weeks?|days?"
    r"|hours?|minutes?)\b|\b(?:years|months|weeks|days) old\b"
)
# "Who painted the fence?", "Who made the table?": a past deed; "Who is wearing ..." asks who is there.
_IRREGULAR_PAST = frozenset("made built drew wrote took gave bought sold brought grew put left set threw".split())
_DEED = re.compile(r"^who (\w+)\b")
# "Who is the man?", "Who is the man holding the umbrella?": who someone is. GQA's "Who is the man
# in front of?" and "Who is the player hitting?" end in a preposition or a verb: a relation, in scope.
_IDENTITY = re.compile(r"^who (?:is|are|was|were) (?:the|this|that|these|those|an?)\b(.*?)\W*$")
_RELATION_ENDS = frozenset(
    """of in on at to with behind near by from under above below beside between inside over into onto
    for about against along around across through toward towards next""".split()
)
_NOT_DEEDS = frozenset("is are was were does do did has have had can could will would should may might must".split())


@dataclass(frozen=True)
class Unsupported:
    """Why a question is outside the language, in one line a user can act on.

    `kind` is a form of `_FORMS`, "wordless", "measurement", "maker" or "identity", or "inexpressible" when
    the words of `words` can be said by no program that means the question (`translators.checks.meaning`);
    `reason` adds what a program that was tried got wrong.
    """

    kind: str
    words: tuple[str, ...] = ()
    reason: str | None = None

    @property
    def message(self) -> str:
        if self.kind == "inexpressible":
            said = ", ".join(repr(w) for w in self.words)
            why = f"cannot express {said}" if self.words else "no program means the question"
            if self.reason:
                why += f" ({self.reason})"
            return f"this question cannot be answered from the scene: {why}; {ANSWERABLE}"
        return f"this question cannot be answered from the scene: {_EXPLANATIONS[self.kind]}; {ANSWERABLE}"


@cache
def word_pattern() -> str:
    """A word a program could be made of: two letters or more, in any script ("a", "?", "42" have
    none); a question without one is declined (`out_of_scope`, "wordless").

    The letters are Python's (`[^\\W\\d_]`) spelt out as code point ranges, so that the pattern reads
    the same in Python's `re` and in ECMA-262 with the u flag (the dialect of JSON Schema's unanchored
    `pattern`, where `\\w` is ASCII): the REST API's schema publishes this pattern for its questions.

    >>> re.search(word_pattern(), "Is it red?") is not None, re.search(word_pattern(), "a 42 ?") is None
    (True, True)
    """
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    letters = "".join(_code_range(run.start(), run.end() - 1) for run in re.finditer(r"[^\W\d_]+", every))
    return f"[{letters}]{{2}}"


def _code_range(low: int, high: int) -> str:
    """`low-high` in a character class: `\\uXXXX` in the basic plane, the character itself past it
    (the one spelling both dialects read alike)."""
    spelt = [f"\\u{code:04x}" if code <= 0xFFFF else chr(code) for code in (low, high)]
    return spelt[0] if low == high else f"{spelt[0]}-{spelt[1]}"


@cache
def _word() -> re.Pattern[str]:
    return re.compile(word_pattern())


def _normalised(question: str) -> str:
    return " ".join(question.lower().replace("’", "'").split())


def beyond_the_scene(question: str, value_category: Callable[[str], str | None]) -> Unsupported | None:
    """A measurement ("How old is the fence?", "How far ..."), a past deed ("Who painted the
    fence?") or who someone is ("Who is the man?"), or None. `value_category` gives an attribute
    value's category: "How big", "How clean" and "How tall" ask for a word of a category and stay
    in scope; "how old in years" asks for a number."""
    text = _normalised(question)
    if (degree := _DEGREE.match(text)) is not None and degree.group(1) != "many":
        word = degree.group(1)
        category = value_category(word)
        if category is None or (category in MEASURED_CATEGORIES and _UNITS.search(text)):
            return Unsupported("measurement", (word,))
    if (identity := _IDENTITY.match(text)) is not None:
        last = identity.group(1).split()[-1:]
        if not last or (last[0] not in _RELATION_ENDS and not last[0].endswith("ing")):
            return Unsupported("identity")
    if (deed := _DEED.match(text)) is not None:
        verb = deed.group(1)
        if verb not in _NOT_DEEDS and (verb in _IRREGULAR_PAST or (verb.endswith("ed") and len(verb) > 4)):
            return Unsupported("maker", (verb,))
    return None


def out_of_scope(question: str) -> Unsupported | None:
    """Why `question` is outside what the programs can express, or None when it is not. A question
    with no words ("?", "a") is declined first: no model is asked to make a program of nothing.

    >>> out_of_scope("?").kind, out_of_scope(" a ").kind, out_of_scope("Is it red?") is None
    ('wordless', 'wordless', True)
    """
    text = _normalised(question)
    if _word().search(text) is None:
        return Unsupported("wordless")
    for kind, pattern in _FORMS:
        if pattern.search(text):
            return Unsupported(kind)
    return None
