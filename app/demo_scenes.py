"""Demo scenes shipped with the service (scene graphs written by the team)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any


@lru_cache(maxsize=1)
def demo_scenes() -> dict[str, dict[str, Any]]:
    """The bundled demo scene graphs, by id."""
    scenes: dict[str, dict[str, Any]] = json.loads(
        (resources.files("app") / "data" / "demo" / "scenes.json").read_text(encoding="utf-8")
    )
    return scenes
