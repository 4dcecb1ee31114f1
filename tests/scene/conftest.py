"""Fixtures shared by the scene tests."""

from tests.scene.vlm_server import vlm_server

__all__ = ["vlm_server"]
