"""SHA-256 digests of large files, computed once per version of a file.

A digest is remembered in a small JSON record keyed by the file's path, size and modification
time, so a 1 GB model is hashed on its first use and not again on every start; any change to the
file (a reinstall, a rewrite) changes its size or time and makes it hashed again.

Example:
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "f.bin").write_bytes(b"abc")
    >>> sha256_of(folder / "f.bin", folder / "digests.json")[:16]
    'ba7816bf8f01cfea'
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from theory.cache import replaced_whole

_LOCK = threading.Lock()  # one writer of the record per process; os.replace keeps it whole across processes


def _key(path: Path) -> tuple[str, dict[str, int]]:
    stat = path.stat()
    return str(path.resolve()), {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _read_record(record: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # no record yet, or an unreadable one: digests are computed again
    return data if isinstance(data, dict) else {}


def known_digest(path: Path, record: Path) -> str | None:
    """The remembered digest of `path` if its size and modification time are those it was taken at."""
    name, version = _key(path)
    entry = _read_record(record).get(name)
    if isinstance(entry, dict) and all(entry.get(k) == v for k, v in version.items()):
        digest = entry.get("sha256")
        return digest if isinstance(digest, str) else None
    return None


def remember_digest(path: Path, digest: str, record: Path) -> None:
    """Record `digest` as the SHA-256 of `path` as it is now."""
    name, version = _key(path)
    with _LOCK:
        entries = _read_record(record)
        entries[name] = {**version, "sha256": digest}
        with replaced_whole(record) as temporary:
            temporary.write_text(json.dumps(entries, indent=1, sort_keys=True), encoding="utf-8")


def sha256_of(path: Path, record: Path) -> str:
    """The SHA-256 (hex) of `path`: remembered in `record` when the file is unchanged, else computed and kept."""
    digest = known_digest(path, record)
    if digest is None:
        with path.open("rb") as handle:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
        remember_digest(path, digest, record)
    return digest
