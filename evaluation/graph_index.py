"""GQA scene graphs by image id from an SQLite index, built once by streaming the JSON file.

GQA's scene-graph files (val 10,696 images, train 74,942) are read incrementally once into an
index file in the cache folder, keyed by the source's path, size and modification time; every
worker process then reads only the graphs its questions need, instead of each holding the whole
file in memory. SQLite (the standard library's) is the index: one file, safe for many readers.

Example:
    >>> graphs = open_scene_graphs("val_sceneGraphs.json")   # doctest: +SKIP
    >>> graphs.get("2375429")["objects"]                      # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from evaluation.gqa_json import SceneGraph
from evaluation.questions import JobError
from theory.cache import cache_dir
from translators.gqa.gqa_files import RecordsError, iter_json_records

INDEX_VERSION = 1


def index_path(source: str | Path) -> Path:
    """Where the index of `source` lives: ``scene_graphs/`` in the cache folder, named by the
    source's absolute path, size and modification time (a changed file gets a new index)."""
    path = Path(source).resolve()
    stat = path.stat()
    key = f"{INDEX_VERSION}|{path}|{stat.st_size}|{stat.st_mtime_ns}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    return cache_dir() / "scene_graphs" / f"{path.stem}-{digest}.sqlite"


def build_index(source: str | Path, target: Path, description: str | None = None) -> Path:
    """Stream `source` into an SQLite index at `target` (written aside and renamed: readers never
    see half an index, and two processes building it at once both end with a whole one)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    db = sqlite3.connect(partial)
    try:
        db.execute("CREATE TABLE graphs (image_id TEXT PRIMARY KEY, graph TEXT NOT NULL)")
        batch: list[tuple[str, str]] = []
        for image_id, graph in iter_json_records(source, description):
            if not isinstance(graph, Mapping):
                raise JobError(f"the scene graphs file must map image ids to GQA scene graphs ({image_id} does not)")
            batch.append((image_id, json.dumps(graph, separators=(",", ":"))))
            if len(batch) >= 1000:
                db.executemany("INSERT OR REPLACE INTO graphs VALUES (?, ?)", batch)
                batch.clear()
        db.executemany("INSERT OR REPLACE INTO graphs VALUES (?, ?)", batch)
        db.commit()
    except (RecordsError, OSError) as exc:
        raise JobError(f"cannot read the scene graphs: {exc}") from None
    finally:
        db.close()
    os.replace(partial, target)
    return target


class SceneGraphIndex:
    """Read-only access to an index; the connection opens on first use in each process."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        return self._db

    def get(self, image_id: str) -> SceneGraph | None:
        """The scene graph of `image_id`, or None when the file has none."""
        row = self._connection().execute("SELECT graph FROM graphs WHERE image_id = ?", (image_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def __len__(self) -> int:
        return int(self._connection().execute("SELECT COUNT(*) FROM graphs").fetchone()[0])


def open_scene_graphs(source: str | Path, description: str | None = None) -> SceneGraphIndex:
    """The index of a scene-graphs JSON file, built first when there is none for this version of it."""
    if not Path(source).is_file():
        raise JobError(f"scene graphs file not found: {source}")
    target = index_path(source)
    if not target.is_file():
        build_index(source, target, description)
    return SceneGraphIndex(target)
