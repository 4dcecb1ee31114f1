"""The wordings that never change a GQA program, read as one before a question's form is looked up.

"Which color is that jacket?" has the form of "What color is the jacket?": "which" is "what",
"type" is "kind", a demonstrative before a class is an article, "this" or "that" ending a question
is "it", "do you think" before "is"/"are" or after a wh-word frames the question, "side" after
"left" or "right" and "other" before a class said already ("the bear on top of the other bear")
add nothing, and "is it" after "or" repeats the question (`translators.rules.template_fill`).
`singular_verbs` reads a verb's number as one, for a form the bank has only in the other number.
"""

from __future__ import annotations

from translators.rules.slot_swap import Slots
from translators.wording.indirect_wording import IDLE_WORDS

# Words that never change a GQA program; dropping them lets "a chair" match "the chair".
ARTICLES = frozenset({"a", "an", "the"})
# The role of a class group's word ("furniture", "animal").
GROUP_ROLE = "group"
DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})
# Words GQA uses interchangeably in a question of one program ("Which color is..." = "What color is...").
_SAME_WORD = {"which": "what", "type": "kind"}
# A verb's number only agrees with its subject (GQA asks no counting question).
_SINGULAR_VERB = {"are": "is", "do": "does", "have": "has", "were": "was"}


def _named_before(slot: tuple[str, str | None], before: list[tuple[str, str | None]]) -> bool:
    """Whether `slot` is an object whose word the question said before (the one "the other" sets it apart from)."""
    role, words = slot
    return role in ("thing", GROUP_ROLE) and words is not None and any(w == words for _, w in before)


def plain_words(slots: list[tuple[str, str | None]]) -> Slots:
    """The slots with the wordings that never change a program read as one (see the module docstring)."""
    out: list[tuple[str, str | None]] = []
    index = 0
    while index < len(slots):
        role, words = slots[index]
        after = [r for r, _ in slots[index + 1 : index + 4]]
        # After a wh-word it frames what follows ("Who do you think holds the kite?"), unless an
        # opinion is asked ("What do you think of the cup?").
        framed = bool(out) and out[-1][0] in ("who", "what", "where", "which") and after[2:3] not in (["of"], ["about"])
        if (
            words is None
            and role == "do"
            and after[:2] == ["you", "think"]
            and (after[2:] in (["is"], ["are"]) or framed)
        ):
            index += 3  # "Who do you think is holding a bat?" asks "Who is holding a bat?"
            continue
        if words is None and role in IDLE_WORDS:
            index += 1
            continue
        if words is None and role == "side" and out and out[-1][0] == "hposition":
            index += 1  # "the speaker on the right side" is "the speaker on the right"
            continue
        if words is None and role == "other" and index + 1 < len(slots) and _named_before(slots[index + 1], out):
            index += 1  # "the bear on top of the other bear": GQA's program relates it to a bear, as "the bear"
            continue
        if words is None and role == "or" and after[:2] in (["is", "it"], ["are", "they"]):
            out.append((role, words))  # "Is the bench red or is it yellow?" offers red or yellow
            index += 3
            continue
        if words is None and role in DEMONSTRATIVES:
            if after[:1] in (["thing"], [GROUP_ROLE]):
                index += 1  # "that table" names the table as "the table" does
                continue
            if not after and role in ("this", "that"):
                role = "it"  # "What room is this?" is "What room is it?"
        out.append((_SAME_WORD.get(role, role) if words is None else role, words))
        index += 1
    return tuple(out)


def singular_verbs(slots: Slots) -> Slots:
    """The slots with "are", "do", "have" and "were" read as "is", "does", "has" and "was": "What birds
    are on the roof?" asks what "What bird is on the roof?" asks."""
    return tuple((_SINGULAR_VERB.get(role, role) if words is None else role, words) for role, words in slots)
