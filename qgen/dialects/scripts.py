"""The script side of a database (ScriptSide, which qgen.dialects.base.Database is made of): the facts
the renderer, the checks and the migrations ask, and the readers of a rendered script (the names it
creates, its batches, what the review page and verify read back), with the records they return and
the text helpers the databases' readers share."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator, Optional


@dataclass(frozen=True)
class CreatedName:
    """A name a rendered script gives an object: what it names, and the namespace in which no other
    object may have it (namespaces that hold names of several kinds are named for what they hold)."""

    what: str       # table, index, constraint, procedure, type, role ...
    name: str
    namespace: str  # e.g. "relation", "routine", "role"; "index on <table>" for per-table names


def find_created(script: str, patterns: list[tuple[str, str, str]], quoted: str) -> Iterator[tuple[str, str, str, str | None]]:
    """(what, namespace, quoted name, quoted table or None) for each match of (regex, what, namespace)
    in a rendered script. In a regex, {name} is the created object's quoted name, {qname} the same,
    optionally schema-qualified, {table} the (qualified) table it belongs to; quoted is the pattern
    of one quoted identifier, without groups."""
    parts = {"name": f"(?P<n>{quoted})", "qname": rf"(?:{quoted}\.)?(?P<n>{quoted})",
             "table": rf"(?:{quoted}\.)?(?P<t>{quoted})"}
    for regex, what, namespace in patterns:
        for match in re.finditer(regex.format(**parts), script):
            yield what, namespace, match.group("n"), match.groupdict().get("t")


@dataclass(frozen=True)
class Routine:
    """A procedure or function a rendered script creates (the review page lists them)."""

    name: str
    kind: str                 # "function" or "procedure", as the database calls it
    parameters: tuple[str, ...]  # as the script declares them, one each ("@batch_size int = 10")
    returns: str | None = None


@dataclass(frozen=True)
class Index:
    """An index a rendered script creates, its table's primary key included."""

    name: str
    table: str
    keys: tuple[str, ...]
    unique: bool = False
    include: tuple[str, ...] = ()
    where: str | None = None


@dataclass(frozen=True)
class Grant:
    """One privilege a rendered grants script gives a role: on one object, or (on None) on every
    routine of the schema."""

    privilege: str            # EXECUTE, SELECT, USAGE, VIEW DEFINITION ...
    on: str | None            # the object's name, unqualified; None: every routine in the schema
    role: str


def code_only(script: str) -> str:
    """The script without its whole-line comments (what the review page's readers below look at)."""
    return "".join(line for line in script.splitlines(keepends=True) if not line.lstrip().startswith("--"))


def parenthesised(text: str, start: int) -> tuple[str, int]:
    """The text between the parenthesis at start and the one that closes it, and the index after it."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i + 1
    raise ValueError(f"unbalanced parenthesis at {start}")


def index_after_keys(match: "re.Match[str]", code: str, plain: Callable[[str], str], unquote: Callable[[str], str],
                     where_end: str) -> Index:
    """The Index a CREATE INDEX match names (group 1: UNIQUE, 2: the index, 3: its table), read from
    the key list that follows the match, an INCLUDE list, and a WHERE clause ending at where_end (a
    regex); plain and unquote are the dialect's way of showing and unquoting identifiers."""
    keys, after = parenthesised(code, match.end())
    include: tuple[str, ...] = ()
    rest = code[after:]
    if rest.lstrip().startswith("INCLUDE"):
        cols, used = parenthesised(rest, rest.index("("))
        include, rest = split_top_level(plain(cols)), rest[used:]
    where = re.match(rf"\s*WHERE\s+(.*?)\s*{where_end}", rest, re.S)
    return Index(unquote(match.group(2)), unquote(match.group(3)), split_top_level(plain(keys)),
                 bool(match.group(1)), include, " ".join(plain(where.group(1)).split()) if where else None)


def split_top_level(text: str) -> tuple[str, ...]:
    """Comma-separated items outside parentheses, stripped and joined to one line each."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "," and depth == 0:
            items.append("".join(current))
            current = []
            continue
        depth += (ch == "(") - (ch == ")")
        current.append(ch)
    items.append("".join(current))
    return tuple(" ".join(item.split()) for item in items if item.strip())


# The bytes a value of a fixed-size kind takes in an index key, on every database qgen knows.
_FIXED_KEY_BYTES = {"int": 4, "bigint": 8, "uuid": 16, "bool": 1, "datetime": 8}


class ScriptSide:
    """What a database is to the rendered scripts: facts as class attributes, readers of a rendered
    script as methods. These are the defaults; a database's class (qgen/dialects/<name>/scripts.py)
    overrides what differs. The facts that say which optional work a database does (verify's
    fingerprints, storage parameters) are methods that return nothing here."""

    # Facts every database states (no default).
    name: ClassVar[str]
    title: ClassVar[str]
    # The longest identifier the database takes, in the unit identifier_size counts.
    max_identifier_length: ClassVar[int]
    identifier_unit: ClassVar[str]
    # The widest index key the database takes, in bytes (index_key_bytes counts a column's).
    max_index_key_bytes: ClassVar[int]
    # Lease mode. True: a claim writes no indexed column, so it can update the row in place
    # (PostgreSQL's HOT update: no new index entry). Leased rows then stay in the claim index,
    # no index holds lease tokens (callers name their jobs by id), and a claim takes over an
    # expired lease itself. False: the claim index holds only unleased rows and a lease index
    # holds the jobs in flight (SQL Server, where a claim updates the row in place anyway and a
    # claim stepping over leased rows would take locks on them).
    lease_claims_in_place: ClassVar[bool]
    # How a client waits for work when a dequeue finds none: "dequeue" (the dequeue procedure takes
    # wait_ms and claims again until a job comes or the time is over), or "listen" (the client
    # LISTENs on the queue's wake-up channel, which enqueue notifies with `wakeup: notify`, and
    # claims again when woken; without it, it sleeps and polls).
    wait_for_work: ClassVar[str]
    # Facts with a default.
    # Ends every batch of a rendered script: for T-SQL the GO line; none where a script runs whole.
    batch_separator: ClassVar[str] = ""
    # Whether a batch answers with one result per statement, an error arriving only with the result
    # that carries it (T-SQL through pyodbc: a THROW after a statement that counted rows is in a later
    # result, FreeTDS raising it only when read): then whoever runs a script's batches reads every
    # result of each (qgen/migrate.py), or the error is lost and the script goes on.
    errors_in_later_results: ClassVar[bool] = False
    # Where the roles a spec names live, for the header of the roles script: PostgreSQL's roles
    # belong to the cluster; SQL Server's CREATE ROLE makes a role of the one database.
    role_scope: ClassVar[str] = "cluster-wide"
    # Whether one statement holding many row and page locks on an index is escalated to a table
    # lock (SQL Server, at 5,000): then qgen caps the rows per statement (qgen/spec/locks.py).
    escalates_locks: ClassVar[bool] = False
    # Whether what it renders depends on the spec's sqlserver_version (SQL Server: a table's key
    # options; a revision that changes the version says tables already there keep theirs).
    follows_sqlserver_version: ClassVar[bool] = False
    # Whether reap, purge_batch and watermark_correct also hand their results back through OUTPUT
    # parameters and take result_set (SQL Server: maintain reads them so, not by INSERT ... EXEC).
    step_outputs: ClassVar[bool] = False
    # Whether a procedure (not a function) hands its results back through INOUT parameters, which a
    # CALL returns as its one row (PostgreSQL: purge's counts, the worker's processed).
    inout_results: ClassVar[bool] = False

    def split_batches(self, script: str) -> list[str]:
        """The units a driver executes one at a time: by default the whole script, one batch."""
        return [script] if script.strip() else []

    def identifier_size(self, name: str) -> int:
        """A name's size in identifier_unit."""
        return len(name)

    def created_names(self, script: str) -> list[CreatedName]:
        """Every name a rendered script creates (qgen/render/names.py checks them against the limit and each other)."""
        raise NotImplementedError

    def index_key_bytes(self, t: Any) -> Optional[int]:
        """The most bytes a value of a portable type (qgen.spec.ColumnType) takes in an index key;
        None: it cannot be an index key of bounded size."""
        return _FIXED_KEY_BYTES.get(t.kind)

    def id_list(self, ids: list) -> Any:
        """A list of job ids as a procedure takes it."""
        return list(ids)

    def replaces_in_place(self, old: str, new: str) -> bool:
        """Whether the new create script of an object may run over the old one's objects without
        dropping them first: only the bodies of its routines changed, and the database replaces a
        routine in place, keeping its identity (grants, what depends on it, what running sessions
        have planned against it). By default no: a revision drops the old objects and creates them."""
        return False

    def module_fingerprints(self, script: str) -> dict[str, str]:
        """What verify compares with what is installed, from the rendered scripts: {module: fingerprint}.
        Empty by default: verify checks only that each object exists."""
        return {}

    def index_shapes(self, script: str) -> dict[tuple[str, str], str]:
        """{(table, index): shape} verify compares with the installed indexes; empty by default."""
        return {}

    def table_storage(self, script: str) -> Optional[tuple[str, dict[str, str]]]:
        """A table's storage parameters, which a revision changes in place (PostgreSQL: the WITH (...)
        of CREATE TABLE, set by ALTER TABLE ... SET): given a table's create script, the script without
        them and them as {name: value}. None by default: the database has none, and any difference in
        a table's script is one a revision refuses."""
        return None

    # What the review page reads back from a rendered script (so that it states what the SQL does,
    # not a second account of it): the routines it creates, the indexes (and primary keys), and the
    # privileges a grants script gives.

    def routines(self, script: str) -> list[Routine]:
        raise NotImplementedError

    def indexes(self, script: str) -> list[Index]:
        raise NotImplementedError

    def grants(self, script: str) -> list[Grant]:
        raise NotImplementedError

