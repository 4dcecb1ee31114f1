"""The root of the errors the evaluation package raises on purpose."""

from __future__ import annotations


class EvaluationError(Exception):
    """A job, a grid or a data file the evaluation could not use; subclasses say which."""
