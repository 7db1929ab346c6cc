"""The JSON Schema editors use to check a spec as it is typed (published as schema/qgen-spec.schema.json).

pydantic writes the schema of the long forms; the short forms people type by hand (a column as
just its type, `dedupe: [col]`, `watermark: false`, `job_type: true`) are accepted by validators
that pydantic cannot describe, so they are added here.
"""

from __future__ import annotations

from typing import Any

from qgen import __version__
from pydantic import BaseModel

from qgen.spec.model import _IDENTIFIER, MAX_IDENTIFIER, TYPE_NAMES, TYPE_PATTERN_JSON, Spec, is_duration

_TYPE_STRING = {"type": "string", "pattern": TYPE_PATTERN_JSON, "description": f"A portable type: {TYPE_NAMES}."}


def _replace_column_type(node: Any) -> Any:
    """A ColumnType is written as a string in YAML: describe it as one."""
    if isinstance(node, dict):
        if node.get("$ref") == "#/$defs/ColumnType":
            return dict(_TYPE_STRING)
        return {key: _replace_column_type(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_replace_column_type(item) for item in node]
    return node


def _or(schema: dict, *alternatives: dict) -> None:
    """Let a property also take the given short forms."""
    options = schema.pop("anyOf", None) or [{key: schema.pop(key) for key in list(schema) if key in ("$ref", "type", "additionalProperties", "minProperties")}]
    schema["anyOf"] = list(alternatives) + options


def spec_json_schema() -> dict:
    schema = _replace_column_type(Spec.model_json_schema(by_alias=True, mode="validation"))
    defs = schema["$defs"]
    defs.pop("ColumnType", None)
    column_or_type = {"anyOf": [dict(_TYPE_STRING), {"$ref": "#/$defs/Column"}]}
    queue = defs["Queue"]["properties"]
    queue["payload"]["additionalProperties"] = column_or_type
    for option in defs["Outbox"]["properties"]["columns"]["anyOf"]:
        if option.get("type") == "object":
            option["additionalProperties"] = column_or_type
    _or(queue["job_type"], {"const": True}, dict(_TYPE_STRING))
    _or(queue["dedupe"], {"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1})
    _or(queue["watermark"], {"type": "boolean"})
    names = {"pattern": "^" + _IDENTIFIER.pattern + "$", "maxLength": MAX_IDENTIFIER}
    schema["properties"]["queues"]["propertyNames"] = names
    queue["payload"]["propertyNames"] = names
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://qgen.invalid/schema/qgen-spec.schema.json"
    schema["title"] = f"qgen spec (qgen {__version__})"
    return schema


# What a field accepts, where the annotation alone would not say it plainly.
_ACCEPTS = {
    "dialects": "list of `mssql`, `postgres`",
    "schema": "identifier",
    "naming": "text with `{queue}` and `{object}`",
    "queues": "mapping: queue name → queue",
    "payload": "mapping: column name → type, or → {type, nullable}",
    "job_type": "`true`, a type, or {column, type}",
    "dedupe": "a column, a list of columns, or {key, on_duplicate, scope}",
    "watermark": "`true` \\| `false` or {enabled, every, slack, rescan}",
    "outbox": "{queue} or {columns}",
    "worker": "{handler, max_items, max_duration}",
    "retry": "{max_attempts, backoff}",
    "backoff": "{base, factor, max}",
    "grants": "{enabled, role_prefix, producer, consumer, admin}",
    "names": "mapping: object kind → identifier",
    "type": "a type: " + TYPE_NAMES,
    "key": "list of column names",
    "handler": "`name` or `schema.name`",
    "columns": "mapping: column name → type, or → {type, nullable}",
    "queue": "a queue name of this spec",
    "producer": "identifier", "consumer": "identifier", "admin": "identifier", "column": "identifier",
    "role_prefix": "identifier",
}


def _accepted(name: str, info) -> str:
    import typing

    if name in _ACCEPTS:
        return _ACCEPTS[name]
    annotation = info.annotation
    if typing.get_origin(annotation) is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in typing.get_args(annotation))
    if is_duration(info):
        return "duration: `30s`, `5m`, `1h`, `7d` or seconds"
    if annotation is bool:
        return "`true` \\| `false`"
    if annotation is int:
        bounds = [f"{k} {getattr(m, k)}" for m in info.metadata for k in ("ge", "le") if getattr(m, k, None) is not None]
        return "whole number" + (f" ({', '.join(bounds).replace('ge', '≥').replace('le', '≤')})" if bounds else "")
    return str(annotation)


def spec_reference_markdown() -> str:
    """docs/spec.md's table of every spec key, generated from the models so it cannot drift."""
    from pydantic_core import PydanticUndefined

    from qgen.spec.model import Backoff, Column, Dedupe, Grants, JobType, Outbox, Queue, Retry, Watermark, Worker

    sections = [
        ("", Spec), ("grants.", Grants), ("queues.<name>.", Queue), ("queues.<name>.payload.<column>.", Column),
        ("queues.<name>.job_type.", JobType), ("queues.<name>.dedupe.", Dedupe), ("queues.<name>.retry.", Retry),
        ("queues.<name>.retry.backoff.", Backoff), ("queues.<name>.watermark.", Watermark),
        ("queues.<name>.outbox.", Outbox), ("queues.<name>.worker.", Worker),
    ]
    lines = ["| key | accepts | default | meaning |", "|---|---|---|---|"]
    for prefix, model in sections:
        for name, info in model.model_fields.items():
            key = info.alias or name
            if info.is_required():
                default = "required"
            elif is_duration(info) and info.default is not None:
                default = f"`{info.default}` s"
            elif info.default_factory is not None:
                default = "see below" if isinstance(info.default_factory(), BaseModel) else f"`{json_default(info.default_factory())}`"
            elif info.default is None or info.default is PydanticUndefined:
                default = "none"
            else:
                default = f"`{json_default(info.default)}`"
            description = (info.description or "").replace("|", "\\|")
            lines.append(f"| `{prefix}{key}` | {_accepted(key, info)} | {default} | {description} |")
    return "\n".join(lines) + "\n"


def json_default(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{}"
    return str(value)
