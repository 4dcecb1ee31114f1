"""Polite and indirect wordings read as the question they wrap.

"Could you tell me what color the mug is?" asks "What color is the mug?"; "Do you know whether the
door is closed?" asks "Is the door closed?". One rule does it, not a list of phrases: a question
that opens with a *frame* (pronouns, auxiliaries, politeness words and at least one embedding word
such as tell, know, wonder, say, check, curious, idea, true) wraps a clause, and the clause is put
back in question word order:

- after "if", "whether" or "that", or a clause verb ("would you say the sky is dark"), the clause is
  a yes/no question: its first auxiliary moves to the front ("the door is closed" -> "is the door
  closed");
- after a wh-word, the subject between the wh-phrase and the auxiliary moves behind it ("what color
  the mug is" -> "what color is the mug", "how many windows there are" -> "how many windows are
  there"); a subject question ("who is holding a bat") is already in order;
- after a verb of telling with a noun phrase, the phrase is asked for ("tell me the color of the
  sofa" -> "what is the color of the sofa");
- after a verb of finding or seeing with a noun phrase, whether it is there ("will I find a dog" ->
  "is there a dog").

Imperatives of counting and naming ("Please count the pillows", "Name the animal") are read as
"how many" and "what" questions. Words that only frame a question go, with or without a frame
around it: politeness ("please", "for me"), an opening interjection ("So, ...", "Well, ..."), and
the words `hedge` tells (WordNet: words known only as adverbs, such as "really", "roughly",
"honestly": how sure, exact or emphatic the asker is) unless the programs read them ("not",
"also", "there"). A wish for a thing asks for it ("I need the color of the van" asks "What is the
color of the van?"), and words that say where a thing is without changing what is asked
("located") go. Contractions are written out ("isn't" -> "is not").

Example:
    >>> direct_question("Could you tell me what color the mug is?")
    'What color is the mug?'
    >>> direct_question("I wonder if there is a cat on the chair.")
    'Is there a cat on the chair?'
    >>> direct_question("Please count the pillows")
    'How many pillows are there?'
    >>> direct_question("What color is the mug?")
    'What color is the mug?'
"""

from __future__ import annotations

import re
from collections.abc import Callable

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*|[^\sA-Za-z0-9]")
_CONTRACTIONS = {
    "i'm": "i am",
    "i'd": "i would",
    "i've": "i have",
    "you'd": "you would",
    "what's": "what is",
    "where's": "where is",
    "who's": "who is",
    "how's": "how is",
    "there's": "there is",
    "it's": "it is",
    "that's": "that is",
    "let's": "let us",
    "don't": "do not",
    "doesn't": "does not",
    "didn't": "did not",
    "can't": "can not",
    "won't": "will not",
    "wouldn't": "would not",
    "couldn't": "could not",
    "isn't": "is not",
    "aren't": "are not",
    "wasn't": "was not",
    "weren't": "were not",
    "hasn't": "has not",
    "haven't": "have not",
}
# Words a frame is made of besides its embedding words: who asks and how politely.
_FRAME_GLUE = frozenset(
    """i you we me us one anyone someone somebody anybody it can could would will do does did am are is was
    be been might may please kindly just really actually possibly perhaps maybe to let so the a an any
    have got able out about mind if not in of for happen happened happens try trying quick simple honest
    honestly , : ;""".split()
)
# Words that embed a question: verbs of telling, knowing and asking, and the adjectives and nouns
# of the same frames ("I'm curious", "any idea", "is it true"). The sense, not the phrase, matters.
_TELL = frozenset("tell telling say show explain describe".split())
_KNOW = frozenset(
    """know wonder wondering ask asking check checking confirm verify determine figure guess
    think believe reckon suppose curious sure idea clue true like want need interested help understand
    inform informing grateful thankful glad right correct certain""".split()
)
_CLAUSE_VERBS = frozenset("say think guess believe reckon suppose true sure agree right correct".split())
# Verbs that ask for a thing named by a noun phrase ("tell me the color of the sofa").
_ASKS_FOR = _TELL | frozenset("know check find figure determine confirm verify wonder".split())
_MODALS = frozenset("might could would will can may should".split())
_PERCEIVE = frozenset("find see spot notice observe".split())
_EMBEDDERS = _TELL | _KNOW | _PERCEIVE
_COMPLEMENTIZERS = frozenset({"if", "whether", "that"})
_WH = frozenset("what which who whom whose where how".split())
AUXILIARIES = frozenset("is are was were can could does do did has have will would should".split())
_BE = frozenset("is are was were".split())
# Words that open a subject: after the wh-phrase and before the auxiliary it moves behind.
_SUBJECT_START = frozenset(
    "the a an this that these those there it he she they his her its their my your some any".split()
)
_IMPERATIVES = {"count": "how many", "name": "what", "identify": "what"}
_DEFINITE = frozenset("the this that these those".split())
# Words that make a wording indirect (beside WordNet's attitude words): a question without them is asked directly.
INDIRECT_WORDS = _EMBEDDERS | frozenset(_IMPERATIVES)
# Verbs of wanting: with a noun phrase, the thing wanted is asked for ("I'd like the color of the sofa").
_WANTS = frozenset("need want like".split())
# Adverbs the programs read (negation, addition, place, the wh-words) and the prepositions, a closed
# class WordNet files under adverbs ("before", "behind"): never dropped as hedges.
_PREPOSITIONS = frozenset(
    """about above across after against along among around at before behind below beneath beside besides between
    beyond by down during for from in inside into near nearby of off on onto out outside over past through
    throughout to toward towards under underneath up upon with within without""".split()
)
_READ_ADVERBS = frozenset("not never also too either neither only there here together else".split())
_READ_ADVERBS |= _WH | _PREPOSITIONS
# Words that say where a thing is without changing what is asked ("What is located on the desk?").
IDLE_WORDS = frozenset({"located", "situated"})
# Words that go wherever they stand, without WordNet: politeness and the idle words.
FRAMING_WORDS = frozenset({"please", "kindly"}) | IDLE_WORDS
_POLITE_END = re.compile(r"(?:,?\s*(?:please|for me|thanks|thank you))+\s*$", re.I)
_OPENERS = re.compile(r"^(?:(?:hey|hi|hello|ok|okay|so|um|well|excuse me|sorry),?\s+)+", re.I)


def _tokens(text: str, expand: bool = True) -> list[str]:
    words: list[str] = []
    for token in _TOKEN.findall(text):
        expanded = _CONTRACTIONS.get(token.lower().replace("’", "'")) if expand else None
        words.extend(expanded.split() if expanded else [token])
    return words


def _frame_length(lowered: list[str], attitude: Callable[[str], bool]) -> int:
    """How many words open the question as a frame around a clause (0: none): glue, embedding words,
    and words of the asker's mind or speech (`attitude`: "appreciate", "curiosity", "assume")."""
    end = 0
    embedded = False
    for i, word in enumerate(lowered):
        following = lowered[i + 1] if i + 1 < len(lowered) else ""
        if i == 2 and lowered[0] in AUXILIARIES and lowered[1] in _DEFINITE:
            break  # "Is the sign that is on the pole red?": the thing asked about, not a frame
        if word in _EMBEDDERS or (word not in _FRAME_GLUE and attitude(word)):
            embedded, end = True, i + 1
        elif word == "if" and following == "you":
            end = i + 1  # "I'd be grateful if you could tell me ...": the frame goes on
        elif word in _FRAME_GLUE and not (embedded and word in _COMPLEMENTIZERS | {"the", "a", "an", "any"}):
            end = i + 1
        else:
            break
    if not embedded:
        return 0
    # Glue after the last embedding word belongs to the clause ("tell me the", "know if").
    while (
        end > 0
        and lowered[end - 1] not in _EMBEDDERS
        and lowered[end - 1] not in {"me", "us", "out", "about", ",", ":"}
        and not attitude(lowered[end - 1])
    ):
        end -= 1
    return end


def _no_attitude(word: str) -> bool:
    return False


def _yes_no(clause: list[str]) -> list[str] | None:
    """A declarative clause as a yes/no question: its first auxiliary in front (None: it has none); a
    form of "be" first, since "can" may be a noun ("the trash can")."""
    lowered = [w.lower() for w in clause]
    found = [i for i, w in enumerate(lowered) if i > 0 and w in _BE] or [
        i for i, w in enumerate(lowered) if i > 0 and w in AUXILIARIES
    ]
    if not found:
        return None
    i = found[0]
    return [clause[i], *clause[:i], *clause[i + 1 :]]


def _wh_order(clause: list[str]) -> list[str]:
    """A wh-clause in question order: the subject before the auxiliary moves behind it."""
    lowered = [w.lower() for w in clause]
    aux = next((i for i, w in enumerate(lowered) if i > 0 and w in AUXILIARIES), None)
    subject = next((i for i, w in enumerate(lowered) if i > 0 and w in _SUBJECT_START), None)
    last = lowered[-1]
    if aux is None and subject is not None and subject < len(clause) - 2 and last.endswith("s") and len(last) > 3:
        # "how the food smells" -> "how does the food smell": a verb of the present takes "does".
        return [*clause[:subject], "does", *clause[subject:-1], clause[-1][:-1]]
    if aux is None or subject is None or subject >= aux:
        return clause  # a subject question ("who is holding a bat") or already in order
    verb = clause[aux]
    rest = clause[aux + 1 :]
    if lowered[aux] in ("has", "have") and not (rest and rest[0].lower() == "been"):
        # "how many pillows the sofa has" -> "how many pillows does the sofa have"
        return [*clause[:subject], "does" if lowered[aux] == "has" else "do", *clause[subject:aux], "have", *rest]
    return [*clause[:subject], verb, *clause[subject:aux], *rest]


def _has_finite_verb(clause: list[str]) -> bool:
    return any(w.lower() in AUXILIARIES for w in clause[1:])


def _there(noun_phrase: list[str]) -> str:
    single = noun_phrase[0].lower() in ("a", "an", "one", "the", "this", "that")
    return "is there" if single else "are there"


def _rewrite(words: list[str], attitude: Callable[[str], bool]) -> list[str] | None:
    lowered = [w.lower() for w in words]
    if len(lowered) > 2 and lowered[0] in _MODALS and lowered[1] == "there" and lowered[2] == "be":
        return ["is", "there", *words[3:]]  # "Might there be a dog here?" asks whether there is one
    # "Could you count the dogs": a request to do what an imperative asks.
    start = 2 if len(lowered) > 2 and lowered[0] in AUXILIARIES and lowered[1] == "you" else 0
    if len(lowered) > start and lowered[start] in _IMPERATIVES:
        words, lowered = words[start:], lowered[start:]
        rest = words[1:]
        if lowered[0] == "count":
            head = rest[1:] if rest and rest[0].lower() in ("the", "all", "any") else rest
            return ["how", "many", *head, "are", "there"]
        return ["what", "is", *rest]
    frame = _frame_length(lowered, attitude)
    if frame == 0 or frame >= len(words):
        return None
    clause, first = words[frame:], lowered[frame]
    embedder = next((w for w in reversed(lowered[:frame]) if w in _EMBEDDERS or attitude(w)), "")
    if first in _COMPLEMENTIZERS:
        body = clause[1:]
        if body and body[0].lower() == "or" and len(body) > 1 and body[1].lower() == "not":
            body = body[2:]  # "whether or not the door is closed"
        return _yes_no(body) or ["does", *body]  # "whether the plant smells nice" -> "does the plant smells nice"
    if first in _WH:
        return _wh_order(clause)
    if embedder in _PERCEIVE:  # what is seen or found is a thing, even with a clause about it
        return [*_there(clause).split(), *clause]
    if _has_finite_verb(clause):  # "Would you say the sky is dark?", "Can I assume the door is shut?"
        return _yes_no(clause)
    if embedder in _ASKS_FOR or embedder in _WANTS:
        return ["what", "is", *clause]
    return None


def _without_asides(words: list[str], attitude: Callable[[str], bool]) -> list[str]:
    """The words without a leading or trailing aside of frame words ("Out of curiosity, ...", "Quick
    question: ...", "..., if you don't mind me asking")."""

    def aside(part: list[str]) -> bool:
        lowered = [w.lower() for w in part]
        return bool(lowered) and all(w in _FRAME_GLUE or w in _EMBEDDERS or attitude(w) for w in lowered)

    marks = [i for i, w in enumerate(words) if w in (",", ":")]
    if marks and aside(words[: marks[0]]) and marks[0] + 1 < len(words):
        words = words[marks[0] + 1 :]
        marks = [i for i, w in enumerate(words) if w in (",", ":")]
    if marks and marks[-1] > 0 and aside(words[marks[-1] + 1 :]):
        words = words[: marks[-1]]
    return words


def _offered(tokens: list[str]) -> set[int]:
    """The places of the two one-word sides of a choice that ends the question ("Is the cat indoors
    or outdoors?", adverbs WordNet would read as hedges): what is asked, not how sure the asker is.
    A hedge inside a side stays a hedge ("... white or really black?")."""
    return {
        i + step
        for i, token in enumerate(tokens[1:-1], start=1)
        if token.lower() == "or" and (i + 2 == len(tokens) or not tokens[i + 2][0].isalnum())
        for step in (-1, 1)
    }


def _framing(word: str, hedge: Callable[[str], bool]) -> bool:
    lowered = word.lower()
    return lowered in FRAMING_WORDS or (lowered not in _READ_ADVERBS and hedge(lowered))


def direct_question(
    question: str, attitude: Callable[[str], bool] | None = None, hedge: Callable[[str], bool] | None = None
) -> str:
    """The question a polite or indirect wording wraps, without the words that only frame it (see
    the module docstring); other questions unchanged. `attitude` tells words of the asker's mind or
    speech and `hedge` words of how sure or exact the asker is (WordNet's, where installed)."""
    attitude = attitude or _no_attitude
    text = _OPENERS.sub("", question.strip())
    body = _POLITE_END.sub("", text.rstrip("?.! ")).rstrip(",;: ")
    tokens = _tokens(body)
    offered = _offered(tokens)
    words = [w for i, w in enumerate(tokens) if i in offered or not _framing(w, hedge or _no_attitude)]
    while words and words[0] in (",", ":", ";"):  # an aside that was all framing ("Honestly, ...")
        words = words[1:]
    while words and words[-1] in (",", ":", ";"):  # "What color is the bus, exactly?"
        words = words[:-1]
    asked = _without_asides(words, attitude)
    rewritten = _rewrite(asked, attitude)
    if rewritten is None and asked != _tokens(question.strip().rstrip("?.! "), expand=False):
        rewritten = asked  # only framing words, an opener or a contraction differ
    for _ in range(2):  # "I'd be grateful if you could tell me what ..." wraps a request that wraps a question
        again = _rewrite(rewritten, attitude) if rewritten is not None else None
        if again is None or again == rewritten:
            break
        rewritten = again
    if rewritten is None:
        return question
    joined = " ".join(rewritten)
    joined = re.sub(r"\s+([,'])\s*", r"\1 ", joined).replace(" ' s", "'s").replace("' s ", "'s ")
    joined = re.sub(r"\s+'s\b", "'s", joined)
    return joined[:1].upper() + joined[1:] + "?"
