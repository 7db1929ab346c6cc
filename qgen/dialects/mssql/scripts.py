"""SQL Server's script side (T-SQL): its facts, and what qgen reads back from the scripts it renders
for it. The GO batch separator is a client convention, not T-SQL: it is known here only."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Optional

from qgen.dialects.scripts import (
    CreatedName, Grant, Index, Routine, ScriptSide, code_only, find_created, index_after_keys, parenthesised,
    split_top_level,
)

# GO alone on its line (optionally followed by a repeat count, which qgen never emits), any case.
_GO_LINE = re.compile(r"^[ \t]*GO(?:[ \t]+\d+)?[ \t]*(?:--[^\n]*)?$", re.IGNORECASE | re.MULTILINE)

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
_NAME = rf"(?:{_QUOTED}\.)?({_QUOTED})"
_MODULE = re.compile(rf"CREATE (?:OR ALTER )?(?:PROCEDURE|VIEW|FUNCTION) (?P<qualified>{_QUOTED}\.(?P<name>{_QUOTED}))")
_INDEX = re.compile(rf"CREATE (?P<unique>UNIQUE )?NONCLUSTERED INDEX (?P<name>{_QUOTED})\s+ON (?:{_QUOTED}\.)?(?P<table>{_QUOTED})"
                    rf"\s*\((?P<keys>[^)]*)\)(?:\s*INCLUDE \((?P<include>[^)]*)\))?(?P<where>\s*WHERE\b)?")
_BLANK = re.compile(r"[ \t\r\n]")


def _unquote(quoted: str) -> str:
    return quoted[1:-1].replace("]]", "]")


def _plain(text: str) -> str:
    """Bracketed identifiers shown bare ([q].[x] -> q.x): qgen's names never need the brackets."""
    return re.sub(r"\[((?:[^\]]|\]\])+)\]", lambda m: m.group(1).replace("]]", "]"), text)


class MssqlScripts(ScriptSide):
    batch_separator = "GO\n"
    errors_in_later_results = True
    role_scope = "database roles"
    max_identifier_length = 128  # sysname: nvarchar(128), counted in characters
    identifier_unit = "characters"
    max_index_key_bytes = 1700  # a nonclustered index key (SQL Server 2016 and later)
    lease_claims_in_place = False
    wait_for_work = "dequeue"
    escalates_locks = True
    follows_sqlserver_version = True
    step_outputs = True

    def split_batches(self, script: str) -> list[str]:
        """Cut a T-SQL script on GO lines; returns the non-blank batches in order."""
        return [batch.strip("\n") for batch in _GO_LINE.split(script) if batch.strip()]

    def batch_spans(self, script: str) -> list[tuple[int, str]]:
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

    def created_names(self, script: str) -> list[CreatedName]:
        """Every name the script creates; an index's namespace is its table."""
        return [CreatedName(what, _unquote(name), f"index on {_unquote(table)}" if table else namespace)
                for what, namespace, name, table in find_created(script, _CREATED, _QUOTED)]

    def index_key_bytes(self, t: Any) -> Optional[int]:
        """Most bytes a value takes in an index key: nvarchar 2 bytes a character; text and json are
        nvarchar(max) and xml, which cannot be key columns."""
        if t.kind == "string":
            return 2 * t.length
        if t.kind == "decimal":
            return 5 if t.precision <= 9 else 9 if t.precision <= 19 else 13 if t.precision <= 28 else 17
        return super().index_key_bytes(t)

    def id_list(self, ids: list) -> Any:
        """A JSON array of the ids."""
        return json.dumps([int(i) for i in ids])

    # -- read back for the review page: routines, indexes, grants ------------------------------

    def routines(self, script: str) -> list[Routine]:
        code, found = code_only(script), []
        for match in re.finditer(rf"CREATE (?:OR ALTER )?(PROCEDURE|PROC|FUNCTION) {_NAME}", code):
            end = re.compile(r"^\s*(?:RETURNS\b.*|AS)\s*$", re.M).search(code, match.end())
            params = code[match.end():end.start() if end else match.end()].strip()
            if params.startswith("(") and params.endswith(")"):
                params = params[1:-1]
            kind = "procedure" if match.group(1).startswith("PROC") else "function"
            found.append(Routine(_unquote(match.group(2)), kind, split_top_level(_plain(params))))
        return found

    def indexes(self, script: str) -> list[Index]:
        code, found = code_only(script), []
        for match in re.finditer(rf"CREATE (UNIQUE )?(?:CLUSTERED |NONCLUSTERED )?INDEX ({_QUOTED})\s+ON {_NAME}\s*(?=\()", code):
            found.append(index_after_keys(match, code, _plain, _unquote, r"(?:;|\bWITH\s*\()"))
        for match in re.finditer(rf"CREATE TABLE {_NAME}", code):
            body = parenthesised(code, code.index("(", match.end()))[0]
            key = re.search(rf"CONSTRAINT ({_QUOTED}) PRIMARY KEY (?:CLUSTERED |NONCLUSTERED )?\(([^)]*)\)", body)
            if key:
                found.append(Index(_unquote(key.group(1)), _unquote(match.group(1)), split_top_level(_plain(key.group(2))), True))
        return found

    def grants(self, script: str) -> list[Grant]:
        found = []
        for match in re.finditer(r"GRANT (.+?) ON (OBJECT|TYPE|SCHEMA)::(.+?) TO (.+?);", code_only(script), re.S):
            privilege, kind, target, roles = (" ".join(part.split()) for part in match.groups())
            on = None if kind == "SCHEMA" and privilege == "EXECUTE" else _plain(target).split(".")[-1]
            found += [Grant(privilege, on, _plain(role)) for role in split_top_level(roles)]
        return found

    # -- read back for verify: module fingerprints, index shapes -----------------------------

    def module_texts(self, script: str) -> dict[str, str]:
        """{module name: the text verify hashes} for each procedure, view or function the script creates:
        its batch from the module's qualified name to the end, without spaces, tabs or line breaks (so
        neither the comments before CREATE, which SQL Server keeps and other engines drop, nor CREATE vs
        CREATE OR ALTER, nor a client's line endings count)."""
        found: dict[str, str] = {}
        for batch in self.split_batches(script):
            match = _MODULE.search(batch)
            if match:
                found[_unquote(match.group("name"))] = _BLANK.sub("", batch[match.start("qualified"):])
        return found

    def module_fingerprints(self, script: str) -> dict[str, str]:
        """{module name: fingerprint} for each module the script creates, as verify computes it from
        sys.sql_modules.definition: SHA2_256 over module_texts' text in UTF-16 (as SQL Server hashes an
        nvarchar), as an upper-case hex string."""
        return {name: hashlib.sha256(text.encode("utf-16-le")).hexdigest().upper()
                for name, text in self.module_texts(script).items()}

    def index_shapes(self, script: str) -> dict[tuple[str, str], str]:
        """{(table, index): shape} for each nonclustered index the script creates, in the form verify
        builds from sys.indexes and sys.index_columns: "unique (a, b desc) include (x, y) where" (the
        unique, include and where parts only when there; included columns by upper-cased name, in code point order; the filter's text is
        not compared, as SQL Server stores it rewritten)."""
        found: dict[tuple[str, str], str] = {}
        for match in _INDEX.finditer(script):
            keys = [k.strip() for k in match.group("keys").split(",")]
            keys = [(_unquote(k.split()[0]) + (" desc" if k.upper().endswith(" DESC") else "")) for k in keys]
            # Included columns in the order verify reads them: by upper-cased name, code point by code point
            # (UPPER(name) COLLATE Latin1_General_BIN2), whatever the database's collation.
            include = sorted((_unquote(c.strip()) for c in (match.group("include") or "").split(",") if c.strip()),
                             key=lambda c: (c.upper(), c))
            shape = ("unique " if match.group("unique") else "") + f"({', '.join(keys)})"
            shape += f" include ({', '.join(include)})" if include else ""
            shape += " where" if match.group("where") else ""
            found[(_unquote(match.group("table")), _unquote(match.group("name")))] = shape
        return found
