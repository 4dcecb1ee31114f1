"""How the worked examples of a prompt are chosen: a translation option of its own.

Declared apart from the retriever that reads it, so that the settings and the request schema can
name it without loading the example bank, the embedder and NumPy.
"""

from __future__ import annotations

from enum import Enum


class Sampling(str, Enum):
    """How examples are chosen."""

    BERT = "bert"
    JACCARD = "jaccard"
    RANDOM = "random"
