"""What the student learns from: (question, program tokens) pairs.

The bank's examples (the hand-written ones and the tens of thousands the templates generate) and,
where the GQA folder is given, GQA's own questions with their programs converted to the project's
(`gqa_to_program`): real wordings the templates do not make. The test-dev sample is never read
here: its development half is what the student is measured on.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from theory.nested import format_nested, parse_nested
from theory.operations import OPERATIONS
from theory.program import ProgramError
from translators.examples.bank import ExampleBank
from translators.gqa.gqa_program import GQAProgramError, gqa_to_program, load_attribute_categories
from translators.model.student.vocabulary import program_text, program_tokens

# GQA files the student may learn from, in the shared folder's layout. The test-dev sample is not one.
GQA_TRAINING_FILES = ("questions/val_balanced_sample.json", "questions/train_balanced_sample50.json")


@dataclass(frozen=True)
class Pair:
    """One question and its program's tokens, with where it came from."""

    question: str
    tokens: tuple[str, ...]
    source: str


# The argument roles whose words must be the question's (`grounded_words.invented`).
_WORD_ROLES = frozenset({"class", "value", "relation"})


def structure_tokens(pairs: Iterable[Pair]) -> frozenset[str]:
    """The constants the pairs' programs use in other roles (categories, polarity, position,
    comparison): what a program may say whatever the question's words."""
    found: set[str] = set()
    for pair in pairs:
        try:
            program = parse_nested(program_text(pair.tokens))
        except ProgramError:
            continue
        for step in program:
            roles = OPERATIONS[step.operation].arguments
            found.update(a for role, a in zip(roles, step.arguments) if role not in _WORD_ROLES)
    return frozenset(found)


def bank_pairs(bank: ExampleBank) -> Iterator[Pair]:
    """Every example of the bank as a pair."""
    for example in bank:
        yield Pair(example.question, tuple(program_tokens(format_nested(example.program))), example.source)


def _records(path: Path) -> Iterator[tuple[str, dict]]:
    """(question id, record) of a GQA file: a dict by id, or a list of records with ``question_id``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        yield from data.items()
    else:
        yield from ((str(r.get("question_id", "")), r) for r in data)


def gqa_pairs(gqa_dir: Path, exclude: Collection[str] = ()) -> Iterator[Pair]:
    """GQA's questions whose programs convert, from the training files present in `gqa_dir`, but
    for the ids in `exclude` (a part kept for measuring)."""
    categories = load_attribute_categories(gqa_dir / "metadata" / "gqa_all_attribute.json")
    for name in GQA_TRAINING_FILES:
        path = gqa_dir / name
        if not path.exists():
            continue
        for question_id, record in _records(path):
            if question_id in exclude:
                continue
            try:
                program = gqa_to_program(record["semantic"], categories)
            except (GQAProgramError, KeyError):
                continue
            yield Pair(record["question"], tuple(program_tokens(format_nested(program))), "gqa")
