"""The one scene a request is answered on, checked once at the edge and carried as itself.

A request names its scene in one of four ways: an image, a GQA scene graph (a demo scene is one),
scene facts in ASP, or the id of a scene stored before (`app.scene_store`, which holds these same
records). The edge (the request models, the command line) turns whichever was given into one of
the records below; the pipeline, the solver workers and the scene builders take that record and
never look at the other fields again. A scene graph is read
into `GraphObject`s here, once: the solver process receives those objects, keys its encodings by
them and encodes them into facts (the graph's two changes of shape after the request: JSON
object -> objects, objects -> facts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from app.errors import PipelineError
from app.perception import Perception
from scene.scene_graph import GraphObject, SceneGraphError, graph_objects, scene_graph_size

if TYPE_CHECKING:
    from app.outcomes import AnswerOutcome, SceneReading
    from app.scene_memo import SceneMemo

    # A stored scene's answers, by what they depend on besides the scene (`Pipeline.answer`).
    StoredAnswers = SceneMemo[AnswerOutcome]

__all__ = ["FactsScene", "GraphScene", "ImageScene", "Perception", "SceneInput", "StoredScenes", "one_scene"]


@dataclass(frozen=True)
class ImageScene:
    """Image bytes, already checked for size, type and pixels by the edge, and how to perceive
    them (None: the service's setting). A stored image keeps what perceiving it found in `readings`,
    and the answers found on it in `answers`."""

    data: bytes = field(repr=False)
    perception: Perception | None = None
    kind: Literal["image"] = "image"
    readings: SceneMemo[SceneReading] | None = field(default=None, repr=False, compare=False)
    answers: StoredAnswers | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class GraphScene:
    """One image's scene graph, read into objects (keyed by GQA id, in the graph's order). A stored
    graph keeps the answers found on it in `answers`."""

    objects: tuple[tuple[str, GraphObject], ...]
    kind: Literal["scene_graph"] = "scene_graph"
    answers: StoredAnswers | None = field(default=None, repr=False, compare=False)

    @classmethod
    def read(cls, graph: object, max_facts: int) -> GraphScene:
        """The objects of a GQA scene graph object; raises `PipelineError`: invalid_input on another
        shape, too_large past `max_facts`."""
        if not isinstance(graph, Mapping):
            raise PipelineError("invalid_input", "scene_graph: a scene graph is a JSON object with 'objects'")
        # Counted before reading: a graph of 600 objects related to each other takes long to read,
        # and minutes to encode and ground, and its size alone says it is over the limit.
        facts = scene_graph_size(graph)
        if facts > max_facts:
            raise PipelineError("too_large", f"scene_graph has at least {facts} facts, limit {max_facts}")
        try:
            return cls(tuple(graph_objects(graph).items()))
        except SceneGraphError as exc:
            raise PipelineError("invalid_input", f"scene_graph: {exc}") from None

    def unkept(self) -> GraphScene:
        """The graph without the answers a stored one keeps: what a solver process or an encoding
        cache takes (the memo holds a lock and must not outlive the stored scene elsewhere)."""
        return self if self.answers is None else replace(self, answers=None)

    @cached_property
    def by_id(self) -> dict[str, GraphObject]:
        """The objects by GQA id, as the encoder takes them."""
        return dict(self.objects)

    @property
    def size(self) -> int:
        """A lower bound of the facts its encoding has: four per object, one per attribute and relation."""
        return sum(4 + len(obj.attributes) + len(obj.relations) for _, obj in self.objects)


@dataclass(frozen=True)
class FactsScene:
    """Scene facts in ASP, as given (plain facts or a weighted scene). Stored facts keep the answers
    found on them in `answers`."""

    text: str = field(repr=False)
    kind: Literal["scene_facts"] = "scene_facts"
    answers: StoredAnswers | None = field(default=None, repr=False, compare=False)

    @classmethod
    def read(cls, text: str, max_facts: int) -> FactsScene:
        """Scene facts held to the size limit before they are read (they are read where they are solved);
        raises `PipelineError` (too_large)."""
        # Without strings and comments each statement ends at its one period, and a weighted atom
        # is one choice and its weak constraints: counted in C, before any reader runs.
        if '"' not in text and "%" not in text:
            facts = text.count(".") - text.count(":~")
            if facts > max_facts:
                raise PipelineError("too_large", f"scene_facts has about {facts} facts, limit {max_facts}")
        return cls(text)


SceneInput = ImageScene | GraphScene | FactsScene
# A stored scene by its id, for the one client asking (`app.scene_store`); raises `PipelineError`.
StoredScenes = Callable[[str], SceneInput]


def one_scene(
    *,
    image: bytes | None = None,
    scene_graph: object | None = None,
    scene_facts: str | None = None,
    scene_id: str | None = None,
    max_facts: int,
    perception: Perception | None = None,
    stored: StoredScenes | None = None,
    spelled: Mapping[str, str] | None = None,
) -> SceneInput:
    """The one scene given (`scene_id`: one of `stored`); raises `PipelineError`: invalid_input for
    none or several, or for a perception asked of a scene that is not an image; not_found for an
    id with no stored scene. `spelled`: how the caller names the kinds it offers (the command
    line's options), where not the request's fields."""
    names = spelled or {kind: kind for kind in ("image", "scene_graph", "scene_facts", "scene_id")}
    given = [
        names.get(kind, kind)
        for kind, value in (
            ("image", image),
            ("scene_graph", scene_graph),
            ("scene_facts", scene_facts),
            ("scene_id", scene_id),
        )
        if value is not None
    ]
    if len(given) != 1:
        raise PipelineError(
            "invalid_input",
            f"give exactly one of: {', '.join(names.values())}" + (f" (got {', '.join(given)})" if given else ""),
        )
    if image is not None:
        return ImageScene(image, perception)
    if scene_id is not None:
        return _stored_scene(scene_id, stored, perception)
    if perception is not None:
        raise PipelineError("invalid_input", "perception applies to an image; this request gives no image")
    if scene_facts is not None:
        return FactsScene(scene_facts)
    return GraphScene.read(scene_graph, max_facts)


def _stored_scene(scene_id: str, stored: StoredScenes | None, perception: Perception | None) -> SceneInput:
    if stored is None:
        raise PipelineError("invalid_input", "scene_id: scenes are stored by the service (POST /scenes) only")
    scene = stored(scene_id)
    if perception is None:
        return scene
    if not isinstance(scene, ImageScene):
        what = "a scene graph" if isinstance(scene, GraphScene) else "scene facts"
        raise PipelineError("invalid_input", f"perception applies to an image; scene {scene_id} is {what}")
    return replace(scene, perception=perception)
