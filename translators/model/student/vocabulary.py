"""Program text as a sequence of tokens the student writes, and back.

A program is written in the nested syntax (`theory.nested`); its tokens are the operation and
constant names, the parentheses and the commas, so every token the student may write is a whole
word of the program language, and a written sequence reads back into text the parser checks.

Example:
    >>> tokens = program_tokens("exist(select(scene(), cat))")
    >>> tokens
    ['exist', '(', 'select', '(', 'scene', '(', ')', ',', 'cat', ')', ')']
    >>> program_text(tokens)
    'exist(select(scene(), cat))'
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

# Quoted constants keep their spaces; every other token is a name or one punctuation mark.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[^\s(),"]+|[(),]')

PAD, START, END, UNKNOWN = "<pad>", "<s>", "</s>", "<unk>"
SPECIALS = (PAD, START, END, UNKNOWN)


def program_tokens(text: str) -> list[str]:
    """The tokens of a program's nested text."""
    return _TOKEN.findall(text)


def program_text(tokens: Iterable[str]) -> str:
    """The nested text of a token sequence (the inverse of `program_tokens` on formatted text)."""
    out: list[str] = []
    for token in tokens:
        out.append(", " if token == "," else token)
    return "".join(out)


@dataclass(frozen=True)
class ProgramVocabulary:
    """The student's output tokens: specials first, then program words by frequency."""

    tokens: tuple[str, ...]

    @classmethod
    def build(cls, sequences: Iterable[Sequence[str]], minimum: int = 1) -> ProgramVocabulary:
        """A vocabulary of every token seen at least `minimum` times."""
        counts = Counter(token for sequence in sequences for token in sequence)
        kept = sorted(
            (t for t, n in counts.items() if n >= minimum and t not in SPECIALS), key=lambda t: (-counts[t], t)
        )
        return cls(SPECIALS + tuple(kept))

    @property
    def index(self) -> dict[str, int]:
        """Token -> id."""
        return {token: i for i, token in enumerate(self.tokens)}

    def ids(self, tokens: Sequence[str]) -> list[int]:
        """START, the tokens' ids (unknown ones as UNKNOWN), END."""
        index = self.index
        unknown = index[UNKNOWN]
        return [index[START], *(index.get(t, unknown) for t in tokens), index[END]]

    def save(self, path: Path) -> None:
        """Write the tokens as a JSON list."""
        path.write_text(json.dumps(list(self.tokens)), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> ProgramVocabulary:
        """Read a vocabulary `save` wrote."""
        return cls(tuple(json.loads(path.read_text(encoding="utf-8"))))
