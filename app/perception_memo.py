"""What perceiving a stored image found, per way of perceiving and concept set: each perceived once.

The detector and the classifier (or the vision-language model) are asked for a question's
concepts, so two questions with the same concepts on one image get the same scene: the first is
perceived, the later ones read it here. The image builder's own cache (`scene.image_cache`) still
saves the image's encoding between questions with other concepts. Only stored images keep their
readings (`ImageScene.readings`): an uploaded image lives for one request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import replace

from app.memory_size import estimated_bytes
from app.outcomes import SceneReading
from scene.concepts import Concepts, concepts_from_program
from scene.taxonomy import Taxonomy
from theory import Program

# Concept sets one stored image keeps the readings of; the questions past them are perceived each time.
READINGS_PER_IMAGE = 16


def reading_key(perception: str, program: Program, taxonomy: Taxonomy) -> Hashable:
    """What an image's reading depends on besides the image: how it is perceived and the program's concepts."""
    return perception, concept_set(concepts_from_program(program, taxonomy))


def concept_set(concepts: Concepts) -> Hashable:
    """The concepts as a value that compares and hashes by content."""
    return (
        frozenset(concepts.classes),
        frozenset((word, frozenset(members)) for word, members in concepts.expanded.items()),
        frozenset(concepts.attributes.items()),
        frozenset(concepts.relations),
        frozenset(concepts.open_categories),
        concepts.open_classes,
    )


class ImageReadings:
    """The readings of one stored image by `reading_key`, at most `limit` (later ones are not kept).

    `accept(bytes)` is asked before a reading is kept (the store counts it against its bound and
    may refuse it); without it every reading is kept.
    """

    def __init__(self, limit: int = READINGS_PER_IMAGE) -> None:
        self.limit = limit
        self.accept: Callable[[int], bool] | None = None
        self._lock = threading.Lock()
        self._readings: dict[Hashable, SceneReading] = {}

    def read(self, key: Hashable, perceive: Callable[[], SceneReading]) -> SceneReading:
        """The reading under `key`, perceived now (by `perceive`) when there is none yet."""
        with self._lock:
            kept = self._readings.get(key)
            if kept is not None:
                # Nothing was perceived for this question: the first one's stage times are not its own.
                return replace(kept, timings={})
        reading = perceive()
        with self._lock:
            if key not in self._readings and len(self._readings) < self.limit:
                if self.accept is None or self.accept(estimated_bytes(reading)):
                    self._readings[key] = reading
        return reading

    def __len__(self) -> int:
        return len(self._readings)
