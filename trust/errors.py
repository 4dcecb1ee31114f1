"""The root of the errors the trust package raises on purpose."""

from __future__ import annotations


class TrustError(Exception):
    """A claim, a calibration or a verification request the trust package could not use."""
