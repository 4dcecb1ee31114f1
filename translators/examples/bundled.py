"""The bank the service uses by default: the hand-written examples plus the generated ones.

The generated part is rebuilt deterministically from the templates and the bundled ontology the
first time it is needed (`aspvqa bank generate` does it at install time) and kept in the user
cache as JSON Lines (to read) and a pickle (to load fast), next to its embedding index.

Example:
    >>> bank = default_bank()
    >>> len(bank) >= 20_000
    True
"""

from __future__ import annotations

import hashlib
import pickle
from functools import lru_cache
from pathlib import Path

from theory.cache import cache_dir
from translators.examples.bank import ExampleBank, legacy_bank, normalise_question, save_bank
from translators.examples.synthetic import TEMPLATES, generate_examples
from translators.wording.ontology import Ontology, bundled_ontology

# Examples drawn per template phrasing family; with the bundled ontology this gives ~44,000 after
# deduplication.
PER_TEMPLATE = 450
# Bumped when the way the bank is assembled or drawn changes (names a new cached bank): the
# category phrasings, the slot draws and the rewrites of `generate_examples` are not in TEMPLATES.
ASSEMBLY_VERSION = 5


def bundled_digest(ontology: Ontology, per_template: int = PER_TEMPLATE) -> str:
    """Names one generated bank: the templates, the ontology, the count and the hand-written examples."""
    digest = hashlib.sha256(repr(TEMPLATES).encode())
    digest.update(f"{ontology.digest()}|{per_template}|{legacy_bank().content_digest()}|{ASSEMBLY_VERSION}".encode())
    return digest.hexdigest()[:12]


def bundled_bank_path(ontology: Ontology | None = None, per_template: int = PER_TEMPLATE) -> Path:
    """Where the combined bank of this ontology and count is kept."""
    ontology = ontology or bundled_ontology()
    return cache_dir() / "banks" / f"bundled-{bundled_digest(ontology, per_template)}.jsonl"


def build_default_bank(
    ontology: Ontology | None = None, per_template: int = PER_TEMPLATE, progress=None
) -> ExampleBank:  # noqa: ANN001
    """The hand-written examples followed by the generated ones, from the cache when present."""
    ontology = ontology or bundled_ontology()
    path = bundled_bank_path(ontology, per_template)
    pickled = path.with_suffix(".pickle")
    if pickled.exists():
        try:
            with pickled.open("rb") as handle:
                return ExampleBank(pickle.load(handle), path=path)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            pass  # a damaged or stale cache is rebuilt below
    written = list(legacy_bank())
    seen = {normalise_question(e.question) for e in written}
    generated = [
        e
        for e in generate_examples(ontology, per_template, progress=progress)
        if normalise_question(e.question) not in seen
    ]
    examples = written + generated
    bank = ExampleBank(examples, path=path)
    try:
        save_bank(bank, path)
        temporary = pickled.with_suffix(".tmp")
        with temporary.open("wb") as handle:
            pickle.dump(bank.examples, handle, protocol=pickle.HIGHEST_PROTOCOL)
        temporary.replace(pickled)
    except OSError:
        pass  # a read-only cache still gives a working bank, rebuilt on each start
    return bank


@lru_cache(maxsize=1)
def default_bank() -> ExampleBank:
    """The project's default bank (hand-written and generated examples)."""
    return build_default_bank()
