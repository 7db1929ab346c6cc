"""The client against the rendered scripts, without a database: for every spec, queue and dialect,
the parameters the client may pass are exactly those each rendered procedure declares, and its
enqueue_batch rows have the batch type's columns in order. This is what keeps the SQL Server side of
the client honest where no SQL Server runs."""

from __future__ import annotations

import re

import pytest

from qgen.client import QueueClient
from qgen.render import render_spec
from qgen.specload import load_spec
from tests.behaviour.helpers import BEHAVE
from tests.conftest import COVERAGE_SPECS, EXAMPLES

SPECS = EXAMPLES + COVERAGE_SPECS + [BEHAVE]
PROCEDURES = ("enqueue", "enqueue_batch", "enqueue_json", "dequeue", "complete", "fail", "extend_lease", "reap", "worker",
              "watermark_correct", "metrics", "peek", "purge", "purge_batch", "maintain", "redrive")


def declared_parameters(dialect: str, schema: str, name: str, text: str) -> list[str]:
    if dialect == "mssql":
        header = re.search(rf"CREATE OR ALTER PROCEDURE \[{schema}\]\.\[{name}\]\n(.*?)^AS$", text, re.S | re.M)
        return re.findall(r"^\s+@(\w+)\s", header.group(1), re.M)
    header = re.search(rf'CREATE OR REPLACE (?:FUNCTION|PROCEDURE) "{schema}"\."{name}"(\(\)|\n\(\n.*?\n\))', text, re.S)
    return [m for inout, m in re.findall(r'^\s+(INOUT\s+)?"(\w+)"\s', header.group(1), re.M) if not inout]


def declared_columns(dialect: str, text: str) -> list[str]:
    if dialect == "mssql":
        body = re.search(r"CREATE TYPE \S+ AS TABLE\s*\((.*?)PRIMARY KEY", text, re.S).group(1)
        return re.findall(r"^\s+\[(\w+)\]\s", body, re.M)
    body = re.search(r'CREATE TYPE \S+ AS\s*\((.*?)\n\s*\);', text, re.S).group(1)
    return re.findall(r'^\s+"(\w+)"\s', body, re.M)


def json_keys(text: str) -> list[str]:
    body = re.search(r"OPENJSON\(\[a\]\.\[value\]\)\s*WITH\s*\((.*?)\)\s*AS \[j\]", text, re.S).group(1)
    return re.findall(r"'(?:strict )?\$\.(\w+)'", body)


def test_sql_server_has_a_json_batch_entry_and_postgres_takes_json_in_enqueue_batch():
    spec = load_spec(BEHAVE)
    kinds = {d: {item.obj.kind for item in render_spec(spec, BEHAVE.name, d).objects} for d in ("mssql", "postgres")}
    assert "enqueue_json" in kinds["mssql"]
    assert "enqueue_json" not in kinds["postgres"]
    # PostgreSQL claims leased rows in place (a HOT update): no index holds lease tokens there.
    assert kinds["mssql"] - kinds["postgres"] == {"enqueue_json", "lease_index"}


@pytest.mark.parametrize("dialect", ["postgres", "mssql"])
@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_the_client_calls_what_is_rendered(path, dialect):
    spec = load_spec(path)
    rendering = render_spec(spec, path.name, dialect)
    checked = 0
    for item in rendering.objects:
        obj = item.obj
        if obj.queue is None:
            continue
        client = QueueClient(None, spec, obj.queue, dialect=dialect)
        if obj.kind in PROCEDURES:
            assert declared_parameters(dialect, spec.schema, obj.name, item.create) == client.parameters(obj.kind), \
                f"{obj.queue}.{obj.kind}"
            checked += 1
        elif obj.kind == "batch_type":
            assert declared_columns(dialect, item.create) == client.batch_columns(), f"{obj.queue}.batch_type"
            checked += 1
        if obj.kind == "enqueue_json":
            # the keys enqueue_json reads from each job object are the keys enqueue_many sends
            assert json_keys(item.create) == client.batch_columns(), f"{obj.queue}.enqueue_json"
    assert checked >= 9 * len(spec.queues) - sum(q.claim == "delete" for q in spec.queues.values()) * 4
