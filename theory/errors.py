"""The theory layer's root error, and the error every layer raises when a model, weights file or
data set it needs is not installed.

`TheoryError` is what `except` may catch for anything this package raises on purpose (each layer
has one root: `TranslatorError`, `SceneError`, `TrustError`, `EvaluationError`, `AppError`).
`ModelNotAvailableError` is one type, so that the service and the command line turn any missing
part into one plain message (HTTP 503, exit code 2) without knowing which loader failed; the
message names the setting or package that provides the missing part.
"""

from __future__ import annotations


class TheoryError(Exception):
    """The root of the errors the theory package raises on purpose."""


class ModelNotAvailableError(TheoryError, RuntimeError):
    """A model or data set that is needed cannot be found; the message says how to provide it."""
