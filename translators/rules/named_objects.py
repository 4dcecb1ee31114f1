"""The objects and attribute values a question names, which its program names too.

GQA's programs name every object the question names: a class word of the question (a run of
words the ontology knows as a class, as templates read them) is an argument of the program, or a
part of one ("shirt" of `t_shirt`), in 906 of the tuning part's 907 programs (the other names a
traffic cone `cone`). They name every attribute value it says as well ("the standing man" filters
by `standing`) in 906 of 907, but for two kinds of question where GQA's programs leave the value
out: a choice between two relations ("Is the small vehicle behind or in front of ...?" chooses
for a vehicle, not a small one) and "how ADJECTIVE" questions, which ask the value's category.
A small model sometimes drops one ("What color is the blanket to the left of the trash can?" as
the color of a blanket); `translators.translate` then asks it the question with its relating
references said as bare nouns and composes the references back in. Words that name the picture
or a kind of thing rather than an object ("item", "piece", "photo") are not asked for. A group word
("the vegetables on the plate") is named by 261 of the 262 tuning programs whose question says one,
where the value rules exempt nothing (in a choice between relations GQA's programs may name the
kind instead: "Is the brown animal to the right ...?" chooses for a `dog`; the other says "part").

Example:
    >>> from theory.nested import parse_nested
    >>> from translators.wording.ontology import bundled_ontology
    >>> named = named_objects("What are the fruits on the plate that is on the table?", bundled_ontology())
    >>> named
    (('plate',), ('table',))
    >>> unnamed(parse_nested("query(unique(relate(select(scene(), plate), fruit, on, subject)), name)"), named)
    ['table']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from theory.program import Program
from translators.rules.plain_wording import GROUP_ROLE
from translators.wording.grounded_words import SPELLINGS, singular, stem
from translators.wording.ontology import Ontology
from translators.wording.templating import role_spans, template_tokens

_CLASS_ROLES = frozenset({"thing", "things"})
# Class words that name the picture or a kind of thing in GQA's questions, not an object to find.
FRAME_NOUNS = frozenset(
    "item items piece pieces picture pictures photo photos photograph photographs image images "
    "object objects thing things scene".split()
)
_PLACE_WORDS = frozenset({"part", "parts", "side", "sides"})


def named_objects(question: str, ontology: Ontology) -> tuple[tuple[str, ...], ...]:
    """The class word runs of the question that name an object, in order."""
    return tuple(
        words
        for role, words in role_spans(template_tokens(question), ontology)
        if role in _CLASS_ROLES and words is not None and not (len(words) == 1 and words[0] in FRAME_NOUNS)
    )


def _stems(name: str) -> tuple[str, ...]:
    return tuple(stem(part) for part in name.split("_") if part)


def _inside(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    size = len(part)
    return any(whole[i : i + size] == part for i in range(len(whole) - size + 1))


def unnamed(program: Program, named: Sequence[tuple[str, ...]]) -> list[str]:
    """The objects of `named` that no argument of the program names (by stem, in GQA's spelling or
    the question's, alone or as part of a longer name)."""
    if not named:
        return []
    arguments = {a for step in program.steps for a in step.arguments}
    names = [_stems(a) for a in arguments] + [_stems(SPELLINGS[a]) for a in arguments if a in SPELLINGS]
    missing = []
    for words in named:
        joined = "_".join(words)
        wanted = {_stems(joined), _stems(SPELLINGS.get(joined, joined)), _stems(singular(joined))}
        if not any(_inside(part, name) for part in wanted for name in names):
            missing.append(joined)
    return missing


def said_values(slots: Iterable[tuple[str, str | None]], ontology: Ontology) -> tuple[tuple[str, ...], ...]:
    """The attribute values among a question's slots as fill reads them (`TemplateFiller.raw_slots`:
    "standing" in "the standing man" is a value there, a relation's first word elsewhere)."""
    categories = {category.replace("_", " ") for category in ontology.categories}
    return tuple(tuple(words.split("_")) for role, words in slots if role in categories and words)


def unsaid(program: Program, values: Sequence[tuple[str, ...]], question: str) -> list[str]:
    """The values of `values` that no argument of the program names, where GQA's programs name them
    (not in a choice between relations, not in a "how" question)."""
    if not values or question.strip().lower().startswith("how"):
        return []
    if any(step.operation == "choose_rel" for step in program.steps):
        return []
    return unnamed(program, values)


def said_groups(slots: Iterable[tuple[str, str | None]]) -> tuple[tuple[str, ...], ...]:
    """The group words among a question's slots as fill reads them ("the vegetables on the plate"),
    but for words of the picture or of a place in it ("part", "side")."""
    return tuple(
        tuple(words.split("_"))
        for role, words in slots
        if role == GROUP_ROLE and words and words not in FRAME_NOUNS | _PLACE_WORDS
    )
