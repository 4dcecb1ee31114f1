"""Demo scenes shipped with the service (scene graphs written by the team)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from fastapi import APIRouter

router = APIRouter(tags=["demo"])


@lru_cache(maxsize=1)
def demo_scenes() -> dict[str, Any]:
    """The bundled demo scene graphs, by id."""
    return json.loads((resources.files("app") / "data" / "demo" / "scenes.json").read_text(encoding="utf-8"))


@router.get("/demo/scenes")
def scenes() -> dict[str, Any]:
    """Demo scene graphs in GQA format, to try /answer without an image."""
    return demo_scenes()
