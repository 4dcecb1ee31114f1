"""The project's cache folder, one setting for every layer: ``ASPVQA_CACHE_DIR``.

Unset, it is ``$XDG_CACHE_HOME/aspvqa`` (else ``~/.cache/aspvqa``). ``ASPVQA_CACHE``, an older
name, is still read when the new one is unset.
"""

from __future__ import annotations

import os
import warnings
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
