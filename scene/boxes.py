"""Boxes in an image's pixels, as the detector, the classifier and the image cache share them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Box:
    """An axis-aligned box in pixels: left, top, right, bottom."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def area(self) -> float:
        return max(0.0, self.x1 - self.x0) * max(0.0, self.y1 - self.y0)

    @property
    def center(self) -> tuple[float, float]:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    def iou(self, other: Box) -> float:
        """Intersection over union."""
        w = min(self.x1, other.x1) - max(self.x0, other.x0)
        h = min(self.y1, other.y1) - max(self.y0, other.y0)
        inter = max(0.0, w) * max(0.0, h)
        union = self.area + other.area - inter
        return inter / union if union > 0 else 0.0

    def union(self, other: Box) -> Box:
        """The smallest box holding both."""
        return Box(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1))

    def key(self) -> tuple[int, int, int, int]:
        """Whole-pixel corners, for caching crops."""
        return (round(self.x0), round(self.y0), round(self.x1), round(self.y1))
