"""Questions outside what the programs can express, told apart by their wording.

The operations select, relate, filter, query, verify, choose, compare and count objects, their
attributes and relations in one scene. A question that asks for a reason ("why"), a manner or a
way ("how did", "how can"), a hypothetical ("what if"), an opinion or advice ("would you",
"should I", "do you like"), a time ("when"), or text read off the picture ("what does the sign
say") has no program in that language; a model would still write one and answer something. Such
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
from dataclasses import dataclass

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
        ("manner", r"^how (did|does|do|can|could|would|will|should|to)\b(?!.*\b(look|looks|seem|seems)\b)"),
        ("time", r"^when\b|\bwhat time is it\b|\bwhat (day|year|season) is it\b"),
        (
            "opinion",
            r"^(would|should|could|will|shall) (you|i|we|one|someone|anyone)\b(?! see\b)"
            r"|^(do|does|did) (you|i|we) (like|love|hate|prefer|want|need|enjoy|recommend)\b"
            r"|\b(in your opinion|your favou?rite)\b",
        ),
        (
            "text",
            r"\bwhat (does|do|did) (the|this|that|these|those|it)\b.*\b(say|says|read|reads|spell|spells)\b"
            r"|\bwhat is (written|printed|spelled)\b|\bwhat (word|words|letter|letters|text) (is|are)\b",
        ),
    )
)

_EXPLANATIONS = {
    "reason": "it asks why, and a picture shows what is there, not reasons",
    "hypothetical": "it asks about something that is not in the picture (what if)",
    "manner": "it asks how something is done, not what the picture shows",
    "time": "it asks when, and the scene has no time",
    "opinion": "it asks for an opinion or advice",
    "text": "it asks for text written in the picture, which the scene does not read",
}


@dataclass(frozen=True)
class Unsupported:
    """Why a question is outside the language, in one line a user can act on."""

    kind: str

    @property
    def message(self) -> str:
        return f"this question cannot be answered from the scene: {_EXPLANATIONS[self.kind]}; {ANSWERABLE}"


def out_of_scope(question: str) -> Unsupported | None:
    """Why `question` is outside what the programs can express, or None when it is not."""
    text = " ".join(question.lower().replace("’", "'").split())
    for kind, pattern in _FORMS:
        if pattern.search(text):
            return Unsupported(kind)
    return None
