"""How many bytes a value holds in this process: the sizes of the Python objects it reaches.

The scene store is bounded in bytes, and what it keeps are the records the pipeline takes (a scene
graph read into objects, scene facts, an image and what perceiving it found), not the request's
text: a scene graph's objects take several times its JSON. Each object is counted once, however
often it is reached (the same relation name in many objects); memory that a native library holds
behind an object (clingo's symbols) is counted as the Python object that refers to it.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

# Values that hold no references worth following.
_LEAVES = (str, bytes, bytearray, int, float, bool, type(None))


def estimated_bytes(value: object) -> int:
    """The bytes of `value` and of every object it reaches through containers and instance attributes."""
    seen: set[int] = set()
    total = 0
    pending = [value]
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, _LEAVES):
            continue
        if isinstance(item, Mapping):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, (tuple, list, set, frozenset)):
            pending.extend(item)
        elif hasattr(item, "__dict__") and not isinstance(item, type):
            # A dataclass's fields, and a cached property (GraphScene.by_id) beside them.
            pending.extend(vars(item).values())
    return total
