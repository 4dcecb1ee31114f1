"""The scene of `aspvqa answer` and `aspvqa verify`: `--image`, `--scene-graph` (with `--image-id`) or
`--scene`, read from their files and made into the request's one scene by `app.scene_input.one_scene`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.commands.io import fail, read_input
from app.errors import PipelineError
from app.scene_input import SceneInput, one_scene

# The scene kinds the commands offer, as their options are spelled.
_OPTIONS = {"image": "--image", "scene_graph": "--scene-graph", "scene_facts": "--scene"}


def scene_of_options(
    *, image: Path | None, scene_graph: str | None, image_id: str | None, scene: str | None, max_facts: int
) -> SceneInput:
    """The one scene the options give, checked as a request's is (exactly one, within `max_facts`);
    exits with status 2 and one line otherwise."""
    try:
        return one_scene(
            image=read_image_file(image) if image else None,
            scene_graph=load_scene_graph(scene_graph, image_id) if scene_graph else None,
            scene_facts=read_input(scene, "scene") if scene else None,
            max_facts=max_facts,
            spelled=_OPTIONS,
        )
    except PipelineError as exc:
        fail(exc.message)


def load_scene_graph(path: str, image_id: str | None) -> dict[str, Any]:
    """One image's scene graph from a GQA scene-graph file (all images, or just one)."""
    try:
        data = json.loads(read_input(path, "scene graph"))
    except json.JSONDecodeError as exc:
        fail(f"scene graph file {path} is not JSON: {exc}")
    if isinstance(data, dict) and "objects" in data:
        return data
    if not isinstance(data, dict):
        fail(f"scene graph file {path} must hold a JSON object")
    if image_id is None:
        if len(data) == 1:
            return next(iter(data.values()))
        fail(f"scene graph file {path} has {len(data)} images: choose one with --image-id")
    if image_id not in data:
        fail(f"image {image_id} is not in {path}")
    graph: dict[str, Any] = data[image_id]
    return graph


def read_image_file(path: Path) -> bytes:
    """The bytes of an image file (exit status 2 when it is missing)."""
    if not path.is_file():
        fail(f"image file not found: {path}")
    return path.read_bytes()
