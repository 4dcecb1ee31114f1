"""Words the ontology lacks, read by what WordNet says they are, before a question's form is looked up.

Template fill (`translators.rules.template_fill`) reads a question's words by the ontology; a word
it lacks is a plain word, and its form matches no example. Where a reader of words is injected
(`translators.checks.meaning.WordKinship`, WordNet in the app), such a word is read as what it is:

- a word known only as an adjective ("comfortable", "leafless") is a value of no category, as
  GQA's programs read it (`filter_any`);
- a word whose usual sense is a thing a scene may show ("weapon", "pastry") is a class; a word
  before another no rule reads ("art work") is left to composition, which names the object by both.
  Two classes side by side ("the coffee cup") are left as they are: GQA names some by the compound
  (`coffee_cup`) and others by one word ("laptop computer" is `laptop`), and a filled program is
  trusted as one from the bank's own forms;
- a class a question asks which kind of ("What weapon is the knight carrying?", "What pastry ...") is
  read as a group word is, in the singular.

The bank's examples are read without these, so that their forms stay the ontology's.

Example:
    >>> with_open_classes([("what", None), ("weapon", None), ("is", None), ("it", None)],
    ...                   {"weapon"}.__contains__, lambda role, words: words is None and role == "weapon")
    [('what', None), ('group', 'weapon'), ('is', None), ('it', None)]
"""

from __future__ import annotations

from collections.abc import Callable

from translators.rules.plain_wording import ARTICLES, DEMONSTRATIVES, GROUP_ROLE
from translators.wording.grounded_words import singular

Raw = list[tuple[str, str | None]]
# Whether a slot (role, words) is a plain word no rule reads.
Unread = Callable[[str, str | None], bool]
# The role of an attribute value of no category (the ontology's `property` values): composition
# reads it as `filter_any`.
OPEN_VALUE_ROLE = "property"


def with_open_values(raw: Raw, says: Callable[[str], bool], unread: Unread) -> Raw:
    """`raw` with each plain word `says` is a value read as one of no category."""
    return [(OPEN_VALUE_ROLE, role) if unread(role, words) and says(role) else (role, words) for role, words in raw]


def with_open_classes(raw: Raw, says: Callable[[str], bool], unread: Unread) -> Raw:
    """`raw` with each plain word `says` names a thing read as a class, and a class the question asks
    which kind of as a group (see the module docstring)."""
    out: Raw = []
    for index, (role, words) in enumerate(raw):
        after = raw[index + 1] if index + 1 < len(raw) else None
        kind = kind_asked(out)
        unread_next = after is not None and unread(*after)
        opens = not unread_next and unread(role, words) and says(role)
        if opens or (role == "thing" and words is not None and kind):
            word = words or role
            out.append((GROUP_ROLE, singular(word)) if kind else ("thing", word))
        else:
            out.append((role, words))
    return out


def kind_asked(before: Raw) -> bool:
    """Whether a class after `before` is one a question asks which kind of ("What pastry ...",
    "Which kind of weapon ..."), not one it names ("What are the benches made of?")."""
    said = tuple(role for role, _ in before if role not in ARTICLES)
    return said in (("what",), ("which",), ("what", "kind", "of"), ("which", "kind", "of"), ("what", "type", "of"))


def asked(before: list[tuple[str, str | None]]) -> bool:
    """Whether a group word after `before` is the one a wh-question asks for ("What animals ...",
    "What kind of vehicles ...", "What are the fruits ...")."""
    said = tuple(role for role, _ in before if role not in ARTICLES and role not in DEMONSTRATIVES)
    return said[:1] in (("what",), ("which",)) and said[1:] in ((), ("is",), ("are",), ("kind", "of"), ("type", "of"))
