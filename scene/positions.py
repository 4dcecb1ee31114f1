"""Which third of the image an object's centre is in: the values of `hposition` and `vposition`.

The one rule for detections and scene graphs alike. The middle third is closed: a centre exactly
on 1/3 or 2/3 of the extent is in the middle, so the rule is symmetric (mirroring an image swaps
left and right and changes nothing else).

Example:
    >>> [third(x, 900, "hposition") for x in (299, 300, 600, 601)]
    ['left', 'middle', 'middle', 'right']
"""

from __future__ import annotations

from theory.operations import POSITION_VALUES


def third(centre: float, extent: float, category: str) -> str:
    """The `category` value (``hposition`` or ``vposition``) of a centre in [0, extent]."""
    low, middle, high = POSITION_VALUES[category]
    if extent <= 0:
        return middle
    if centre < extent / 3:
        return low
    if centre > 2 * extent / 3:
        return high
    return middle
