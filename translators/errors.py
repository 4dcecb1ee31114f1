"""The root of the errors the translators package raises on purpose."""

from __future__ import annotations


class TranslatorError(Exception):
    """A question, a record or a model output the translators could not use; subclasses say which."""
