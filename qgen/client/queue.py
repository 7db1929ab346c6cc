"""QueueClient: the calls of one queue (qgen/client/__init__.py is the module to import it from, and says what
it does). It holds two parts and asks them, never the database's name:
- its queue shape (QueueShape, qgen/client/values.py): the names of the queue's objects, the
  parameters of its procedures and the calls made of them, its values in and out;
- its session (Session, qgen/client/session.py): the connection (a new one after a loss), the
  caller's transactions, and sending a call with its retries.
What differs between the databases is each one's database class (qgen/dialects; its client side's
defaults in qgen/dialects/client.py), which both parts hold; it gets connections and values, never the
client."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import math
import threading
import time
import uuid
from typing import Any, Generic, Iterator, Literal, Mapping, Optional, Sequence, TypeVar, Union, overload

from qgen.client.admin import STATED_BY_THE_PROCEDURE, AdminCalls, _size
from qgen.client.control import ControlCalls
from qgen.client.session import Session
from qgen.client.values import QueueShape, check_label, queue_of, token_and_id
from qgen.client.connection import LeaseBook
from qgen.errors import InvalidArgument, LeaseLost, OutcomeUnknown, QueueUsageError
from qgen.client.results import (
    BatchResult, EnqueueResult, Job,
)
from qgen.spec.model import ERROR_MAX, MAX_WAIT_MS, DialectName, Spec, wakeup_channel
from qgen.client.wakeup import STOP_CHECK, Listener

Dialect = DialectName  # a name qgen.dialects registers
log = logging.getLogger("qgen.client")
T = TypeVar("T")


class _OfSession(Generic[T]):
    """A public attribute of the client that is its session's: read and set there."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, client: None, owner: type) -> _OfSession[T]: ...
    @overload
    def __get__(self, client: QueueClient, owner: type) -> T: ...

    def __get__(self, client: Optional[QueueClient], owner: type) -> Any:
        return self if client is None else getattr(client._session, self.name)

    def __set__(self, client: QueueClient, value: T) -> None:
        setattr(client._session, self.name, value)


class QueueClient(AdminCalls, ControlCalls):
    """The procedures of one queue of a spec, over one DB-API connection that it replaces when lost."""

    connection = _OfSession[Any]()  # the DB-API connection (None while lost or closed)
    batch_via = _OfSession[str]()
    max_deadlock_retries = _OfSession[int]()
    deadlock_backoff = _OfSession[float]()
    deadlock_backoff_max = _OfSession[float]()
    reconnect_timeout = _OfSession[float]()
    deadlock_retries = _OfSession[int]()  # calls retried as deadlock victims
    reconnects = _OfSession[int]()  # new connections made after a loss
    replanned = _OfSession[int]()  # calls run again after a revision replaced their routine (error kind 'replaced')

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
        or a callable that opens a new one, or a URL / DSN (qgen.client.connection.connection_factory): then
        a lost connection is replaced, waiting reconnect_backoff * 2^n seconds (jittered, at most
        reconnect_backoff_max) between attempts, for at most reconnect_timeout seconds per call.
        batch_via (SQL Server): how enqueue_many sends its jobs: 'tvp' (enqueue_batch's table-valued
        parameter), 'json' (enqueue_json, SQL Server 2016+), or 'auto': tvp with Microsoft's ODBC
        drivers, json with any other (FreeTDS cannot send a table-valued parameter)."""
        queue_of(spec, queue_name)  # an unknown queue is refused before anything connects
        if batch_via not in ("auto", "tvp", "json"):
            raise ValueError(f"batch_via={batch_via!r}; accepted: auto, tvp, json")
        check_label(f"queue {queue_name}, QueueClient", "owner", owner)
        self.owner = owner
        # Without a connection (dialect given) the client still names objects and parameters; a
        # factory's first connection tells the dialect when it was not given.
        self._session = Session(connection, dialect=dialect, batch_via=batch_via, name=f"queue {queue_name}",
                                max_deadlock_retries=max_deadlock_retries, deadlock_backoff=deadlock_backoff,
                                deadlock_backoff_max=deadlock_backoff_max, reconnect_timeout=reconnect_timeout,
                                reconnect_backoff=reconnect_backoff, reconnect_backoff_max=reconnect_backoff_max)
        self._shape = shape = QueueShape(spec, queue_name, self._session.driver)
        self.dialect = shape.driver.name
        self.spec, self.queue_name, self.queue, self.lease_mode = spec, queue_name, shape.queue, shape.lease_mode
        self.job_type_column, self.payload_columns = shape.job_type_column, shape.payload_columns
        self.outbox_columns = shape.outbox_columns
        self._leases = LeaseBook()
        self._listener: Optional[Listener] = None  # wakeup: notify on PostgreSQL: made at the first wait

    # -----------------------------------------------------------------------------------------
    # Names (the queue shape's)

    def object_name(self, kind: str) -> str:
        return self._shape.object_name(kind)

    def qualified(self, kind: str) -> str:
        """The quoted, schema-qualified name of one of this queue's objects."""
        return self._shape.qualified(kind)

    def parameters(self, kind: str) -> list[str]:
        """Every parameter the client may pass to one of the queue's procedures, in the procedure's
        own order (docs/api.md)."""
        return self._shape.parameters(kind)

    def batch_columns(self) -> list[str]:
        """The columns of one job in enqueue_batch (QueueShape.batch_columns)."""
        return self._shape.batch_columns()

    def column_kind(self, column: str) -> Optional[str]:
        """The kind (qgen.spec.ColumnType.kind) of a payload or job-type column; None for others."""
        return self._shape.column_kind(column)

    def statement(self, kind: str, **params: Any) -> tuple[str, list[Any]]:
        """The text and parameter values of one call of the queue's `kind` procedure with these
        parameters, as this client sends it for result rows; nothing is sent (a benchmark EXPLAINs it)."""
        accepted = self.parameters(kind)
        unknown = [name for name in params if name not in accepted]
        if unknown:
            raise TypeError(f"statement: {kind} has no parameter(s) {', '.join(unknown)}; accepted: {', '.join(accepted)}")
        return self._shape.call(kind, list(params.items()), "rows").sql, list(params.values())

    # -----------------------------------------------------------------------------------------
    # The session: connections and transactions

    @property
    def in_transaction(self) -> bool:
        return self._session.in_transaction

    @contextlib.contextmanager
    def transaction(self) -> Iterator[QueueClient]:
        """Run the calls inside the block in one transaction: commit at the end, roll back on an
        exception. Nested blocks join the outer one. Other threads wait until the block ends."""
        with self._session.transaction():
            yield self

    def close(self) -> None:
        """Close the connection (a later call opens a new one when the client has a factory or URL)."""
        self._session.close()
        if self._listener is not None:
            self._listener.close()

    def connections(self) -> list[Any]:
        """The client's open connections: its calls' and, when it has one, its LISTEN connection's
        (a benchmark measures what they cost the server)."""
        listener = self._listener.connection if self._listener is not None else None
        return [c for c in (self._session.connection, listener) if c is not None]

    def _run(self, kind: str, params: Sequence[tuple[str, Any]], result: str) -> Any:
        """Call one procedure with named parameters. result: 'rows' (the last result set, as dicts),
        'tuples' (columns and rows), 'scalar' (the function's value / the procedure's RETURN value),
        'call' (PostgreSQL CALL)."""
        return self._session.run(self._shape.call(kind, params, result), [value for _, value in params])

    def _wakeups(self) -> Optional[Listener]:
        """The LISTEN side of `wakeup: notify`, when this queue, database and client have one."""
        factory = self._session.factory
        if self._listener is None and factory is not None and not self._shape.waits_in_dequeue:
            channel = wakeup_channel(self.spec, self.queue_name)
            if channel is not None:
                self._listener = Listener(factory, channel, self.queue_name)
        return self._listener

    def _lease_ids(self, parameter: str, token: Any) -> list[tuple[str, Any]]:
        """The ids of the jobs this client holds under a lease, as the parameter that names them to
        complete, extend_lease or dequeue (found by primary key); none when this client does not
        know the lease (then the procedure searches for the token)."""
        if not self._shape.by_id:
            return []
        ids = self._leases.ids(token)
        if not ids:
            log.warning("queue %s: lease %s is not one this client took (or it expired over %.0fs ago): the "
                        "database searches the whole table for its jobs; pass the jobs (or id=) instead",
                        self.queue_name, token, LeaseBook.KEEP_EXPIRED)
            return []
        return [(parameter, self._shape.id_list(ids))]

    # -----------------------------------------------------------------------------------------
    # Enqueue

    def enqueue(self, job_type: Any = None, priority: Optional[int] = None, run_at: Optional[dt.datetime] = None,
                enqueued_by: Optional[str] = None, **payload: Any) -> EnqueueResult:
        """Add one job: its payload columns by name (the job type as job_type= or by its column name).
        run_at is UTC (a naive datetime is taken as UTC). Raises DuplicateJob with on_duplicate: error."""
        self._shape.check_enqueued_by("enqueue", enqueued_by)
        values, priority, run_at = self._shape.job("enqueue", payload, job_type, priority, run_at)
        params = [(c, self._shape.value_in(c, v)) for c, v in values]
        if priority is not None:
            params.append(("priority", priority))
        if run_at is not None:
            params.append(("run_at", self._shape.plain_in(run_at)))
        if enqueued_by is not None:
            params.append(("enqueued_by", enqueued_by))
        rows = self._run("enqueue", params, "rows")
        row = self._shape.row(rows[0])
        return EnqueueResult(row["id"], bool(row["enqueued"]))

    def enqueue_many(self, jobs: Sequence[Mapping[str, Any]], enqueued_by: Optional[str] = None) -> list[BatchResult]:
        """Add many jobs in one call. Each job is a dict of payload columns, plus optionally job_type
        (or the job-type column), priority and run_at. Ids are assigned in list order; the results
        come back in that order, with ordinal = 1-based position in the list. On SQL Server more jobs
        than one statement may write without risking lock escalation (qgen/spec/locks.py) go in several
        calls inside one transaction: still all or nothing."""
        if not jobs:
            return []
        self._shape.check_enqueued_by("enqueue_many", enqueued_by)
        records = []
        for ordinal, job in enumerate(jobs, start=1):
            if not isinstance(job, Mapping):
                raise InvalidArgument(f"{self._shape.where(f'enqueue_many (job {ordinal})')}: the job is "
                                      f"of type {type(job).__name__}; accepted: a dict of payload columns")
            job = dict(job)
            priority, run_at, job_type = job.pop("priority", None), job.pop("run_at", None), job.pop("job_type", None)
            records.append((ordinal, *self._shape.job(f"enqueue_many (job {ordinal})", job, job_type, priority, run_at)))
        step = self._shape.limits.enqueue_rows
        if not step or len(records) <= step:
            return self._enqueue_records(records, enqueued_by)
        # More jobs than one statement may write without risking a table lock (qgen/spec/locks.py): one
        # call per part, all in one transaction (the caller's, or one of its own), so the batch is
        # still all or nothing and a key repeated across parts is found as in one batch.
        results: list[BatchResult] = []
        with self.transaction():
            for start in range(0, len(records), step):
                results += self._enqueue_records(records[start:start + step], enqueued_by)
        return results

    def _enqueue_records(self, records: list, enqueued_by: Optional[str]) -> list[BatchResult]:
        """One enqueue_batch (or enqueue_json) call for enqueue_many's records (ordinal, values,
        priority, run_at), encoded as the database takes a batch (its database class's batch_call)."""
        kind, params = self._session.driver.batch_call(self._session.connected, self._shape.batch(records))
        if enqueued_by is not None:
            params.append(("enqueued_by", enqueued_by))
        result = [self._shape.row(r) for r in self._run(kind, params, "rows")]
        return sorted((BatchResult(r["ordinal"], r["id"], bool(r["enqueued"])) for r in result), key=lambda r: r.ordinal)

    # -----------------------------------------------------------------------------------------
    # Claim, complete, fail

    def dequeue(self, batch_size: Optional[int] = None, job_type: Any = None, owner: Optional[str] = None,
                lease_seconds: Optional[int] = None,
                complete: Union[Job, uuid.UUID, str, None] = None, at_most_once: bool = False,
                wait: float = 0.0, stop: Optional[threading.Event] = None) -> list[Job]:
        """Claim up to batch_size jobs (the spec's batch_size by default), in queue order.
        Lease mode: the claim is committed at once, under one lease token for the batch.
        Delete mode: must run inside `with client.transaction():`, unless at_most_once=True: then
        the claim commits at once (a DELETE ... OUTPUT in its own transaction): the jobs are the caller's and
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
        if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 <= wait < math.inf:
            raise InvalidArgument(f"{self._shape.where('dequeue')}: wait is {type(wait).__name__} {wait!r}; accepted: seconds, an int or a "
                                  "finite float, 0 or more")
        if wait and self.in_transaction:
            raise QueueUsageError("dequeue: wait= is refused inside client.transaction(): the transaction would stay "
                                  "open while it waits; wait outside it (wait_for_jobs), then claim inside it")
        claim = dict(batch_size=batch_size, job_type=job_type, owner=owner, lease_seconds=lease_seconds,
                     complete=complete, at_most_once=at_most_once)
        if wait <= 0:
            return self._claim(**claim)
        deadline = time.monotonic() + wait
        if self._shape.waits_in_dequeue:
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
        self._shape.check_claim(job_type, owner, lease_seconds, complete, at_most_once, self.in_transaction)
        params: list[tuple[str, Any]] = [("owner", owner if owner is not None else self.owner)]
        params += _size(self._shape, "dequeue", "batch_size", batch_size, STATED_BY_THE_PROCEDURE)
        if job_type is not None and self.job_type_column:  # _check_claim refused a job type without the column
            params.append(("job_type", self._shape.value_in(self.job_type_column, job_type)))
        params += _size(self._shape, "dequeue", "lease_seconds", lease_seconds, STATED_BY_THE_PROCEDURE)
        token = None
        if complete is not None:
            # A Job stands for its whole lease here: the batch it came in is completed together.
            token = token_and_id(complete, None)[0]
            params.append(("complete_lease_token", token))
            params += self._lease_ids("complete_ids", token)
        if at_most_once:
            params.append(("at_most_once", True))
        if wait_ms:
            params.append(("wait_ms", int(wait_ms)))
        started = time.monotonic()
        try:
            jobs = self._shape.jobs(*self._run("dequeue", params, "tuples"))
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
        self._shape.need_lease("complete")
        if no_result and not self.outbox_columns:
            raise TypeError("complete: no_result is for a queue with an outbox; this queue hands nothing on")
        unknown = set(outbox) - set(self.outbox_columns)
        if unknown:
            raise TypeError(f"complete: unknown outbox column(s) {', '.join(sorted(unknown))}; "
                            f"accepted: {', '.join(self.outbox_columns) or '(none: the queue has no outbox)'}")
        token, job_id = token_and_id(job, id)
        if outbox and job_id is None:
            raise TypeError("complete: outbox values belong to one job; give the job (or id=), not only a lease token")
        params: list[tuple[str, Any]] = [("lease_token", token), ("id", job_id)]
        if job_id is None:
            params += self._lease_ids("ids", token)
        params += self._shape.outbox_values(outbox)
        if self.outbox_columns:
            params.append(("no_result", bool(no_result)))
        return self._end_lease("complete", params, token, job_id)

    def _end_lease(self, kind: str, params: list[tuple[str, Any]], token: Any, job_id: Optional[int]) -> int:
        """Call complete or release, which end a lease (or one job of it); how many jobs it ended.
        A call whose outcome was lost with its connection, on a lease this client still holds, had
        committed: the lease cannot have expired yet, so only this client's own lost attempt ended it."""
        try:
            ended = int(self._run(kind, params, "scalar"))
        except OutcomeUnknown:
            lease = self._leases.holds(token, job_id)
            if lease is None:
                raise
            log.info("queue %s: %s of %s: the attempt lost with its connection had committed", self.queue_name, kind,
                     f"job {job_id}" if job_id is not None else f"lease {token}")
            ended = 1 if job_id is not None else len(lease.attempts)
        except LeaseLost:
            self._leases.finished(token, job_id)
            raise
        self._leases.finished(token, job_id)
        return ended

    def fail(self, job: Union[Job, uuid.UUID, str], error: Optional[str] = None, retry: bool = True,
             id: Optional[int] = None) -> Literal["retry", "dead"]:
        """Give a job back after a failed attempt: 'retry' (released after the backoff) or 'dead'
        (attempts used up or retry=False: dead-lettered, or deleted with dead_letter: false)."""
        self._shape.need_lease("fail")
        token, job_id = token_and_id(job, id)
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
        self._shape.need_lease("extend_lease")
        job_id: Optional[int]
        if isinstance(job, Job):
            token, job_id = job.lease_token, job.id if id is None else id
        else:
            token, job_id = token_and_id(job, id)
        params: list[tuple[str, Any]] = [("lease_token", token)]
        params += _size(self._shape, "extend_lease", "lease_seconds", lease_seconds, STATED_BY_THE_PROCEDURE)
        params.append(("id", job_id))
        if job_id is None:
            params += self._lease_ids("ids", token)
        started = time.monotonic()
        extended = int(self._run("extend_lease", params, "scalar"))
        self._leases.extended(token, started, lease_seconds if lease_seconds is not None else self.queue.lease)
        return extended

    def release(self, job: Union[Job, uuid.UUID, str], id: Optional[int] = None) -> int:
        """Hand leased jobs back unstarted: claimable again at once, the claim not counted as an
        attempt (a stopping worker gives back the jobs of its batch it did not begin). A Job (or id=)
        releases that job; a bare token every job of the lease. Returns how many; raises LeaseLost
        when the token holds none (released, taken over or finished already)."""
        self._shape.need_lease("release")
        token, job_id = token_and_id(job, id)
        params: list[tuple[str, Any]] = [("lease_token", token), ("id", job_id)]
        if job_id is None:
            params += self._lease_ids("ids", token)
        return self._end_lease("release", params, token, job_id)
