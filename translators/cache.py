"""A persistent translation cache keyed by (question, settings), in SQLite from the standard library.

SQLite gives atomic writes and safe concurrent readers without another dependency; values are
JSON documents of translation results.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path

from translators.records import TranslationRecord


def cache_key(question: str, settings: Mapping[str, object]) -> str:
    """A digest of the question (whitespace-normalised) and the settings that change the output."""
    payload = json.dumps({"q": " ".join(question.split()), "s": settings}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class TranslationCache:
    """get/put of translation records; `path=None` keeps the cache in memory."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path) if self.path else ":memory:", check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS translations (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self._db.commit()

    def get(self, key: str) -> TranslationRecord | None:
        """The stored result for `key`, or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM translations WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: TranslationRecord) -> None:
        """Store (or replace) a result."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO translations VALUES (?, ?)", (key, json.dumps(value)))
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM translations").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        self._db.close()
