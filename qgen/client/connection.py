"""Connections that come back: how QueueClient makes a connection, knows one is lost, waits before
making another, and tells, after a retry, whether a lost call had committed.

- `connection_factory(target)`: a callable that opens a new DB-API connection, from a URL or DSN (which
  database it names, qgen/dialects/urls.py decides):
  `postgresql://...` (or `postgresql+psycopg://`, or a libpq DSN `host=... dbname=...`): psycopg 3,
  autocommit; `mssql+pyodbc://USER:PASS@HOST:PORT/DB[?driver=...&Key=value]` (SQLAlchemy's form;
  without driver, Microsoft's ODBC Driver 18 from qgen[mssql], else FreeTDS) or an ODBC connection
  string `DRIVER=...;SERVER=...`: pyodbc.
- `connection_lost(dialect, state, native, exc, connection)`: the error means the session is gone or the
  server asked for a retry on a new one. Decided by the codes of kind 'connection' in the dialect's
  error table (qgen/dialects/postgres/errors.py, mssql/errors.py), never by message text:
  PostgreSQL SQLSTATE class 08 (connection exception), 57P01/57P02/57P03 (admin shutdown, crash
  shutdown, cannot connect now), or a psycopg OperationalError without SQLSTATE (the socket closed),
  or a connection psycopg itself marks broken; SQL Server native errors 233, 10053, 10054 (the
  connection was dropped), 40613, 40197, 40501 (Azure SQL Database: unavailable, service error,
  busy), or SQLSTATE class 08 (FreeTDS reports a dropped socket as 08S01).
- `Backoff`: capped exponential delays with full jitter between reconnection attempts.
- `LeaseBook`: the leases this client holds and until when they hold for certain (the client's
  monotonic clock, from the start of the call that set them). Within that time only this client's
  own calls can end the lease (reap takes expired leases only), so a retried complete or fail that
  finds the lease gone proves that the lost first attempt committed.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from qgen import dialects
from qgen.dialects.mssql.odbc import default_mssql_driver, mssql_connection_string
from qgen.dialects.urls import database_of

__all__ = ["connection_lost", "dialect_of_target", "connection_factory", "mssql_connection_string",
           "default_mssql_driver", "tvp_capable", "Backoff", "LeaseBook"]

def connection_lost(dialect: str, state: Optional[str], native: set[int], exc: BaseException,
                    connection: Any = None) -> bool:
    """Does this driver error (its SQLSTATE and SQL Server native numbers) mean the connection is lost?
    The dialect's error table says (qgen/dialects/*/errors.py: the codes of kind 'connection')."""
    return dialects.get(dialect).connection_lost(state, native, exc, connection)


# Which database a URL or DSN names is decided in qgen/dialects/urls.py; env.py files that `qgen init` wrote
# import it under this name.
dialect_of_target = database_of


def connection_factory(target: str) -> Callable[[], Any]:
    """A callable that opens a new connection to the database a URL or DSN names."""
    target = target.strip()  # a URL pasted with a blank around it names the same database
    return dialects.get(database_of(target)).connector(target)


def tvp_capable(driver_name: str) -> bool:
    """Can this ODBC driver (SQL_DRIVER_NAME, e.g. libmsodbcsql-18.6.so.2.1, libtdsodbc.so) send a
    table-valued parameter? The driver's capability flag (qgen.dialects.mssql.odbc.ODBC_DRIVERS): Microsoft's
    ODBC drivers and SQL Server Native Client can; FreeTDS and drivers not known there cannot."""
    from qgen.dialects.mssql.odbc import odbc_driver

    return odbc_driver(driver_name).sends_table_valued_parameters


@dataclass
class Backoff:
    """Delays between reconnection attempts: base * 2^n, capped, with full jitter."""

    base: float = 0.1
    cap: float = 5.0

    def delay(self, attempt: int) -> float:
        return random.uniform(0, min(self.cap, self.base * 2 ** max(0, attempt - 1)))


@dataclass
class _Lease:
    until: float                                          # monotonic: the lease holds at least until then
    attempts: dict[int, Optional[int]] = field(default_factory=dict)  # job id -> attempts at the claim


class LeaseBook:
    """The leases this client took, to decide whether a retried complete or fail found its lease
    gone because the lost first attempt committed (the lease cannot have expired yet) or because it
    may have expired (then nobody can tell)."""

    MARGIN = 1.0  # seconds of clock-rate and rounding slack
    KEEP_EXPIRED = 600.0  # seconds an expired lease's ids are still known

    def __init__(self) -> None:
        self._leases: dict[Any, _Lease] = {}
        self._lock = threading.Lock()

    def claimed(self, token: Any, started: float, seconds: float, attempts: dict[int, Optional[int]]) -> None:
        """A dequeue that began at `started` (monotonic) leased these jobs for `seconds`."""
        with self._lock:
            now = time.monotonic()
            # An expired lease may still complete (until another claim takes its jobs over), so
            # its ids are kept a while longer than the lease itself.
            for stale in [t for t, lease in self._leases.items() if lease.until + self.KEEP_EXPIRED < now]:
                del self._leases[stale]
            self._leases[token] = _Lease(started + seconds - self.MARGIN, dict(attempts))

    def extended(self, token: Any, started: float, seconds: float) -> None:
        with self._lock:
            lease = self._leases.get(token)
            if lease is not None:
                lease.until = max(lease.until, started + seconds - self.MARGIN)

    def finished(self, token: Any, job_id: Optional[int]) -> None:
        """complete or fail ended the lease of one job (or, without an id, of every job of the token)."""
        with self._lock:
            lease = self._leases.get(token)
            if lease is None:
                return
            if job_id is None:
                del self._leases[token]
            else:
                lease.attempts.pop(job_id, None)
                if not lease.attempts:
                    del self._leases[token]

    def ids(self, token: Any) -> list[int]:
        """The jobs of this lease not yet finished through this client (empty: unknown here)."""
        with self._lock:
            lease = self._leases.get(token)
            return list(lease.attempts) if lease is not None else []

    def holds(self, token: Any, job_id: Optional[int]) -> Optional[_Lease]:
        """The lease, when it certainly still holds (for that job, when one is given); else None."""
        with self._lock:
            lease = self._leases.get(token)
            if lease is None or time.monotonic() >= lease.until:
                return None
            if job_id is not None and job_id not in lease.attempts:
                return None
            return lease
