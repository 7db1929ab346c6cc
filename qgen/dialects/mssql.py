"""SQL Server (T-SQL). The GO batch separator is a client convention, not T-SQL: it is known here only."""

from __future__ import annotations

import json
import re

from qgen.dialects.base import CreatedName, Dialect, find_created, register

# GO alone on its line (optionally followed by a repeat count, which qgen never emits), any case.
_GO_LINE = re.compile(r"^[ \t]*GO(?:[ \t]+\d+)?[ \t]*(?:--[^\n]*)?$", re.IGNORECASE | re.MULTILINE)


def split_batches(script: str) -> list[str]:
    """Cut a T-SQL script on GO lines; returns the non-blank batches in order."""
    return [batch.strip("\n") for batch in _GO_LINE.split(script) if batch.strip()]


def batch_spans(script: str) -> list[tuple[int, str]]:
    """Like split_batches, but also returns the 1-based line where each batch starts in the script."""
    spans: list[tuple[int, str]] = []
    start = 0
    for match in list(_GO_LINE.finditer(script)) + [None]:
        end = match.start() if match else len(script)
        chunk = script[start:end]
        if chunk.strip():
            leading = len(chunk) - len(chunk.lstrip("\n"))
            first_line = script.count("\n", 0, start) + 1 + leading
            spans.append((first_line, chunk.strip("\n")))
        if match:
            start = match.end()
    return spans


_QUOTED = r"\[(?:[^\]]|\]\])+\]"
# Tables, views, procedures, functions and constraints share one namespace per schema (sys.objects);
# types have their own (sys.types), indexes one per table, roles one per database.
_CREATED = [
    (r"CREATE (?:UNIQUE )?(?:CLUSTERED |NONCLUSTERED )?INDEX {name}\s+ON\s+{table}", "index", "index"),
    (r"CREATE TABLE {qname}", "table", "object"),
    (r"CREATE (?:OR ALTER )?VIEW {qname}", "view", "object"),
    (r"CREATE (?:OR ALTER )?(?:PROCEDURE|PROC|FUNCTION|TRIGGER) {qname}", "procedure", "object"),
    (r"CREATE SEQUENCE {qname}", "sequence", "object"),
    (r"CONSTRAINT {name}", "constraint", "object"),
    (r"CREATE TYPE {qname}", "type", "type"),
    (r"CREATE ROLE {name}", "role", "role"),
]


def _unquote(quoted: str) -> str:
    return quoted[1:-1].replace("]]", "]")


def created_names(script: str) -> list[CreatedName]:
    """Every name the script creates; an index's namespace is its table."""
    return [CreatedName(what, _unquote(name), f"index on {_unquote(table)}" if table else namespace)
            for what, namespace, name, table in find_created(script, _CREATED, _QUOTED)]


def index_key_bytes(t) -> int | None:
    """Most bytes a value takes in an index key: nvarchar 2 bytes a character; text and json are
    nvarchar(max) and xml, which cannot be key columns."""
    fixed = {"int": 4, "bigint": 8, "uuid": 16, "bool": 1, "datetime": 8}
    if t.kind == "string":
        return 2 * t.length
    if t.kind == "decimal":
        return 5 if t.precision <= 9 else 9 if t.precision <= 19 else 13 if t.precision <= 28 else 17
    return fixed.get(t.kind)


MSSQL = register(
    Dialect(
        name="mssql",
        title="SQL Server (T-SQL)",
        batch_separator="GO\n",
        split_batches=split_batches,
        max_identifier_length=128,  # sysname: nvarchar(128), counted in characters
        identifier_size=len,
        identifier_unit="characters",
        created_names=created_names,
        max_index_key_bytes=1700,  # a nonclustered index key (SQL Server 2016 and later)
        index_key_bytes=index_key_bytes,
        lease_claims_in_place=False,
        id_list=lambda ids: json.dumps([int(i) for i in ids]),
        wait_for_work="dequeue",
    )
)
