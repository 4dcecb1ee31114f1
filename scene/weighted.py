"""Detections and likelihoods as a weighted scene (DESIGN §3).

Each detection is an object with ``has_obj_weight(O, w(confidence))``, its class and categories,
name and position. Attribute values and relations become free choices with two weak constraints
(``SceneFacts.add_likely``). A box the detector found under several classes gets every candidate
name as a choice weighted by its score, with ``name`` exclusive, so the likelier name ranks first.
Likelihoods below `min_likelihood` are dropped (taken as false) so grounding stays small.

Example:
    >>> from scene.boxes import Box
    >>> from scene.detector import Detection
    >>> from scene.likelihoods import AttributeLikelihood
    >>> ball, red = Detection(1, Box(0, 0, 10, 10), "ball", 0.9), AttributeLikelihood(1, "color", "red", 0.8)
    >>> scene = weighted_scene([ball], [red])
    >>> "has_obj_weight(1,105)" in scene.to_asp()
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from scene.detector import Detection
from scene.likelihoods import AttributeLikelihood, RelationLikelihood
from theory.scene_facts import SceneFacts, asp_constant, likelihood_weight

# Categories whose values exclude each other on one object (GQA attribute types with one value).
DEFAULT_EXCLUSIVE = frozenset(
    {"name", "size", "age", "gender", "weather", "height", "length", "width", "thickness", "weight", "fatness", "depth"}
)


@dataclass(frozen=True)
class WeightSettings:
    """How likelihoods become facts."""

    # likelihoods below this are dropped: the fact is taken as false and costs nothing
    min_likelihood: float = 0.05
    exclusive: frozenset[str] = field(default_factory=lambda: DEFAULT_EXCLUSIVE)
    # a box found under several classes keeps the others as weighted alternatives
    class_alternatives: bool = True
    # also make the object itself a weighted choice (exist/count questions then weigh the detector's
    # confidence); off by default because `unique` already charges has_obj_weight
    uncertain_objects: bool = False


def _add_identity(
    scene: SceneFacts, d: Detection, settings: WeightSettings, categories_of: Mapping[str, frozenset[str]]
) -> None:
    alternatives = (
        {k: v for k, v in d.alternatives.items() if v >= settings.min_likelihood} if settings.class_alternatives else {}
    )
    if not alternatives:
        scene.add_fact("has_attr", d.id, "name", d.label)
        for c in sorted(d.classes):
            scene.add_fact("has_attr", d.id, "class", c)
        return
    names = {d.label: d.score, **alternatives}
    # Categories every candidate shares are certain; the others are as likely as their likeliest holder.
    classes: dict[str, float] = {}
    for name, p in names.items():
        for c in categories_of.get(name, frozenset()) | {name}:
            classes[c] = max(classes.get(c, 0.0), p)
    shared = frozenset.intersection(*(categories_of.get(n, frozenset()) | {n} for n in names))
    for name, p in sorted(names.items()):
        scene.add_likely("has_attr", (d.id, "name", name), p)
    for c, p in sorted(classes.items()):
        if c in shared:
            scene.add_fact("has_attr", d.id, "class", c)
        else:
            scene.add_likely("has_attr", (d.id, "class", c), p)


def weighted_scene(
    detections: Sequence[Detection],
    attributes: Iterable[AttributeLikelihood] = (),
    relations: Iterable[RelationLikelihood] = (),
    settings: WeightSettings | None = None,
) -> SceneFacts:
    """The weighted scene of the detections, attribute likelihoods and relation likelihoods."""
    settings = settings or WeightSettings()
    # The categories of every class a box may be (its label's and its alternatives').
    known: dict[str, frozenset[str]] = {}
    for d in detections:
        known.update({d.label: d.categories, **d.alternative_categories})
    scene = SceneFacts()
    ids = set()
    for d in detections:
        ids.add(d.id)
        if settings.uncertain_objects:
            scene.add_likely("object", (d.id,), d.score)
        else:
            scene.add_fact("object", d.id)
        scene.add_fact("has_obj_weight", d.id, likelihood_weight(d.score))
        _add_identity(scene, d, settings, known)
        scene.add_fact("has_attr", d.id, "hposition", d.hposition)
        scene.add_fact("has_attr", d.id, "vposition", d.vposition)
    vocabulary: dict[str, set[str]] = {}
    for a in sorted(attributes, key=lambda a: (a.key, a.likelihood)):
        obj, p = a.object_id, a.likelihood
        category, value = asp_constant(a.category), asp_constant(a.value)
        vocabulary.setdefault(category, set()).add(value)
        if obj in ids and p >= settings.min_likelihood:
            scene.add_likely("has_attr", (obj, category, value), p)
    for r in sorted(relations, key=lambda r: (r.key, r.likelihood)):
        if r.subject_id in ids and r.object_id in ids and r.likelihood >= settings.min_likelihood:
            scene.add_likely("has_rel", r.key, r.likelihood)
    scene.add_vocabulary(vocabulary)
    used = set(vocabulary) | (
        {"name"} if any(settings.class_alternatives and d.alternatives for d in detections) else set()
    )
    for category in sorted(used & settings.exclusive):
        scene.add_fact("exclusive", category)
    return scene
