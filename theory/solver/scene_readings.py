"""Reading a scene text once for the questions asked of it: plain text as clingo reads it, any
other text through the AST reader, the reading of the last few texts kept."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import TypeVar

from theory.data_text import SceneText, plain_scene
from theory.operations import SCENE_PREDICATES
from theory.scene_facts import SceneFacts


def read_scene(text: str) -> SceneFacts | SceneText:
    """Scene text for clingo: plain facts as they are, anything else through the reader that
    explains errors (raises `ProgramError`)."""
    plain = _plain_text(text)
    return plain if plain is not None else SceneFacts.from_asp(text)


# Several questions are asked of one scene (GQA asks about 10 per image): the reading of the last
# few scene texts is kept (a `SceneText` is immutable), which is a third of a whole scene graph's
# solve. Of this many texts, each up to this size: at most a few megabytes per process.
KEPT_SCENE_TEXTS = 8
KEPT_SCENE_CHARS = 1 << 19

_Text = TypeVar("_Text", str, SceneText)
_Result = TypeVar("_Result")


def kept_per_text(function: Callable[[_Text], _Result]) -> Callable[[_Text], _Result]:
    """A function of one scene text (or of its reading) whose result is kept for the last
    `KEPT_SCENE_TEXTS` texts of at most `KEPT_SCENE_CHARS` characters; longer ones are computed
    every time, as a text may be megabytes."""
    kept = lru_cache(maxsize=KEPT_SCENE_TEXTS)(function)

    @wraps(function)
    def call(argument: _Text) -> _Result:
        text = argument if isinstance(argument, str) else argument.text
        return kept(argument) if len(text) <= KEPT_SCENE_CHARS else function(argument)

    return call


@kept_per_text
def _plain_text(text: str) -> SceneText | None:
    return plain_scene(text, SCENE_PREDICATES)
