"""The root of the errors the scene package raises on purpose, and the vision-language model's errors.

A caller that turns errors into HTTP statuses can catch `SceneError` for everything the scene side
classified; the subclasses say which status fits:

- `VLMSpecError`: a badly written ``openai:MODEL@BASE_URL`` setting (a configuration error);
- `SceneImageError`: image bytes that are not a readable picture (415);
- `VLMReplyError`: the model's server answered, but not with a usable scene (502);
- `VLMUnavailable`: the server could not be reached or was too slow or busy (503, ``Retry-After``).
"""

from __future__ import annotations

import math


class SceneError(Exception):
    """An error the scene package raises on purpose; subclasses classify it."""


class SceneImageError(SceneError, ValueError):
    """Image bytes that cannot be read as a picture."""


class VLMSpecError(SceneError, ValueError):
    """A vision-language model setting that is not ``openai:MODEL@BASE_URL``; the message says what is wrong."""


class VLMError(SceneError):
    """A vision-language model did not give a scene; `model` names it."""

    def __init__(self, model: str, problem: str) -> None:
        super().__init__(f"vision-language model {model!r}: {problem}")
        self.model = model
        self.problem = problem


class VLMReplyError(VLMError):
    """The model's server answered, but not with the scene the schema asks for (prose, bad JSON,
    wrong fields, ids that do not resolve, a reply too large, an HTTP error that will not pass)."""


class VLMUnavailable(VLMError):
    """The model's server was unreachable, too slow or busy; `retry_after_s` is when to try again."""

    def __init__(self, model: str, problem: str, retry_after_s: float) -> None:
        super().__init__(model, problem)
        self.retry_after_s = retry_after_s

    @property
    def retry_after_header(self) -> str:
        """The hint as a ``Retry-After`` header value (whole seconds, at least 1)."""
        return str(max(1, math.ceil(self.retry_after_s)))
