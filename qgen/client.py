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

How it is built: QueueClient (this module: the job calls) on MaintenanceCalls (qgen/client_maintenance.py),
ClientSession (qgen/client_session.py: the connection, transactions, one call and its retries) and
QueueValues (qgen/client_values.py: names, parameters, values). What differs between the databases is
each one's client driver (qgen/dialects/client_base.py and its subclasses in postgres_client.py and
mssql_client.py: statements, result sets, values, transactions, batches, and the error table that says
what each error code means); nothing here asks which database it is.

The client is safe to share between threads (run_worker's lease heartbeat does): one lock
serialises its use of the connection, and a `transaction()` block holds it until the block ends.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
import uuid
from typing import Any, Literal, Mapping, Optional, Sequence, Union

from qgen import dialects
from qgen.client_maintenance import MaintenanceCalls
from qgen.client_values import LABEL_MAX, check_text
from qgen.errors import (
    CannotReconnect, ConnectionLost, DuplicateJob, InvalidArgument, LeaseLost, NotInstalled, OutcomeUnknown, PermissionDenied, QueueError,
    QueueUsageError,
)
from qgen.results import (
    BatchResult, EnqueueResult, Job, MaintainResult, PurgeResult, ReapResult, RedriveResult, WatermarkCorrection,
)
from qgen.spec import ERROR_MAX, MAX_WAIT_MS, Spec
from qgen.wakeup import STOP_CHECK
from qgen.worker import WorkerStats, run_worker

__all__ = [
    "QueueClient", "Job", "EnqueueResult", "BatchResult", "ReapResult", "PurgeResult", "WatermarkCorrection",
    "MaintainResult", "RedriveResult",
    "QueueError", "LeaseLost", "DuplicateJob", "PermissionDenied", "QueueUsageError", "InvalidArgument",
    "ConnectionLost", "CannotReconnect", "OutcomeUnknown", "NotInstalled", "error_kind", "detect_dialect",
    "run_worker", "WorkerStats",
]

Dialect = Literal["postgres", "mssql"]
log = logging.getLogger("qgen.client")


def error_kind(dialect: str, exc: BaseException, connection: Any = None) -> str | None:
    """What a driver error means to a queue, by its codes in the dialect's error table
    (qgen/dialects/*_client.py): 'lease_lost', 'duplicate', 'invalid', 'refused', 'denied',
    'deadlock', 'missing' (the procedure, its schema or its parameters are not in the database),
    'connection' (the session is gone: qgen.connection.connection_lost), what an install or
    uninstall script refused ('not_verified', 'install_refused', 'uninstall_refused',
    'maintain_failed'), or None."""
    return dialects.client_driver(dialect)().error_kind(exc, connection)


def detect_dialect(connection: Any) -> Dialect:
    """The dialect of a DB-API connection: 'postgres' (psycopg 3) or 'mssql' (pyodbc)."""
    return dialects.client_for_connection(connection).name  # type: ignore[return-value]


class QueueClient(MaintenanceCalls):
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
        self._setup_queue(spec, queue_name)
        if batch_via not in ("auto", "tvp", "json"):
            raise ValueError(f"batch_via={batch_via!r}; accepted: auto, tvp, json")
        check_text("QueueClient", "owner", owner, LABEL_MAX)
        self.owner = owner
        self.max_deadlock_retries = max_deadlock_retries
        self.deadlock_backoff = deadlock_backoff
        self.deadlock_backoff_max = deadlock_backoff_max
        self.deadlock_retries = 0
        self.reconnect_timeout = reconnect_timeout
        self._setup_session(connection, dialect, batch_via, reconnect_backoff, reconnect_backoff_max)

    # -----------------------------------------------------------------------------------------
    # Enqueue

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
        check_text("enqueue_many", "enqueued_by", enqueued_by, LABEL_MAX)
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
        priority, run_at), encoded as the database takes a batch (its client driver's batch_call)."""
        kind, params = self._driver.batch_call(self, records)
        if enqueued_by is not None:
            params.append(("enqueued_by", enqueued_by))
        result = [self._row(r) for r in self._run(kind, params, "rows")]
        return sorted((BatchResult(r["ordinal"], r["id"], bool(r["enqueued"])) for r in result), key=lambda r: r.ordinal)

    def _batch_as_json(self) -> bool:
        """Does enqueue_many send its jobs as one JSON document (SQL Server's enqueue_json)?"""
        return self._driver.batch_as_json(self._connected)

    # -----------------------------------------------------------------------------------------
    # Claim, complete, fail

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

    def _claim(self, batch_size: Optional[int] = None, job_type: Any = None, owner: Optional[str] = None,
               lease_seconds: Optional[int] = None, complete: Union[Job, uuid.UUID, str, None] = None,
               at_most_once: bool = False, wait_ms: Optional[int] = None) -> list[Job]:
        """One call of the dequeue procedure (see dequeue)."""
        self._check_claim(job_type, owner, lease_seconds, complete, at_most_once)
        params: list[tuple[str, Any]] = [("owner", owner if owner is not None else self.owner)]
        if batch_size is not None:
            params.append(("batch_size", int(batch_size)))
        if job_type is not None and self.job_type_column:  # _check_claim refused a job type without the column
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

    def complete(self, job: Union[Job, uuid.UUID, str], /, id: Optional[int] = None, no_result: bool = False,
                 **outbox: Any) -> int:
        """Finish a job (a Job, or a lease token with id=; a token alone finishes the whole lease).
        Outbox columns given by name are handed on in the same transaction (only with an id); job is
        positional, so an outbox column may be called job. On a queue with an outbox a job hands its
        values on, or no_result=True says it has none: with neither the database refuses the
        completion (QueueUsageError), a NOT NULL value missing is InvalidArgument.
        Returns the number of jobs completed; raises LeaseLost when the token holds none."""
        self._need_lease("complete")
        if no_result and not self.outbox_columns:
            raise TypeError("complete: no_result is for a queue with an outbox; this queue hands nothing on")
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
        for c, v in outbox.items():
            self._check_value("complete", c, v, self._outbox_kinds.get(c))
        params += [(c, self._in(c, v, self._outbox_kinds)) for c, v in outbox.items()]
        if self.outbox_columns:
            params.append(("no_result", bool(no_result)))
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
        job_id: Optional[int]
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
