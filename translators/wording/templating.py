"""A question's template: its ontology words replaced by their roles, for retrieval by structure.

"Is there a chair that is red?" and "Is there a bench that is green?" have the same program up
to two words; their sentence embeddings differ mostly by those words. Replacing classes with
``thing`` and attribute values with their category (``red`` -> ``color``) makes questions of one
form land together, whatever the words; relations and group words (``furniture``) stay, since
they carry the structure.

Example:
    >>> from translators.wording.ontology import bundled_ontology
    >>> question_template("Is there a chair that is red?", bundled_ontology())
    'is there a thing that is color'
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from translators.wording.grounded_words import IRREGULAR_PLURALS, SPELLINGS
from translators.wording.ontology import Ontology

_TOKEN = re.compile(r"[a-z0-9]+")
_MAX_WORDS = 4
TEMPLATE_VERSION = 3  # part of the key of stored template embeddings: a changed lexicon is a new key


_LEXICONS: dict[str, dict[tuple[str, ...], str]] = {}
_BY_OBJECT: dict[int, tuple[Ontology, dict[tuple[str, ...], str]]] = {}


def _lexicon(ontology: Ontology) -> dict[tuple[str, ...], str]:
    """Word sequences -> placeholder (values win over classes; the longest sequence wins at match time)."""
    # By object first: the digest hashes the whole ontology, too slow once per question of a bank.
    known = _BY_OBJECT.get(id(ontology))
    if known is not None and known[0] is ontology:
        return known[1]
    key = ontology.digest()
    if key not in _LEXICONS:
        _LEXICONS[key] = _build_lexicon(ontology)
    _BY_OBJECT[id(ontology)] = (ontology, _LEXICONS[key])
    return _LEXICONS[key]


def _build_lexicon(ontology: Ontology) -> dict[tuple[str, ...], str]:
    lexicon: dict[tuple[str, ...], str] = {}
    groups = set(ontology.groups)
    relation_words = {w for r in ontology.relations for w in r.split("_")}
    for cls in ontology.classes - groups:
        words = tuple(cls.split("_"))
        if len(words) == 1 and words[0] in relation_words:
            continue  # "top", "side": also parts of relations
        lexicon[words] = "thing"
        if len(words[-1]) > 2:
            lexicon[(*words[:-1], words[-1] + "s")] = "things"
            lexicon[(*words[:-1], words[-1] + "es")] = "things"
    for category, values in ontology.categories.items():
        for value in values:
            words = tuple(value.split("_"))
            if len(words) == 1 and words[0] in relation_words:
                continue
            lexicon[words] = category.replace("_", " ")
    for value in ontology.uncategorised:
        lexicon[tuple(value.split("_"))] = "property"
    # Another name of a class ("garbage can": GQA's programs say trash_can) is a class word too, and
    # so is an irregular plural ("men").
    for spelling, name in SPELLINGS.items():
        words = tuple(spelling.split("_"))
        if name in ontology.classes and words not in lexicon:
            lexicon[words] = "thing"
    for plural, name in IRREGULAR_PLURALS.items():
        if name in ontology.classes - groups and (plural,) not in lexicon:
            lexicon[(plural,)] = "things"
    return lexicon


def template_tokens(question: str) -> list[str]:
    """The question's lower-case words and numbers, as templates read them."""
    return _TOKEN.findall(question.lower())


def role_spans(tokens: list[str], ontology: Ontology) -> Iterator[tuple[str, tuple[str, ...] | None]]:
    """Each ontology word sequence as (its role, its words), longest first; other words as (word, None)."""
    lexicon = _lexicon(ontology)
    index = 0
    while index < len(tokens):
        for width in range(min(_MAX_WORDS, len(tokens) - index), 0, -1):
            words = tuple(tokens[index : index + width])
            placeholder = lexicon.get(words)
            if placeholder is not None:
                yield placeholder, words
                index += width
                break
        else:
            yield tokens[index], None
            index += 1


def question_template(question: str, ontology: Ontology) -> str:
    """The question in lower case with its class words and attribute values replaced by roles."""
    return " ".join(role for role, _ in role_spans(template_tokens(question), ontology))


class Templater:
    """`question_template` bound to one ontology; `key` names it in stored indexes."""

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology
        self.key = f"template{TEMPLATE_VERSION}-{ontology.digest()}"

    def __call__(self, question: str) -> str:
        return question_template(question, self.ontology)
