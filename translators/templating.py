"""A question's template: its ontology words replaced by their roles, for retrieval by structure.

"Is there a table that is blue?" and "Is there a helmet that is white?" have the same program up
to two words; their sentence embeddings differ mostly by those words. Replacing classes with
``thing`` and attribute values with their category (``blue`` -> ``color``) makes questions of one
form land together, whatever the words; relations and group words (``furniture``) stay, since
they carry the structure.

Example:
    >>> from translators.ontology import bundled_ontology
    >>> question_template("Is there a table that is blue?", bundled_ontology())
    'is there a thing that is color'
"""

from __future__ import annotations

import re

from translators.ontology import Ontology

_TOKEN = re.compile(r"[a-z0-9]+")
_MAX_WORDS = 4


_LEXICONS: dict[str, dict[tuple[str, ...], str]] = {}


def _lexicon(ontology: Ontology) -> dict[tuple[str, ...], str]:
    """Word sequences -> placeholder (values win over classes; the longest sequence wins at match time)."""
    key = ontology.digest()
    if key not in _LEXICONS:
        _LEXICONS[key] = _build_lexicon(ontology)
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
    return lexicon


def question_template(question: str, ontology: Ontology) -> str:
    """The question in lower case with its class words and attribute values replaced by roles."""
    lexicon = _lexicon(ontology)
    tokens = _TOKEN.findall(question.lower())
    out: list[str] = []
    index = 0
    while index < len(tokens):
        for width in range(min(_MAX_WORDS, len(tokens) - index), 0, -1):
            placeholder = lexicon.get(tuple(tokens[index : index + width]))
            if placeholder is not None:
                out.append(placeholder)
                index += width
                break
        else:
            out.append(tokens[index])
            index += 1
    return " ".join(out)


class Templater:
    """`question_template` bound to one ontology; `key` names it in stored indexes."""

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology
        self.key = f"template-{ontology.digest()}"

    def __call__(self, question: str) -> str:
        return question_template(question, self.ontology)
