"""The client side of a database (ClientSide, which qgen.dialects.base.Database is made of): how
QueueClient (qgen/client/__init__.py) talks to it, as River's driver interface does for its queue. ClientSide
holds the defaults; each database's class (qgen/dialects/<name>/client.py) overrides only what differs.

What the client side decides:
- statement text: how a procedure call with named parameters is written (`statement`), and how its
  result sets are read (`fetch`);
- values in and out: json, datetimes (`value_in`, `datetime_in`, `value_out`);
- the connection: making one from a URL (`connector`), preparing one (`prepare`), the caller's
  transaction (`transaction`);
- enqueue_many's batch encoding (`batch_call`), the in-database worker's call (`run_worker`);
- errors: one ErrorTable (qgen/dialects/<name>/errors.py), the codes of a driver error (`codes`),
  and from them what it means (`error_kind`, `connection_lost`).
It never sees the client: it gets a connection (or a callable that returns the client's), the values
to convert, and what encoding them takes (`Batch`). Capabilities are boolean class attributes (like
River's SupportsListener()): a client asks them, never the dialect's name. A database-specific fast
path of the client (a cheaper way to make a call on one database) belongs in that database's class,
as an override of the method whose work it does.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import socket
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, ClassVar, Iterator, Mapping, Optional, Sequence

from qgen.dialects.error_codes import CONNECTION, ErrorCode, ErrorTable, message

UTC = dt.timezone.utc
Params = Sequence[tuple[str, Any]]
Record = tuple[int, list[tuple[str, Any]], Any, Any]  # enqueue_many's (ordinal, values, priority, run_at)


@dataclass(frozen=True)
class Batch:
    """enqueue_many's jobs as a driver encodes them (batch_call): the records, checked against the
    spec but not yet converted, and what the encoding needs to know of the queue."""

    records: list[Record]
    kinds: Mapping[str, Optional[str]]  # the kind (qgen.spec.ColumnType.kind) of each column in a record's values
    table_type: tuple[str, str]  # SQL Server's table type of the batch: its name and its schema
    priority: bool  # a job has a priority column (ordering: priority)
    run_at: bool  # a job has a run_at column (scheduling)


def utc(value: Any) -> Any:
    """A datetime as an aware UTC datetime (a naive one is taken as UTC); anything else as it is."""
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value


def json_default(value: Any) -> Any:
    """json.dumps's fallback for the values a payload may hold."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (dt.datetime, dt.date)):
        return utc(value).isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


class ClientSide:
    """The defaults; a database's class sets its DB-API module, its ErrorTable and its capabilities."""

    driver_module: ClassVar[str] = ""   # the DB-API module whose connections are this database's
    driver_needed: ClassVar[str] = ""   # what to install when driver_module is missing
    errors: ClassVar[ErrorTable] = ErrorTable({})
    batch_via: str  # per client: how enqueue_many sends a batch ('auto', 'json', 'tvp'), see batch_as_json

    # Capabilities. (How a dequeue waits for work is the script side's wait_for_work, qgen/dialects/scripts.py.)
    autocommit_calls: ClassVar[bool] = False     # each call runs in autocommit mode; transaction() is explicit
    has_enqueue_json: ClassVar[bool] = False     # enqueue_many may send its jobs as one JSON document
    reads_every_result_set: ClassVar[bool] = False  # a call's results come in several sets: read to the last
    json_comes_parsed: ClassVar[bool] = True     # the driver hands json columns back parsed (json_out is a no-op)

    # Value kinds value_out hands back unchanged: a claim's fast path (QueueShape.jobs) leaves them alone.
    PLAIN_KINDS: ClassVar[frozenset[str]] = frozenset({"string", "text", "decimal", "xml"})

    # -- names and statements ----------------------------------------------------------------

    def quote(self, name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    # How an example's id list ([17, 18], as the contract writes it) is written in a call.
    id_list_literal = "N'{}'"

    def literal(self, value: str) -> str:
        """An example's value as this database's call writes it: an id list [17, 18] by id_list_literal,
        anything else as written."""
        return self.id_list_literal.format(value) if value.startswith("[") else value

    def example_call(self, routine: str, args: Sequence[tuple[str, str]], shape: str,
                     table_type: Optional[str] = None) -> list[str]:
        """The lines of a readable call of a routine, with literal arguments, for the reference page
        (docs/api.md): its header comment and its statement. shape as in statement(); table_type: the
        routine takes a table of that type (a batch)."""
        raise NotImplementedError

    def statement(self, routine: str, params: Params, shape: str) -> str:
        """The text that calls a routine (its quoted, qualified name) with these named parameters.
        shape: 'rows' (its result rows), 'tuples' (the same rows, as the driver gives them),
        'scalar' (its one value), 'call' (a procedure's CALL)."""
        raise NotImplementedError

    def fetch(self, cursor: Any, shape: str) -> Any:
        """The result of an executed call: 'rows' as dicts, 'tuples' as (columns, rows) the way the
        driver gave them (a claim's fast path), else the first value (None without one)."""
        sets: list[tuple[list[str], list[Any]]] = []
        while True:
            if cursor.description is not None:
                sets.append(([d[0] for d in cursor.description], cursor.fetchall()))
            if not self.reads_every_result_set or not cursor.nextset():
                break
        if not sets:
            return ((), []) if shape == "tuples" else [] if shape == "rows" else None
        columns, rows = sets[-1]
        if shape == "tuples":
            return tuple(columns), rows
        if shape == "rows":
            return [dict(zip(columns, row)) for row in rows]
        return rows[0][0] if rows else None

    # -- values in and out -------------------------------------------------------------------

    def json_in(self, value: Any) -> Any:
        """A json column's value as a parameter."""
        return json.dumps(value, default=json_default)

    def datetime_in(self, value: dt.datetime) -> Any:
        """A datetime as a parameter: aware UTC by default."""
        return utc(value)

    def value_in(self, kind: Optional[str], value: Any) -> Any:
        """A payload value of a column of this kind (qgen.spec.ColumnType.kind) as a parameter."""
        if value is None:
            return None
        if kind == "json":
            return self.json_in(value)
        if kind == "decimal" and isinstance(value, (int, float)) and not isinstance(value, bool):
            # One Python type per column: pyodbc types a TVP column by its first row, and refuses an
            # int where that was a Decimal ("Expected Decimal but got int").
            return Decimal(str(value))
        return self.plain_in(value)

    @staticmethod
    def text_length(value: str) -> int:
        """A text's length as its database counts it against a string(n) column: characters."""
        return len(value)

    def plain_in(self, value: Any) -> Any:
        return self.datetime_in(value) if isinstance(value, dt.datetime) else value

    def json_out(self, value: Any) -> Any:
        return value

    def passes_unchanged(self, kind: Optional[str]) -> bool:
        """Whether value_out hands a value of this kind back as the driver gave it."""
        return kind in self.PLAIN_KINDS or (kind == "json" and self.json_comes_parsed)

    def value_out(self, kind: Optional[str], value: Any) -> Any:
        """A value read back, as the client hands it on: aware UTC datetimes, uuid.UUID, parsed JSON."""
        if value is None:
            return None
        if kind == "uuid" and not isinstance(value, uuid.UUID):
            return uuid.UUID(str(value))
        if kind == "json":
            return self.json_out(value)
        if kind == "datetime" or isinstance(value, dt.datetime):
            return utc(value)
        if kind == "bool":
            return bool(value)
        if kind in ("int", "bigint") and not isinstance(value, bool):
            return int(value)
        return value

    # -- the connection ----------------------------------------------------------------------

    def sqlalchemy_url(self, url: str) -> str:
        """A URL of this database as SQLAlchemy (Alembic's env.py) must get it to connect as qgen does."""
        return url

    def connector(self, target: str, timeout: Optional[int] = None) -> Callable[[], Any]:
        """A callable that opens a new connection to the database a URL or DSN names (giving up after
        timeout seconds when given); ImportError when the driver is missing (driver_needed says how
        to install it)."""
        raise NotImplementedError

    def prepare(self, connection: Any) -> None:
        """Make a new connection fit for the client: autocommit where the calls need it."""
        if self.autocommit_calls:
            connection.autocommit = True

    def session_limits(self, statement_ms: int, lock_ms: int) -> list[str]:
        """The statements that bound every later statement of a session (a reader that must never hold
        up the queue, like qgen dashboard's): at most statement_ms to run, at most lock_ms waiting for a lock."""
        return []

    def limit_session(self, connection: Any, statement_ms: int, lock_ms: int) -> None:
        """Run session_limits on a new connection (and set what the driver bounds itself)."""
        for statement in self.session_limits(int(statement_ms), int(lock_ms)):
            self.execute_batch(connection, statement)

    @contextlib.contextmanager
    def transaction(self, connection: Any) -> Iterator[None]:
        """The caller's transaction (client.transaction()): begun, committed at the end, rolled back
        when the block raises."""
        raise NotImplementedError
        yield  # pragma: no cover

    def execute_batch(self, connection: Any, sql: str) -> None:
        cursor = connection.cursor()
        try:
            cursor.execute(sql)
        finally:
            cursor.close()

    def forget_plans(self, connection: Any) -> None:
        """Forget what the session prepared or resolved of the routines it called, after one was
        replaced under it (an error of kind 'replaced'). Nothing by default."""

    # -- calls that differ -------------------------------------------------------------------

    def batch_call(self, connection: Callable[[], Any], batch: Batch) -> tuple[str, list[tuple[str, Any]]]:
        """enqueue_many's jobs as one call: the procedure's kind and its jobs parameter
        (connection() returns the client's connection)."""
        raise NotImplementedError

    def batch_as_json(self, connection: Callable[[], Any]) -> bool:
        """Does enqueue_many send its jobs as one JSON document (enqueue_json) rather than as a
        table-valued parameter? Only where the database has enqueue_json; then batch_via says, and
        'auto' asks whether the connection's driver sends table-valued parameters."""
        if not self.has_enqueue_json:
            return False
        if self.batch_via != "auto":
            return self.batch_via == "json"
        return not self.sends_table_valued_parameters(connection)

    def sends_table_valued_parameters(self, connection: Callable[[], Any]) -> bool:
        """Can the connection (connection() returns it) send a table-valued parameter? No by default."""
        return False

    def run_worker(self, run: Callable[..., Any], params: Params) -> int:
        """Call the in-database worker; the number of jobs it handled."""
        return int(run("worker", params, "call"))

    @staticmethod
    def json_jobs(records: list[Record], value: Callable[[str, Any], Any]) -> list[dict[str, Any]]:
        """enqueue_many's jobs as JSON objects keyed by batch column (value(column, v) encodes each)."""
        array = []
        for ordinal, values, priority, run_at in records:
            item: dict[str, Any] = {"ordinal": ordinal}
            item.update({c: value(c, v) for c, v in values})
            if priority is not None:
                item["priority"] = int(priority)
            if run_at is not None:
                item["run_at"] = utc(run_at).isoformat()
            array.append(item)
        return array

    # -- errors ------------------------------------------------------------------------------

    def codes(self, exc: BaseException) -> tuple[Optional[str], set[int]]:
        """(SQLSTATE, SQL Server error numbers) of a driver error."""
        return getattr(exc, "sqlstate", None), set()

    def session_ended(self, exc: BaseException, state: Optional[str], connection: Any) -> bool:
        """The driver says the session is gone where no code says so (none by default)."""
        return False

    def classify(self, exc: BaseException, connection: Any = None) -> Optional[ErrorCode]:
        """The error table's entry for a driver error: by its codes; CONNECTION when the driver
        itself reports the session gone."""
        state, native = self.codes(exc)
        if self.session_ended(exc, state, connection) and getattr(exc, "qgen_errno", None) is None \
                and getattr(exc, "qgen_sqlstate", None) is None:
            return CONNECTION
        return self.errors.classify([state, *sorted(native), getattr(exc, "qgen_errno", None)])

    def error_kind(self, exc: BaseException, connection: Any = None) -> Optional[str]:
        entry = self.classify(exc, connection)
        return entry.kind if entry is not None else None

    def connection_lost(self, state: Optional[str], native: set[int], exc: BaseException,
                        connection: Any = None) -> bool:
        if self.session_ended(exc, state, connection):
            return True
        entry = self.errors.classify([state, *sorted(native)])
        return entry is not None and entry.kind == "connection"

    def describe(self, exc: BaseException) -> str:
        """An error for the log: its type, its codes, its message."""
        state, native = self.codes(exc)
        codes = ", ".join(([f"SQLSTATE {state}"] if state else []) + [f"error {n}" for n in sorted(native)])
        return f"{type(exc).__name__}{f' ({codes})' if codes else ''}: {message(exc).strip()}"


def unknown_host(hosts: Sequence[str]) -> Optional[int]:
    """After a failed connect: getaddrinfo's error number when every one of these host names fails
    to resolve as a name that does not exist (EAI_NONAME, EAI_NODATA: a configuration error); None
    when one resolves, is a socket path or empty, or the lookup failed for a while (EAI_AGAIN)."""
    final = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}
    numbers = []
    for host in hosts:
        host = host.strip()
        if not host or host.startswith(("/", "@")) or host in (".", "(local)"):
            return None
        try:
            socket.getaddrinfo(host, None)
        except socket.gaierror as exc:
            numbers.append(exc.errno)
        else:
            return None
    return numbers[0] if numbers and all(n in final for n in numbers) else None

