"""The rendered scripts against the contract (qgen/spec/contract.py), without a database: for every spec,
queue and dialect, each rendered procedure declares exactly the contract's parameters, in order, its
outputs as outputs, and the client passes the contract's; enqueue_batch's rows have the batch type's
columns in order. This is what keeps the SQL Server side of the client honest where no SQL Server runs."""

from __future__ import annotations

import re

import pytest

from qgen.client import QueueClient
from qgen.spec.contract import PROCEDURES, declared
from qgen.render.engine import render_spec
from qgen.spec.load import load_spec
from tests.behaviour.helpers import BEHAVE
from tests.conftest import COVERAGE_SPECS, EXAMPLES

SPECS = EXAMPLES + COVERAGE_SPECS + [BEHAVE]


def header_parameters(dialect: str, schema: str, name: str, text: str) -> list[tuple[str, bool]]:
    """(name, is an output) of each parameter a rendered procedure's header declares, in order."""
    if dialect == "mssql":
        header = re.search(rf"CREATE OR ALTER PROCEDURE \[{schema}\]\.\[{name}\]\n(.*?)^(?:WITH .*\n)?AS$", text, re.S | re.M)
        return [(n, line.endswith(" OUTPUT")) for line, n in re.findall(r"^\s+(@(\w+)\s[^,\n]*)", header.group(1), re.M)]
    header = re.search(rf'CREATE OR REPLACE (?:FUNCTION|PROCEDURE) "{schema}"\."{name}"(\(\)|\n\(\n.*?\n\))', text, re.S)
    return [(n, bool(inout)) for inout, n in re.findall(r'^\s+(INOUT\s+)?"(\w+)"\s', header.group(1), re.M)]


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
def test_rendered_headers_and_the_client_follow_the_contract(path, dialect):
    spec = load_spec(path)
    rendering = render_spec(spec, path.name, dialect)
    checked = 0
    for item in rendering.objects:
        obj = item.obj
        if obj.queue is None:
            continue
        client = QueueClient(None, spec, obj.queue, dialect=dialect)
        if obj.kind in PROCEDURES:
            contract = declared(spec, obj.queue, obj.kind, dialect)
            assert header_parameters(dialect, spec.schema, obj.name, item.create) == [(p.name, p.output) for p in contract], \
                f"{obj.queue}.{obj.kind}"
            assert client.parameters(obj.kind) == [p.name for p in contract if p.by_name], f"{obj.queue}.{obj.kind}"
            checked += 1
        elif obj.kind == "batch_type":
            assert declared_columns(dialect, item.create) == client.batch_columns(), f"{obj.queue}.batch_type"
            checked += 1
        if obj.kind == "enqueue_json":
            # the keys enqueue_json reads from each job object are the keys enqueue_many sends
            assert json_keys(item.create) == client.batch_columns(), f"{obj.queue}.enqueue_json"
    assert checked >= 9 * len(spec.queues) - sum(q.claim == "delete" for q in spec.queues.values()) * 4
