"""The words of a request to a vision-language model: what to look for, from a question's concepts.

The concepts are what `scene.concepts.concepts_from_program` extracts for the detector, so the
model is asked for the same classes, attribute values and relations as OWL-ViT and CLIP would be.

Example:
    >>> from scene.concepts import Concepts, RelationQuery
    >>> concepts = Concepts({"man", "horse"}, relations={RelationQuery("man", "riding", "horse")})
    >>> print(concepts_prompt(concepts, 640, 480).splitlines()[1])
    Objects to find: horse, man.
"""

from __future__ import annotations

from scene.concepts import Concepts

SYSTEM_PROMPT = (
    "You describe images as scene graphs for a question-answering system. Reply with one JSON object "
    "that follows the given schema and nothing else."
)


def _words(name: str) -> str:
    return name.replace("_", " ")


def _attribute_lines(concepts: Concepts) -> list[str]:
    asked = [
        f"{_words(c)} ({', '.join(_words(v) for v in sorted(vs))})" for c, vs in sorted(concepts.attributes.items())
    ]
    asked += [f"{_words(c)} (any value)" for c in sorted(concepts.open_categories)]
    return [f"Attributes to give each object where they apply: {'; '.join(asked)}."] if asked else []


def _relation_lines(concepts: Concepts) -> list[str]:
    asked = sorted(
        f"{_words(r.subject or 'anything')} {_words(r.relation)} {_words(r.object or 'anything')}"
        for r in concepts.relations
    )
    return [f"Relations to report between the objects: {'; '.join(asked)}."] if asked else []


def concepts_prompt(concepts: Concepts, width: int, height: int) -> str:
    """The user message's text for an image of `width` x `height` pixels and the question's concepts."""
    classes = ", ".join(_words(c) for c in sorted(concepts.classes)) or "the main objects"
    more = " and any other object they interact with" if concepts.open_classes else ""
    return "\n".join(
        [
            f"The image is {width} x {height} pixels.",
            f"Objects to find: {classes}{more}.",
            *_attribute_lines(concepts),
            *_relation_lines(concepts),
            "Give every object an id (o1, o2, ...), a one- or two-word name, and a box [x1, y1, x2, y2] in pixels "
            "of this image (x1 < x2, y1 < y2, origin at the top left). Relations name objects by these ids. "
            "A confidence, where you give one, is a probability between 0 and 1. List only what you see; "
            "an empty list is a valid answer.",
        ]
    )
