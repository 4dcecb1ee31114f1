"""Small hand-built scenes for the operation tests."""

from __future__ import annotations

import pytest

from theory import SceneFacts, solve


def build_scene(
    objects: dict[int, dict[str, list[str] | str]], relations: list[tuple[int, str, int]] = ()
) -> SceneFacts:
    """Certain facts: each object's categories -> values (class may list several), plus relations."""
    scene = SceneFacts()
    for oid, attrs in objects.items():
        scene.add_fact("object", oid)
        for category, values in attrs.items():
            for value in [values] if isinstance(values, str) else values:
                scene.add_fact("has_attr", oid, category, value)
        names = attrs.get("class")
        if names:
            scene.add_fact("has_attr", oid, "name", names if isinstance(names, str) else names[0])
    for subject, relation, obj in relations:
        scene.add_fact("has_rel", subject, relation, obj)
    return scene


# A street: a man in a red shirt holding a brown dog's leash, a woman, two cars.
STREET = build_scene(
    {
        1: {"class": ["man", "person"], "pose": "standing", "hposition": "left", "vposition": "middle"},
        2: {"class": ["shirt", "clothing"], "color": "red", "material": "cotton"},
        3: {"class": ["dog", "animal"], "color": "brown", "size": "small", "hposition": "middle"},
        4: {"class": ["woman", "person"], "pose": "walking", "hposition": "right", "age": "young"},
        5: {"class": ["car", "vehicle"], "color": ["white", "blue"], "size": "large", "material": "metal"},
        6: {"class": ["car", "vehicle"], "color": "white", "size": "large", "material": "metal"},
        7: {"class": ["leash"], "color": "red", "material": "leather"},
    },
    [
        (1, "wearing", 2),
        (1, "holding", 7),
        (7, "attached_to", 3),
        (3, "to_the_left_of", 4),
        (4, "to_the_right_of", 3),
        (5, "behind", 1),
        (6, "behind", 4),
        (3, "near", 1),
    ],
)


@pytest.fixture
def answers():
    """Solve a flat program on a scene (the street by default) and return the ranked answer texts."""

    def run(program: str, scene: SceneFacts = STREET, top_k: int = 10) -> list[str]:
        result = solve(program, scene, top_k=top_k)
        assert result.status.value in ("ok", "no_answer"), result.message
        return [a.answer for a in result.answers]

    return run
