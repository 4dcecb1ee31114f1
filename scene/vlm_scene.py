"""A vision-language model's reply -> the weighted scene the image path produces, with where each weight came from.

Words go to the question's vocabulary as on the detector path: an object's name is an ASP constant
with its categories from the taxonomy (`scene.detector.make_detection`, which also gives its
position by thirds of the image from the box); an attribute value goes under the category the
question lists it in, else under the reply's category when the question asks about that category,
else under the categories the attribute mapping gives it; a relation is kept when the question asks
for it, or for the last words of it ("sitting on" -> "on"). Words that map nowhere are dropped and
counted in `DroppedWords`, with the facts of a dropped object.

Each fact's likelihood comes from (`LikelihoodSource`), in this order: ``logprobs``, the
probability the model gave its own words (`scene.vlm_logprobs`: the object's name, the attribute's
value, the relation's name); ``stated``, the confidence written in the reply; ``default``,
`VLMSceneSettings.default_likelihood`: named by the model without any measure, so likelier than not
but not certain. Stated confidences are not calibrated (DESIGN.md §10); the source is reported so a
reader can tell.

Example:
    >>> builder = VLMSceneBuilder(VLMClient(parse_vlm_spec(spec)), taxonomy)    # doctest: +SKIP
    >>> result = builder.build(image_bytes, concepts_from_program(program, taxonomy))  # doctest: +SKIP
    >>> solve(program, result.scene), result.source_summary, result.detections         # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from scene.boxes import Box
from scene.concepts import Concepts
from scene.detector import Detection, make_detection
from scene.image_scene import ImageSceneResult
from scene.likelihoods import AttributeLikelihood, RelationLikelihood
from scene.taxonomy import AttributeCategories, Taxonomy
from scene.vlm_client import EncodedImage, VLMClient, VLMReply, encode_image
from scene.vlm_logprobs import JsonPath, ValueLikelihoods
from scene.vlm_reply import ReplyObject
from scene.weighted import WeightSettings, weighted_scene
from theory.operations import OTHER_CATEGORY
from theory.scene_facts import asp_constant

LikelihoodSource = Literal["logprobs", "stated", "default"]
LIKELIHOOD_SOURCES: tuple[LikelihoodSource, ...] = ("logprobs", "stated", "default")
# Whether the reply's token log-probabilities were used: "absent" (the server sent none) or
# "unaligned" (its tokens did not spell the reply) mean every fact fell back to a stated or default value.
LogprobsStatus = Literal["used", "absent", "unaligned"]


@dataclass(frozen=True)
class VLMSceneSettings:
    """How a reply becomes weights."""

    default_likelihood: float = 0.75
    weights: WeightSettings = field(default_factory=WeightSettings)


@dataclass(frozen=True)
class FactSource:
    """Where one weighted fact's likelihood came from."""

    kind: Literal["object", "attribute", "relation"]
    key: tuple[int | str, ...]  # (id,), (id, category, value) or (subject, relation, object)
    likelihood: float
    source: LikelihoodSource

    @property
    def fact(self) -> str:
        """The atom as the scene writes it: object(1), has_attr(1,color,red), has_rel(1,on,2)."""
        name = {"object": "object", "attribute": "has_attr", "relation": "has_rel"}[self.kind]
        return f"{name}({','.join(str(k) for k in self.key)})"


@dataclass(frozen=True)
class DroppedWords:
    """Words of the reply that map to nothing the question can use, as written by the model."""

    objects: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()
    relations: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return len(self.objects) + len(self.attributes) + len(self.relations)


@dataclass
class VLMSceneResult(ImageSceneResult):
    """`ImageSceneResult` (scene, detections with their boxes, likelihoods, timings) plus the model's
    name, each fact's likelihood source and the words dropped."""

    model: str = ""
    sources: tuple[FactSource, ...] = ()
    logprobs: LogprobsStatus = "absent"
    dropped: DroppedWords = field(default_factory=DroppedWords)

    @property
    def source_summary(self) -> dict[LikelihoodSource, int]:
        """How many facts took their likelihood from each source (every source listed, zeros included)."""
        counts = Counter(s.source for s in self.sources)
        return {source: counts[source] for source in LIKELIHOOD_SOURCES}


class _WordMap:
    """The question's vocabulary, and how a reply's words map into it."""

    def __init__(self, concepts: Concepts, taxonomy: Taxonomy | None, attributes: AttributeCategories | None) -> None:
        self.concepts = concepts
        self.taxonomy = taxonomy
        self.attributes = attributes
        self.classes = concepts.classes | set(concepts.expanded)
        self.asked_categories = set(concepts.attributes) | concepts.open_categories
        self.relations = {r.relation for r in concepts.relations}

    def object_name(self, name: str) -> str | None:
        constant = _constant(name)
        if constant is None or self.taxonomy is None or constant in self.classes:
            return constant
        if self.taxonomy.knows(name) or any(self.taxonomy.is_a(name, c) for c in self.classes):
            return constant
        return None

    def attribute(self, category: str, value: str) -> list[tuple[str, str]]:
        constant, stated = _constant(value), _constant(category)
        if constant is None:
            return []
        listed = sorted(c for c, values in self.concepts.attributes.items() if constant in values)
        if listed:
            return [(c, constant) for c in listed]
        if stated in self.asked_categories:
            return [(stated, constant)]
        found = self.attributes.categories_of(value) if self.attributes is not None else set()
        return [(c, constant) for c in sorted({asp_constant(c) for c in found} - {OTHER_CATEGORY})]

    def relation(self, relation: str) -> str | None:
        constant = _constant(relation)
        if constant is None:
            return None
        parts = constant.split("_")
        # The longest asked tail: "sitting_on_top_of" reads as "on_top_of" before "of".
        tails = ("_".join(parts[start:]) for start in range(len(parts)))
        return next((tail for tail in tails if tail in self.relations), None)


def _constant(word: str) -> str | None:
    try:
        return asp_constant(word)
    except ValueError:  # no letter or digit in it
        return None


class _Weigher:
    """Each fact's likelihood and its source."""

    def __init__(self, reply: VLMReply, default: float) -> None:
        self.default = default
        self.values = ValueLikelihoods(reply.text, reply.logprobs) if reply.logprobs is not None else None
        self.status: LogprobsStatus = (
            "absent" if self.values is None else "used" if self.values.aligned else "unaligned"
        )

    def __call__(self, path: JsonPath, stated: float | None) -> tuple[float, LikelihoodSource]:
        measured = self.values.likelihood(path) if self.values is not None else None
        if measured is not None:
            return measured, "logprobs"
        if stated is not None:
            return stated, "stated"
        return self.default, "default"


@dataclass
class _Scene:
    """What is being collected from a reply."""

    detections: list[Detection] = field(default_factory=list)
    attributes: dict[tuple[int, str, str], AttributeLikelihood] = field(default_factory=dict)
    relations: dict[tuple[int, str, int], RelationLikelihood] = field(default_factory=dict)
    sources: dict[tuple[str, tuple[int | str, ...]], FactSource] = field(default_factory=dict)
    dropped: dict[str, list[str]] = field(default_factory=lambda: {"objects": [], "attributes": [], "relations": []})

    def note(self, source: FactSource) -> bool:
        """Keep `source` unless the fact already has a likelier one."""
        held = self.sources.get((source.kind, source.key))
        if held is not None and held.likelihood >= source.likelihood:
            return False
        self.sources[(source.kind, source.key)] = source
        return True


def scene_from_reply(
    reply: VLMReply,
    image: EncodedImage,
    concepts: Concepts,
    taxonomy: Taxonomy | None = None,
    attributes: AttributeCategories | None = None,
    settings: VLMSceneSettings | None = None,
) -> VLMSceneResult:
    """The weighted scene of a validated reply for `image` and the question's `concepts`."""
    settings = settings or VLMSceneSettings()
    words = _WordMap(concepts, taxonomy, attributes)
    weigh = _Weigher(reply, settings.default_likelihood)
    collected = _Scene()
    ids: dict[str, int] = {}
    for k, obj in enumerate(reply.scene.objects):
        detection = _add_object(collected, words, weigh, k, obj, (image.width, image.height), taxonomy)
        if detection is not None:
            ids[obj.id] = detection.id
    for k, rel in enumerate(reply.scene.relations):
        relation = words.relation(rel.relation)
        if relation is None:
            collected.dropped["relations"].append(rel.relation)
        elif rel.subject in ids and rel.object in ids:
            p, source = weigh(("relations", k, "relation"), rel.confidence)
            key = (ids[rel.subject], relation, ids[rel.object])
            if collected.note(FactSource("relation", key, p, source)):
                collected.relations[key] = RelationLikelihood(*key, p)
    started = time.perf_counter()
    scene = weighted_scene(
        collected.detections, collected.attributes.values(), collected.relations.values(), settings.weights
    )
    return VLMSceneResult(
        scene=scene,
        detections=collected.detections,
        attributes=list(collected.attributes.values()),
        relations=list(collected.relations.values()),
        timings={"vlm": reply.seconds, "facts": time.perf_counter() - started},
        model=reply.model,
        sources=tuple(collected.sources.values()),
        logprobs=weigh.status,
        dropped=DroppedWords(*(tuple(collected.dropped[k]) for k in ("objects", "attributes", "relations"))),
    )


def _add_object(
    collected: _Scene,
    words: _WordMap,
    weigh: _Weigher,
    k: int,
    obj: ReplyObject,
    size: tuple[int, int],
    taxonomy: Taxonomy | None,
) -> Detection | None:
    """The detection of the reply's `k`-th object and its attributes; None when its name maps nowhere."""
    name = words.object_name(obj.name)
    if name is None:
        collected.dropped["objects"].append(obj.name)
        return None
    p, source = weigh(("objects", k, "name"), obj.confidence)
    detection = make_detection(len(collected.detections) + 1, Box(*obj.box), {name: p}, size, taxonomy)
    collected.detections.append(detection)
    collected.note(FactSource("object", (detection.id,), p, source))
    for j, attribute in enumerate(obj.attributes):
        mapped = words.attribute(attribute.category, attribute.value)
        if not mapped:
            collected.dropped["attributes"].append(attribute.value)
            continue
        p, source = weigh(("objects", k, "attributes", j, "value"), attribute.confidence)
        for category, value in mapped:
            key = (detection.id, category, value)
            if collected.note(FactSource("attribute", key, p, source)):
                collected.attributes[key] = AttributeLikelihood(*key, p)
    return detection


class VLMSceneBuilder:
    """Builds weighted scenes with an OpenAI-compatible vision-language model, one request per question."""

    def __init__(
        self,
        client: VLMClient,
        taxonomy: Taxonomy | None = None,
        attributes: AttributeCategories | None = None,
        settings: VLMSceneSettings | None = None,
    ) -> None:
        self.client = client
        self.taxonomy = taxonomy
        self.attributes = attributes
        self.settings = settings or VLMSceneSettings()

    def build(self, image: bytes, concepts: Concepts, image_key: str | None = None) -> VLMSceneResult:
        """The scene of encoded image bytes for `concepts` (`image_key` is accepted for the
        `ImageSceneBuilder` call shape; nothing is cached, each question asks the model)."""
        started = time.perf_counter()
        encoded = encode_image(image)
        loaded = time.perf_counter()
        reply = self.client.describe(encoded, concepts)
        result = scene_from_reply(reply, encoded, concepts, self.taxonomy, self.attributes, self.settings)
        result.timings = {"load": loaded - started, **result.timings}
        return result
