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


def write_rows(path: Path, fingerprint: str, rows: FormRows, replaces: str | None = None) -> None:
    """Store an index whole or not at all, then remove the files beside it that match `replaces` (the
    indexes of earlier fill rules, which no start reads again); a folder that is not writable is no error."""
    try:
        with replaced_whole(path) as temporary, temporary.open("wb") as out:
            pickle.dump({"fingerprint": fingerprint, "rows": rows}, out, protocol=pickle.HIGHEST_PROTOCOL)
        for stale in path.parent.glob(replaces) if replaces else ():
            if stale != path:
                stale.unlink(missing_ok=True)
    except OSError:
        pass  # the index is built again next time; a stale one stays until the next write
