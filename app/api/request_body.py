"""A body sent as JSON or as a form with an image: reading it, checking the image, and its schema.

/answer, /verify and /scenes read their bodies by hand, because one route takes both: JSON, or a
form (multipart) whose `scene_graph` is JSON text and whose `image` is a file. The form's schema
is made from the same request model, so the two cannot drift apart.
"""

from __future__ import annotations

import io
import json
from typing import Any, TypeVar

from fastapi import Request
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from app.api.openapi import form_field
from app.api.schemas import body_rules
from app.config import Settings, first_error
from app.errors import PipelineError

M = TypeVar("M", bound=BaseModel)

# Bodies up to this many bytes are parsed on the event loop: a thread's hand-over costs more.
_PARSE_ON_LOOP = 64 * 1024


def form_body(request_model: type[BaseModel]) -> dict[str, Any]:
    """The OpenAPI request body of a route taking `request_model` as JSON or as a form with an image.

    Made from the request model, so the form's fields cannot drift from the JSON's: the same
    fields and limits, a scene graph as JSON text, and the image as a file.
    """
    schema = request_model.model_json_schema(ref_template="#/components/schemas/{model}")
    image = {"type": "string", "format": "binary", "description": "the picture (JPEG, PNG or WebP)"}
    properties: dict[str, Any] = {"image": image}
    for name, field in schema["properties"].items():
        scene_graph = {"type": "string", "description": "JSON of one GQA scene graph"}
        properties[name] = scene_graph if name == "scene_graph" else form_field(field)
    # Models the fields refer to are listed under components by app.api.main, with the request model.
    # A field the model does not know is refused, as in JSON; the rules are the JSON body's, said of a form.
    form = {"type": "object", "properties": properties, "additionalProperties": False}
    form |= body_rules(request_model, form=True)
    return {
        "requestBody": {
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{request_model.__name__}"}},
                "multipart/form-data": {"schema": form},
            },
            "required": True,
        }
    }


async def fields_and_image(request: Request, settings: Settings) -> tuple[Any, bytes | None]:
    """The request's fields (JSON, or a form whose `scene_graph` is JSON text) and its uploaded image."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    image: bytes | None = None
    if content_type == "application/json":
        body = await request.body()
        try:
            # Parsed in a worker thread: a scene of megabytes takes tens of milliseconds to parse,
            # which the event loop, serving every other request, should not spend.
            raw = await run_in_threadpool(json.loads, body) if len(body) > _PARSE_ON_LOOP else json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise PipelineError("invalid_input", "body is not valid JSON") from None
        except RecursionError:  # thousands of nested arrays: valid JSON that Python's reader refuses
            raise PipelineError("invalid_input", "body: JSON nested too deeply") from None
        fields = raw
    elif content_type in ("multipart/form-data", "application/x-www-form-urlencoded"):
        form = await request.form(max_files=1, max_fields=16, max_part_size=settings.max_image_bytes + 1)
        fields = {k: v for k, v in form.items() if not isinstance(v, UploadFile) and v != ""}
        upload = form.get("image")
        if isinstance(upload, UploadFile):
            image = await read_image(upload, settings.max_image_bytes, settings.max_image_pixels, settings.image_types)
        if "scene_graph" in fields:
            try:
                fields["scene_graph"] = json.loads(fields["scene_graph"])
            except json.JSONDecodeError:
                raise PipelineError("invalid_input", "scene_graph: not valid JSON") from None
            except RecursionError:
                raise PipelineError("invalid_input", "scene_graph: JSON nested too deeply") from None
    else:
        raise PipelineError(
            "unsupported_media",
            f"send application/json or a form (multipart/form-data), not {content_type or 'nothing'}",
        )
    return fields, image


def validated(model: type[M], fields: Any) -> M:
    """The request's fields as `model`; a validation error as the API's invalid input."""
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        raise PipelineError("invalid_input", first_error(exc.errors())) from None


async def read_image(upload: UploadFile, max_bytes: int, max_pixels: int, types: tuple[str, ...]) -> bytes:
    """The uploaded image's bytes after checking size, declared type and actual format."""
    data = await upload.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise PipelineError("too_large", f"image larger than {max_bytes} bytes")
    if not data:
        raise PipelineError("invalid_input", "image: empty file")
    declared = (upload.content_type or "").lower()
    if declared and declared not in types and declared != "application/octet-stream":
        raise PipelineError("unsupported_media", f"image type {declared} not accepted (accepted: {', '.join(types)})")
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:  # pragma: no cover - pillow is part of the service extra
        raise PipelineError("model_unavailable", "image support needs pillow: pip install '.[service]'") from None
    try:
        with Image.open(io.BytesIO(data)) as img:
            actual = Image.MIME.get(img.format or "", "")
            width, height = img.size
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError):
        raise PipelineError("unsupported_media", "image: not a readable JPEG, PNG or WebP file") from None
    if actual not in types:
        raise PipelineError(
            "unsupported_media", f"image format {actual or 'unknown'} not accepted (accepted: {', '.join(types)})"
        )
    if width * height > max_pixels:
        raise PipelineError("too_large", f"image has {width}x{height} pixels, limit {max_pixels}")
    return data
