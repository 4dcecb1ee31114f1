"""MkDocs hook: reference tables generated from the code at build time, so they cannot drift.

A page asks for a table with a marker line; the hook replaces it:

- `<!-- generated: openapi -->`: the REST API's operations and schemas, from the OpenAPI schema of
  `app.api.main.create_app()` (the app is built without loading any model);
- `<!-- generated: settings -->`: every `ASPVQA_*` setting, from the fields of `app.config.Settings`
  (type, default, limits and the field's description);
- `<!-- generated: cli -->`: every `aspvqa` command and option, from the Typer app `app.cli.cli`;
- `<!-- generated: operations -->`: the question language's operations, from
  `theory.operations.OPERATIONS`;
- `<!-- generated: modules -->`: every module of the six packages with the first paragraph of its
  docstring, read from the source files.

The OpenAPI schema itself is written into the site as `openapi.json`. The functions below are
also run by tests/test_docs.py, so a change of the code that breaks them fails `make test` too.
"""

from __future__ import annotations

import enum
import json
import re
import sys
import types
import typing
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

# The packages are read from this checkout, installed or not.
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MARKER = re.compile(r"^<!-- generated: (?P<name>[a-z]+) -->$", re.MULTILINE)


# --- table helpers -------------------------------------------------------------------------------


def _cell(text: object) -> str:
    """One markdown table cell: a single line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _code(value: object) -> str:
    return f"`{value}`" if value not in ("", None) else ""


# --- REST API ------------------------------------------------------------------------------------


@cache
def openapi_schema() -> dict[str, Any]:
    """The service's OpenAPI schema; creating the app loads no model."""
    from app.api.main import create_app

    return create_app().openapi()


def _anchor(name: str) -> str:
    return "schema-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _schema_type(schema: dict[str, Any]) -> str:
    """A short reading of a JSON schema: `string`, `integer (1-50)`, `array of RankedAnswer` ..."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{_anchor(name)})"
    if "anyOf" in schema or "oneOf" in schema:
        parts = [_schema_type(s) for s in schema.get("anyOf", schema.get("oneOf", []))]
        return " or ".join(p for p in parts if p != "null") + (" or null" if "null" in parts else "")
    if "enum" in schema:
        return ", ".join(f"`{v}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array":
        return "array of " + _schema_type(schema.get("items", {}))
    if kind == "object" and "additionalProperties" in schema and isinstance(schema["additionalProperties"], dict):
        return "object of " + _schema_type(schema["additionalProperties"])
    if "format" in schema:
        kind = f"{kind} ({schema['format']})"
    limits = [
        f"{word} {schema[key]}"
        for key, word in (
            ("minimum", ">="),
            ("exclusiveMinimum", ">"),
            ("maximum", "<="),
            ("exclusiveMaximum", "<"),
            ("minLength", "length >="),
            ("maxLength", "length <="),
        )
        if key in schema
    ]
    return f"{kind} ({', '.join(limits)})" if limits else str(kind)


def _description(schema: dict[str, Any]) -> str:
    text = schema.get("description")
    if text is None:
        for option in schema.get("anyOf", []):
            text = option.get("description") or text
    return text or ""


def _fields_table(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    rows = []
    for name, field in schema.get("properties", {}).items():
        default = json.dumps(field["default"]) if "default" in field else ""
        rows.append(
            [f"`{name}`", _schema_type(field), "yes" if name in required else "", _code(default), _description(field)]
        )
    if not rows:
        return "_No fields._"
    return _table(["field", "type", "required", "default", "description"], rows)


def openapi_markdown() -> str:
    """Operations (method, path, request bodies, responses) and the schemas they use."""
    schema = openapi_schema()
    out: list[str] = ["## Operations"]
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            out.append(f"### `{method.upper()} {path}`")
            if operation.get("description") or operation.get("summary"):
                out.append(operation.get("description") or operation["summary"])
            params = operation.get("parameters", [])
            if params:
                rows = [
                    [f"`{p['name']}`", p.get("in", ""), _schema_type(p.get("schema", {})), p.get("description", "")]
                    for p in params
                ]
                out.append(_table(["parameter", "in", "type", "description"], rows))
            body = operation.get("requestBody")
            if body:
                for media, content in body.get("content", {}).items():
                    body_schema = content.get("schema", {})
                    if "$ref" in body_schema:
                        out.append(f"Request body, `{media}`: {_schema_type(body_schema)}.")
                    else:
                        out.append(f"Request body, `{media}`:\n\n{_fields_table(body_schema)}")
            rows = []
            for status, response in operation.get("responses", {}).items():
                shapes = [_schema_type(c.get("schema", {})) for c in response.get("content", {}).values()]
                rows.append([f"`{status}`", response.get("description", ""), ", ".join(s for s in shapes if s)])
            out.append(_table(["status", "meaning", "body"], rows))
    out.append("## Schemas")
    for name, body in sorted(schema.get("components", {}).get("schemas", {}).items()):
        out.append(f"### {name} {{#{_anchor(name)}}}")
        if body.get("description"):
            out.append(body["description"])
        if "enum" in body:
            out.append("One of " + ", ".join(f"`{v}`" for v in body["enum"]) + ".")
        else:
            out.append(_fields_table(body))
    return "\n\n".join(out) + "\n"


# --- operations ----------------------------------------------------------------------------------


def operations_markdown() -> str:
    """The operations of the question language, from `theory.operations.OPERATIONS`."""
    from theory.operations import OPERATIONS

    rows = []
    for name, spec in OPERATIONS.items():
        inputs = [f"D{i}" if len(spec.inputs) > 1 else "D" for i, _ in enumerate(spec.inputs, 1)]
        flat = f"{name}({', '.join(['S', *inputs, *spec.arguments])})"
        takes = ", ".join(kind.value for kind in spec.inputs) or "nothing"
        rows.append([f"`{flat}`", f"{takes} -> {spec.output.value}", spec.meaning])
    return _table(["flat form", "takes -> gives", "meaning"], rows) + "\n"


# --- modules -------------------------------------------------------------------------------------

PACKAGES = ("theory", "translators", "scene", "trust", "evaluation", "app")


def module_rows(package: str) -> list[tuple[str, str]]:
    """(dotted module name, first line of its docstring) for every module of a package, read with
    `ast` (nothing is imported), so the list follows the code as modules move."""
    import ast

    rows = []
    base = ROOT / package
    for path in sorted(base.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if any(p.startswith("_") and p != "__init__" for p in parts):
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        rows.append((name, doc.strip().split("\n\n")[0].replace("\n", " ")))
    return rows


def modules_markdown() -> str:
    out = []
    for package in PACKAGES:
        out.append(f"### `{package}/`")
        out.append(_table(["module", "what it holds"], [[f"`{n}`", d or "—"] for n, d in module_rows(package)]))
    return "\n\n".join(out) + "\n"


# --- settings ------------------------------------------------------------------------------------


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin is typing.Literal:
        return ", ".join(f"`{a}`" for a in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in args)
    if origin is tuple:
        return f"list of {_type_name(args[0])}" if args else "list"
    if annotation is type(None):
        return "none"
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum):
            return ", ".join(f"`{m.value}`" for m in annotation)
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _limits(field: Any) -> str:
    words = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<", "pattern": "matches"}
    out = []
    for item in field.metadata:
        for key, word in words.items():
            value = getattr(item, key, None)
            if value is not None:
                out.append(f"{word} {value}")
    return ", ".join(out)


def _default(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value) if value else "empty"
    if hasattr(value, "value"):  # an enum member
        return str(value.value)
    return str(value)


def settings_rows() -> list[dict[str, str]]:
    """One row per setting of `app.config.Settings`: variable, type, default, limits, description."""
    from app.config import Settings

    prefix = Settings.model_config.get("env_prefix", "")
    rows = []
    for name, field in Settings.model_fields.items():
        rows.append(
            {
                "variable": f"{prefix}{name}".upper(),
                "type": _type_name(field.annotation),
                "default": _default(field.get_default(call_default_factory=True)),
                "limits": _limits(field),
                "description": field.description or "",
            }
        )
    return rows


def settings_markdown() -> str:
    rows = [
        [f"`{r['variable']}`", r["type"], _code(r["default"]), r["limits"], r["description"] or "—"]
        for r in settings_rows()
    ]
    return _table(["variable", "type", "default", "limits", "description"], rows) + "\n"


# --- command line --------------------------------------------------------------------------------


def _commands() -> list[tuple[str, Any]]:
    """(`aspvqa solve`, command) for every command and sub-command of the Typer app, in order."""
    import typer

    from app.cli import cli

    found: list[tuple[str, Any]] = []

    def walk(name: str, command: Any) -> None:
        children = getattr(command, "commands", None)
        if children:
            if name != "aspvqa":
                found.append((name, command))
            for child, sub in children.items():
                walk(f"{name} {child}", sub)
        else:
            found.append((name, command))

    walk("aspvqa", typer.main.get_command(cli))
    return found


def cli_markdown() -> str:
    out = []
    for name, command in _commands():
        ctx = command.make_context(name, [], resilient_parsing=True)
        out.append(f"### `{name}`")
        if command.help:
            out.append(command.help.strip())
        rows = []
        for param in command.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None or record[0] == "--help":
                continue
            if param.param_type_name == "argument":
                record = (param.human_readable_name, "")
            rows.append([f"`{record[0]}`", record[1]])
        if rows:
            out.append(_table(["option", "meaning"], rows))
    return "\n\n".join(out) + "\n"


GENERATORS: dict[str, Callable[[], str]] = {
    "openapi": openapi_markdown,
    "operations": operations_markdown,
    "modules": modules_markdown,
    "settings": settings_markdown,
    "cli": cli_markdown,
}


# --- MkDocs hook events --------------------------------------------------------------------------


def on_page_markdown(markdown: str, **_: Any) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in GENERATORS:
            raise ValueError(f"unknown generated table {name!r}; known: {', '.join(GENERATORS)}")
        return GENERATORS[name]()

    return MARKER.sub(replace, markdown)


def on_files(files: Any, config: Any, **_: Any) -> Any:
    from mkdocs.structure.files import File

    text = json.dumps(openapi_schema(), indent=2) + "\n"
    files.append(File.generated(config, "openapi.json", content=text))
    return files
