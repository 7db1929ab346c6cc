"""What a database error means to a queue, decided in one place: each database's class holds
one ErrorTable (qgen/dialects/postgres/errors.py, mssql/errors.py), from each code the database
or qgen's own procedures raise (a SQLSTATE, a SQL Server error number, a SQLSTATE class) to its kind
and the QueueError the client raises for it (qgen/errors.py). Nothing here reads message text.

The templates raise codes of their own (THROW 5000x, RAISE ... ERRCODE = 'QGnnn'): each is in its
dialect's table (tests/test_error_tables.py reads the templates and checks it)."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Union

from qgen.errors import (
    ConnectionConfigError, ConnectionLost, DuplicateJob, InvalidArgument, JobCancelled, LeaseLost, NotInstalled, OutcomeUnknown,
    PermissionDenied, QueueError, QueueUsageError,
)

Code = Union[int, str]  # a SQL Server error number, or a SQLSTATE

# The kinds, strongest first: when one error carries several codes (SQL Server reports a record per
# message), the first kind in this order is the error's.
KINDS = ("connection_config", "connection", "cancelled", "lease_lost", "duplicate", "invalid", "refused", "denied", "missing", "deadlock", "replaced",
         "lock_timeout",
         "not_verified", "install_refused", "uninstall_refused", "maintain_failed")


@dataclass(frozen=True)
class ErrorCode:
    """What one code means: its kind (what error_kind returns), the QueueError the client raises for
    it (None: the driver's own error goes on, e.g. a deadlock the client retries), and a line saying
    where it comes from."""

    kind: str
    raises: Optional[type[QueueError]]
    about: str
    condition: Optional[str] = None  # PostgreSQL's condition name for the SQLSTATE (RAISE ... ERRCODE = 'name')

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown error kind {self.kind!r}; known: {', '.join(KINDS)}")


# The entries both tables share, by kind.
LEASE_LOST = ErrorCode("lease_lost", LeaseLost, "qgen: the lease token does not hold the job")
CANCELLED = ErrorCode("cancelled", JobCancelled, "qgen: extend_lease of a job cancel took out while its lease ran")
DUPLICATE = ErrorCode("duplicate", DuplicateJob, "a job with this dedupe key is already queued")
INVALID = ErrorCode("invalid", InvalidArgument, "qgen: an argument out of range")
PAST_LIMIT = ErrorCode("invalid", InvalidArgument, "qgen: a value past its column's limit (too long, too precise, out of "
                       "range): refused, never cut or rounded; the message names the routine, the column and what it accepts")
REFUSED = ErrorCode("refused", QueueUsageError, "qgen: a call the queue's options or the caller's transaction refuse")
DENIED = ErrorCode("denied", PermissionDenied, "the login may not run the procedure")
MISSING = ErrorCode("missing", NotInstalled, "the procedure, its schema, type or parameters are not installed")
DEADLOCK = ErrorCode("deadlock", None, "chosen as a deadlock victim or a serialization failure: retried")
# A routine the session had prepared (or resolved) was replaced under it by a revision: the call did
# nothing; the client forgets its prepared statements and runs it again once (outside a transaction).
REPLACED = ErrorCode("replaced", None, "a routine the session prepared was replaced (qgen revision): retried once")
# A lock not granted within the session's lock timeout: a revision (qgen/migrate.py) rolls back to
# its savepoint and tries again later; a client call raises the driver's error.
LOCK_TIMEOUT = ErrorCode("lock_timeout", None, "a lock not granted within the lock timeout: a revision tries again")
CONNECTION = ErrorCode("connection", ConnectionLost, "the session is gone: the client connects again")
# A connection refused for how it is configured (no such database, login refused, unknown host):
# raised at once (ConnectionConfigError), never waited out as a lost connection is. The strongest
# kind: SQL Server's refusal comes with a record of SQLSTATE class 08 too.
CONNECTION_CONFIG = ErrorCode("connection_config", ConnectionConfigError,
                              "cannot connect as configured: not retried")
# A host name that does not resolve, as the client's own lookup says (qgen.dialects.client.unknown_host sets
# getaddrinfo's error number on the connect error as qgen_errno): in both dialects' tables. A
# temporary failure of the lookup (EAI_AGAIN) is not here: an outage, retried.
UNKNOWN_HOST: dict[Code, ErrorCode] = {
    socket.EAI_NONAME: ErrorCode("connection_config", ConnectionConfigError,
                                 "the host name is unknown (getaddrinfo EAI_NONAME)"),
    **({socket.EAI_NODATA: ErrorCode("connection_config", ConnectionConfigError,  # type: ignore[attr-defined]
                                     "the host name has no address (getaddrinfo EAI_NODATA)")}
       if hasattr(socket, "EAI_NODATA") else {}),
}
NOT_VERIFIED = ErrorCode("not_verified", None, "qgen install's check: an object is missing or stored wrongly")
INSTALL_REFUSED = ErrorCode("install_refused", None, "qgen install refused: the owner role can log in")
UNINSTALL_REFUSED = ErrorCode("uninstall_refused", None, "qgen uninstall refused: tables still hold rows")
MAINTAIN_FAILED = ErrorCode("maintain_failed", None, "the SQL Server Agent step: maintain failed on a queue")


class ErrorTable:
    """One dialect's codes: exact codes, and SQLSTATE classes (the first two characters) for the
    codes not named one by one."""

    def __init__(self, codes: Mapping[Code, ErrorCode], classes: Mapping[str, ErrorCode] | None = None):
        self.codes = dict(codes)
        self.classes = dict(classes or {})

    def __contains__(self, code: Code) -> bool:
        return self.entry(code) is not None

    def entry(self, code: Code) -> Optional[ErrorCode]:
        found = self.codes.get(code)
        if found is None and isinstance(code, str):
            found = self.classes.get(code[:2])
        return found

    def conditions(self) -> dict[str, str]:
        """{condition name: SQLSTATE} of the codes that have one (PostgreSQL)."""
        return {e.condition: str(c) for c, e in self.codes.items() if e.condition}

    def codes_of(self, kind: str) -> frozenset[Code]:
        return frozenset(c for c, e in self.codes.items() if e.kind == kind)

    def classify(self, codes: Iterable[Optional[Code]]) -> Optional[ErrorCode]:
        """The entry of the strongest kind among these codes (None: no code of the table)."""
        found = [e for e in (self.entry(c) for c in codes if c is not None) if e is not None]
        return min(found, key=lambda e: KINDS.index(e.kind)) if found else None


def message(exc: BaseException) -> str:
    """A driver error's own message (psycopg's primary message, else the error as text)."""
    primary = getattr(getattr(exc, "diag", None), "message_primary", None)
    return primary or str(exc)


def queue_error(entry: Optional[ErrorCode], exc: BaseException, retried: bool, routine: str = "") -> BaseException:
    """The exception a driver error raises from the client: the QueueError its code's entry names
    (caused by the driver's error), else the driver's own. retried: the call ran again after its
    connection was lost, so a lost lease may be the first attempt's own commit (OutcomeUnknown)."""
    if entry is None or entry.raises is None or entry.kind == "connection":
        return exc
    error: BaseException
    if entry.raises is NotInstalled:
        error = NotInstalled(
            f"{routine or 'the procedure'} is not installed in this database as the spec calls it (the spec was "
            "never installed here, or the database holds an older install of it): install the spec first "
            "(alembic upgrade head, or install.sql)")
    elif entry.raises is LeaseLost and retried:
        error = OutcomeUnknown(f"{message(exc)} (on a retry after the connection was lost: the lost "
                               "attempt may have committed)")
    else:
        error = entry.raises(message(exc))
    error.__cause__ = exc
    return error
