"""The interfaces the pipeline asks its parts for; a test or an embedding program may give its own."""

from __future__ import annotations

from typing import Protocol

from app.errors import PipelineError
from app.outcomes import SceneReading, TranslationOutcome
from app.scene_input import GraphScene
from theory import Program, SceneFacts
from translators.options import TranslationOptions


class QuestionTranslator(Protocol):
    """Turns a question into a `TranslationOutcome` with the given options and language model; a
    translator subclasses it for the defaults of `warm_up` and `claim`."""

    def __call__(self, question: str, *, options: TranslationOptions, llm: str | None = None) -> TranslationOutcome: ...

    def warm_up(self) -> None:
        """Load what the first question would wait for (raises `PipelineError`); nothing by default."""

    def claim(self, claim: str, *, options: TranslationOptions, llm: str | None = None) -> TranslationOutcome:
        """A statement as a yes/no program; a translator without a claim pool cannot make one."""
        raise PipelineError("model_unavailable", "this service's translator does not translate claims")


class ImageReader(Protocol):
    """Turns image bytes and a program (for its concepts) into an `SceneReading`."""

    def __call__(self, image: bytes, program: Program) -> SceneReading: ...


class SceneGraphEncoder(Protocol):
    """The facts a program needs from a scene graph (program None: every fact of the graph)."""

    def __call__(self, graph: GraphScene, program: Program | None) -> SceneFacts: ...
