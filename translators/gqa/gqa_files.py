"""Streaming reads of GQA's JSON files, one record at a time, whatever their size.

GQA's train and val files are single JSON documents of over a gigabyte; they are read
incrementally with ijson (its C parser) instead of whole. Three layouts are understood: an
object ``{id: record}`` (questions, scene graphs), a list of records carrying their ids, and
JSON Lines (one record per line).

Example:
    >>> for question_id, record in iter_json_records("val_balanced_questions.json"):  # doctest: +SKIP
    ...     print(question_id, record["question"])
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from tqdm import tqdm

from translators.errors import TranslatorError


class RecordsError(TranslatorError, ValueError):
    """A file that is not one of the record layouts above; the message says where."""


def _ijson() -> Any:
    try:
        import ijson
    except ImportError as exc:  # pragma: no cover - a dependency of the llm and eval extras
        raise RecordsError("streaming JSON needs ijson: pip install 'aspvqa[eval]'") from exc
    return ijson


@contextmanager
def opened(path: str | Path, description: str | None = None) -> Iterator[IO[bytes]]:
    """The file opened for binary reading; with a `description`, a progress bar of the bytes read on stderr."""
    size = Path(path).stat().st_size
    with open(path, "rb") as handle:
        if description is None:
            yield handle
            return
        with tqdm.wrapattr(
            handle, "read", total=size, desc=description, file=sys.stderr, dynamic_ncols=True, unit_scale=True
        ) as wrapped:
            yield wrapped


def record_id(record: Any, index: int) -> str:
    """A record's id in a list or JSON Lines layout: ``questionId``, ``question_id``, else its position."""
    if isinstance(record, Mapping):
        return str(record.get("questionId", record.get("question_id", index)))
    return str(index)


def _layout(handle: IO[bytes], path: str | Path) -> str:
    """``list``, ``object`` or ``lines``, from the file's start (the handle is rewound)."""
    head = handle.read(1 << 20)
    handle.seek(0)
    text = head.lstrip()
    if not text:
        return "lines"  # an empty file: no records
    if text.startswith(b"["):
        return "list"
    if not text.startswith(b"{"):
        raise RecordsError(f"{path}: not a JSON object, list or JSON Lines file")
    # JSON Lines: the first line is a whole JSON object and more follows. A GQA object file is
    # one long line, or pretty-printed with a first line that is not a whole object.
    line, newline, rest = text.partition(b"\n")
    if newline and rest.strip():
        try:
            return "lines" if isinstance(json.loads(line), dict) else "object"
        except (json.JSONDecodeError, UnicodeDecodeError):
            return "object"
    return "object"


def _lines(handle: IO[bytes], path: str | Path) -> Iterator[tuple[str, Any]]:
    for index, line in enumerate(io.TextIOWrapper(handle, encoding="utf-8")):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordsError(f"{path}: line {index + 1}: invalid JSON: {exc}") from None
        yield record_id(record, index), record


def iter_json_records(path: str | Path, description: str | None = None) -> Iterator[tuple[str, Any]]:
    """(id, record) pairs of a JSON object, a JSON list or a JSON Lines file, read incrementally."""
    ijson = _ijson()
    with opened(path, description) as handle:
        layout = _layout(handle, path)
        if layout == "lines":
            yield from _lines(handle, path)
            return
        try:
            if layout == "list":
                for index, record in enumerate(ijson.items(handle, "item", use_float=True)):
                    yield record_id(record, index), record
            else:
                pairs = ijson.kvitems(handle, "", use_float=True)
                first = next(pairs, None)
                if first is not None and not isinstance(first[1], Mapping):
                    handle.seek(0)  # a single record on one line (JSON Lines of one), not {id: record}
                    yield from _lines(handle, path)
                    return
                if first is not None:
                    yield str(first[0]), first[1]
                for key, value in pairs:
                    yield str(key), value
        except ijson.JSONError as exc:
            raise RecordsError(f"{path}: invalid JSON: {exc}") from None


def count_json_records(path: str | Path, description: str | None = None) -> int:
    """How many records `iter_json_records` yields, counted from parser events (no records built)."""
    ijson = _ijson()
    with opened(path, description) as handle:
        layout = _layout(handle, path)
        if layout == "lines":
            return sum(1 for line in handle if line.strip())
        wanted = ("item", "start_map") if layout == "list" else ("", "map_key")
        if layout == "object":
            first = next(_ijson().kvitems(handle, "", use_float=True), None)
            handle.seek(0)
            if first is not None and not isinstance(first[1], Mapping):
                return 1  # a single record, as `iter_json_records` reads it
        try:
            return sum(1 for prefix, event, _ in ijson.parse(handle) if (prefix, event) == wanted)
        except ijson.JSONError as exc:
            raise RecordsError(f"{path}: invalid JSON: {exc}") from None
