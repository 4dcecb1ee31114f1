"""The fields of GQA's JSON files that the evaluation reads (GQA's own layout, not this project's).

A scene graph is handed whole to `scene.scene_graph`, which reads its fields; the evaluation only
passes it on, so it stays an opaque JSON object here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

SceneGraph = Mapping[str, object]


class SemanticStep(TypedDict):
    """One step of a question's GQA program (its ``semantic`` list)."""

    operation: str
    argument: str
    dependencies: list[int]


# "global" is a Python keyword: the functional form names it.
QuestionGroups = TypedDict("QuestionGroups", {"global": str | None, "local": str | None}, total=False)


class QuestionJson(TypedDict, total=False):
    """One GQA question record; test and challenge files lack the program and the answer."""

    question: str
    imageId: str
    answer: str
    semantic: list[SemanticStep]
    types: dict[str, str | None]
    entailed: list[str]
    groups: QuestionGroups
