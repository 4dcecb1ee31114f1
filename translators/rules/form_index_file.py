"""Template fill's index of the bank by form, kept on disk beside the bank so a start reads it back.

The index is only a cache: a file that is absent, unreadable, or made for another bank (its
fingerprint) is built again, and a folder that cannot be written is no error.
"""

from __future__ import annotations

import pickle
from pathlib import Path

from theory.cache import replaced_whole
from translators.rules.slot_swap import Slots

FormRows = dict[str, list[tuple[int, Slots]]]  # form -> (bank row, slots) of its examples


_INFIX = ".fill-"  # bank.jsonl -> bank.fill-<digest>.pickle


def form_index_path(bank_path: Path, digest: str) -> Path:
    """Where the index of the bank at `bank_path`, made by the fill code with `digest`, is kept."""
    stem = bank_path.with_suffix("")
    return stem.with_name(f"{stem.name}{_INFIX}{digest}.pickle")


def read_rows(path: Path, fingerprint: str) -> FormRows | None:
    """A stored index when it was made for the bank with `fingerprint`, else None."""
    try:
        with path.open("rb") as handle:
            stored = pickle.load(handle)
    # ImportError: a pickle written before a module moved names a module that is gone.
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError):
        return None  # absent or unreadable: built again
    if not isinstance(stored, dict) or stored.get("fingerprint") != fingerprint:
        return None
    return stored["rows"]


def write_rows(path: Path, fingerprint: str, rows: FormRows) -> None:
    """Store an index whole or not at all, then remove the same bank's indexes of earlier fill code
    beside it, which no start reads again; a folder that is not writable is no error."""
    try:
        with replaced_whole(path) as temporary, temporary.open("wb") as out:
            pickle.dump({"fingerprint": fingerprint, "rows": rows}, out, protocol=pickle.HIGHEST_PROTOCOL)
        bank = path.name.partition(_INFIX)[0]
        for stale in path.parent.glob(f"{bank}{_INFIX}*.pickle"):
            if stale != path:
                stale.unlink(missing_ok=True)
    except OSError:
        pass  # the index is built again next time; a stale one stays until the next write
