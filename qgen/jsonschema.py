"""The JSON Schema editors use to check a spec as it is typed (published as schema/qgen-spec.schema.json).

pydantic writes the schema of the long forms; the short forms people type by hand (a column as
just its type, `dedupe: [col]`, `watermark: false`, `job_type: true`) are accepted by validators
that pydantic cannot describe, so they are added here.
"""

from __future__ import annotations

from typing import Any

from qgen import __version__
from qgen.spec import _IDENTIFIER, MAX_IDENTIFIER, TYPE_NAMES, TYPE_PATTERN_JSON, Spec

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
    names = {"pattern": _IDENTIFIER.pattern, "maxLength": MAX_IDENTIFIER}
    schema["properties"]["queues"]["propertyNames"] = names
    queue["payload"]["propertyNames"] = names
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://qgen.invalid/schema/qgen-spec.schema.json"
    schema["title"] = f"qgen spec (qgen {__version__})"
    return schema
