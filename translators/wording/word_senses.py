"""What the rules that say a program as asked need to know of words' senses: the part of
`translators.checks.meaning.WordKinship` they read (WordNet's in the app, `scene.word_kinship`).
It lives here because `translators.wording` imports nothing above it."""

from __future__ import annotations

from typing import Protocol


class WordSenses(Protocol):
    """Kinds and senses of words."""

    def related(self, asked: str, named: str) -> bool:
        """Whether `asked` names what `named` names or something more general."""
        ...
