"""A worker loop over a lease-mode queue: claim a batch, handle each job, complete or fail it.

    from qgen.client.worker import run_worker
    stats = run_worker(client, handle, allotted_seconds=15 * 60)

- Each job is passed to handler(job). When it returns, the job is completed (fenced by the lease
  token); when it raises, the job is failed with the error text (retried after the backoff, or
  dead-lettered when its attempts are used up).
- While the handler runs, a background thread extends the batch's lease every lease/3 seconds, so a
  slow but alive worker keeps its jobs; a worker that died stops extending and the reaper frees them.
- allotted_seconds (an allotted time per run) bounds the whole run. The heartbeat never extends the
  lease past it. When it is over, the worker stops: no new job is started and no new batch claimed;
  the job being handled when the time ran out is still completed if its lease holds. The jobs of
  the batch not yet started are given up. By default (release_unstarted=True) they are released at
  once (the release procedure): available to another worker now, their claim not counted as an
  attempt and no error recorded, so a job on its last attempt that never ran is not dead-lettered.
  With release_unstarted=False they are left leased: the lease expires and reap releases them, the
  attempt counted then.
  stats.overran says the time ran out with work left: jobs of the batch not started, or right after a
  full batch; not when it ran out on an empty queue (an idle worker) or after a short batch.
- A dequeue that comes back empty on a queue with a watermark calls watermark_correct once before
  the queue is taken as empty (an insert that committed late can sit below the watermark). The
  correction needs the admin role; a login without it skips the correction (PermissionDenied).
- stop_when_empty=False waits for work instead of returning when empty (with one watermark
  correction when it finds the queue empty, then maintain's, every maintain_every seconds; with
  maintenance off, one per empty poll); set `stop` (a threading.Event) to end the loop: the job
  being handled is finished (completed or failed), the jobs of the batch not started yet are handed
  back with release (claimable at once, the claim not counted as an attempt; stats.released) and
  run_worker returns. Each claim that finds
  nothing waits up to poll_interval seconds for a job (QueueClient.dequeue(wait=...)): on
  PostgreSQL with `wakeup: notify` (and a client made from a URL or a factory) a wake-up ends the
  wait at once and the job is claimed; on SQL Server the dequeue procedure itself claims again
  every 50 ms until a job comes; otherwise the wait is a sleep. Whatever ends a wait, the loop
  claims again: a missed wake-up, a lost LISTEN connection or a queue without wake-ups still finds
  the job at the next poll, poll_interval seconds later at most.
- A lost connection does not end the loop. The client reconnects by itself (given a URL or a
  connection factory) and retries what is safe to retry; when a call still fails with
  ConnectionLost (the database stayed away longer than the client's reconnect_timeout), the loop
  logs it, waits (jittered, growing up to a cap) and carries on until the database is back, the
  allotted time is over or `stop` is set. A client given a ready connection cannot make another:
  when that connection is lost, run_worker raises CannotReconnect (a ConnectionLost) at once instead
  of waiting for a database it has no way to reach again (the job being finished is reported to
  on_done as 'unknown'; the batch's other jobs stay leased until reap releases them). A complete or fail whose outcome stayed unknown
  (OutcomeUnknown, or ConnectionLost) is counted, never repeated: the lease token fences it, and a
  job whose completion did not commit is released by reap when its lease expires. Every loss,
  wait and recovery is logged (loggers qgen.worker and qgen.client).
- Maintenance: every maintain_every seconds (default 5; None or 0 switches it off) the loop calls
  the queue's maintain procedure (reap expired leases, correct the watermark, purge: one bounded
  batch each; one caller at a time per queue), so a fleet of workers needs no other process to
  reap. See qgen/client/maintenance.py.
- A queue with an outbox (complete hands a row on to the transfer queue) takes the
  handler's return value as the job's result: a mapping of outbox values ({column: value}) is
  handed on by complete in the job's own transaction; NO_RESULT says the job hands nothing on
  (complete's no_result). Anything else (None included: a handler that forgot its result) is not
  taken as "no result": run_worker hands the batch back (fail with retry, the error naming the
  problem) and raises HandlerResultError, a QueueUsageError, at the first such job. A mapping
  missing a NOT NULL value is refused by complete (InvalidArgument): that job is failed with the
  refusal as its error (retried, then dead-lettered) and the worker goes on. On a queue without an
  outbox the handler's return value is ignored.
- on_done(job, outcome) is called after each job with 'completed', 'failed', 'dead', 'lease_lost'
  or 'unknown' (a completion whose commit nobody can confirm), e.g. to keep a ledger.

Only lease-mode queues: a delete-mode job is handled inside the transaction of its dequeue
(`with client.transaction(): jobs = client.dequeue(); ...`).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import socket
import threading
import time
from typing import Any, Callable, Mapping, Optional, Sequence

from qgen.client.connection import Backoff
from qgen.errors import (
    CannotReconnect, ConnectionLost, InvalidArgument, JobCancelled, LeaseLost, NotInstalled, OutcomeUnknown,
    PermissionDenied, QueueUsageError,
)
from qgen.client.maintenance import MAINTAIN_EVERY, Maintenance
from qgen.client.queue import QueueClient
from qgen.client.results import Job, WorkerStats

__all__ = ["run_worker", "WorkerStats", "POLL_INTERVAL", "OVERRUN_ERROR", "NO_RESULT", "HandlerResultError"]

POLL_INTERVAL = 1.0  # seconds an idle worker waits for work before it claims again (run_worker's default)
# The error an earlier qgen recorded on jobs it gave back when the allotted time ran out; they are
# released now, without an error (kept: code that imported it still imports).
OVERRUN_ERROR = "qgen worker: allotted time over before this job was started; released for another worker"
log = logging.getLogger("qgen.worker")


class _NoResult:
    """The handler's way to say that a job of a queue with an outbox hands nothing on."""

    def __repr__(self) -> str:
        return "qgen.worker.NO_RESULT"


NO_RESULT: Any = _NoResult()


class HandlerResultError(QueueUsageError):
    """The handler's return value cannot be a result of a queue with an outbox (run_worker stops)."""


class _Heartbeat:
    """Extends one lease from a background thread until stopped, never past the deadline. When it
    extends fewer jobs than the batch still holds (jobs not in `done`), it asks job by job which were
    cancelled (extend_lease raises JobCancelled for those) and sets their `cancelled`."""

    def __init__(self, client: QueueClient, token: Any, lease_seconds: int, deadline: Optional[float],
                 jobs: Sequence[Job] = (), done: Optional[set[int]] = None):
        self.client, self.token, self.lease_seconds, self.deadline = client, token, lease_seconds, deadline
        self.jobs, self.done = jobs, done if done is not None else set()
        self.lost = False
        self.error: Optional[BaseException] = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="qgen-lease-heartbeat", daemon=True)

    def __enter__(self) -> "_Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        interval = max(0.2, self.lease_seconds / 3)
        while not self._stop.wait(interval):
            seconds = self.lease_seconds
            if self.deadline is not None:
                left = self.deadline - time.monotonic()
                if left <= 0:
                    return  # allotted time over: let the lease run out
                seconds = min(seconds, max(1, math.ceil(left)))
            held = [job for job in self.jobs if job.id not in self.done and not job.cancelled.is_set()]
            try:
                extended = self.client.extend_lease(self.token, lease_seconds=seconds)
            except CannotReconnect as exc:  # no connection will come back: the worker's own call stops it
                self.error = exc
                return
            except LeaseLost:
                self.lost = True  # every job of the lease is finished, taken over or cancelled
                self._find_cancelled(held, seconds)
                return
            except ConnectionLost as exc:  # the database is away: try again at the next beat
                log.warning("lease heartbeat: %s", exc)
                continue
            except Exception as exc:  # keep the worker going; its own calls will report the problem
                self.error = exc
                return
            if extended < len(held):  # some job of the batch left the lease: cancelled, or taken over
                self._find_cancelled(held, seconds)

    def _find_cancelled(self, jobs: Sequence[Job], seconds: int) -> None:
        try:
            find_cancelled(self.client, jobs, seconds)
        except Exception as exc:  # as the beat: the worker's own calls will report the problem
            self.error = exc


def find_cancelled(client: QueueClient, jobs: Sequence[Job], lease_seconds: int) -> None:
    """Set `cancelled` on each of these jobs that cancel took out while its lease ran: its extend_lease
    says so (JobCancelled). A job still held is extended by it as the heartbeat would (lease_seconds:
    the heartbeat's, never the spec's default); a finished or taken-over one raises LeaseLost and is
    left alone. Only called once the lease lost jobs."""
    for job in jobs:
        if job.cancelled.is_set():
            continue
        try:
            client.extend_lease(job, lease_seconds=lease_seconds)
        except JobCancelled:
            job.cancelled.set()
        except (LeaseLost, ConnectionLost):
            continue


def run_worker(
    client: QueueClient,
    handler: Callable[[Job], Any],
    *,
    batch_size: Optional[int] = None,
    allotted_seconds: Optional[float] = None,
    stop_when_empty: bool = True,
    job_type: Any = None,
    owner: Optional[str] = None,
    lease_seconds: Optional[int] = None,
    heartbeat: bool = True,
    release_unstarted: bool = True,
    correct_watermark: bool = True,
    max_batches: Optional[int] = None,
    poll_interval: float = POLL_INTERVAL,
    stop: Optional[threading.Event] = None,
    on_done: Optional[Callable[[Job, str], Any]] = None,
    maintain_every: Optional[float] = MAINTAIN_EVERY,
) -> WorkerStats:
    """Work the queue until it is empty (or forever, with stop_when_empty=False), the allotted time
    is over, max_batches batches were claimed, or `stop` is set; run the queue's maintain every
    maintain_every seconds meanwhile (None or 0: never; qgen/client/maintenance.py). Returns what it did."""
    if not client.lease_mode:
        raise QueueUsageError(f"run_worker needs a lease queue; {client.queue_name} has claim: delete "
                              "(handle its jobs inside `with client.transaction():`)")
    run = _WorkerRun(client, handler, batch_size=batch_size, allotted_seconds=allotted_seconds,
                     stop_when_empty=stop_when_empty, job_type=job_type, owner=owner, lease_seconds=lease_seconds,
                     heartbeat=heartbeat, release_unstarted=release_unstarted, correct_watermark=correct_watermark,
                     max_batches=max_batches, poll_interval=poll_interval, stop=stop, on_done=on_done,
                     maintain_every=maintain_every)
    return run.run()


class _WorkerRun:
    """One run_worker call: its settings, its state between claims, and the steps of its loop."""

    def __init__(self, client: QueueClient, handler: Callable[[Job], Any], *, batch_size: Optional[int],
                 allotted_seconds: Optional[float], stop_when_empty: bool, job_type: Any, owner: Optional[str],
                 lease_seconds: Optional[int], heartbeat: bool, release_unstarted: bool, correct_watermark: bool,
                 max_batches: Optional[int], poll_interval: float, stop: Optional[threading.Event],
                 on_done: Optional[Callable[[Job, str], Any]], maintain_every: Optional[float]):
        self.client, self.handler, self.batch_size, self.job_type = client, handler, batch_size, job_type
        self.stop_when_empty, self.heartbeat, self.release_unstarted = stop_when_empty, heartbeat, release_unstarted
        self.max_batches, self.poll_interval, self.stop, self.on_done = max_batches, poll_interval, stop, on_done
        self.stats = WorkerStats()
        self.backoff, self.waits = Backoff(0.5, 15.0), 0
        self.deadline = time.monotonic() + allotted_seconds if allotted_seconds is not None else None
        # The default owner fits lease_owner's 128 characters whatever the host's name (up to 253).
        self.owner = owner or f"qgen-worker:{socket.gethostname()[:80]}:{os.getpid()}:{threading.get_ident()}"
        self.lease = int(lease_seconds if lease_seconds is not None else client.queue.lease)
        self.may_correct = correct_watermark and client.queue.watermark.enabled
        self.corrected = False
        self.maintenance = Maintenance(client, maintain_every, self.stats)
        # Whether the worker's last claim came back full (the queue may hold more than one claim takes):
        # time that runs out after a claim that found the queue empty (an idle worker waiting for work) or
        # took what was left of it (a short batch) is no overrun.
        self.had_work = False
        self.wanted = batch_size if batch_size is not None else client.queue.batch_size

    def stopping(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def time_over(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def pause(self, seconds: float) -> None:
        if self.deadline is not None:
            seconds = max(0.0, min(seconds, self.deadline - time.monotonic()))
        if self.stop is not None:
            self.stop.wait(seconds)
        else:
            time.sleep(seconds)

    def run(self) -> WorkerStats:
        client, stats = self.client, self.stats
        retries_before, reconnects_before = client.deadlock_retries, client.reconnects
        try:
            while not self.stopping():
                if self.max_batches is not None and stats.batches >= self.max_batches:
                    break
                if self.time_over():
                    stats.overran = self.had_work
                    break
                self.maintenance.run_if_due()
                jobs = self.claim()
                if jobs is None:
                    continue
                if not jobs:
                    if self.stop_when_empty:
                        break
                    # Idle: with maintenance on, maintain corrects the watermark every maintain_every
                    # seconds, so the streak needs no correction per poll (each one costs an idle worker a call).
                    self.corrected = self.maintenance.on
                    continue
                self.corrected = False
                stats.batches += 1
                self.work(jobs)
                if stats.overran:
                    break
        finally:
            stats.deadlock_retries = client.deadlock_retries - retries_before
            stats.reconnects = client.reconnects - reconnects_before
        return stats

    def claim(self) -> Optional[list[Job]]:
        """One claim: its jobs (none: the queue is empty), or None when the loop goes round again
        without them (it corrected the watermark, or waits for the database)."""
        # Idle, the claim itself waits for work (a wake-up, or SQL Server's waiting dequeue) up to
        # poll_interval: the next claim after it is the poll that a missed wake-up falls back on.
        wait = 0.0 if self.stop_when_empty else self.poll_interval
        if self.deadline is not None:
            wait = max(0.0, min(wait, self.deadline - time.monotonic()))
        try:
            jobs = self.client.dequeue(batch_size=self.batch_size, job_type=self.job_type, owner=self.owner,
                                       lease_seconds=self.lease, wait=wait, stop=self.stop)
            self.had_work = len(jobs) >= self.wanted
            if not jobs and self.may_correct and not self.corrected:
                self.corrected = True
                try:
                    self.client.watermark_correct()
                    self.stats.watermark_corrections += 1
                except PermissionDenied:
                    self.may_correct = False  # a consumer-only login: nothing to correct with
                return None
        except CannotReconnect:
            self.stats.connection_lost += 1
            raise  # waiting cannot bring back a connection the client has no way to make
        except ConnectionLost as exc:
            self.stats.connection_lost += 1
            self.waits += 1
            delay = self.backoff.delay(self.waits)
            log.warning("worker %s: %s; trying again in %.1fs", self.owner, exc, delay)
            self.pause(delay)
            return None
        if self.waits:
            log.info("worker %s: working again after %d wait(s) for the database", self.owner, self.waits)
            self.waits = 0
        return jobs

    def work(self, jobs: list[Job]) -> None:
        """Handle a claimed batch job by job under its heartbeat; hand back what a stop or the end of
        the allotted time leaves unstarted. A stop while a handler runs hands the rest back at once
        (_StopWatch), not when the handler returns: a process that stops waiting for a stuck handler
        (qgen worker --grace) leaves only that job leased."""
        client, stats = self.client, self.stats
        done: set[int] = set()  # the batch's jobs finished or skipped: the heartbeat no longer counts them
        beat = _Heartbeat(client, jobs[0].lease_token, self.lease, self.deadline, jobs, done) if self.heartbeat \
            else contextlib.nullcontext()
        watch = _StopWatch(client, jobs, self.stop, stats)
        with beat, watch:
            for index, job in enumerate(jobs):
                if job.cancelled.is_set():  # cancel took it out while it waited in the batch: never started
                    stats.cancelled += 1
                    done.add(job.id)
                    _done(self.on_done, job, "cancelled")
                    continue
                if self.time_over():  # before the job counts as started: a stop now hands back from it
                    stats.overran = True
                    stats.given_up += len(jobs) - index
                    if self.release_unstarted:
                        watch.hand_back_from(index)
                    return
                if not watch.start(index):
                    return  # stopping: the jobs not started went back, their claim not counted
                if index:
                    self.maintenance.run_if_due()
                try:
                    outcome = _handle(client, self.handler, job, stats)
                except CannotReconnect:
                    _done(self.on_done, job, "unknown")
                    raise
                except HandlerResultError as exc:
                    # Every job would be finished with its result lost: this one fails with the reason
                    # (its handler ran), the rest go back unstarted; stop.
                    stats.given_up += len(jobs) - index
                    _fail_quietly(client, job, f"qgen worker: {exc}")
                    watch.hand_back_from(index + 1)
                    raise
                done.add(job.id)
                if outcome == "lease_lost":  # cancelled while the handler ran? its extend_lease says so
                    with contextlib.suppress(Exception):  # (the lease is lost: nothing is extended)
                        find_cancelled(client, [job], 1)
                    if job.cancelled.is_set():
                        stats.lease_lost -= 1
                        stats.cancelled += 1
                        outcome = "cancelled"
                _done(self.on_done, job, outcome)


# The batches being worked in this process (their stop watches): a process that stops waits, after its
# grace, until each has handed back what it did not start (hand_backs_done).
_WATCHES: set[_StopWatch] = set()
_WATCHES_CHANGED = threading.Condition()


def hand_backs_done(timeout: float) -> bool:
    """Wait, at most timeout seconds, until every batch being worked in this process after a stop has
    handed back the jobs it did not start (qgen worker calls it before it exits, even when a handler is
    still running past its grace); whether they all did."""
    with _WATCHES_CHANGED:
        return _WATCHES_CHANGED.wait_for(lambda: all(w.handed_back for w in _WATCHES), timeout)


class _StopWatch:
    """The jobs of a batch not started yet, handed back (released) once, by whichever comes first: the
    worker's loop before the next job, or a thread watching `stop` while a handler runs."""

    def __init__(self, client: QueueClient, jobs: list[Job], stop: Optional[threading.Event], stats: WorkerStats):
        self.client, self.jobs, self.stop, self.stats = client, jobs, stop, stats
        self.lock = threading.Lock()
        self.next = 0  # the first job not started
        self.handed_back = False
        self.done = threading.Event()
        self.thread: Optional[threading.Thread] = None

    def __enter__(self) -> _StopWatch:
        with _WATCHES_CHANGED:
            _WATCHES.add(self)
        if self.stop is not None:
            self.thread = threading.Thread(target=self._watch, name="qgen-stop-watch", daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join()
        with _WATCHES_CHANGED:
            _WATCHES.discard(self)
            _WATCHES_CHANGED.notify_all()

    def _watch(self) -> None:
        # It polls stop and sleeps on an event of its own: never waits on stop, which may be a
        # multiprocessing Event whose set() then waits for every waiter to wake, forever for a
        # waiter in a process killed meanwhile (the concurrency tests kill workers so).
        assert self.stop is not None
        while not self.done.wait(0.1):
            if self.stop.is_set():
                with self.lock:
                    self._hand_back_locked(self.next)
                return

    def start(self, index: int) -> bool:
        """Whether job `index` may start: not when the rest was handed back, or a stop is asked (then
        it is handed back now)."""
        with self.lock:
            if not self.handed_back and self.stop is not None and self.stop.is_set():
                self._hand_back_locked(index)
            if self.handed_back:
                return False
            self.next = index + 1
            return True

    def hand_back_from(self, index: int) -> None:
        with self.lock:
            self._hand_back_locked(index)

    def _hand_back_locked(self, index: int) -> None:
        if not self.handed_back and index < len(self.jobs):
            _hand_back(self.client, self.jobs, index, self.stats)
        self.handed_back = True
        with _WATCHES_CHANGED:
            _WATCHES_CHANGED.notify_all()


def _done(on_done: Optional[Callable[[Job, str], Any]], job: Job, outcome: str) -> None:
    if on_done is not None:
        on_done(job, outcome)


def _handle(client: QueueClient, handler: Callable[[Job], Any], job: Job, stats: WorkerStats) -> str:
    """Run the handler on one job, then complete or fail it; what happened to the job."""
    try:
        result = handler(job)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        outcome = _finish(client, stats, job, lambda: client.fail(job, error=error, retry=True))
        # The handler's failure, with its traceback: ERROR when the job is dead-lettered, else WARNING.
        log.log(logging.ERROR if outcome == "dead" else logging.WARNING, "job %s: the handler raised %s; %s",
                job.id, error, _AFTER_FAILURE.get(outcome, "the failure was not recorded: " + outcome), exc_info=exc)
        return outcome
    if not client.outbox_columns:
        return _finish(client, stats, job, lambda: client.complete(job))
    values = _outbox_values(client, job, result)
    try:
        if values is None:
            return _finish(client, stats, job, lambda: client.complete(job, no_result=True))
        return _finish(client, stats, job, lambda: client.complete(job, **values))
    except InvalidArgument as exc:  # this job's result lacks a NOT NULL value: fail it, with the refusal
        error = f"{type(exc).__name__}: {exc}"
        outcome = _finish(client, stats, job, lambda: client.fail(job, error=error, retry=True))
        log.log(logging.ERROR if outcome == "dead" else logging.WARNING, "job %s: complete refused the handler's "
                "result: %s; %s", job.id, error, _AFTER_FAILURE.get(outcome, "the failure was not recorded: " + outcome))
        return outcome


def _outbox_values(client: QueueClient, job: Job, result: Any) -> Optional[dict[str, Any]]:
    """The outbox values a handler returned for `job` (None: NO_RESULT); HandlerResultError if it
    returned anything else, a forgotten result (None) included."""
    if result is NO_RESULT:
        return None
    accepted = ", ".join(client.outbox_columns)
    if not isinstance(result, Mapping):
        raise HandlerResultError(
            f"the handler returned {type(result).__name__} for job {job.id} of {client.queue_name}, which has an "
            f"outbox: return the job's outbox values as a mapping ({accepted}), or qgen.worker.NO_RESULT when it "
            "hands nothing on")
    unknown = sorted(str(k) for k in result if k not in client.outbox_columns)
    if unknown:
        raise HandlerResultError(f"the handler returned unknown outbox column(s) {', '.join(unknown)} for job "
                                 f"{job.id} of {client.queue_name}; accepted: {accepted}")
    return dict(result)


_AFTER_FAILURE = {
    "failed": "it is retried after its backoff",
    "dead": "no attempts left: it is dead-lettered",
    "lease_lost": "its lease was lost meanwhile (another worker holds it, or it was reaped)",
    "unknown": "the database did not confirm the failure: the job comes back when its lease expires",
}


def _finish(client: QueueClient, stats: WorkerStats, job: Job, call: Callable[[], Any]) -> str:
    try:
        result = call()
    except OutcomeUnknown as exc:
        stats.outcome_unknown += 1
        log.warning("job %s: %s", job.id, exc)
        return "unknown"
    except LeaseLost:
        stats.lease_lost += 1
        return "lease_lost"
    except CannotReconnect:
        stats.outcome_unknown += 1
        stats.connection_lost += 1
        raise
    except ConnectionLost as exc:
        # Not repeated here: if it did not commit, the lease expires and reap releases the job.
        stats.outcome_unknown += 1
        stats.connection_lost += 1
        log.warning("job %s: %s; if it did not commit, the job is released when its lease expires", job.id, exc)
        return "unknown"
    if result in ("retry", "dead"):
        stats.failed += 1
        stats.dead_lettered += result == "dead"
        return "failed" if result == "retry" else "dead"
    stats.processed += 1
    return "completed"


def _hand_back(client: QueueClient, jobs: list[Job], start: int, stats: WorkerStats) -> None:
    """Release jobs[start:] (not started): the whole lease in one call when none of the batch was
    started, else each job by its id (a started job whose completion is unconfirmed keeps its lease).
    What cannot be released (the connection is away) stays leased until the lease ends and reap
    releases it, its attempt counted then."""
    pending = jobs[start:]
    try:
        token = jobs[0].lease_token
        if start == 0 and token is not None:
            stats.released += client.release(token)
            return
        while pending:
            try:
                stats.released += client.release(pending[0])
            except LeaseLost:
                pass  # reaped and taken over meanwhile: not ours to give back
            pending = pending[1:]
    except LeaseLost:
        pass  # the whole lease: reaped and taken over meanwhile
    except ConnectionLost as exc:
        log.warning("worker: %d unstarted job(s) not released (%s): they are released when their lease expires",
                    len(pending), exc)
    except NotInstalled as exc:  # a worker newer than the database (a rolling deploy before the upgrade)
        log.warning("worker: %d unstarted job(s) not released: %s; they are released when their lease expires",
                    len(pending), exc)


def _fail_quietly(client: QueueClient, job: Job, error: str) -> None:
    """Fail a started job for retry; nothing to do when its lease is gone (taken over, or the
    connection is away and the lease will run out)."""
    try:
        client.fail(job, error=error, retry=True)
    except (LeaseLost, ConnectionLost):
        pass
