"""The errors the Python client raises (qgen.client re-exports each). Which database error means which
one is decided by its code, never by its message text, in its dialect's error table
(qgen/dialects/postgres/errors.py, mssql/errors.py; qgen/dialects/error_codes.py reads them)."""

from __future__ import annotations

__all__ = [
    "QueueError", "LeaseLost", "JobCancelled", "DuplicateJob", "PermissionDenied", "QueueUsageError", "InvalidArgument",
    "NotInstalled", "ConnectionLost", "CannotReconnect", "OutcomeUnknown", "ConnectionConfigError",
]


class QueueError(Exception):
    """A queue error: raised by a procedure on purpose (the driver's error is the __cause__), or a
    call the queue's options do not allow."""


class LeaseLost(QueueError):
    """The lease token does not hold the job: the lease expired and was released or taken over, or
    the job is already completed or failed (SQL Server 50001, PostgreSQL SQLSTATE QG001)."""


class JobCancelled(LeaseLost):
    """cancel took the job out of the queue while its lease ran: stop working on it; its complete and
    fail are refused (LeaseLost). extend_lease of that job raises it (SQL Server 50006, PostgreSQL
    SQLSTATE QG006), so the worker's heartbeat can tell a cancel from a lease that ran out."""


class DuplicateJob(QueueError):
    """A job with the same dedupe key is already queued (`on_duplicate: error`; 50002 / 23505)."""


class PermissionDenied(QueueError):
    """The login may not run this procedure (its role was not granted it)."""


class QueueUsageError(QueueError):
    """The call does not fit the queue's options (e.g. complete on a delete queue)."""


class InvalidArgument(QueueUsageError):
    """A procedure refused an argument: a batch_size outside 1 .. the queue's max_batch_size
    (SQL Server 50003, PostgreSQL SQLSTATE QG003). Or the client refused a value before sending it,
    the same on both databases: text holding a NUL character (PostgreSQL cannot store one), a
    string(n) payload value longer than n characters (SQL Server would cut it silently), an owner
    or enqueued_by longer than 128 characters."""


class NotInstalled(QueueError):
    """The queue's procedure is not in this database as the spec calls it: the spec was never installed
    here (a wrong database, a schema that does not exist), or the database holds an older install of a
    spec that has changed since (the procedure takes other parameters). Install the spec first.
    PostgreSQL SQLSTATE 42883 / 3F000; SQL Server 2812, 2715, 8144, 8145."""


class ConnectionConfigError(QueueError):
    """No connection can be made as configured, and waiting will not change that: the database does
    not exist, the login (user or password) is refused, or the host name is unknown, as a code says
    (PostgreSQL SQLSTATE 3D000, 28P01, 28000, or getaddrinfo's EAI_NONAME / EAI_NODATA; SQL Server
    911, 4060, 18456, or 11001 from Microsoft's driver). Raised at the first attempt, never retried,
    and not a ConnectionLost (run_worker stops on it): fix the URL, the login or the database."""


class ConnectionLost(QueueError):
    """The connection was lost and the call was not retried: it ran inside client.transaction()
    (rolled back, or, when the commit itself was lost, committed or not: unknown), or it is an
    enqueue that a retry could duplicate (no dedupe key), or no new connection could be made within
    reconnect_timeout, or the client has no way to make one (it was given a ready connection). The
    client connects again on its next call."""


class CannotReconnect(ConnectionLost):
    """The connection is lost for good: the client was given a ready connection, so it has no way to
    make another. Every later call raises it too; run_worker stops with it (a ConnectionLost that
    waiting cannot cure). Give the client a URL or a connection factory to have it reconnect."""


class OutcomeUnknown(LeaseLost):
    """A complete or fail whose connection was lost was retried, and the retry found the lease gone
    after the lease may have expired: either the first attempt committed, or the lease expired and
    reap released the job (it will be delivered again). Either way the job is not finished twice
    and not lost; like LeaseLost, do not retry."""
