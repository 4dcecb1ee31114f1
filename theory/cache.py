"""The project's cache folder, one setting for every layer: ``ASPVQA_CACHE_DIR``.

Unset, it is ``$XDG_CACHE_HOME/aspvqa`` (else ``~/.cache/aspvqa``). ``ASPVQA_CACHE``, an older
name, is still read when the new one is unset. `replaced_whole` writes the files kept there.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CACHE_VARIABLE = "ASPVQA_CACHE_DIR"
DEPRECATED_CACHE_VARIABLE = "ASPVQA_CACHE"


def cache_dir() -> Path:
    """The cache folder (generated banks, joined model files, WordNet copies, benchmark logs)."""
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE])
    if os.environ.get(DEPRECATED_CACHE_VARIABLE):
        warnings.warn(
            f"{DEPRECATED_CACHE_VARIABLE} is deprecated; set {CACHE_VARIABLE}", DeprecationWarning, stacklevel=2
        )
        return Path(os.environ[DEPRECATED_CACHE_VARIABLE])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "aspvqa"


@contextmanager
def replaced_whole(target: Path) -> Iterator[Path]:
    """An empty temporary file beside `target` to write (by name, as C libraries do); it replaces
    `target` when the block ends without an error, so a reader never sees half a file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
