"""What a database module of qgen/dialects/ is made of (Dialect, CreatedName) and the registry it
registers itself in. The database modules import this module, not the package, so that the package
(which loads them) and they import nothing of each other's in a circle."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator


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
class Dialect:
    name: str
    title: str
    # Ends every batch of a rendered script; for T-SQL the GO line, for PostgreSQL nothing.
    batch_separator: str
    # Splits a rendered script into the units a driver can execute one at a time.
    split_batches: Callable[[str], list[str]]
    # Limits the database imposes on identifiers: the longest, in the unit identifier_size counts.
    max_identifier_length: int
    identifier_size: Callable[[str], int]
    identifier_unit: str
    # Every name a rendered script creates (qgen/names.py checks them against the limit and each other).
    created_names: Callable[[str], list[CreatedName]]
    # The widest index key the database takes, in bytes, and the most bytes a value of a portable
    # type (qgen.spec.ColumnType) takes in one; None: it cannot be an index key of bounded size.
    max_index_key_bytes: int
    index_key_bytes: Callable[[object], "int | None"]
    # Lease mode. True: a claim writes no indexed column, so it can update the row in place
    # (PostgreSQL's HOT update: no new index entry). Leased rows then stay in the claim index,
    # no index holds lease tokens (callers name their jobs by id), and a claim takes over an
    # expired lease itself. False: the claim index holds only unleased rows and a lease index
    # holds the jobs in flight (SQL Server, where a claim updates the row in place anyway and a
    # claim stepping over leased rows would take locks on them).
    lease_claims_in_place: bool
    # How a list of job ids is passed to a procedure (PostgreSQL bigint[]; SQL Server a JSON array).
    id_list: Callable[[list], object]
    # How a client waits for work when a dequeue finds none: "dequeue" (the dequeue procedure takes
    # wait_ms and claims again until a job comes or the time is over), or "listen" (the client
    # LISTENs on the queue's wake-up channel, which enqueue notifies with `wakeup: notify`, and
    # claims again when woken; without it, it sleeps and polls).
    wait_for_work: str
    # A table's storage parameters, which a revision changes in place (PostgreSQL: the WITH (...) of
    # CREATE TABLE, fillfactor and autovacuum_*, set by ALTER TABLE ... SET): given a table's create
    # script, the script without them and them as {name: value}. None: the dialect has none, and any
    # difference in a table's script is one a revision refuses.
    table_storage: Callable[[str], "tuple[str, dict[str, str]]"] | None = None


_REGISTRY: dict[str, Dialect] = {}


def register(dialect: Dialect) -> Dialect:
    _REGISTRY[dialect.name] = dialect
    return dialect
