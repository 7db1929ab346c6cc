"""PostgreSQL's script side: its facts, and what qgen reads back from the scripts it renders for it.
Scripts run as one unit: psql or a driver executes all statements of a file at once (the default
split_batches)."""

from __future__ import annotations

import hashlib
import re
from typing import Any, Optional

from qgen.dialects.scripts import (
    CreatedName, Grant, Index, Routine, ScriptSide, code_only, find_created, index_after_keys, parenthesised,
    split_top_level,
)

NAMEDATALEN = 64  # identifiers are cut to NAMEDATALEN - 1 bytes

_QUOTED = r'"(?:[^"]|"")+"'
# Tables, views, indexes, sequences and composite types share one namespace per schema (pg_class,
# and pg_type for everything with a row type); functions and procedures another; roles the cluster's.
_CREATED = [
    (r"CREATE (?:UNIQUE )?INDEX (?:CONCURRENTLY )?(?:IF NOT EXISTS )?{name}", "index", "relation"),
    (r"CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?{qname}", "table", "relation"),
    (r"CREATE (?:OR REPLACE )?VIEW {qname}", "view", "relation"),
    (r"CREATE SEQUENCE (?:IF NOT EXISTS )?{qname}", "sequence", "relation"),
    (r"CREATE TYPE {qname}", "type", "relation"),
    (r"CONSTRAINT {name}", "constraint", "relation"),
    (r"CREATE (?:OR REPLACE )?FUNCTION {qname}", "function", "routine"),
    (r"CREATE (?:OR REPLACE )?PROCEDURE {qname}", "procedure", "routine"),
    (r"CREATE ROLE {name}", "role", "role"),
]
_NAME = rf"(?:{_QUOTED}\.)?({_QUOTED})"
# The storage parameters of CREATE TABLE: WITH (name = value, ...) after the table's column list.
_STORAGE = re.compile(r"(CREATE (?:UNLOGGED )?TABLE [^;]*?\))\s*WITH \(([^()]*)\)(?=\s*;)")
_ROUTINE = re.compile(rf"CREATE OR REPLACE (?:FUNCTION|PROCEDURE) {_QUOTED}\.(?P<name>{_QUOTED})(?P<head>.*?)\bAS \$(?P<tag>\w*)\$",
                      re.S)
_SPACE = re.compile(r"[ \t\n\v\f\r]")


def _without_bodies(script: str) -> str:
    """The script with each CREATE OR REPLACE routine's body left out, whole-line comments and blank
    space ignored."""
    script, kept, at = code_only(script), [], 0
    for match in _ROUTINE.finditer(script):
        end = script.index(f"${match.group('tag')}$", match.end())
        kept.append(script[at:match.end()])
        at = end
    kept.append(script[at:])
    return " ".join("".join(kept).split())


def _unquote(quoted: str) -> str:
    return quoted[1:-1].replace('""', '"')


def _plain(text: str) -> str:
    """Quoted identifiers shown bare ("q"."x" -> q.x): qgen's names never need the quotes."""
    return text.replace('"', "")


def implicit_name(name1: str, name2: str | None, label: str) -> str:
    """The name PostgreSQL gives an object the script does not name (makeObjectName): name1_name2_label,
    the longer of name1 and name2 cut first until it fits."""
    room = NAMEDATALEN - 1 - len(label) - 1 - (1 if name2 else 0)
    one, two = len(name1), len(name2 or "")
    while one + two > room:
        if one > two:
            one -= 1
        else:
            two -= 1
    return "_".join(part for part in (name1[:one], (name2 or "")[:two] if name2 else None, label) if part)


class PostgresScripts(ScriptSide):
    max_identifier_length = NAMEDATALEN - 1
    identifier_unit = "bytes"
    # A btree entry may take a third of an 8 kB page (2704 bytes), its own header included.
    max_index_key_bytes = 2700
    lease_claims_in_place = True
    wait_for_work = "listen"
    inout_results = True

    def identifier_size(self, name: str) -> int:
        return len(name.encode("utf-8"))

    def created_names(self, script: str) -> list[CreatedName]:
        """Every name the script creates, with the names PostgreSQL derives for a table's primary key
        and identity sequence (a later object of the same name would collide with them)."""
        found = []
        for what, namespace, name, _ in find_created(script, _CREATED, _QUOTED):
            found.append(CreatedName(what, _unquote(name), namespace))
        for match in re.finditer(rf"CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?(?:{_QUOTED}\.)?({_QUOTED})([^;]*)", script):
            table, body = _unquote(match.group(1)), match.group(2)
            if "PRIMARY KEY" in body and not re.search(r"CONSTRAINT \S+ PRIMARY KEY", body):
                found.append(CreatedName("primary key", implicit_name(table, None, "pkey"), "relation"))
            for column in re.findall(rf"({_QUOTED}) \w+ GENERATED (?:ALWAYS|BY DEFAULT) AS IDENTITY", body):
                found.append(CreatedName("identity sequence", implicit_name(table, _unquote(column), "seq"), "relation"))
        # wakeup: notify: a channel is no object, but pg_notify refuses a name of NAMEDATALEN bytes or more,
        # and channels are the database's, shared by every schema.
        for channel in re.findall(r"pg_notify\('((?:[^']|'')+)'", script):
            found.append(CreatedName("notification channel", channel.replace("''", "'"), "channel"))
        return found

    def index_key_bytes(self, t: Any) -> Optional[int]:
        """Most bytes a value takes in a btree entry: varchar up to 4 bytes a character (UTF-8) and a
        4-byte header; text, jsonb and xml have no bound (xml has no btree at all)."""
        if t.kind == "string":
            return 4 * t.length + 4
        if t.kind == "decimal":
            return 8 + 2 * ((t.precision + 3) // 4)
        return super().index_key_bytes(t)

    def table_storage(self, script: str) -> Optional[tuple[str, dict[str, str]]]:
        """The create script without its table's storage parameters (WITH (...): fillfactor and
        autovacuum_*), and them as {name: value} (a boolean named without a value is true). A script
        without a WITH clause has none."""
        match = _STORAGE.search(script)
        if match is None:
            return script, {}
        parameters = {}
        for part in match.group(2).split(","):
            name, _, value = part.partition("=")
            parameters[name.strip()] = value.strip() or "true"
        return script[:match.end(1)] + script[match.end():], parameters

    # -- read back for the review page: routines, indexes, grants ------------------------------

    def routines(self, script: str) -> list[Routine]:
        code, found = code_only(script), []
        for match in re.finditer(rf"CREATE (?:OR REPLACE )?(FUNCTION|PROCEDURE) {_NAME}\s*(?=\()", code):
            params, after = parenthesised(code, match.end())
            rest = code[after:].lstrip()
            returns = None
            if rest.startswith("RETURNS TABLE"):
                returns = "TABLE (" + ", ".join(split_top_level(parenthesised(rest, rest.index("("))[0])) + ")"
            elif rest.startswith("RETURNS "):
                returns = rest[len("RETURNS "):].split("\n", 1)[0].strip()
            found.append(Routine(_unquote(match.group(2)), match.group(1).lower(),
                                 tuple(_plain(p) for p in split_top_level(params)), _plain(returns) if returns else None))
        return found

    def indexes(self, script: str) -> list[Index]:
        code, found = code_only(script), []
        for match in re.finditer(rf"CREATE (UNIQUE )?INDEX (?:IF NOT EXISTS )?({_QUOTED})\s+ON (?:ONLY )?{_NAME}"
                                 r"(?: USING \w+)?\s*(?=\()", code):
            found.append(index_after_keys(match, code, _plain, _unquote, ";"))
        for match in re.finditer(rf"CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?{_NAME}", code):
            table = _unquote(match.group(1))
            body = parenthesised(code, code.index("(", match.end()))[0]
            key = re.search(rf"(?:CONSTRAINT ({_QUOTED}) )?PRIMARY KEY\s*\(([^)]*)\)", body)
            if key:
                name = _unquote(key.group(1)) if key.group(1) else implicit_name(table, None, "pkey")
                found.append(Index(name, table, split_top_level(_plain(key.group(2))), True))
        return found

    def grants(self, script: str) -> list[Grant]:
        found = []
        for match in re.finditer(r"GRANT (.+?) ON (.+?) TO (.+?);", code_only(script), re.S):
            privilege, target, roles = (" ".join(part.split()) for part in match.groups())
            if target.startswith("ALL ROUTINES IN SCHEMA") or target.startswith("ALL FUNCTIONS IN SCHEMA"):
                objects: list[str | None] = [None]
            else:
                target = re.sub(r"^(FUNCTION|PROCEDURE|ROUTINE|TYPE|TABLE|SCHEMA) ", "", target)
                objects = [_plain(name).split(".")[-1] for name in split_top_level(target)]  # type: ignore[misc]
            for role in split_top_level(roles):
                found += [Grant(privilege, on, _plain(role)) for on in objects]
        return found

    # -- read back for a revision: what may be replaced in place -------------------------------

    def replaces_in_place(self, old: str, new: str) -> bool:
        """CREATE OR REPLACE keeps a function's oid, its grants, and the row type it returns: sessions
        running it (a worker's prepared dequeue) go on, where a drop and re-create under them fails
        their next call ("cache lookup failed" for the dropped row type or function). Allowed when
        the scripts are the same outside the bodies of their CREATE OR REPLACE routines (the same
        heads, parameters and return types, the same types, triggers and statements around them)."""
        return _without_bodies(old) == _without_bodies(new)

    # -- read back for verify: module fingerprints ---------------------------------------------

    def module_fingerprints(self, script: str) -> dict[str, str]:
        """{routine name: fingerprint} for each function or procedure the script creates, as verify
        computes it from pg_proc.prosrc (the body between the dollar quotes, kept as given): md5 of the
        body without whitespace ([[:space:]]), hex."""
        found: dict[str, str] = {}
        for match in _ROUTINE.finditer(script):
            end = script.index(f"${match.group('tag')}$", match.end())
            body = _SPACE.sub("", script[match.end():end])
            found[match.group("name")[1:-1].replace('""', '"')] = hashlib.md5(body.encode("utf-8")).hexdigest()
        return found
