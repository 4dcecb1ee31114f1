"""What the scene builders hand to `scene.weighted`: one frozen record per scored attribute or relation.

Example:
    >>> AttributeLikelihood(1, "color", "red", 0.8).key
    (1, 'color', 'red')
"""

from __future__ import annotations

from dataclasses import dataclass

AttributeKey = tuple[int, str, str]  # (object id, category, value)
RelationKey = tuple[int, str, int]  # (subject id, relation, object id)


@dataclass(frozen=True)
class AttributeLikelihood:
    """How likely object `object_id` has `value` in `category`."""

    object_id: int
    category: str
    value: str
    likelihood: float

    @property
    def key(self) -> AttributeKey:
        return (self.object_id, self.category, self.value)


@dataclass(frozen=True)
class RelationLikelihood:
    """How likely `subject_id` stands in `relation` to `object_id`."""

    subject_id: int
    relation: str
    object_id: int
    likelihood: float

    @property
    def key(self) -> RelationKey:
        return (self.subject_id, self.relation, self.object_id)
