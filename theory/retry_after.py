"""Seconds to wait from an HTTP Retry-After header.

Here, in the lowest layer, because both HTTP clients read it: the language-model backend
(translators) and the vision-language scene builder (scene), which may not import each other.
"""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date); None when absent or unreadable.

    >>> retry_after_seconds("3"), retry_after_seconds("soon"), retry_after_seconds(None)
    (3.0, None, None)
    """
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None
