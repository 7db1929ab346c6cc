"""The JSON Schema editors use to check a spec as it is typed (published as schema/qgen-spec.schema.json)."""

from __future__ import annotations

from qgen import __version__
from qgen.spec import Spec


def spec_json_schema() -> dict:
    schema = Spec.model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"qgen spec (qgen {__version__})"
    return schema
