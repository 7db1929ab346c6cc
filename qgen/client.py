"""A small, typed Python client for one queue of a qgen spec.

It calls the procedures qgen rendered (docs/api.md is the contract) over a DB-API connection:
psycopg 3 for PostgreSQL, pyodbc for SQL Server. It never builds SQL from values: every value is
a bound parameter, and the only names in its SQL are identifiers from the validated spec
(qgen.spec.object_name), quoted for the database.

    from qgen.specload import load_spec
    from qgen.client import QueueClient

    client = QueueClient(psycopg.connect(url), load_spec("examples/004_rainfall.yaml"), "rainfall_events")
    client.enqueue(rainfall_id=42)
    for job in client.dequeue():
        ...
        client.complete(job, rainfall_id=job.payload["rainfall_id"], summary="wet")

Transactions. The client drives the connection's transactions; give it a connection of its own.
- Outside `client.transaction()` every call is its own transaction: it is committed as soon as the
  call returns (on an autocommit connection the commit is a no-op), and rolled back when it fails.
  Lease-mode queues are meant to be used this way: dequeue commits the claim at once and no
  transaction stays open while a worker runs.
- `with client.transaction(): ...` runs the calls inside it in one transaction, committed when the
  block ends and rolled back when it raises. A delete-mode dequeue must run inside one (it raises
  QueueUsageError otherwise): the jobs leave the table when the transaction commits, and a rollback
  puts them back.
- On SQL Server the client puts the connection in autocommit mode: each procedure commits (or rolls
  back and raises) by itself, and `transaction()` sends BEGIN / COMMIT / ROLLBACK TRANSACTION.

Values. Payload columns are passed by name, as Python values: int, Decimal, str, bool, uuid.UUID,
datetime (UTC; a naive datetime is taken as UTC), and for json columns anything json.dumps takes
(PostgreSQL jsonb / SQL Server nvarchar JSON). Results come back the same way on both databases:
aware UTC datetimes, uuid.UUID, parsed JSON, Decimal.

Errors. LeaseLost (SQL Server error 50001, PostgreSQL SQLSTATE QG001): the lease token does not
hold the job. DuplicateJob (50002 / 23505): a dedupe key already queued, with `on_duplicate: error`.
InvalidArgument, a QueueUsageError (50003 / QG003): a batch_size outside 1 .. the queue's max_batch_size.
PermissionDenied (SQL Server 229/230, PostgreSQL 42501). QueueUsageError also for a call a procedure
refuses (SQL Server 50005, PostgreSQL QG002): a delete-mode claim outside a transaction without
at_most_once, a token-only completion on a queue with an outbox. Each keeps the driver's error as __cause__.
A call chosen as a deadlock victim (SQL Server 1205, PostgreSQL 40P01, or a serialization failure
40001) is retried after a jittered exponential backoff, up to `max_deadlock_retries` times, and
counted in `client.deadlock_retries`; inside `client.transaction()` it is not retried (the whole
transaction was rolled back: retry the block).

Waiting for work. dequeue(wait=seconds) claims, and when nothing is claimable waits for a job up
to that long: on PostgreSQL a queue with `wakeup: notify` wakes it through a second connection that
LISTENs on the queue's channel (qgen/wakeup.py; only a client given a URL or a factory can open one),
otherwise it sleeps; on SQL Server the dequeue procedure waits itself (@wait_ms). wait_for_jobs(timeout)
waits without claiming. Waiting is refused inside client.transaction().

The client is safe to share between threads (run_worker's lease heartbeat does): one lock
serialises its use of the connection, and a `transaction()` block holds it until the block ends.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import math
import random
import re
import threading
import time
import uuid
from decimal import Decimal
from typing import Any, Callable, Iterator, Literal, Mapping, Optional, Sequence, Union

from qgen import dialects as dialect_registry
from qgen.catalog import claims_in_place
from qgen.connection import Backoff, LeaseBook, connection_factory, connection_lost, dialect_of_target, tvp_capable
from qgen.locks import limits
from qgen.spec import MAX_WAIT_MS, ColumnType, Spec, object_name, wakeup_channel
from qgen.errors import (
    CannotReconnect, ConnectionLost, DuplicateJob, InvalidArgument, LeaseLost, NotInstalled, OutcomeUnknown, PermissionDenied, QueueError,
    QueueUsageError,
)
from qgen.results import (
    BatchResult, EnqueueResult, Job, MaintainResult, PurgeResult, ReapResult, RedriveResult, WatermarkCorrection,
)
from qgen.wakeup import STOP_CHECK, Listener
from qgen.worker import WorkerStats, run_worker

__all__ = [
    "QueueClient", "Job", "EnqueueResult", "BatchResult", "ReapResult", "PurgeResult", "WatermarkCorrection",
    "MaintainResult", "RedriveResult",
    "QueueError", "LeaseLost", "DuplicateJob", "PermissionDenied", "QueueUsageError", "InvalidArgument",
    "ConnectionLost", "CannotReconnect", "OutcomeUnknown", "NotInstalled", "error_kind", "detect_dialect",
    "run_worker", "WorkerStats",
]

Dialect = Literal["postgres", "mssql"]
UTC = dt.timezone.utc
log = logging.getLogger("qgen.client")


# ---------------------------------------------------------------------------------------------
# Driver differences


# pyodbc writes a driver error's diagnostic records into its message as "[SQLSTATE] text (native
# error) (ODBC function)" for the first record, then "; [SQLSTATE] text (native error)" for each
# further one (pyodbc's errors.cpp; FreeTDS's text starts "[FreeTDS][SQL Server]", and its native
# error is the server's error number). The text is the server's and may say anything: a value it
# quotes (a dedupe key in error 2601, a handler's own message) can hold "(50001); [42000] " or a
# whole first-record trailer. So only what no text can move is read: the message's end, which is
# the last record's trailer (" (native) (function)" when there is one record: then that is all),
# and the first record's trailer when it is the only place in the message shaped like one. A middle
# record's bounds cannot be told from its text: its number is not read.
_PYODBC_START = re.compile(r"\[[0-9A-Z]{5}\] ")
_PYODBC_ONE_RECORD = re.compile(r" \((-?[0-9]+)\) \(SQL\w+\)\Z")
_PYODBC_LAST = re.compile(r" \((-?[0-9]+)\)\Z")
_PYODBC_FIRST_TRAILER = re.compile(r" \((-?[0-9]+)\) \(SQL\w+\)(?=; \[[0-9A-Z]{5}\] )")


def _native_codes(exc: BaseException) -> tuple[str | None, set[int]]:
    """(SQLSTATE, SQL Server native error numbers) of a driver error: the first record's SQLSTATE
    (pyodbc's args[0]) and the numbers of the records whose bounds no server text can forge."""
    sqlstate = getattr(exc, "sqlstate", None)  # psycopg
    if sqlstate is not None:
        return sqlstate, set()
    args = getattr(exc, "args", ())
    state = args[0] if args and isinstance(args[0], str) and len(args[0]) == 5 else None
    text = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
    if not _PYODBC_START.match(text):
        return state, set()
    one = _PYODBC_ONE_RECORD.search(text)
    if one is not None:  # a further record ends in a number, never in the function's name
        return state, {int(one.group(1))}
    last = _PYODBC_LAST.search(text)
    first = _PYODBC_FIRST_TRAILER.findall(text)
    numbers = {int(last.group(1))} if last is not None else set()
    if last is not None and len(first) == 1:
        numbers.add(int(first[0]))
    return state, numbers


def error_kind(dialect: Dialect, exc: BaseException, connection: Any = None) -> str | None:
    """What a driver error means to a queue: 'lease_lost', 'duplicate', 'invalid', 'refused', 'denied',
    'deadlock', 'missing' (the procedure, its schema or its parameters are not in the database),
    'connection' (the session is gone: qgen.connection.connection_lost) or None."""
    state, native = _native_codes(exc)
    if connection_lost(dialect, state, native, exc, connection):
        return "connection"
    if dialect == "postgres":
        return {"QG001": "lease_lost", "QG002": "refused", "23505": "duplicate", "QG003": "invalid", "42501": "denied",
                "40P01": "deadlock", "40001": "deadlock", "42883": "missing", "3F000": "missing"}.get(state or "")
    if 50001 in native:
        return "lease_lost"
    if 50002 in native:
        return "duplicate"
    if 50003 in native:
        return "invalid"
    if 50005 in native:
        return "refused"
    if native & {229, 230}:
        return "denied"
    # no such procedure, table type, or parameter (2812, 2715, 8145), too many arguments (8144)
    if native & {2812, 2715, 8144, 8145}:
        return "missing"
    if 1205 in native or state == "40001":
        return "deadlock"
    return None


def detect_dialect(connection: Any) -> Dialect:
    module = type(connection).__module__.split(".")[0]
    if module == "psycopg":
        return "postgres"
    if module == "pyodbc":
        return "mssql"
    raise ValueError(f"cannot tell the database of a {type(connection).__module__}.{type(connection).__name__} "
                     "connection; pass dialect='postgres' (psycopg 3) or dialect='mssql' (pyodbc)")


def _quote(dialect: Dialect, name: str) -> str:
    if dialect == "postgres":
        return '"' + name.replace('"', '""') + '"'
    return "[" + name.replace("]", "]]") + "]"


def _utc(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value


# Columns qgen adds, by the kind their values come back as.
_SYSTEM_KINDS = {
    "id": "bigint", "attempts": "int", "priority": "int", "lease_token": "uuid",
    "lease_expires_at": "datetime", "enqueued_at": "datetime", "available_at": "datetime",
    "claimed_at": "datetime", "processed_at": "datetime", "completed_at": "datetime", "dead_at": "datetime",
    "enqueued": "bool", "processed": "bool", "ordinal": "int",
}


# Value kinds _out hands back unchanged (on PostgreSQL json too: psycopg parses it): a claim's fast
# path (QueueClient._jobs) leaves their columns alone.
_PLAIN_KINDS = frozenset({"string", "text", "decimal", "xml"})
_JOB_FIELDS = ("id", "attempts", "lease_token", "lease_expires_at", "priority", "enqueued_at")


# Calls retried on a new connection after the old one was lost. A lost call may have committed:
# these are safe to run again (a lost claim's jobs stay leased until reap releases them; complete
# and fail are fenced by the lease token). enqueue is retried only with a dedupe key that returns
# the existing job; the in-database worker and calls inside client.transaction() never are.
_RETRIED_AFTER_LOSS = frozenset({"dequeue", "complete", "fail", "extend_lease", "reap", "metrics", "peek", "purge",
                                 "watermark_correct"})
_ENQUEUES = frozenset({"enqueue", "enqueue_batch", "enqueue_json"})


class QueueClient:
    """The procedures of one queue of a spec, over one DB-API connection that it replaces when lost."""

    def __init__(
        self,
        connection: Any,
        spec: Spec,
        queue_name: str,
        *,
        dialect: Optional[Dialect] = None,
        owner: Optional[str] = None,
        max_deadlock_retries: int = 5,
        deadlock_backoff: float = 0.05,
        deadlock_backoff_max: float = 2.0,
        reconnect_timeout: float = 30.0,
        reconnect_backoff: float = 0.1,
        reconnect_backoff_max: float = 5.0,
        batch_via: Literal["auto", "tvp", "json"] = "auto",
    ):
        """connection: a DB-API connection (used as is: when it is lost, calls raise ConnectionLost),
        or a callable that opens a new one, or a URL / DSN (qgen.connection.connection_factory): then
        a lost connection is replaced, waiting reconnect_backoff * 2^n seconds (jittered, at most
        reconnect_backoff_max) between attempts, for at most reconnect_timeout seconds per call.
        batch_via (SQL Server): how enqueue_many sends its jobs: 'tvp' (enqueue_batch's table-valued
        parameter), 'json' (enqueue_json, SQL Server 2016+), or 'auto': tvp with Microsoft's ODBC
        drivers, json with any other (FreeTDS cannot send a table-valued parameter)."""
        if queue_name not in spec.queues:
            raise ValueError(f"{queue_name!r} is not a queue of this spec; known: {', '.join(spec.queues)}")
        if batch_via not in ("auto", "tvp", "json"):
            raise ValueError(f"batch_via={batch_via!r}; accepted: auto, tvp, json")
        self._factory = None
        if isinstance(connection, str):
            dialect = dialect or dialect_of_target(connection)  # type: ignore[assignment]
            self._factory = connection_factory(connection)
            connection = None
        elif callable(connection):
            self._factory, connection = connection, None
        self.connection = connection
        self.spec = spec
        self.queue_name = queue_name
        self.queue = spec.queues[queue_name]
        _check_text("QueueClient", "owner", owner, LABEL_MAX)
        self.owner = owner
        self.max_deadlock_retries = max_deadlock_retries
        self.deadlock_backoff = deadlock_backoff
        self.deadlock_backoff_max = deadlock_backoff_max
        self.deadlock_retries = 0
        self.reconnect_timeout = reconnect_timeout
        self.reconnects = 0  # new connections made after a loss
        self._backoff = Backoff(reconnect_backoff, reconnect_backoff_max)
        self._leases = LeaseBook()
        self._statements: dict[tuple, str] = {}  # call text by (kind, shape, parameter names)
        self._job_makers: dict[tuple, Callable[[Sequence[Any]], Job]] = {}  # by a claim's result columns
        self.batch_via = batch_via
        self._tvp: Optional[bool] = None
        self._lost = False
        self._lock = threading.RLock()
        self._tx_depth = 0
        self._listener: Optional[Listener] = None  # wakeup: notify on PostgreSQL: made at the first wait
        # Without a connection (dialect given) the client still names objects and parameters.
        self.dialect: Dialect = dialect or (detect_dialect(connection) if self._factory is None else None)  # type: ignore[assignment]
        if self._factory is not None:
            self._connected()  # a factory's connection tells the dialect when it was not given
        elif connection is not None:
            self._prepare(connection)
        if self.dialect not in ("postgres", "mssql"):
            raise ValueError(f"unknown dialect {self.dialect!r}; accepted: postgres, mssql")
        self._database = dialect_registry.get(self.dialect)
        # How this database waits for work (qgen/dialects): in its dequeue (wait_ms), or on LISTEN.
        self._waits_in_dequeue = self._database.wait_for_work == "dequeue"
        # Where a claim leaves the row in place no index holds tokens: jobs are named by id.
        self._by_id = claims_in_place(self.queue, self.dialect)
        # Rows per statement under lock escalation: enqueue_many's split, the maintenance batch.
        self._limits = limits(spec, queue_name, self.dialect)

        queue = self.queue
        self.lease_mode = queue.claim == "lease"
        self.job_type_column = queue.job_type.column if queue.job_type else None
        self.payload_columns = list(queue.payload)
        self._kinds: dict[str, ColumnType] = {n: c.type for n, c in queue.payload.items()}
        if queue.job_type:
            self._kinds[queue.job_type.column] = queue.job_type.type
        self._required = {n for n, c in queue.payload.items() if not c.nullable}
        self._outbox_kinds: dict[str, ColumnType] = {}
        if queue.outbox is None:
            self.outbox_columns: list[str] = []
        elif queue.outbox.columns is not None:
            self.outbox_columns = list(queue.outbox.columns)
            self._outbox_kinds = {n: c.type for n, c in queue.outbox.columns.items()}
        else:
            target = spec.queues[queue.outbox.queue]
            self.outbox_columns = list(target.payload)
            self._outbox_kinds = {n: c.type for n, c in target.payload.items()}

    # -----------------------------------------------------------------------------------------
    # Names

    def object_name(self, kind: str) -> str:
        return object_name(self.spec, self.queue_name, kind)

    def qualified(self, kind: str) -> str:
        """The quoted, schema-qualified name of one of this queue's objects."""
        return f"{_quote(self.dialect, self.spec.schema)}.{_quote(self.dialect, self.object_name(kind))}"

    def parameters(self, kind: str) -> list[str]:
        """Every parameter the client may pass to one of the queue's procedures, in the procedure's
        own order (docs/api.md; tests/behaviour/test_client_contract.py holds it to the templates)."""
        queue = self.queue
        job_type = [self.job_type_column] if self.job_type_column else []
        lease = ["lease_seconds"] if self.lease_mode else []
        by_id = self._by_id
        outputs = self._database.step_outputs  # maintain's way to read a step (never passed by the client)
        return {
            "enqueue": job_type + self.payload_columns + (["priority"] if queue.ordering == "priority" else [])
            + (["run_at"] if queue.scheduling else []) + (["enqueued_by"] if queue.audit else []),
            "enqueue_batch": ["jobs"] + (["enqueued_by"] if queue.audit else []),
            "enqueue_json": ["jobs"] + (["enqueued_by"] if queue.audit else []),
            "dequeue": ["owner", "batch_size"] + (["job_type"] if job_type else []) + lease
            + ((["complete_lease_token"] + (["complete_ids"] if by_id else [])) if self.lease_mode else ["at_most_once"])
            + (["wait_ms"] if self._waits_in_dequeue else []),
            "complete": ["lease_token", "id"] + (["ids"] if by_id else []) + self.outbox_columns,
            "fail": ["lease_token", "id", "error", "retry"],
            "extend_lease": ["lease_token", "lease_seconds", "id"] + (["ids"] if by_id else []),
            "reap": ["batch_size"] + (["released", "dead_lettered", "result_set"] if outputs else []),
            "worker": ["max_items", "max_seconds", "owner", "lease_seconds"],
            "watermark_correct": ["old_watermark", "new_watermark", "result_set"] if outputs else [],
            "metrics": [],
            "peek": (["job_type"] if job_type else []) + ["limit"],
            "purge": ["older_than_seconds", "batch_size"],
            "purge_batch": ["older_than_seconds", "batch_size"] + (["archived", "processed", "dead", "result_set"]
                                                                 if outputs else []),
            "maintain": ["batch_size"],
            "redrive": ["ids", "redrive_all", "after_id", "batch_size"],
        }[kind]

    def batch_columns(self) -> list[str]:
        """The columns of one job in enqueue_batch: the SQL Server table type's columns in order, the
        keys of a job object in PostgreSQL's JSON array and in SQL Server's enqueue_json document."""
        queue = self.queue
        return (["ordinal"] + ([self.job_type_column] if self.job_type_column else []) + self.payload_columns
                + (["priority"] if queue.ordering == "priority" else []) + (["run_at"] if queue.scheduling else []))

    # -----------------------------------------------------------------------------------------
    # Transactions

    @property
    def in_transaction(self) -> bool:
        return self._tx_depth > 0

    @contextlib.contextmanager
    def transaction(self) -> Iterator["QueueClient"]:
        """Run the calls inside the block in one transaction: commit at the end, roll back on an
        exception. Nested blocks join the outer one. Other threads wait until the block ends."""
        with self._lock:
            if self._tx_depth:
                self._tx_depth += 1
                try:
                    yield self
                finally:
                    self._tx_depth -= 1
                return
            try:
                conn = self._connected()
                self._finish(commit=True)  # nothing of an earlier call may leak into this transaction
                if self.dialect == "postgres":
                    self._tx_depth = 1
                    try:
                        with conn.transaction():
                            yield self
                    finally:
                        self._tx_depth = 0
                    return
                # SQL Server: an explicit transaction on the autocommit connection (see __init__).
                self._batch("BEGIN TRANSACTION;")
                self._tx_depth = 1
                try:
                    yield self
                except BaseException:
                    with contextlib.suppress(Exception):
                        self._batch("IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;")
                    raise
                else:
                    self._batch("COMMIT TRANSACTION;")
                finally:
                    self._tx_depth = 0
            except ConnectionLost:
                raise
            except Exception as exc:
                if self.connection is None or not self._is_lost(exc):
                    raise
                # Lost at BEGIN, at a call inside, or at COMMIT: then nobody knows whether it committed.
                self._drop_connection(exc, "a transaction")
                raise self._lost_error(f"queue {self.queue_name}: the connection was lost during a transaction: it "
                                     "was rolled back, or (lost at its commit) committed or not: unknown") from exc

    # -----------------------------------------------------------------------------------------
    # The connection

    def _prepare(self, connection: Any) -> None:
        if self.dialect is None:
            self.dialect = detect_dialect(connection)
        if self.dialect == "mssql":
            # The procedures manage their own transactions (BEGIN/COMMIT, and ROLLBACK + THROW on
            # error). Under ODBC's implicit transactions (autocommit off) their first SELECT would
            # open an outer transaction they do not commit (error 266), so calls run in autocommit
            # mode and transaction() opens an explicit one.
            connection.autocommit = True

    def _connected(self) -> Any:
        """The connection; after a loss a new one, made within reconnect_timeout or ConnectionLost."""
        if self.connection is not None:
            return self.connection
        if self._factory is None:
            raise CannotReconnect(f"queue {self.queue_name}: no connection, and no way to make a new connection (the "
                                  "client was given a ready connection; give it a URL or a connection factory to "
                                  "reconnect)")
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            try:
                connection = self._factory()
            except Exception as exc:
                waited = time.monotonic() - started
                if waited >= self.reconnect_timeout:
                    log.error("queue %s: no connection after %d attempts in %.1fs; giving up: %s",
                              self.queue_name, attempt, waited, _describe(exc))
                    raise ConnectionLost(f"queue {self.queue_name}: could not connect within "
                                         f"{self.reconnect_timeout:g}s: {_message(exc)}") from exc
                delay = min(self._backoff.delay(attempt), self.reconnect_timeout - waited)
                log.warning("queue %s: connecting failed (attempt %d: %s); next attempt in %.2fs",
                            self.queue_name, attempt, _describe(exc), delay)
                time.sleep(max(0.0, delay))
                continue
            self._prepare(connection)
            if self._lost:
                log.info("queue %s: connected again (%d attempt(s), %.1fs)", self.queue_name, attempt,
                         time.monotonic() - started)
            self._lost = False
            self.connection = connection
            return connection

    def _drop_connection(self, exc: BaseException, during: str) -> None:
        """Forget a connection that is lost (closing what is left of it); the next call makes another."""
        log.warning("queue %s: connection lost during %s: %s", self.queue_name, during, _describe(exc))
        old, self.connection = self.connection, None
        self._lost = True
        if self._factory is not None:
            self.reconnects += 1
        if old is not None:
            with contextlib.suppress(Exception):
                old.close()

    def _is_lost(self, exc: BaseException) -> bool:
        return error_kind(self.dialect, exc, self.connection) == "connection"

    def close(self) -> None:
        """Close the connection (a later call opens a new one when the client has a factory or URL)."""
        with self._lock:
            old, self.connection = self.connection, None
            if old is not None:
                old.close()
        if self._listener is not None:
            self._listener.close()

    def _batch(self, sql: str) -> None:
        cursor = self._connected().cursor()
        try:
            cursor.execute(sql)
        finally:
            cursor.close()

    def _finish(self, commit: bool) -> None:
        """End the implicit transaction a call left open (a no-op on an autocommit connection)."""
        if self._tx_depth or self.connection is None:
            return
        if commit:
            self.connection.commit()
        else:
            with contextlib.suppress(Exception):
                self.connection.rollback()

    # -----------------------------------------------------------------------------------------
    # Calling procedures

    def _run(self, kind: str, params: Sequence[tuple[str, Any]], shape: str, *, job_type_filter: bool = False):
        """Call one procedure with named parameters. shape: 'rows' (the last result set, as dicts),
        'scalar' (the function's value / the procedure's RETURN value), 'call' (PostgreSQL CALL)."""
        sql, values = self._statement(kind, params, shape)
        attempt = 0
        lost_since: Optional[float] = None  # when this call first lost its connection
        losses = 0
        while True:
            wait = 0.0
            with self._lock:
                try:
                    self._connected()
                    result = self._execute(sql, values, shape)
                    self._finish(commit=True)
                    if lost_since is not None:
                        log.info("queue %s: %s succeeded on a new connection after %.1fs", self.queue_name, kind,
                                 time.monotonic() - lost_since)
                    return result
                except ConnectionLost:
                    raise
                except Exception as exc:
                    what = error_kind(self.dialect, exc, self.connection)
                    if what == "connection":
                        self._drop_connection(exc, kind)
                        lost_since = lost_since if lost_since is not None else time.monotonic()
                        self._retry_after_loss(kind, exc, lost_since)
                        losses += 1
                        wait = self._backoff.delay(losses)
                    else:
                        self._finish(commit=False)
                        if what != "deadlock" or self._tx_depth or attempt >= self.max_deadlock_retries:
                            raise _queue_error(what, exc, retried=lost_since is not None,  # noqa: B904 (it sets __cause__)
                                               routine=f"{self.spec.schema}.{self.object_name(kind)}")
                        attempt += 1
                        self.deadlock_retries += 1
                        delay = min(self.deadlock_backoff_max, self.deadlock_backoff * 2 ** (attempt - 1))
                        wait = random.uniform(delay / 2, delay)
            time.sleep(wait)  # outside the lock: a heartbeat may run meanwhile

    def _retry_after_loss(self, kind: str, exc: BaseException, lost_since: float) -> None:
        """Return when a call that lost its connection may run again on a new one; else raise ConnectionLost."""
        dedupe = self.queue.dedupe
        if self._tx_depth:
            why = "it ran inside client.transaction(), which was rolled back"
        elif kind in _ENQUEUES and not (dedupe and dedupe.on_duplicate == "return_existing"):
            why = ("it may have committed, and without a dedupe key that returns the existing job a retry could "
                   "enqueue the job twice")
        elif kind not in _RETRIED_AFTER_LOSS and kind not in _ENQUEUES:
            why = "it is not retried after a connection loss"
        elif self._factory is None:
            why = "the client has no way to make a new connection (give it a URL or a connection factory)"
        elif time.monotonic() - lost_since >= self.reconnect_timeout:
            why = f"it kept losing its connection for {self.reconnect_timeout:g}s"
        else:
            return
        raise self._lost_error(f"queue {self.queue_name}: the connection was lost during {kind}: {why}") from exc

    def _lost_error(self, message: str) -> ConnectionLost:
        """ConnectionLost; CannotReconnect when this client has no way to make a new connection."""
        if self._factory is None:
            if "no way to make a new connection" not in message:
                message += "; the client has no way to make a new connection (give it a URL or a connection factory)"
            return CannotReconnect(message)
        return ConnectionLost(message)

    def _statement(self, kind: str, params: Sequence[tuple[str, Any]], shape: str) -> tuple[str, list[Any]]:
        values = [value for _, value in params]
        key = (kind, shape, tuple(p for p, _ in params))
        sql = self._statements.get(key)
        if sql is None:  # the same call shape is the same text: built once (a claim is called a lot)
            sql = self._statements[key] = self._statement_text(kind, params, shape)
        return sql, values

    def _statement_text(self, kind: str, params: Sequence[tuple[str, Any]], shape: str) -> str:
        known = self.parameters(kind)
        unknown = [p for p, _ in params if p not in known]
        if unknown:  # a bug in this module, not in the caller's values
            raise AssertionError(f"{kind} has no parameter(s) {', '.join(unknown)}; it has {', '.join(known)}")
        name = self.qualified(kind)
        if self.dialect == "postgres":
            args = ", ".join(f"{_quote('postgres', p)} => %s" for p, _ in params)
            if shape in ("rows", "tuples"):
                return f"SELECT * FROM {name}({args})"
            if shape == "call":
                return f"CALL {name}({args})"
            return f"SELECT {name}({args})"
        args = ", ".join(f"@{p} = ?" for p, _ in params)
        if shape == "scalar":
            return (f"SET NOCOUNT ON; DECLARE @qgen_return int; EXEC @qgen_return = {name} {args}; "
                    "SELECT @qgen_return AS [return_value];")
        return f"SET NOCOUNT ON; EXEC {name} {args};"

    def _execute(self, sql: str, values: list[Any], shape: str):
        cursor = self.connection.cursor()
        try:
            cursor.execute(sql, values) if values else cursor.execute(sql)
            sets: list[tuple[list[str], list[Any]]] = []
            while True:
                description = cursor.description
                if description is not None:
                    sets.append(([d[0] for d in description], cursor.fetchall()))
                if self.dialect == "postgres" or not cursor.nextset():
                    break
        finally:
            cursor.close()
        if not sets:
            return ((), []) if shape == "tuples" else [] if shape == "rows" else None
        columns, rows = sets[-1]
        if shape == "tuples":  # a claim's fast path (_jobs): the rows as the driver gave them
            return tuple(columns), rows
        if shape == "rows":
            return [dict(zip(columns, row)) for row in rows]
        return rows[0][0] if rows else None

    # -----------------------------------------------------------------------------------------
    # Values in and out

    def _in(self, column: str, value: Any, kinds: Mapping[str, ColumnType] | None = None) -> Any:
        if value is None:
            return None
        kind = (self._kinds if kinds is None else kinds).get(column)
        kind = kind.kind if kind is not None else None
        if kind == "json":
            if self.dialect == "postgres":
                from psycopg.types.json import Jsonb
                return Jsonb(value)
            return json.dumps(value, default=_json_default)
        if kind == "decimal" and isinstance(value, (int, float)) and not isinstance(value, bool):
            # One Python type per column: pyodbc types a TVP column by its first row, and refuses an
            # int where that was a Decimal ("Expected Decimal but got int").
            return Decimal(str(value))
        return self._in_plain(value)

    def _in_plain(self, value: Any) -> Any:
        if isinstance(value, dt.datetime):
            value = _utc(value)
            return value.replace(tzinfo=None) if self.dialect == "mssql" else value
        return value

    def _out(self, column: str, value: Any) -> Any:
        if value is None:
            return None
        kind = self._kinds[column].kind if column in self._kinds else _SYSTEM_KINDS.get(column)
        if kind == "uuid" and not isinstance(value, uuid.UUID):
            return uuid.UUID(str(value))
        if kind == "json" and isinstance(value, (str, bytes)) and self.dialect == "mssql":
            return json.loads(value)
        if kind == "datetime" or isinstance(value, dt.datetime):
            return _utc(value)
        if kind == "bool":
            return bool(value)
        if kind in ("int", "bigint") and not isinstance(value, bool):
            return int(value)
        return value

    def _row(self, row: Mapping[str, Any]) -> dict[str, Any]:
        return {column: self._out(column, value) for column, value in row.items()}

    def _job(self, row: Mapping[str, Any]) -> Job:
        row = self._row(row)
        system = {"id", "attempts", "lease_token", "lease_expires_at", "priority", "enqueued_at"}
        return Job(
            id=row["id"],
            payload={k: v for k, v in row.items() if k not in system and k != self.job_type_column},
            job_type=row.get(self.job_type_column) if self.job_type_column else None,
            attempts=row.get("attempts"),
            lease_token=row.get("lease_token"),
            lease_expires_at=row.get("lease_expires_at"),
            priority=row.get("priority"),
            enqueued_at=row.get("enqueued_at"),
        )

    def _jobs(self, columns: tuple[str, ...], rows: Sequence[Sequence[Any]]) -> list[Job]:
        """Jobs straight from a claim's result rows, as _job makes them but without a dict per row:
        each column is converted as _out does, those whose values _out hands back unchanged are left
        alone (a claim of 100 rows spent more in _job than in the database call)."""
        make = self._job_makers.get(columns)
        if make is None:
            make = self._job_makers[columns] = self._job_maker(columns)
        return [make(row) for row in rows]

    def _job_maker(self, columns: tuple[str, ...]) -> Callable[[Sequence[Any]], Job]:
        out = self._out

        def getter(name: Optional[str]) -> Callable[[Sequence[Any]], Any]:
            if name is None or name not in columns:
                return lambda row: None
            i = columns.index(name)
            kind = self._kinds[name].kind if name in self._kinds else _SYSTEM_KINDS.get(name)
            if kind in _PLAIN_KINDS or (kind == "json" and self.dialect == "postgres"):
                return lambda row: row[i]
            # Values already of the type _out makes are handed on (ids and tokens, as psycopg gives them).
            ready = {"int": int, "bigint": int, "uuid": uuid.UUID}.get(kind or "")
            if ready is not None:
                return lambda row: row[i] if type(row[i]) is ready else out(name, row[i])
            return lambda row: out(name, row[i])

        system = set(_JOB_FIELDS)
        payload = [(name, getter(name)) for name in columns if name not in system and name != self.job_type_column]
        job_type = getter(self.job_type_column)
        id_, attempts, token, expires, priority, enqueued = (getter(name) for name in _JOB_FIELDS)

        def make(row: Sequence[Any]) -> Job:
            return Job(id=id_(row), payload={name: get(row) for name, get in payload}, job_type=job_type(row),
                       attempts=attempts(row), lease_token=token(row), lease_expires_at=expires(row),
                       priority=priority(row), enqueued_at=enqueued(row))

        return make

    def _job_values(self, payload: Mapping[str, Any], job_type: Any, *, where: str) -> list[tuple[str, Any]]:
        """The job-type column and payload columns, checked against the spec, in procedure order."""
        payload = dict(payload)
        if self.job_type_column:
            if self.job_type_column in payload and self.job_type_column != "job_type":
                if job_type is not None:
                    raise TypeError(f"{where}: give the job type once, as job_type or {self.job_type_column}")
                job_type = payload.pop(self.job_type_column)
            if job_type is None:
                raise TypeError(f"{where}: queue {self.queue_name} has job types: give job_type")
        elif job_type is not None:
            raise QueueUsageError(f"{where}: queue {self.queue_name} has no job types")
        unknown = set(payload) - set(self.payload_columns)
        if unknown:
            raise TypeError(f"{where}: unknown payload column(s) {', '.join(sorted(unknown))}; "
                            f"accepted: {', '.join(self.payload_columns)}")
        missing = {c for c in self._required if payload.get(c) is None}
        if missing:
            raise TypeError(f"{where}: missing payload column(s) {', '.join(sorted(missing))}")
        values: list[tuple[str, Any]] = []
        if self.job_type_column:
            values.append((self.job_type_column, job_type))
        values += [(column, payload.get(column)) for column in self.payload_columns]
        self._check_payload(where, values)
        return values

    def _check_payload(self, where: str, values: list[tuple[str, Any]]) -> None:
        for column, value in values:
            kind = self._kinds.get(column)
            _check_text(where, column, value, kind.length if kind is not None and kind.kind == "string" else None)

    def _check_options(self, where: str, priority: Any, run_at: Any, enqueued_by: Any) -> None:
        if priority is not None and self.queue.ordering != "priority":
            raise QueueUsageError(f"{where}: queue {self.queue_name} has ordering: fifo; priority needs ordering: priority")
        if run_at is not None and not self.queue.scheduling:
            raise QueueUsageError(f"{where}: queue {self.queue_name} has no scheduling; run_at needs scheduling: true")
        if enqueued_by is not None and not self.queue.audit:
            raise QueueUsageError(f"{where}: queue {self.queue_name} has no audit; enqueued_by needs audit: true")
        _check_text(where, "enqueued_by", enqueued_by, LABEL_MAX)

    def _need_lease(self, what: str) -> None:
        if not self.lease_mode:
            raise QueueUsageError(f"{what}: queue {self.queue_name} has claim: delete, which has no {what} "
                                  "(commit or roll back the transaction of the dequeue instead)")

    # -----------------------------------------------------------------------------------------
    # The procedures

    def enqueue(self, job_type: Any = None, priority: Optional[int] = None, run_at: Optional[dt.datetime] = None,
                enqueued_by: Optional[str] = None, **payload: Any) -> EnqueueResult:
        """Add one job: its payload columns by name (the job type as job_type= or by its column name).
        run_at is UTC (a naive datetime is taken as UTC). Raises DuplicateJob with on_duplicate: error."""
        self._check_options("enqueue", priority, run_at, enqueued_by)
        params = [(c, self._in(c, v)) for c, v in self._job_values(payload, job_type, where="enqueue")]
        if priority is not None:
            params.append(("priority", int(priority)))
        if run_at is not None:
            params.append(("run_at", self._in_plain(run_at)))
        if enqueued_by is not None:
            params.append(("enqueued_by", enqueued_by))
        rows = self._run("enqueue", params, "rows")
        row = self._row(rows[0])
        return EnqueueResult(row["id"], bool(row["enqueued"]))

    def enqueue_many(self, jobs: Sequence[Mapping[str, Any]], enqueued_by: Optional[str] = None) -> list[BatchResult]:
        """Add many jobs in one call. Each job is a dict of payload columns, plus optionally job_type
        (or the job-type column), priority and run_at. Ids are assigned in list order; the results
        come back in that order, with ordinal = 1-based position in the list. On SQL Server more jobs
        than one statement may write without risking lock escalation (qgen/locks.py) go in several
        calls inside one transaction: still all or nothing."""
        if not jobs:
            return []
        if enqueued_by is not None and not self.queue.audit:
            raise QueueUsageError(f"enqueue_many: queue {self.queue_name} has no audit; enqueued_by needs audit: true")
        _check_text("enqueue_many", "enqueued_by", enqueued_by, LABEL_MAX)
        records = []
        for ordinal, job in enumerate(jobs, start=1):
            job = dict(job)
            priority, run_at, job_type = job.pop("priority", None), job.pop("run_at", None), job.pop("job_type", None)
            self._check_options(f"enqueue_many (job {ordinal})", priority, run_at, None)
            values = self._job_values(job, job_type, where=f"enqueue_many (job {ordinal})")
            records.append((ordinal, values, priority, run_at))
        step = self._limits.enqueue_rows
        if not step or len(records) <= step:
            return self._enqueue_records(records, enqueued_by)
        # More jobs than one statement may write without risking a table lock (qgen/locks.py): one
        # call per part, all in one transaction (the caller's, or one of its own), so the batch is
        # still all or nothing and a key repeated across parts is found as in one batch.
        results: list[BatchResult] = []
        with self.transaction():
            for start in range(0, len(records), step):
                results += self._enqueue_records(records[start:start + step], enqueued_by)
        return results

    def _enqueue_records(self, records: list, enqueued_by: Optional[str]) -> list[BatchResult]:
        """One enqueue_batch (or enqueue_json) call for enqueue_many's records (ordinal, values,
        priority, run_at)."""
        priority_on = self.queue.ordering == "priority"
        kind = "enqueue_batch"
        if self.dialect == "postgres":
            from psycopg.types.json import Jsonb

            array = self._json_jobs(records, lambda c, v: _jsonable(v, self._kinds.get(c)))
            params: list[tuple[str, Any]] = [("jobs", Jsonb(array))]
        elif self._batch_as_json():
            # enqueue_json: the same jobs as one JSON document; a json column as its JSON text.
            kind = "enqueue_json"
            array = self._json_jobs(records, lambda c, v: self._in(c, v))
            params = [("jobs", json.dumps(array, default=_json_default))]
        else:
            # A table-valued parameter: the type's name and schema first (pyodbc >= 4.0.32), then one
            # tuple per job in the type's column order: ordinal, job type, payload, priority, run_at.
            rows: list[Any] = [self.object_name("batch_type"), self.spec.schema]
            for ordinal, values, priority, run_at in records:
                row = [ordinal] + [self._in(c, v) for c, v in values]
                if priority_on:
                    row.append(int(priority or 0))
                if self.queue.scheduling:
                    row.append(self._in_plain(run_at))
                rows.append(tuple(row))
            params = [("jobs", rows)]
        if enqueued_by is not None:
            params.append(("enqueued_by", enqueued_by))
        result = [self._row(r) for r in self._run(kind, params, "rows")]
        return sorted((BatchResult(r["ordinal"], r["id"], bool(r["enqueued"])) for r in result), key=lambda r: r.ordinal)

    def _json_jobs(self, records: list, value: Any) -> list[dict[str, Any]]:
        """enqueue_many's jobs as JSON objects keyed by batch column (value(column, v) encodes each)."""
        array = []
        for ordinal, values, priority, run_at in records:
            item: dict[str, Any] = {"ordinal": ordinal}
            item.update({c: value(c, v) for c, v in values})
            if priority is not None:
                item["priority"] = int(priority)
            if run_at is not None:
                item["run_at"] = _utc(run_at).isoformat()
            array.append(item)
        return array

    def _batch_as_json(self) -> bool:
        """SQL Server: send enqueue_many's jobs as JSON (enqueue_json) rather than as a table-valued
        parameter? batch_via says; 'auto' asks the ODBC driver (qgen.connection.tvp_capable)."""
        if self.batch_via != "auto":
            return self.batch_via == "json"
        if self._tvp is None:
            import pyodbc

            self._tvp = tvp_capable(str(self._connected().getinfo(pyodbc.SQL_DRIVER_NAME)))
        return not self._tvp

    def dequeue(self, batch_size: Optional[int] = None, job_type: Any = None, owner: Optional[str] = None,
                lease_seconds: Optional[int] = None,
                complete: Union[Job, uuid.UUID, str, None] = None, at_most_once: bool = False,
                wait: float = 0.0, stop: Optional[threading.Event] = None) -> list[Job]:
        """Claim up to batch_size jobs (the spec's batch_size by default), in queue order.
        Lease mode: the claim is committed at once, under one lease token for the batch.
        Delete mode: must run inside `with client.transaction():`, unless at_most_once=True: then
        the claim commits at once (seed 001's DELETE ... OUTPUT): the jobs are the caller's and
        gone from the queue when the call returns, and lost if it dies before finishing them.

        complete (lease mode): a lease token, or a Job whose lease token is used. Every job that
        lease still holds is completed first, exactly as complete(token) does, in the same
        transaction as the new claim: one commit per batch instead of two. Raises LeaseLost when
        the token holds no job; then nothing is completed and nothing is claimed.

        wait: when nothing is claimable, wait up to this many seconds for a job and claim it
        (refused inside client.transaction(): it would hold the transaction open meanwhile). SQL
        Server: the dequeue procedure waits itself (@wait_ms: it claims again every 50 ms, each
        attempt a transaction of its own). PostgreSQL: the client waits for a wake-up
        (wait_for_jobs) and claims again when woken; without one it returns [] when the time is
        over, so the caller's next dequeue is the poll. `stop` (a threading.Event) ends a wait early."""
        if wait and self._tx_depth:
            raise QueueUsageError("dequeue: wait= is refused inside client.transaction(): the transaction would stay "
                                  "open while it waits; wait outside it (wait_for_jobs), then claim inside it")
        claim = dict(batch_size=batch_size, job_type=job_type, owner=owner, lease_seconds=lease_seconds,
                     complete=complete, at_most_once=at_most_once)
        if wait <= 0:
            return self._claim(**claim)
        deadline = time.monotonic() + wait
        if self._waits_in_dequeue:
            while True:
                slice_ = 2 * STOP_CHECK if stop is not None else MAX_WAIT_MS / 1000  # stop: seen within 1 s
                ms = int(1000 * max(0.0, min(deadline - time.monotonic(), slice_)))
                jobs = self._claim(**claim, wait_ms=ms)
                claim["complete"] = None  # done by the first call
                if jobs or time.monotonic() >= deadline or (stop is not None and stop.is_set()):
                    return jobs
        listener = self._wakeups()
        if listener is not None:
            listener.listen()  # before the claim: a job committed after it sends a wake-up
        jobs = self._claim(**claim)
        claim["complete"] = None
        while not jobs and self.wait_for_jobs(deadline - time.monotonic(), stop):
            jobs = self._claim(**claim)
        return jobs

    def wait_for_jobs(self, timeout: float, stop: Optional[threading.Event] = None) -> bool:
        """Wait up to `timeout` seconds for a wake-up: True when one came (a job was probably
        enqueued: claim now), False when the time passed or `stop` was set. Only PostgreSQL queues
        with `wakeup: notify`, on a client given a URL or a connection factory, have wake-ups (a
        second connection of the client's LISTENs on the queue's channel, and is made again when
        lost); otherwise it sleeps the timeout and returns False (poll). Never a substitute for the
        claim after it: a wake-up can be missed, so claim again whatever it returns."""
        listener = self._wakeups()
        if listener is not None:
            return listener.wait(timeout, stop)
        if timeout > 0:
            stop.wait(timeout) if stop is not None else time.sleep(timeout)
        return False

    def _wakeups(self) -> Optional[Listener]:
        """The LISTEN side of `wakeup: notify`, when this queue, database and client have one."""
        if self._listener is None and self._factory is not None and not self._waits_in_dequeue:
            channel = wakeup_channel(self.spec, self.queue_name)
            if channel is not None:
                self._listener = Listener(self._factory, channel, self.queue_name)
        return self._listener

    def _claim(self, batch_size: Optional[int] = None, job_type: Any = None, owner: Optional[str] = None,
               lease_seconds: Optional[int] = None, complete: Union[Job, uuid.UUID, str, None] = None,
               at_most_once: bool = False, wait_ms: Optional[int] = None) -> list[Job]:
        """One call of the dequeue procedure (see dequeue)."""
        if complete is not None:
            self._need_lease("complete")
        if at_most_once and (self.lease_mode or self._tx_depth):
            raise QueueUsageError(f"dequeue: at_most_once commits a delete-mode claim at once; queue {self.queue_name} "
                                  + ("has claim: lease" if self.lease_mode else "is inside client.transaction()"))
        if not self.lease_mode and not self._tx_depth and not at_most_once:
            raise QueueUsageError(f"dequeue: queue {self.queue_name} has claim: delete: call dequeue inside "
                                  "`with client.transaction():` and commit when the work is done "
                                  "(or pass at_most_once=True to take the jobs with a claim that commits at once)")
        if lease_seconds is not None:
            self._need_lease("lease_seconds")
        if job_type is not None and not self.job_type_column:
            raise QueueUsageError(f"dequeue: queue {self.queue_name} has no job types")
        _check_text("dequeue", "owner", owner, LABEL_MAX)
        params: list[tuple[str, Any]] = [("owner", owner if owner is not None else self.owner)]
        if batch_size is not None:
            params.append(("batch_size", int(batch_size)))
        if job_type is not None:
            _check_text("dequeue", "job_type", job_type, None)
            params.append(("job_type", self._in(self.job_type_column, job_type)))
        if lease_seconds is not None:
            params.append(("lease_seconds", int(lease_seconds)))
        token = None
        if complete is not None:
            # A Job stands for its whole lease here: the batch it came in is completed together.
            token = self._token_and_id(complete, None)[0]
            params.append(("complete_lease_token", token))
            params += self._lease_ids("complete_ids", token)
        if at_most_once:
            params.append(("at_most_once", True))
        if wait_ms:
            params.append(("wait_ms", int(wait_ms)))
        started = time.monotonic()
        try:
            jobs = self._jobs(*self._run("dequeue", params, "tuples"))
        except OutcomeUnknown:
            if token is None or self._leases.holds(token, None) is None:
                raise
            # The lost attempt committed: it completed the lease's jobs and claimed a batch whose
            # rows never arrived. Those stay leased until their lease expires and reap releases them.
            log.warning("queue %s: a dequeue that also completed lease %s lost its result on a lost connection; its "
                        "completion committed, and the jobs it claimed stay leased until the lease expires and reap "
                        "releases them", self.queue_name, token)
            self._leases.finished(token, None)
            return self._claim(batch_size, job_type, owner, lease_seconds, wait_ms=wait_ms)
        if token is not None:
            self._leases.finished(token, None)
        if self.lease_mode and jobs:
            seconds = lease_seconds if lease_seconds is not None else self.queue.lease
            self._leases.claimed(jobs[0].lease_token, started, seconds, {job.id: job.attempts for job in jobs})
        return jobs

    def _lease_ids(self, parameter: str, token: Any) -> list[tuple[str, Any]]:
        """The ids of the jobs this client holds under a lease, as the parameter that names them to
        complete, extend_lease or dequeue (found by primary key); none when this client does not
        know the lease (then the procedure searches for the token)."""
        if not self._by_id:
            return []
        ids = self._leases.ids(token)
        if not ids:
            log.warning("queue %s: lease %s is not one this client took (or it expired over %.0fs ago): the "
                        "database searches the whole table for its jobs; pass the jobs (or id=) instead",
                        self.queue_name, token, LeaseBook.KEEP_EXPIRED)
            return []
        return [(parameter, self._database.id_list(ids))]

    @staticmethod
    def _token_and_id(job: Union[Job, uuid.UUID, str], id: Optional[int]) -> tuple[Any, Optional[int]]:
        if isinstance(job, Job):
            if job.lease_token is None:
                raise QueueUsageError("this job was not claimed under a lease")
            return job.lease_token, job.id if id is None else id
        return (job if isinstance(job, uuid.UUID) else uuid.UUID(str(job))), id

    def complete(self, job: Union[Job, uuid.UUID, str], /, id: Optional[int] = None, **outbox: Any) -> int:
        """Finish a job (a Job, or a lease token with id=; a token alone finishes the whole lease).
        Outbox columns given by name are handed on in the same transaction (only with an id); job is
        positional, so an outbox column may be called job.
        Returns the number of jobs completed; raises LeaseLost when the token holds none."""
        self._need_lease("complete")
        unknown = set(outbox) - set(self.outbox_columns)
        if unknown:
            raise TypeError(f"complete: unknown outbox column(s) {', '.join(sorted(unknown))}; "
                            f"accepted: {', '.join(self.outbox_columns) or '(none: the queue has no outbox)'}")
        token, job_id = self._token_and_id(job, id)
        if outbox and job_id is None:
            raise TypeError("complete: outbox values belong to one job; give the job (or id=), not only a lease token")
        params: list[tuple[str, Any]] = [("lease_token", token), ("id", job_id)]
        if job_id is None:
            params += self._lease_ids("ids", token)
        params += [(c, self._in(c, v, self._outbox_kinds)) for c, v in outbox.items()]
        try:
            done = int(self._run("complete", params, "scalar"))
        except OutcomeUnknown:
            lease = self._leases.holds(token, job_id)
            if lease is None:
                raise
            # The lease cannot have expired yet, so only this client's own lost attempt ended it.
            log.info("queue %s: complete of %s: the attempt lost with its connection had committed", self.queue_name,
                     f"job {job_id}" if job_id is not None else f"lease {token}")
            done = 1 if job_id is not None else len(lease.attempts)
        except LeaseLost:
            self._leases.finished(token, job_id)
            raise
        self._leases.finished(token, job_id)
        return done

    def fail(self, job: Union[Job, uuid.UUID, str], error: Optional[str] = None, retry: bool = True,
             id: Optional[int] = None) -> Literal["retry", "dead"]:
        """Give a job back after a failed attempt: 'retry' (released after the backoff) or 'dead'
        (attempts used up or retry=False: dead-lettered, or deleted with dead_letter: false)."""
        self._need_lease("fail")
        token, job_id = self._token_and_id(job, id)
        if job_id is None:
            raise TypeError("fail: give the job (or id=)")
        if error is not None:  # diagnostic text: a NUL (which PostgreSQL cannot store) is written as \x00
            error = str(error).replace("\x00", "\\x00")[:ERROR_MAX]
        try:
            outcome = int(self._run("fail", [("lease_token", token), ("id", job_id), ("error", error),
                                             ("retry", bool(retry))], "scalar"))
        except OutcomeUnknown:
            lease = self._leases.holds(token, job_id)
            if lease is None:
                raise
            # As in complete: the lost attempt committed; it dead-lettered the job when fail does.
            attempts = lease.attempts.get(job_id)
            outcome = int(not retry or (attempts is not None and attempts >= self.queue.retry.max_attempts))
            log.info("queue %s: fail of job %s: the attempt lost with its connection had committed", self.queue_name,
                     job_id)
        except LeaseLost:
            self._leases.finished(token, job_id)
            raise
        self._leases.finished(token, job_id)
        return "dead" if outcome == 1 else "retry"

    def extend_lease(self, job: Union[Job, uuid.UUID, str], lease_seconds: Optional[int] = None,
                     id: Optional[int] = None) -> int:
        """Extend a lease to lease_seconds from now (the spec's lease by default): one job, or with a
        bare token every job of the lease. Returns how many; raises LeaseLost when none."""
        self._need_lease("extend_lease")
        if isinstance(job, Job):
            token, job_id = job.lease_token, job.id if id is None else id
        else:
            token, job_id = self._token_and_id(job, id)
        params: list[tuple[str, Any]] = [("lease_token", token)]
        if lease_seconds is not None:
            params.append(("lease_seconds", int(lease_seconds)))
        params.append(("id", job_id))
        if job_id is None:
            params += self._lease_ids("ids", token)
        started = time.monotonic()
        extended = int(self._run("extend_lease", params, "scalar"))
        self._leases.extended(token, started, lease_seconds if lease_seconds is not None else self.queue.lease)
        return extended

    def reap(self, batch_size: Optional[int] = None) -> ReapResult:
        """Release jobs whose lease expired (dead-letter those out of attempts)."""
        self._need_lease("reap")
        params = [("batch_size", int(batch_size))] if batch_size is not None else []
        row = self._run("reap", params, "rows")[0]
        return ReapResult(int(row["released"]), int(row["dead_lettered"]))

    def metrics(self) -> dict[str, Any]:
        """ready, scheduled, in_flight, expired, processed, dead, archived, oldest_ready_age_seconds,
        watermark (None when off), lowest_pending_id."""
        row = self._run("metrics", [], "rows")[0]
        return {k: (int(v) if isinstance(v, (int, Decimal)) and not isinstance(v, bool) else v) for k, v in row.items()}

    def peek(self, job_type: Any = None, limit: Optional[int] = None) -> list[dict[str, Any]]:
        """The pending jobs in queue order, without claiming them."""
        params: list[tuple[str, Any]] = []
        if job_type is not None:
            if not self.job_type_column:
                raise QueueUsageError(f"peek: queue {self.queue_name} has no job types")
            params.append(("job_type", self._in(self.job_type_column, job_type)))
        if limit is not None:
            params.append(("limit", int(limit)))
        return [self._row(r) for r in self._run("peek", params, "rows")]

    def purge(self, older_than_seconds: Optional[int] = None, batch_size: Optional[int] = None) -> PurgeResult:
        """Delete archived, processed and dead-lettered jobs finished longer ago than older_than_seconds
        (the spec's retention by default), one purge_batch call of at most batch_size rows (1000 by
        default, at most the queue's maintenance maximum) at a time, each its own transaction, until a batch comes back short.
        Jobs that finish while it runs are left for the next purge, so it ends on a busy queue too.
        Inside client.transaction() every batch joins that transaction instead: refused."""
        if self._tx_depth:
            raise QueueUsageError("purge commits after every batch: call it outside client.transaction() "
                                  "(purge_batch(...) deletes one batch inside it)")
        older = self.queue.retention if older_than_seconds is None else int(older_than_seconds)
        started = time.monotonic()
        total = PurgeResult(0, 0, 0)
        while True:
            # A later call has a later now(): widen the age by the whole seconds spent, so the cutoff
            # stays within a second of where it was at the start and rows finishing now never count.
            batch = self.purge_batch(older + math.floor(time.monotonic() - started), batch_size)
            total = PurgeResult(*(a + b for a, b in zip(total, batch)))
            if sum(batch) < (batch_size or self._limits.maintenance_batch):
                return total

    def purge_batch(self, older_than_seconds: Optional[int] = None, batch_size: Optional[int] = None) -> PurgeResult:
        """Delete one batch, at most batch_size rows over the archive, processed rows and dead
        letters together, of the jobs purge() would delete, in one transaction (the caller's inside
        client.transaction())."""
        params: list[tuple[str, Any]] = []
        if older_than_seconds is not None:
            params.append(("older_than_seconds", int(older_than_seconds)))
        if batch_size is not None:
            params.append(("batch_size", int(batch_size)))
        row = self._run("purge_batch", params, "rows")[0]
        return PurgeResult(int(row["archived"]), int(row["processed"]), int(row["dead"]))

    def maintain(self, batch_size: Optional[int] = None) -> MaintainResult:
        """Run the queue's maintain once: one bounded batch each of purge, reap (lease mode) and a
        watermark correction, unless another maintain is running on the queue (skipped=True)."""
        params = [("batch_size", int(batch_size))] if batch_size is not None else []
        row = self._row(self._run("maintain", params, "rows")[0])

        def number(name: str) -> Optional[int]:
            return None if row[name] is None else int(row[name])

        result = MaintainResult(bool(row["skipped"]), number("released") or 0, number("dead_lettered") or 0,
                                number("old_watermark"), number("new_watermark"), number("archived") or 0,
                                number("processed") or 0, number("dead") or 0, bool(row["more"]))
        logging.getLogger("qgen.maintain").debug("%s.%s: %s", self.spec.schema, self.queue_name, result)
        return result

    def redrive(self, ids: Optional[Sequence[int]] = None, *, all: bool = False,
                batch_size: Optional[int] = None) -> RedriveResult:
        """Put dead-lettered jobs back into the queue as new jobs (new id, attempts 0, available
        now): those with these dead-letter ids, or every one with all=True (in calls of at most
        batch_size). Each job moves in one transaction, so it is redriven once; a job whose dedupe
        key is queued again stays dead and is counted in skipped_duplicates."""
        if not self.lease_mode or not self.queue.dead_letter:
            raise QueueUsageError(f"redrive: queue {self.queue_name} has no dead-letter table")
        if (ids is None) == (not all):
            raise TypeError("redrive: give either ids or all=True")
        extra = [("batch_size", int(batch_size))] if batch_size is not None else []
        if not all:
            chosen = [int(i) for i in ids or []]
            redriven = skipped = 0
            step = batch_size or self._limits.maintenance_batch
            for start in range(0, len(chosen), step):
                part = chosen[start:start + step]
                row = self._run("redrive", [("ids", self._database.id_list(part))] + extra, "rows")[0]
                redriven, skipped = redriven + int(row["redriven"]), skipped + int(row["skipped_duplicates"])
            return RedriveResult(redriven, skipped)
        after, redriven, skipped = 0, 0, 0
        while True:
            row = self._run("redrive", [("redrive_all", True), ("after_id", after)] + extra, "rows")[0]
            redriven, skipped = redriven + int(row["redriven"]), skipped + int(row["skipped_duplicates"])
            if row["last_id"] is None:
                return RedriveResult(redriven, skipped)
            after = int(row["last_id"])

    def watermark_correct(self) -> WatermarkCorrection:
        """Reset the watermark from the table (after a dequeue that found nothing, or periodically)."""
        if not self.queue.watermark.enabled:
            raise QueueUsageError(f"watermark_correct: queue {self.queue_name} has no watermark")
        row = self._run("watermark_correct", [], "rows")[0]
        old, new = row["old_watermark"], row["new_watermark"]
        return WatermarkCorrection(None if old is None else int(old), None if new is None else int(new))

    def run_procedure_worker(self, max_items: Optional[int] = None, max_seconds: Optional[int] = None,
                             owner: Optional[str] = None, lease_seconds: Optional[int] = None) -> int:
        """Run the in-database worker (`worker:` in the spec); returns the number of jobs it handled.
        It commits job by job (PostgreSQL: COMMIT inside the procedure; SQL Server: each claim,
        completion and failure on its own), so it must not run inside a transaction: the connection
        is switched to autocommit for the call."""
        if self.queue.worker is None:
            raise QueueUsageError(f"queue {self.queue_name} has no in-database worker (worker: in the spec)")
        params: list[tuple[str, Any]] = []
        _check_text("run_procedure_worker", "owner", owner, LABEL_MAX)
        for name, value in (("max_items", max_items), ("max_seconds", max_seconds), ("owner", owner),
                            ("lease_seconds", lease_seconds)):
            if value is not None:
                params.append((name, value))
        with self._lock:
            if self._tx_depth:
                raise QueueUsageError("the worker procedure commits job by job: call it outside client.transaction()")
            conn = self._connected()
            autocommit = conn.autocommit
            conn.commit()
            conn.autocommit = True
            try:
                if self.dialect == "mssql":
                    return int(self._run("worker", params, "rows")[0]["processed"])
                return int(self._run("worker", params, "call"))
            finally:
                if conn is self.connection:
                    conn.autocommit = autocommit


# lease_owner and enqueued_by are varchar(128) / nvarchar(128), last_error 4000 (templates/*/table.sql.j2).
LABEL_MAX = 128
ERROR_MAX = 4000


def _check_text(where: str, name: str, value: Any, limit: Optional[int]) -> None:
    """Refuse, before it is sent, a value both databases would not take the same way: text holding a
    NUL (PostgreSQL refuses it with a driver error; in a json value too), text longer than its column."""
    if isinstance(value, str):
        if "\x00" in value:
            raise InvalidArgument(f"{where}: {name} holds a NUL character (at {value.index(chr(0))}); accepted: text "
                                  "without NUL characters (PostgreSQL cannot store one)")
        if limit is not None and len(value) > limit:
            raise InvalidArgument(f"{where}: {name} is {len(value)} characters long; accepted: at most {limit}")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _check_text(where, f"{name}.{key}" if isinstance(key, str) and "\x00" not in key else name, key, None)
            _check_text(where, f"{name}.{key}", item, None)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_text(where, f"{name}[{index}]", item, None)


def _queue_error(what: Optional[str], exc: BaseException, retried: bool, routine: str = "") -> BaseException:
    """The exception a driver error raises from the client: a QueueError for the errors a queue
    defines (caused by the driver's), else the driver's own."""
    if what == "missing":
        error: BaseException = NotInstalled(
            f"{routine or 'the procedure'} is not installed in this database as the spec calls it (the spec was "
            "never installed here, or the database holds an older install of it): install the spec first "
            "(alembic upgrade head, or install.sql)")
    elif what == "lease_lost" and retried:
        error = OutcomeUnknown(f"{_message(exc)} (on a retry after the connection was lost: the lost "
                                              "attempt may have committed)")
    elif what in ("lease_lost", "duplicate", "denied", "invalid", "refused"):
        error = {"lease_lost": LeaseLost, "duplicate": DuplicateJob, "denied": PermissionDenied,
                 "invalid": InvalidArgument, "refused": QueueUsageError}[what](_message(exc))
    else:
        return exc
    error.__cause__ = exc
    return error


def _describe(exc: BaseException) -> str:
    """An error for the log: its type, its codes, its message."""
    state, native = _native_codes(exc)
    codes = ", ".join(([f"SQLSTATE {state}"] if state else []) + [f"error {n}" for n in sorted(native)])
    return f"{type(exc).__name__}{f' ({codes})' if codes else ''}: {_message(exc).strip()}"


def _message(exc: BaseException) -> str:
    primary = getattr(getattr(exc, "diag", None), "message_primary", None)
    return primary or str(exc)


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (dt.datetime, dt.date)):
        return _utc(value).isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _jsonable(value: Any, kind: Optional[ColumnType]) -> Any:
    """A value as PostgreSQL's jsonb_populate_recordset reads it into the column's type."""
    if value is None or (kind is not None and kind.kind == "json"):
        return value
    if isinstance(value, (bool, int, str, float)):
        return value
    return _json_default(value)

