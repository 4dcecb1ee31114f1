"""Whether a program means the whole question: every content word of the question accounted for.

A program answers another question when it drops the word the question turns on ("What brand is
the sauce?" written as a query of the sauce's name). So every content word of the question must be
accounted for by the program:

- an argument of it (a class, value, relation or category), by stem, by GQA's other name for it
  (`grounded_words.SPELLINGS`) or as a comparative of a value ("taller" by `tall`);
- a word that stands in a WordNet relation to an argument, when a `WordKinship` is given: a
  synonym ("bike" for `bicycle`) or a hypernym ("animal" for `horse`);
- a frame word its form consumes (`FRAME_CUES`: "how many" by a count, "made" of by a material,
  "same" by a comparison, "left" by a relation or position to the left ...), and the word after
  "how" by a query of a category it is a value of ("How big is the striped tent?" asks the tent's `size`).

Words that shape any question (articles, pronouns, auxiliaries, wh-words, prepositions, words for
the picture and for "thing") are not content words. A word that no program of the language could
account for (`WordKinship.expressible` is false: "brand", "price", "year") is found before any
program is written.

Example:
    >>> from theory.flat import parse_flat
    >>> program = parse_flat("scene(0). select(1, 0, sauce). unique(2, 1). query(3, 2, name). end(3).")
    >>> uncovered("What brand is the sauce?", program)
    ('brand',)
    >>> program = parse_flat("scene(0). select(1, 0, sofa). unique(2, 1). query(3, 2, color). end(3).")
    >>> uncovered("What color is the sofa?", program)
    ()
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Protocol

from theory.operations import COUNTING_OPERATIONS, OPERATIONS, SAMENESS_OPERATIONS
from theory.program import Program
from translators.rules.plain_wording import ARTICLES
from translators.wording.grounded_words import IRREGULAR_PLURALS, SPELLINGS, comparative_base, stem

_TOKEN = re.compile(r"[a-z0-9]+")
_DEGREE = re.compile(r"\bhow ([a-z]+)\b")
_NAMED_ROLES = ("class", "value", "relation", "category")

# Words that shape a question rather than say what it is about (kept here: a few dozen words do not
# justify a corpus download, and a stop-word list would also drop words such as "same" or "top").
NOT_CONTENT = frozenset(
    """a an the this that these those it its it's there here what which who whom whose where how when
    is are was were be been being am do does did done can could will would should shall may might must
    has have had having of in on at to for with by from into onto about as than then and or but nor not
    no yes any some all each every other another one ones s i you your we me my he she him her his they
    them their our us thing things object objects item items piece pieces kind kinds type types sort
    sorts name names called call look looks looking appear appears appearing seem seems think see
    picture pictures photo photograph image scene shown pictured visible present there's else
    doing happening showing shows show represent represents depict depicts depicted taken today day
    anywhere somewhere everywhere
    like up out down off over around across along against through between beside near next behind
    under below above inside outside""".split()
)
# Another spelling of a word of the ontology (British spelling of a category).
_SPELLED = {"colour": "color", "colours": "color", "coloured": "color", "grey": "gray"}
_NUMBERS = frozenset("zero two three four five six seven eight nine ten".split())


@dataclass(frozen=True)
class _Named:
    """What a program says: its argument words by stem and its operations."""

    stems: frozenset[str]
    words: frozenset[str]
    operations: frozenset[str]
    categories: frozenset[str]

    @classmethod
    def of(cls, program: Program) -> _Named:
        words: set[str] = set()
        categories: set[str] = set()
        for step in program:
            for role, argument in zip(OPERATIONS[step.operation].arguments, step.arguments):
                if role in _NAMED_ROLES:
                    words.update(w for w in argument.lower().split("_") if w)
                if role == "category":
                    categories.add(argument)
        return cls(
            frozenset(stem(w) for w in words),
            frozenset(words),
            frozenset(s.operation for s in program),
            frozenset(categories),
        )


@dataclass(frozen=True)
class OperationCue:
    """A frame word accounted for by any of these operations (named, so a test holds them to the table)."""

    operations: frozenset[str]

    def __call__(self, named: _Named) -> bool:
        return bool(named.operations & self.operations)


def _has(*operations: str) -> OperationCue:
    return OperationCue(frozenset(operations))


def _says(*words: str) -> Callable[[_Named], bool]:
    return lambda named: bool(named.words & set(words))


_COUNTS = tuple(sorted(COUNTING_OPERATIONS))
_SAMENESS = tuple(sorted(SAMENESS_OPERATIONS))  # "the same color", "different", "in common"
_LEFT_RIGHT = _says("left", "right", "hposition")
_UP_DOWN = _says("top", "bottom", "middle", "vposition", "above", "below", "under", "hposition")
_ANY_OBJECT = _has("relate_any", "relate_attr", "filter", "filter_any")


def _any_thing(named: _Named) -> bool:
    """ "Is anything on the shed?", "Is there anything made of glass?": objects of any class, as the
    bank's programs read them (`relate_any`, a filter of the scene, `thing`)."""
    return _ANY_OBJECT(named) or "thing" in named.words


# Frame words: accounted for by the form of the program rather than by an argument.
FRAME_CUES: dict[str, Callable[[_Named], bool]] = {
    "many": _has(*_COUNTS),
    "number": _has(*_COUNTS),
    "count": _has(*_COUNTS),
    "amount": _has(*_COUNTS),
    "shade": _says("color"),
    "hue": _says("color"),
    "species": _says("name", "class"),
    "common": _has("common"),
    "made": _says("material"),
    "make": _says("material"),
    "makes": _says("material"),
    "used": _says("material"),
    "same": _has(*_SAMENESS),
    "different": _has(*_SAMENESS),
    "similar": _has(*_SAMENESS),
    "alike": _has(*_SAMENESS),
    "both": _has("and", *_SAMENESS),
    "either": _has("or"),
    "neither": _has("or", "negate"),
    "more": _has("compare", "compare_count"),
    "less": _has("compare", "compare_count"),
    "fewer": _has("compare_count"),
    "left": _LEFT_RIGHT,
    "right": _LEFT_RIGHT,
    "side": lambda named: _LEFT_RIGHT(named) or _UP_DOWN(named),
    "top": _UP_DOWN,
    "bottom": _UP_DOWN,
    "middle": lambda named: _LEFT_RIGHT(named) or _UP_DOWN(named),
    "center": lambda named: _LEFT_RIGHT(named) or _UP_DOWN(named),
    "part": lambda named: _LEFT_RIGHT(named) or _UP_DOWN(named) or "part" in named.words,
    "front": _says("front"),
    "behind": _says("behind"),
    "wear": _says("wearing", "dressed", "in"),
    "anything": _any_thing,
    "something": _any_thing,
}


class WordKinship(Protocol):
    """Word meanings beyond spelling (WordNet where it is installed)."""

    def related(self, asked: str, named: str) -> bool:
        """Whether `asked` names what `named` names or something more general (synonym, hypernym)."""
        ...

    def expressible(self, asked: str) -> bool:
        """Whether some scene could hold `asked` as a thing, a value or a relation."""
        ...

    def knows(self, word: str) -> bool:
        """Whether `word` (words of a compound joined by "_") is in the lexicon at all."""
        ...

    def attitude(self, word: str) -> bool:
        """Whether `word` is of the asker's mind or speech (a polite frame's word: "appreciate", "curiosity")."""
        ...

    def hedge(self, word: str) -> bool:
        """Whether `word` only says how sure, exact or emphatic the question is ("really", "roughly")."""
        ...

    def adjective_only(self, word: str) -> bool:
        """Whether `word` is known as an adjective and as nothing else ("comfortable", "leafless")."""
        ...

    def object_noun(self, word: str) -> bool:
        """Whether `word`'s usual sense is a thing a scene may show ("weapon", "pastry"), a noun first."""
        ...

    def thing(self, word: str) -> bool:
        """Whether one of `word`'s usual senses is a thing a scene may show ("tap": a faucet, or a knock)."""
        ...

    def value(self, word: str) -> bool:
        """Whether `word` may be an attribute value: an adjective whose usual sense is no thing ("dull")."""
        ...


def content_words(question: str) -> tuple[str, ...]:
    """The question's words that say what it is about, in order, without repeats."""
    seen: dict[str, None] = {}
    for word in _TOKEN.findall(question.lower().replace("’", "'")):
        word = _SPELLED.get(word, word)
        if word not in NOT_CONTENT and not word.isdigit():
            seen.setdefault(word, None)
    return tuple(seen)


def thing_words(question: str, kinship: WordKinship | None) -> tuple[str, ...]:
    """The question's content words that may name a thing (`WordKinship.thing`; none without a kinship)."""
    if kinship is None:
        return ()
    return tuple(w for w in content_words(question) if w not in FRAME_CUES and kinship.thing(w))


def value_words(question: str, kinship: WordKinship | None) -> tuple[str, ...]:
    """The question's content words that may be attribute values (`WordKinship.value`), and its runs of
    three words with a function word inside that are one ("black and white": `black_and_white`)."""
    if kinship is None:
        return ()
    words = _TOKEN.findall(question.lower())
    # An article inside makes a run a phrase about a thing ("on the table", which WordNet also knows as
    # an adjective: "under discussion"), not a value a scene files.
    runs = (
        "_".join(words[i : i + 3])
        for i in range(len(words) - 2)
        if words[i + 1] in NOT_CONTENT and words[i + 1] not in ARTICLES
    )
    found = [run for run in runs if kinship.value(run)]
    found += [w for w in content_words(question) if w not in FRAME_CUES and kinship.value(w)]
    return tuple(dict.fromkeys(found))


def _accounted(word: str, named: _Named, kinship: WordKinship | None) -> bool:
    if stem(word) in named.stems or word in named.words:
        return True
    other = SPELLINGS.get(word) or IRREGULAR_PLURALS.get(word)
    # The usual name may be two words ("tshirt" is `t_shirt`), each of them an argument's word.
    if other is not None and (stem(other) in named.stems or set(other.split("_")) <= named.words):
        return True
    cue = FRAME_CUES.get(word) or FRAME_CUES.get(stem(word))
    if cue is not None and cue(named):
        return True
    if word in _NUMBERS:
        return bool(named.operations & COUNTING_OPERATIONS)
    base = comparative_base(word) if word.endswith(("er", "ier")) else None
    if base is not None and base[0] in named.words:
        return True
    return kinship is not None and any(kinship.related(word, w) for w in named.words)


def _other_names(question: str) -> dict[str, str]:
    """Words of two-word names GQA writes otherwise ("tennis racket" is `racket`): word -> that name."""
    words = _TOKEN.findall(question.lower())
    found: dict[str, str] = {}
    for first, second in zip(words, words[1:]):
        name = SPELLINGS.get(f"{first}_{second}")
        if name is not None:
            found[first] = found[second] = name
    return found


def uncovered(
    question: str,
    program: Program,
    kinship: WordKinship | None = None,
    categories_of: Callable[[str], Collection[str]] = lambda word: (),
) -> tuple[str, ...]:
    """The content words of `question` that `program` does not account for (see the module docstring);
    `categories_of` gives a value's categories (the ontology's)."""
    named = _Named.of(program)
    renamed = _other_names(question)
    # "How big is the striped tent?": the degree word asks for its category, which a query names (`size`).
    # (WordNet links too few degree words to the names of the ontology's categories.)
    queried = {step.arguments[0] for step in program if step.operation == "query"}
    degrees = {w for w in _DEGREE.findall(question.lower()) if queried & set(categories_of(w))}

    def accounted(word: str) -> bool:
        if word in degrees:
            return True
        other = renamed.get(word)
        if other is not None and set(other.split("_")) <= named.words:
            return True
        return _accounted(word, named, kinship)

    return tuple(w for w in content_words(question) if not accounted(w))


def known_or(kinship: WordKinship, pair: tuple[str, str]) -> bool:
    """Whether a compound of two words names something a scene could hold."""
    return kinship.expressible("_".join(pair))


def inexpressible(question: str, known: Callable[[str], bool], kinship: WordKinship | None) -> tuple[str, ...]:
    """Content words that no program could account for: not a word of the ontology (`known`, by
    stem), not a frame word, and not a thing, value or relation a scene could hold (`kinship`).
    Without a kinship nothing is ruled out before a program is written."""
    if kinship is None:
        return ()
    words = _TOKEN.findall(question.lower())
    # A word of a compound the lexicon knows ("video camera") is part of a thing's name.
    compounded = {
        w for pair in zip(words, words[1:]) if kinship.knows("_".join(pair)) and known_or(kinship, pair) for w in pair
    }
    # A noun before a thing modifies its name ("video camera", "storage box"): a thing's name, whatever
    # the noun alone most often means.
    compounded |= {
        first
        for first, head in zip(words, words[1:])
        if first not in NOT_CONTENT
        and kinship.knows(first)
        and not kinship.adjective_only(first)
        and kinship.thing(head)
    }
    return tuple(w for w in unaccounted(question, known) if w not in compounded and not kinship.expressible(w))


def unaccounted(question: str, known: Callable[[str], bool]) -> tuple[str, ...]:
    """Content words that no word of the ontology (`known`), frame word, number, spelling or irregular
    plural accounts for: the words a question says that the vocabulary lacks."""
    return tuple(
        w
        for w in content_words(question)
        if not known(w)
        and w not in FRAME_CUES
        and w not in _NUMBERS
        and w not in SPELLINGS
        and w not in IRREGULAR_PLURALS
    )
