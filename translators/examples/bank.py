"""The example bank: (question, program) pairs that prompts show the model as worked examples.

A bank is a JSON Lines file, one `BankRecord` a line; the program is stored in flat ASP (the
canonical form) and, for banks built from GQA, the original GQA semantic program as well. Its
embedding index lives next to it (`<stem>.<model>.npy` with a small JSON sidecar saying which
questions it covers), so it is computed once per model.

Example:
    >>> bank = legacy_bank()
    >>> len(bank) >= 200
    True
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from theory.flat import format_flat, parse_flat
from theory.program import Program

DEFAULT_BANK_NAME = "bank.jsonl"


class BankRecord(BaseModel):
    """One line of a bank file."""

    model_config = ConfigDict(extra="ignore")

    id: str
    question: str
    program: str
    semantic: list[dict[str, object]] | None = None  # GQA's own steps, as its JSON gives them
    source: str = "project"
    equivalent: list[str] = []


@dataclass(frozen=True)
class Example:
    """A worked example: a question and its program (flat ASP, parsed)."""

    id: str
    question: str
    program: Program
    semantic: tuple[Mapping[str, object], ...] | None = None  # GQA's own steps, as its JSON gives them
    source: str = "project"
    equivalent: frozenset[str] = field(default_factory=frozenset)

    @property
    def operations(self) -> set[str]:
        """The operations the example's program uses."""
        return self.program.operations


def normalise_question(text: str) -> str:
    """Lower case, single spaces, no trailing punctuation: the key for exact-duplicate checks."""
    return " ".join(text.lower().replace("?", " ").replace(".", " ").split())


class ExampleBank:
    """An ordered collection of examples with an optional on-disk location for its index."""

    def __init__(self, examples: Sequence[Example], path: Path | None = None) -> None:
        self.examples: list[Example] = list(examples)
        self.path = path
        self._by_id = {e.id: i for i, e in enumerate(self.examples)}

    def __len__(self) -> int:
        return len(self.examples)

    def __iter__(self) -> Iterator[Example]:
        return iter(self.examples)

    def __getitem__(self, index: int) -> Example:
        return self.examples[index]

    def index_of(self, example_id: str) -> int | None:
        """Position of the example with this id, or None."""
        return self._by_id.get(example_id)

    @property
    def questions(self) -> list[str]:
        """The questions, in bank order."""
        return [e.question for e in self.examples]

    @cached_property
    def _fingerprint(self) -> str:
        # A bank's examples never change after construction, so the digest is computed once.
        digest = hashlib.sha256()
        for question in self.questions:
            digest.update(question.encode("utf-8") + b"\n")
        return digest.hexdigest()[:16]

    def fingerprint(self) -> str:
        """A digest of the questions, to tell whether a stored embedding index is stale."""
        return self._fingerprint

    def content_digest(self) -> str:
        """A digest of the questions and their programs, to tell whether what was built from both
        is stale (an example's program may change while its question stays)."""
        return self._content_digest

    @cached_property
    def _content_digest(self) -> str:
        digest = hashlib.sha256()
        for example in self.examples:
            digest.update(f"{example.id}\t{example.question}\t{format_flat(example.program)}\n".encode())
        return digest.hexdigest()[:16]

    @cached_property
    def with_semantic(self) -> ExampleBank:
        """The examples that carry a GQA semantic program (the only ones the GQA form can show)."""
        return ExampleBank([e for e in self.examples if e.semantic])

    def merged(self, other: ExampleBank) -> ExampleBank:
        """This bank followed by the examples of `other` whose ids are new."""
        extra = [e for e in other.examples if e.id not in self._by_id]
        return ExampleBank([*self.examples, *extra])

    def without(self, ids: Iterable[str]) -> ExampleBank:
        """A copy without the examples whose ids are given."""
        drop = set(ids)
        return ExampleBank([e for e in self.examples if e.id not in drop])


def example_from_record(record: BankRecord) -> Example:
    """Parse a record's program (raises a `ProgramError` when it is not a valid flat program)."""
    return Example(
        id=record.id,
        question=record.question,
        program=parse_flat(record.program),
        semantic=tuple(record.semantic) if record.semantic is not None else None,
        source=record.source,
        equivalent=frozenset(record.equivalent),
    )


def record_from_example(example: Example) -> BankRecord:
    """The JSON Lines record of an example."""
    from theory.flat import format_flat

    return BankRecord(
        id=example.id,
        question=example.question,
        program=format_flat(example.program),
        semantic=list(example.semantic) if example.semantic is not None else None,
        source=example.source,
        equivalent=sorted(example.equivalent),
    )


def load_bank(path: str | Path) -> ExampleBank:
    """Read a bank from a JSON Lines file, or from the folder `aspvqa bank build` wrote; errors name the line."""
    path = Path(path)
    if path.is_dir():
        path = path / DEFAULT_BANK_NAME
    examples = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                examples.append(example_from_record(BankRecord.model_validate_json(line)))
            except Exception as exc:  # noqa: BLE001 - re-raised with the line number
                raise ValueError(f"{path}:{number}: {exc}") from exc
    return ExampleBank(examples, path=path)


def save_bank(bank: ExampleBank | Iterable[Example], path: str | Path) -> Path:
    """Write the examples as JSON Lines."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for example in bank:
            handle.write(record_from_example(example).model_dump_json(exclude_defaults=True) + "\n")
    return path


def default_bank_path() -> Path:
    """The hand-written bank shipped with the package."""
    return Path(__file__).resolve().parents[1] / "data" / DEFAULT_BANK_NAME


def legacy_bank() -> ExampleBank:
    """The hand-written examples alone: everyday-scene questions covering every operation (the
    service's default bank adds the generated ones: `translators.examples.bundled.default_bank`)."""
    return load_bank(default_bank_path())


def iter_question_records(
    path: str | Path, limit: int | None = None, description: str | None = None
) -> Iterator[dict[str, Any]]:
    """Records of a GQA questions file (dict id -> record, a list, or JSON Lines), read incrementally,
    each with its ``questionId``; at most `limit` (None: all)."""
    from translators.gqa.gqa_files import iter_json_records

    pairs = iter_json_records(path, description)
    for question_id, record in itertools.islice(pairs, limit):
        if not isinstance(record, dict):
            raise ValueError(f"{path}: question {question_id} is not a JSON object")
        yield {"questionId": question_id, **record} if "questionId" not in record else record


def read_json_records(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """Records of a GQA questions JSON (dict id -> record, or a list) or of a JSON Lines file."""
    return list(iter_question_records(path, limit))
