"""The project's cache folder, one setting for every layer: ``cache_dir`` (``ASPVQA_CACHE_DIR``).

The settings read it (`app.config.Settings`) and hand it here once per process with
`use_cache_dir`; unset, it is ``$XDG_CACHE_HOME/aspvqa`` (else ``~/.cache/aspvqa``).
`replaced_whole` writes the files kept there.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_chosen: Path | None = None


def use_cache_dir(path: str | Path | None) -> None:
    """Make `path` this process's cache folder (None: the default); called by the settings."""
    global _chosen
    _chosen = Path(path) if path else None


def chosen_cache_dir() -> Path | None:
    """The cache folder set with `use_cache_dir`, to hand to worker processes (None: the default)."""
    return _chosen


def cache_dir() -> Path:
    """The cache folder (generated banks, joined model files, WordNet copies, benchmark logs)."""
    if _chosen is not None:
        return _chosen
    # The platform's convention for where caches go, not a setting of the project.
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
