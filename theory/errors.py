"""The error every layer raises when a model, weights file or data set it needs is not installed.

One type, so that the service and the command line turn any of them into one plain message
(HTTP 503, exit code 2) without knowing which loader failed; the message names the setting or
package that provides the missing part.
"""

from __future__ import annotations


class ModelNotAvailableError(RuntimeError):
    """A model or data set that is needed cannot be found; the message says how to provide it."""
