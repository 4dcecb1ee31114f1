"""The words a question supports as program arguments, and the arguments a program invents.

A program may name a class, an attribute value or a relation only when the question says it:
its words and their inflections ("wears" supports `wearing`, "cups" supports `cup`), runs of up
to four words joined as one name (`train_car`, `trash_can`, `to_the_left_of`), and the small declared table
`FRAME_WORDS` of words a question's frame implies ("who" asks about a `person`, the whole image
is GQA's `scene`), and the base of a comparative ("taller" supports `tall`). Categories (`color`,
`hposition`) are the operations' own words and always allowed. Decoding is limited to these
words (`translators.model.grammar`), and filled or remote programs that name anything else are refused
(`invented`).

Inflections are matched by their Porter stem (NLTK), so no word list is needed.

Example:
    >>> words = question_words("Is the man wearing a red shirt?")
    >>> sorted(words.relations(["wearing", "holding", "on"]))
    ['wearing']
    >>> words.supports("shirts"), words.supports("blue")
    (True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from theory.entailment import MATERIAL_ADJECTIVES
from theory.operations import OPERATIONS
from theory.program import Program, Step
from theory.scene_facts import asp_constant

if TYPE_CHECKING:
    from nltk.stem import PorterStemmer

_TOKEN = re.compile(r"[a-z0-9]+")
_MAX_WORDS = 4
# Words a question's frame implies without saying them (GQA's programs write them so).
FRAME_WORDS: dict[str, tuple[str, ...]] = {
    "who": ("person", "people"),
    "whom": ("person", "people"),
    "whose": ("person", "people"),
    "where": ("place", "scene"),
    "place": ("scene",),
    "weather": ("scene",),
    "room": ("scene",),
    "location": ("scene",),
    "this": ("scene",),
    "taken": ("scene",),
    "showing": ("scene",),
    "his": ("he",),
    "him": ("he",),
    "her": ("she",),
    "hers": ("she",),
    "their": ("they",),
    "them": ("they",),
}
# Relations a frame implies: "where" asks what an object is on or in; a possessive is GQA's `of`.
FRAME_RELATIONS: dict[str, tuple[str, ...]] = {
    "where": ("on", "in", "at", "inside"),
    "his": ("of",),
    "her": ("of",),
    "its": ("of",),
    "their": ("of",),
    "s": ("of",),  # "the girl's hair"
    "have": ("has",),  # "has" is said by its stem; "have" is another word to it
}
# Other names GQA's programs write for a thing the question names (the question's word -> the name).
# Pronouns name an object as GQA's programs do ("her" -> she); an object pronoun is named so even
# as a program's argument ("behind him": he), where "her" may be a possessive and stays.
PRONOUNS = {"he": "he", "him": "he", "she": "she", "her": "she", "they": "they", "them": "they"}
OBJECT_PRONOUNS = {word: name for word, name in PRONOUNS.items() if word in ("him", "them")}
SPELLINGS: dict[str, str] = (
    {
        "trousers": "pants",
        "fridge": "refrigerator",
        "motorbike": "motorcycle",
        "motorbikes": "motorcycles",
        "garbage_can": "trash_can",
        "trashcan": "trash_can",
        "tshirt": "t_shirt",
        "wet_suit": "wetsuit",
        "center": "middle",
        "centre": "middle",
        "palms": "palm_trees",
        "tennis_racket": "racket",
        "traffic_signal": "traffic_light",
        "plane": "airplane",
        "planes": "airplanes",
        "garbage_bin": "trash_can",
        "art_work": "artwork",
        "tap": "faucet",
        "taps": "faucets",
    }
    | OBJECT_PRONOUNS
    | {adjective: noun for noun, adjective in MATERIAL_ADJECTIVES}
)
# Plurals no suffix rule reaches.
IRREGULAR_PLURALS: dict[str, str] = {
    "men": "man",
    "women": "woman",
    "children": "child",
    "people": "person",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "geese": "goose",
    "leaves": "leaf",
    "knives": "knife",
    "shelves": "shelf",
    "buses": "bus",  # not "buse": most "-uses" are "-use" + s (houses, blouses)
}
# Comparatives whose base adjective the suffix rules below do not recover.
_COMPARATIVES = {
    "larger": "large",
    "wider": "wide",
    "closer": "close",
    "whiter": "white",
    "riper": "ripe",
    "cuter": "cute",
    "paler": "pale",
    "nicer": "nice",
    "safer": "safe",
    "looser": "loose",
    "finer": "fine",
    "better": "good",
    "worse": "bad",
}
# Words that are never part of a class or a value name (a relation may still contain them;
# prepositions may be values, "Is the lamp on?").
FUNCTION_WORDS = frozenset(
    """a an the is are was were be been do does did can could will would should has have had
    what which who whom whose where when why how there that this these those it its to and or
    but not no any some either both neither""".split()
)
# Words that say a question is about every object it names ("Are all the cows brown?").
QUANTIFIERS = frozenset({"all", "both", "each", "every"})
# Relation words a question need not repeat: "to the left of" is said "to the left of" or "left of".
RELATION_GLUE = frozenset({"the", "a", "an", "to", "of"})
_ROLES = ("class", "value", "relation")


@lru_cache(maxsize=1)
def _stemmer() -> PorterStemmer:
    # Imported on first use: importing NLTK loads SciPy and takes about 2 s, which a command that
    # never reads a question (`aspvqa solve`, a given program) should not pay.
    from nltk.stem import PorterStemmer

    return PorterStemmer()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of one lower-case word ("wearing" and "wears" -> "wear")."""
    return _stemmer().stem(word)


def _key(name: str) -> tuple[str, ...]:
    """A name's words by stem (`train_cars` -> ("train", "car"))."""
    return tuple(stem(part) for part in name.split("_") if part)


@dataclass(frozen=True)
class QuestionWords:
    """What one question supports: its word runs by stem, its words by stem, and the implied words."""

    runs: frozenset[tuple[str, ...]]  # every run of 1-4 words not starting with a function word, by stem
    stems: frozenset[str]  # every word of the question, by stem
    implied: frozenset[str]  # FRAME_WORDS, SPELLINGS and IRREGULAR_PLURALS of the question's words
    implied_relations: frozenset[str]  # FRAME_RELATIONS of the question's words
    surface: tuple[str, ...]  # the question's words as written (lower case), in order

    def supports(self, word: str) -> bool:
        """Whether a class or value name is said by the question (or implied by its frame)."""
        return word in self._names or _key(word) in self.runs  # the names start with the implied words

    def supports_relation(self, relation: str) -> bool:
        """Whether every word of a relation, glue words aside, is in the question."""
        if relation in self.implied_relations:
            return True
        words = [w for w in relation.split("_") if w]
        content = [w for w in words if w not in RELATION_GLUE] or words
        return all(stem(w) in self.stems for w in content)

    def relations(self, relations: Iterable[str]) -> list[str]:
        """The given relations the question supports."""
        return [r for r in relations if self.supports_relation(r)]

    def names(self) -> list[str]:
        """Every class or value name the question supports as it writes it, plural and singular,
        runs joined with "_" (the words a grammar offers)."""
        return list(self._names)

    @cached_property
    def _names(self) -> dict[str, None]:
        out: dict[str, None] = dict.fromkeys(self.implied)
        words = self.surface
        for start in range(len(words)):
            for width in range(1, _MAX_WORDS + 1):
                run = words[start : start + width]
                if len(run) < width or FUNCTION_WORDS & set(run):
                    continue
                for last in _inflections(run[-1]):
                    out.setdefault("_".join((*run[:-1], last)), None)
        return out


def singular(name: str) -> str:
    """A name's singular by the regular rules and `IRREGULAR_PLURALS` (its last word: `palm_trees` -> palm_tree)."""
    *head, last = name.split("_")
    if last in IRREGULAR_PLURALS:
        last = IRREGULAR_PLURALS[last]
    elif last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith(("ches", "shes", "xes", "sses")):
        last = last[:-2]
    elif last.endswith("s") and not last.endswith(("ss", "us", "is")) and len(last) > 3:
        last = last[:-1]
    return "_".join((*head, last))


def _inflections(word: str) -> tuple[str, ...]:
    """The word, and its singular or plural by the regular rules (the grammar needs strings)."""
    forms = [word]
    if not word.isalpha():
        return tuple(forms)
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    elif word.endswith(("ses", "xes", "ches", "shes")):
        forms += [word[:-2], word[:-1]]  # "boxes" -> box, "horses" -> horse
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        forms.append(word[:-1])
    else:
        forms.append(word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s"))
    return tuple(forms)


@lru_cache(maxsize=4096)
def question_words(question: str) -> QuestionWords:
    """The words `question` supports as arguments (see the module docstring)."""
    surface = tuple(_TOKEN.findall(question.lower()))
    stems = tuple(stem(w) for w in surface)
    # A name may hold a function word after its first ("trash can", "black and white"), never start with one.
    runs = {
        stems[start : start + width]
        for start in range(len(stems))
        for width in range(1, _MAX_WORDS + 1)
        if start + width <= len(stems) and surface[start] not in FUNCTION_WORDS
    }
    implied = {word for w in surface for word in FRAME_WORDS.get(w, ())}
    # A comparative asks about its base value ("Who is taller, ...?" compares by `tall`).
    implied.update(base[0] for w in surface if w.endswith("er") and (base := comparative_base(w)) is not None)
    for start in range(len(surface)):
        for width in range(1, 3):
            run = "_".join(surface[start : start + width])
            implied.update(name for table in (SPELLINGS, IRREGULAR_PLURALS) if (name := table.get(run)))
    relations = {relation for w in surface for relation in FRAME_RELATIONS.get(w, ())}
    return QuestionWords(frozenset(runs), frozenset(stems), frozenset(implied), frozenset(relations), surface)


def comparative_base(word: str) -> tuple[str, str] | None:
    """(value, polarity) of a comparative: younger -> (young, true), less healthy -> (healthy, false);
    None for a word that is not one."""
    text = " ".join(word.lower().split())
    for prefix, polarity in (("less ", "false"), ("more ", "true")):
        if text.startswith(prefix):
            return asp_constant(text[len(prefix) :]), polarity
    if text in _COMPARATIVES:
        return _COMPARATIVES[text], "true"
    if text.endswith("ier") and len(text) > 4:
        return text[:-3] + "y", "true"  # healthier -> healthy
    if text.endswith("er") and len(text) > 4:
        stem = text[:-2]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
            stem = stem[:-1]  # bigger -> big, thinner -> thin
        return asp_constant(stem), "true"
    return None


@dataclass(frozen=True)
class Invented:
    """An argument of a program that its question does not support."""

    step: int
    role: str  # class, value or relation
    word: str

    def __str__(self) -> str:
        return f"{self.role} {self.word!r} (step {self.step}) is not in the question"


def invented(program: Program, words: QuestionWords) -> list[Invented]:
    """The class, value and relation arguments of `program` that the question does not support."""
    found = []
    for step in program:
        spec = OPERATIONS[step.operation]
        for role, argument in zip(spec.arguments, step.arguments):
            if role not in _ROLES:
                continue
            ok = words.supports_relation(argument) if role == "relation" else words.supports(argument)
            if not ok:
                found.append(Invented(step.id, role, argument))
    return found


def with_usual_names(program: Program) -> Program:
    """`program` with each class or value named as GQA's programs name it (`SPELLINGS`: "trousers" ->
    pants), so that a scene's own name for the thing is asked for."""
    changed = False
    steps = []
    for step in program:
        roles = OPERATIONS[step.operation].arguments
        arguments = tuple(
            SPELLINGS.get(a, a) if role in ("class", "value") else a for role, a in zip(roles, step.arguments)
        )
        changed |= arguments != step.arguments
        steps.append(Step(step.id, step.operation, step.dependencies, arguments))
    return Program(tuple(steps), program.answer) if changed else program


def offered_either_side(first: str, second: str, words: QuestionWords) -> bool:
    """Whether two choice values are said one on each side of the question's first "or", near it
    (in either order, each in either number), as a choice between them must be ("..., an orange
    or a banana?", "on the left side or on the right side")."""
    sides = sides_of_or(words)
    if sides is None or first == second:
        return False
    before, after = sides
    return (singular(first) in before and singular(second) in after) or (
        singular(second) in before and singular(first) in after
    )


def sides_of_or(words: QuestionWords) -> tuple[frozenset[str], frozenset[str]] | None:
    """The names said near the question's first "or", before it and after it (runs of up to three
    words, in the singular), or None without an "or"."""
    if "or" not in words.surface:
        return None
    at = words.surface.index("or")
    return (
        frozenset(_runs(words.surface[max(0, at - _NEAR_OR) : at])),
        frozenset(_runs(words.surface[at + 1 : at + 1 + _NEAR_OR])),
    )


# How many words on each side of "or" a choice's values are looked for in ("on the left side or").
_NEAR_OR = 4


def _runs(words: Sequence[str]) -> set[str]:
    """Every run of up to three of the words, joined with "_", in the singular."""
    return {singular("_".join(words[i:j])) for i in range(len(words)) for j in range(i + 1, min(len(words), i + 3) + 1)}
