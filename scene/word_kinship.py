"""Word meanings from WordNet for question coverage (`translators.checks.meaning.WordKinship`).

Two questions about a word of a question:

- is it another name for a word of the program, or a more general one? Synonyms share a synset
  among their first senses ("bike" and `bicycle`, "fridge" and `refrigerator`); a hypernym is in
  the hypernym closure of the program word's first noun senses ("animal" for `horse`);
- could a scene hold it at all? A scene holds physical things, their attribute values and their
  relations. A word read as a verb of thinking, feeling, owning, perceiving, making or saying, or
  as a noun whose most frequent sense is an abstraction (a trade name, a price, a year, a plan)
  and none of whose usual senses is a thing ("tap" is a knock, then a faucet), names nothing a
  scene has: "What brand is the sauce?" cannot be asked of a scene. Words WordNet
  does not know are given the benefit of the doubt.

Example:
    >>> kin = WordNetKinship()
    >>> kin.related("bike", "bicycle"), kin.related("animal", "horse"), kin.related("horse", "animal")
    (True, True, False)
    >>> kin.expressible("brand"), kin.expressible("price"), kin.expressible("horse"), kin.expressible("wet")
    (False, False, True, True)
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from scene.wordnet import READER_LOCK, load_wordnet

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset, WordNetCorpusReader

# Lexicographer files of senses that name no thing, value or relation of a scene.
_ABSTRACT = "communication possession time cognition motive feeling quantity attribute relation act event state process"
ABSTRACT_NOUNS = frozenset(f"noun.{name}" for name in _ABSTRACT.split())
ABSTRACT_VERBS = frozenset(
    f"verb.{name}" for name in "cognition emotion possession perception creation communication stative".split()
)
# Lexicographer files of senses that name things a scene may show. Not people ("owner", "winner":
# roles a picture does not show) nor substances ("vitamins", "protein").
PHYSICAL_NOUNS = frozenset(f"noun.{name}" for name in "artifact food animal plant body object".split())
# Senses of the asker's mind or speech: the words a polite frame is made of ("I'd appreciate ...",
# "Out of curiosity", "Can I assume ...").
ATTITUDE = frozenset(
    {"verb.cognition", "verb.communication", "verb.emotion", "noun.cognition", "noun.communication", "noun.feeling"}
)
# The sense under which a noun names how possible something is ("any chance", "an opportunity"):
# a polite frame's word like those of ATTITUDE ("Any chance you could tell me ...").
_POSSIBILITY = "possibility.n.02"
_SENSES = 3  # the first senses carry a word's usual meaning; later ones link unrelated words


class WordNetKinship:
    """`translators.checks.meaning.WordKinship` by WordNet (loaded on first use)."""

    def __init__(self, wordnet: WordNetCorpusReader | None = None) -> None:
        self._wordnet = wordnet

    @property
    def wordnet(self) -> WordNetCorpusReader:
        if self._wordnet is None:
            self._wordnet = load_wordnet()
        return self._wordnet

    def _synsets(self, word: str, pos: str | None = None) -> list[Synset]:
        return list(self.wordnet.synsets(word, pos))

    def related(self, asked: str, named: str) -> bool:
        """Whether `asked` is a synonym of `named` or more general than it."""
        with READER_LOCK:  # NLTK's reader shares file objects between threads
            return _related(self, asked, named)

    def expressible(self, asked: str) -> bool:
        """Whether some scene could hold `asked` (see the module docstring)."""
        with READER_LOCK:
            return _expressible(self, asked)

    def attitude(self, word: str) -> bool:
        """Whether `word`'s usual verb or noun sense is of thinking, feeling or saying."""
        with READER_LOCK:
            return _attitude(self, word)

    def hedge(self, word: str) -> bool:
        """Whether WordNet knows `word` only as an adverb: it says how sure, how exact or how
        emphatic the question is ("really", "roughly", "honestly"), not what it asks."""
        with READER_LOCK:
            return _hedge(self, word)

    def adjective_only(self, word: str) -> bool:
        """Whether WordNet knows `word` as an adjective and as nothing else ("comfortable", "leafless"):
        a value a scene may say of a thing, never a thing or a doing."""
        with READER_LOCK:
            return _adjective_only(self, word)

    def object_noun(self, word: str) -> bool:
        """Whether `word`'s most frequent sense is a noun of a physical thing: an artifact, a food, an
        animal, a plant, a body part or a natural object ("weapon", "pastry")."""
        with READER_LOCK:
            return _object_noun(self, word)

    def thing(self, word: str) -> bool:
        """Whether `word` may name a thing a scene shows: its usual sense is one (`object_noun`), or one of
        its usual noun senses is and it is no adjective ("tap": a knock, then a faucet)."""
        with READER_LOCK:
            return _thing(self, word)

    def value(self, word: str) -> bool:
        """Whether `word` (a compound's words joined by "_") may be an attribute value: WordNet knows it as
        an adjective, and its usual sense is no thing ("dull", "bushy", "black_and_white")."""
        with READER_LOCK:
            return _value(self, word)

    def knows(self, word: str) -> bool:
        """Whether WordNet has `word` (a compound's words joined by "_")."""
        with READER_LOCK:
            return bool(self._synsets(word))


@lru_cache(maxsize=65536)
def _adjective_only(kin: WordNetKinship, word: str) -> bool:
    senses = kin._synsets(word)
    return bool(senses) and all(sense.pos() in ("a", "s") for sense in senses)


@lru_cache(maxsize=65536)
def _object_noun(kin: WordNetKinship, word: str) -> bool:
    senses = kin._synsets(word)
    nouns = [sense for sense in senses if sense.pos() == "n"]
    if not nouns or nouns[0].lexname() not in PHYSICAL_NOUNS:
        return False
    # WordNet lists nouns first, whatever their use: "electric" is an adjective before it is a car.
    others = [sense for sense in senses if sense.pos() != "n"]
    noun_uses, other_uses = _uses(nouns, word), _uses(others, word)
    if noun_uses or other_uses:
        return noun_uses >= other_uses
    return not any(sense.pos() in ("a", "s") for sense in others)


@lru_cache(maxsize=65536)
def _value(kin: WordNetKinship, word: str) -> bool:
    return bool(kin._synsets(word, "a") or kin._synsets(word, "s")) and not _object_noun(kin, word)


@lru_cache(maxsize=65536)
def _thing(kin: WordNetKinship, word: str) -> bool:
    if _object_noun(kin, word):
        return True
    if kin._synsets(word, "a") or kin._synsets(word, "s"):
        return False
    return any(sense.lexname() in PHYSICAL_NOUNS for sense in kin._synsets(word, "n")[:_SENSES])


def _uses(senses: list[Synset], word: str) -> int:
    """How often the tagged corpus WordNet counts uses `word` in these senses."""
    return sum(lemma.count() for sense in senses for lemma in sense.lemmas() if lemma.name().lower() == word)


@lru_cache(maxsize=65536)
def _related(kin: WordNetKinship, asked: str, named: str) -> bool:
    if asked == named:
        return True
    asked_senses = kin._synsets(asked)[:_SENSES]
    if not asked_senses:
        return False
    named_senses = kin._synsets(named)[:_SENSES]
    if set(asked_senses) & set(named_senses):
        return True
    general = set(asked_senses)
    for sense in kin._synsets(named, "n")[:2]:
        if general & set(sense.closure(lambda s: s.hypernyms() + s.instance_hypernyms())):
            return True
    # A direct kind of the named thing is another name for it in a scene ("fridge", an electric
    # refrigerator, for `refrigerator`).
    return any(set(a.hypernyms()) & set(named_senses) for a in asked_senses if a.pos() == "n")


@lru_cache(maxsize=65536)
def _attitude(kin: WordNetKinship, word: str) -> bool:
    # The word's most frequent sense, nouns first: "telephone" is a thing before it is a way to talk.
    senses = kin._synsets(word)
    if not senses:
        return False
    first = senses[0]
    if first.lexname() in ATTITUDE:
        return True
    return first.pos() == "n" and any(h.name() == _POSSIBILITY for h in first.closure(lambda s: s.hypernyms()))


@lru_cache(maxsize=65536)
def _hedge(kin: WordNetKinship, word: str) -> bool:
    senses = kin._synsets(word)
    return bool(senses) and all(sense.pos() == "r" for sense in senses)


@lru_cache(maxsize=65536)
def _expressible(kin: WordNetKinship, asked: str) -> bool:
    verbs = kin._synsets(asked, "v")
    # An inflected verb form ("thinking", "owns", "designed") is read as the verb.
    if verbs and asked.endswith(("ing", "ed", "s")) and kin.wordnet.morphy(asked, "v") not in (None, asked):
        return verbs[0].lexname() not in ABSTRACT_VERBS
    if kin._synsets(asked, "a") or kin._synsets(asked, "s"):
        return True  # attribute values are open: a scene graph may say any adjective ("wet", "old")
    nouns = kin._synsets(asked, "n")
    if nouns:
        # "tap" is a knock first and a faucet second: a usual sense that is a thing is enough.
        return nouns[0].lexname() not in ABSTRACT_NOUNS or _thing(kin, asked)
    if verbs:
        return verbs[0].lexname() not in ABSTRACT_VERBS
    # Only an adverb ("usually") says how often or how much, which a scene does not; unknown words pass.
    return not kin._synsets(asked, "r")
