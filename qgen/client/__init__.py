"""A small, typed Python client for one queue of a qgen spec.

It calls the procedures qgen rendered (docs/api.md is the contract) over a DB-API connection:
psycopg 3 for PostgreSQL, pyodbc for SQL Server. It never builds SQL from values: every value is
a bound parameter, and the only names in its SQL are identifiers from the validated spec
(qgen.spec.object_name), quoted for the database.

    from qgen.spec.load import load_spec
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
LISTENs on the queue's channel (qgen/client/wakeup.py; only a client given a URL or a factory can open one),
otherwise it sleeps; on SQL Server the dequeue procedure waits itself (@wait_ms). wait_for_jobs(timeout)
waits without claiming. Waiting is refused inside client.transaction().

How it is built: QueueClient (qgen/client/queue.py: the calls) holds a queue shape (qgen/client/values.py:
names, parameters, values in and out) and a session (qgen/client/session.py: the connection,
transactions, one call and its retries). What differs between the databases is each one's
database class (qgen/dialects: its client side, defaults in qgen/dialects/client.py, overrides in
postgres/client.py and mssql/client.py: statements, result sets, values, transactions, batches, and
the error table that says what each error code means); nothing here asks which database it is. This module is what callers import.

The client is safe to share between threads (run_worker's lease heartbeat does): one lock
serialises its use of the connection, and a `transaction()` block holds it until the block ends.
"""

from __future__ import annotations

from typing import Any

from qgen import dialects
from qgen.errors import (
    CannotReconnect, ConnectionConfigError, ConnectionLost, DuplicateJob, InvalidArgument, JobCancelled, LeaseLost, NotInstalled, OutcomeUnknown, PermissionDenied, QueueError,
    QueueUsageError,
)
from qgen.client.queue import Dialect, QueueClient
from qgen.client.results import (
    BatchResult, Cancelled, DeadLetter, EnqueueResult, Job, JobState, MaintainResult, PurgeResult, ReapResult, RedriveResult,
    WatermarkCorrection,
)
from qgen.client.worker import WorkerStats, run_worker

__all__ = [
    "QueueClient", "Job", "EnqueueResult", "BatchResult", "ReapResult", "PurgeResult", "WatermarkCorrection",
    "MaintainResult", "RedriveResult", "DeadLetter", "JobState", "Cancelled",
    "QueueError", "LeaseLost", "JobCancelled", "DuplicateJob", "PermissionDenied", "QueueUsageError", "InvalidArgument",
    "ConnectionLost", "CannotReconnect", "ConnectionConfigError", "OutcomeUnknown", "NotInstalled", "error_kind", "detect_dialect",
    "run_worker", "WorkerStats",
]


def error_kind(dialect: str, exc: BaseException, connection: Any = None) -> str | None:
    """What a driver error means to a queue, by its codes in the dialect's error table
    (qgen/dialects/*/errors.py): 'lease_lost', 'duplicate', 'invalid', 'refused', 'denied',
    'deadlock', 'missing' (the procedure, its schema or its parameters are not in the database),
    'connection' (the session is gone: qgen.client.connection.connection_lost), what an install or
    uninstall script refused ('not_verified', 'install_refused', 'uninstall_refused',
    'maintain_failed'), or None."""
    return dialects.get(dialect).error_kind(exc, connection)


def detect_dialect(connection: Any) -> Dialect:
    """The dialect of a DB-API connection: 'postgres' (psycopg 3) or 'mssql' (pyodbc)."""
    return dialects.of_connection(connection).name  # type: ignore[return-value]
