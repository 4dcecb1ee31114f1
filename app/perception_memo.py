"""What perceiving a stored image found, per way of perceiving and concept set: each perceived once.

The detector and the classifier (or the vision-language model) are asked for a question's
concepts, so two questions with the same concepts on one image get the same scene: the first is
perceived, the later ones read it here. The image builder's own cache (`scene.image_cache`) still
saves the image's encoding between questions with other concepts. Only stored images keep their
readings (`ImageScene.readings`, an `app.scene_memo.SceneMemo`): an uploaded image lives for one request.
"""

from __future__ import annotations

from collections.abc import Hashable

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
