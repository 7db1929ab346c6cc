"""The published JSON Schema is current, and agrees with qgen's own validation on real specs."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from qgen.spec.json_schema import spec_json_schema
from tests.conftest import COVERAGE_SPECS, EXAMPLES, ROOT

PUBLISHED = ROOT / "schema" / "qgen-spec.schema.json"


def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(PUBLISHED.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_published_schema_is_current():
    assert json.loads(PUBLISHED.read_text()) == spec_json_schema(), "run: qgen schema -o schema/qgen-spec.schema.json"


@pytest.mark.parametrize("spec_path", EXAMPLES + COVERAGE_SPECS, ids=lambda p: p.stem)
def test_every_spec_we_ship_validates(spec_path):
    errors = [e.message for e in validator().iter_errors(yaml.safe_load(spec_path.read_text()))]
    assert not errors


@pytest.mark.parametrize("text, words", [
    ("queues: {q: {payload: {a: strng}}}", "valid under any"),
    ("queues: {q: {payload: {a: int}, bach_size: 3}}", "bach_size"),
    ("queues: {'bad name': {payload: {a: int}}}", "does not match"),
    ("queues: {q: {payload: {a: int}, claim: lock}}", "lock"),
    ("queues: {q: {payload: {a: int}, lease: 5 minutes}}", "5 minutes"),
    ("queues: {q: {payload: {}}}", "should be non-empty"),
])
def test_schema_refuses_what_qgen_refuses(text, words):
    errors = [e.message for e in validator().iter_errors(yaml.safe_load(text))]
    assert any(words in message for message in errors), errors


def test_short_forms_are_accepted():
    spec = {"queues": {"q": {"payload": {"a": "string(10)", "b": {"type": "int", "nullable": True}},
                             "job_type": True, "dedupe": ["a"], "watermark": False, "lease": "30s"}}}
    assert list(validator().iter_errors(spec)) == []
