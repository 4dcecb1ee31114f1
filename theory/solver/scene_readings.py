"""Reading a scene text once for the questions asked of it: plain text as clingo reads it, any
other text through the AST reader, the reading of the last few texts kept; a scene of certain facts
given as objects read as the text of them, so that it is narrowed as text is."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import TypeVar

import clingo

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


def certain_text(scene: SceneFacts) -> SceneText | None:
    """A scene of certain facts as the plain text `read_scene` reads (one fact a line), or None
    where it has choices or facts the plain reading does not admit (strings, nested terms)."""
    if scene.weighted or not scene.facts:
        return None
    # The facts as one tuple symbol: clingo keeps one symbol per term, so equal facts make the
    # very same key, in one foreign call where printing them takes a tenth of a millisecond on a
    # scene graph.
    text = _printed_facts(clingo.Tuple_(scene.facts), len(scene.facts))
    return None if text is None else _plain_text(text)


@lru_cache(maxsize=KEPT_SCENE_TEXTS)
def _printed_facts(facts: clingo.Symbol, count: int) -> str | None:
    """The `count` facts of a tuple one a line, when each is a name with flat arguments and no string."""
    whole = str(facts)
    # One parenthesis per fact and the tuple's own: no nested term and no fact without arguments,
    # so each fact ends at a ")," of the tuple.
    if '"' in whole or whole.count("(") != count + 1 or len(whole) > KEPT_SCENE_CHARS:
        return None
    return whole[1:-1].removesuffix(",").replace("),", ").\n") + ".\n"
