"""The published OpenAPI schema: what FastAPI makes, plus what the routes read by hand.

Three things FastAPI cannot know are added here, so that the schema says what the server accepts:
the JSON bodies of /answer and /verify (read by hand, as JSON or as a form), the language models
this service offers (the `llm` field, an enum of the configured names), and `model`, the older
name of `llm` that the server still reads.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel

from app.config import Settings

Schema = dict[str, Any]  # a JSON Schema object, as FastAPI and pydantic write it


def service_schema(app: FastAPI, settings: Settings, form_models: tuple[type[BaseModel], ...]) -> Schema:
    """The schema of `app` with the form models listed and the model fields made exact."""
    schema = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
    schemas = schema.setdefault("components", {}).setdefault("schemas", {})
    for model in form_models:
        body = model.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(body.pop("$defs", {}))
        schemas[model.__name__] = body
    names = list(settings.offered_llms)
    for body in schemas.values():
        _exact_models(body.get("properties", {}), names)
    for path in schema.get("paths", {}).values():
        for operation in path.values():
            form = operation.get("requestBody", {}).get("content", {}).get("multipart/form-data", {})
            _exact_models(form.get("schema", {}).get("properties", {}), names)
    return schema


def _exact_models(properties: Schema, names: list[str]) -> None:
    """`llm` as the enum of the offered names, and `model` declared as its older name."""
    if "llm" not in properties:
        return
    field = properties["llm"]
    offered = {"type": "string", "enum": names}
    if "anyOf" in field:
        field["anyOf"] = [offered if option.get("type") == "string" else option for option in field["anyOf"]]
    else:
        field.update(offered)
    older = {k: v for k, v in field.items() if k not in ("title", "description")}
    properties["model"] = older | {"deprecated": True, "description": "the older name of llm, read when llm is absent"}


def form_field(field: Schema) -> Schema:
    """A JSON body's field as a form field: a form has no null (a field left out is null)."""
    options = [option for option in field.get("anyOf", []) if option.get("type") != "null"]
    if not options:
        return field
    shown = {k: v for k, v in field.items() if k not in ("anyOf", "default")}
    return shown | options[0] if len(options) == 1 else shown | {"anyOf": options}
