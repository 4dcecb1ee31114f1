"""How an image becomes a scene, as a request, a setting and an answer's report name it."""

from __future__ import annotations

from typing import Literal

# OWL-ViT and CLIP, or a vision-language model (ASPVQA_SCENE_VLM).
Perception = Literal["detector", "vlm"]
