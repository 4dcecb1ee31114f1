"""Demo scenes shipped with the service, to try /answer without an image."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.demo_scenes import demo_scenes

router = APIRouter(tags=["demo"])


@router.get("/demo/scenes")
def scenes() -> dict[str, dict[str, Any]]:
    """Demo scene graphs in GQA format, to try /answer without an image."""
    return demo_scenes()
