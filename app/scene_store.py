"""Scenes sent once and asked many times: the service's scenes by content hash, per client.

A client stores a scene (`POST /scenes`) and then names it by its id in `/answer` and `/verify`.
The store keeps the record the pipeline takes (a scene graph read into objects once, scene facts,
an image with what perceiving it found), in the service process: a solver process that is
restarted loses nothing. It is bounded in bytes (`app.memory_size`) and in count, the least
recently used scene going first, and a scene not used for its time to live is forgotten. With API
keys each key has scenes of its own: an id stored under another key is unknown to this one.

Using a scene (a question on it, storing it again, reading its entry) makes it the most recently
used and starts its time to live again, so the order of use is also the order of expiry: expired
scenes are always at the front and are swept from there.
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from app.errors import PipelineError
from app.memory_size import estimated_bytes
from app.scene_input import GraphScene, SceneInput

# Why an id is no longer here: said in the 404, remembered for this many ids.
Gone = Literal["expired", "evicted", "deleted"]
GONE_REMEMBERED = 4096

# An entry's key: the client's scope ("" without API keys) and the scene's id.
Key = tuple[str, str]


@dataclass(frozen=True)
class StoredScene:
    """One stored scene and its accounting (times on the store's clock, in seconds)."""

    id: str
    scene: SceneInput
    size: int
    stored_at: float
    used_at: float
    expires_at: float


@dataclass(frozen=True)
class StoreUsage:
    """How full the store is."""

    scenes: int
    bytes: int
    max_scenes: int
    max_bytes: int
    ttl_s: float


def scene_bytes(scene: SceneInput) -> int:
    """`estimated_bytes` of a scene record; a scene graph's counted object by object, the same sum
    but a few times faster (a stored graph may have 100,000 relations, and this runs as it is stored)."""
    if not isinstance(scene, GraphScene):
        return estimated_bytes(scene)
    size = sys.getsizeof(scene) + sys.getsizeof(vars(scene)) + sys.getsizeof(scene.objects)
    pair = sys.getsizeof((None, None))
    words: set[str] = set()  # names are shared within a graph, as the walk counts them
    for key, obj in scene.objects:
        size += pair + sys.getsizeof(key) + sys.getsizeof(obj) + sys.getsizeof(vars(obj)) + sys.getsizeof(obj.id)
        words.update((obj.name, obj.hposition, obj.vposition, *obj.attributes))
        words.update(name for name, _ in obj.relations)
        size += sys.getsizeof(obj.attributes) + sys.getsizeof(obj.relations) + len(obj.relations) * pair
        size += sum(sys.getsizeof(target) for _, target in obj.relations)
    return size + sum(map(sys.getsizeof, words))


def content_id(kind: str, content: bytes) -> str:
    """A scene's id: the SHA-256 of its kind and its content, in hex."""
    return hashlib.sha256(kind.encode() + b"\0" + content).hexdigest()


class SceneStore:
    """Scenes by (client scope, id), bounded by `max_bytes` and `max_scenes`, each kept `ttl_s` after its last use.

    Safe to call from several threads: requests read it from the worker threads they answer in.
    `clock` is the time in seconds (`time.monotonic` unless a test gives another).
    """

    def __init__(
        self, max_bytes: int, max_scenes: int, ttl_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_bytes = max_bytes
        self.max_scenes = max_scenes
        self.ttl_s = ttl_s
        self.clock = clock
        self._lock = threading.Lock()
        self._scenes: OrderedDict[Key, StoredScene] = OrderedDict()
        self._bytes = 0
        self._gone: OrderedDict[Key, Gone] = OrderedDict()

    def put(self, scope: str, scene_id: str, scene: SceneInput, size: int) -> tuple[StoredScene, bool]:
        """Store `scene` of `size` bytes under `scene_id`; (the entry, whether it is new). An entry
        already there is kept (and used); raises `PipelineError` (too_large) for a scene over the bound."""
        if size > self.max_bytes:
            raise PipelineError(
                "too_large", f"the scene takes about {size} bytes stored, more than the store's {self.max_bytes}"
            )
        key = (scope, scene_id)
        with self._lock:
            now = self.clock()
            self._sweep(now)
            if key in self._scenes:
                return self._use(key, now), False
            entry = StoredScene(scene_id, scene, size, now, now, now + self.ttl_s)
            self._scenes[key] = entry
            self._bytes += size
            self._gone.pop(key, None)
            self._evict(keep=key)
            return entry, True

    def get(self, scope: str, scene_id: str) -> StoredScene:
        """The entry of `scene_id` for this scope, now used; raises `PipelineError` (not_found) saying why not."""
        key = (scope, scene_id)
        with self._lock:
            now = self.clock()
            self._sweep(now)
            if key not in self._scenes:
                raise PipelineError("not_found", self._missing(key))
            return self._use(key, now)

    def find(self, scope: str, scene_id: str) -> StoredScene | None:
        """The entry of `scene_id` for this scope, now used, or None."""
        key = (scope, scene_id)
        with self._lock:
            now = self.clock()
            self._sweep(now)
            return self._use(key, now) if key in self._scenes else None

    def delete(self, scope: str, scene_id: str) -> None:
        """Forget `scene_id` for this scope; raises `PipelineError` (not_found) when it is not stored."""
        key = (scope, scene_id)
        with self._lock:
            self._sweep(self.clock())
            if key not in self._scenes:
                raise PipelineError("not_found", self._missing(key))
            self._drop(key, "deleted")

    def grow(self, scope: str, scene_id: str, extra: int, of: SceneInput | None = None) -> bool:
        """Count `extra` bytes more for a stored scene (what perceiving an image found, an answer),
        others making room; False, counting nothing, when the scene is gone (or its record is not
        `of`) or would be over the bound alone."""
        key = (scope, scene_id)
        with self._lock:
            entry = self._scenes.get(key)
            if entry is None or (of is not None and entry.scene is not of) or entry.size + extra > self.max_bytes:
                return False
            self._scenes[key] = replace(entry, size=entry.size + extra)
            self._bytes += extra
            self._evict(keep=key)
            return True

    def usage(self) -> StoreUsage:
        """The scenes and bytes held now, and the bounds."""
        with self._lock:
            self._sweep(self.clock())
            return StoreUsage(len(self._scenes), self._bytes, self.max_scenes, self.max_bytes, self.ttl_s)

    def ids(self, scope: str) -> list[str]:
        """The ids this scope has stored, least recently used first."""
        with self._lock:
            self._sweep(self.clock())
            return [scene_id for (owner, scene_id) in self._scenes if owner == scope]

    # --- under the lock ---------------------------------------------------------------

    def _use(self, key: Key, now: float) -> StoredScene:
        entry = replace(self._scenes[key], used_at=now, expires_at=now + self.ttl_s)
        self._scenes[key] = entry
        self._scenes.move_to_end(key)
        return entry

    def _sweep(self, now: float) -> None:
        while self._scenes:
            key, entry = next(iter(self._scenes.items()))
            if entry.expires_at > now:
                return
            self._drop(key, "expired")

    def _evict(self, keep: Key) -> None:
        """The least recently used scenes out until the bounds hold (never `keep`, which fits alone)."""
        for key in list(self._scenes):
            if self._bytes <= self.max_bytes and len(self._scenes) <= self.max_scenes:
                return
            if key != keep:
                self._drop(key, "evicted")

    def _drop(self, key: Key, why: Gone) -> None:
        entry = self._scenes.pop(key)
        self._bytes -= entry.size
        self._gone[key] = why
        self._gone.move_to_end(key)
        while len(self._gone) > GONE_REMEMBERED:
            self._gone.popitem(last=False)

    def _missing(self, key: Key) -> str:
        scene_id = key[1]
        why = self._gone.get(key)
        if why == "expired":
            return f"scene {scene_id} expired: it was not used for {self.ttl_s:g} s; store it again (POST /scenes)"
        if why == "evicted":
            return (
                f"scene {scene_id} was evicted to make room for other scenes (the store keeps at most "
                f"{self.max_scenes} scenes and {self.max_bytes} bytes); store it again (POST /scenes)"
            )
        if why == "deleted":
            return f"scene {scene_id} was deleted; store it again (POST /scenes)"
        return f"unknown scene id {scene_id}: no scene is stored under it for this client (POST /scenes stores one)"
