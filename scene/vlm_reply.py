"""The JSON a vision-language model is asked to reply with: its schema and its pydantic boundary.

The schema is written out (not generated from the models) so servers that compile it into a
grammar (vLLM, llama.cpp) get one flat object without ``$ref``; `tests/scene/test_vlm_reply.py`
checks that the two agree. Boxes are ``[x1, y1, x2, y2]`` in pixels of the image sent.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

Confidence = Annotated[float, Field(ge=0.0, le=1.0)]
Word = Annotated[str, Field(min_length=1, max_length=100)]

_CONFIDENCE_SCHEMA = {"type": "number", "minimum": 0, "maximum": 1}
_WORD_SCHEMA = {"type": "string", "minLength": 1, "maxLength": 100}

REPLY_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "objects": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": _WORD_SCHEMA,
                    "name": _WORD_SCHEMA,
                    "box": {
                        "description": "[x1, y1, x2, y2] in pixels of the image sent, origin at the top left",
                        "type": "array",
                        "items": {"type": "number"},
                        "minItems": 4,
                        "maxItems": 4,
                    },
                    "confidence": _CONFIDENCE_SCHEMA,
                    "attributes": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "category": _WORD_SCHEMA,
                                "value": _WORD_SCHEMA,
                                "confidence": _CONFIDENCE_SCHEMA,
                            },
                            "required": ["category", "value"],
                            "additionalProperties": False,
                        },
                    },
                },
                "required": ["id", "name", "box"],
                "additionalProperties": False,
            },
        },
        "relations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "subject": _WORD_SCHEMA,
                    "relation": _WORD_SCHEMA,
                    "object": _WORD_SCHEMA,
                    "confidence": _CONFIDENCE_SCHEMA,
                },
                "required": ["subject", "relation", "object"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["objects", "relations"],
    "additionalProperties": False,
}


def response_format() -> dict[str, object]:
    """The chat-completions ``response_format`` that asks for `REPLY_SCHEMA`."""
    return {"type": "json_schema", "json_schema": {"name": "scene", "schema": REPLY_SCHEMA}}


class _Reply(BaseModel):
    # Unknown fields are an error: a model that invents fields has not followed the schema.
    model_config = ConfigDict(frozen=True, extra="forbid")


class ReplyAttribute(_Reply):
    category: Word
    value: Word
    confidence: Confidence | None = None


class ReplyObject(_Reply):
    id: Word
    name: Word
    box: tuple[float, float, float, float]
    confidence: Confidence | None = None
    attributes: tuple[ReplyAttribute, ...] = ()


class ReplyRelation(_Reply):
    subject: Word
    relation: Word
    object: Word
    confidence: Confidence | None = None


class SceneReply(_Reply):
    """The model's scene as the schema describes it."""

    objects: tuple[ReplyObject, ...]
    relations: tuple[ReplyRelation, ...]

    @model_validator(mode="after")
    def _ids_resolve(self) -> SceneReply:
        ids = [o.id for o in self.objects]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"object ids used more than once: {', '.join(twice)}")
        for r in self.relations:
            missing = [end for end in (r.subject, r.object) if end not in ids]
            if missing:
                raise ValueError(f"relation {r.subject} {r.relation} {r.object}: no object with id {missing[0]!r}")
        return self
