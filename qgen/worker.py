"""A worker loop over a lease-mode queue: claim a batch, handle each job, complete or fail it.

    from qgen.worker import run_worker
    stats = run_worker(client, handle, allotted_seconds=15 * 60)

- Each job is passed to handler(job). When it returns, the job is completed (fenced by the lease
  token); when it raises, the job is failed with the error text (retried after the backoff, or
  dead-lettered when its attempts are used up).
- While the handler runs, a background thread extends the batch's lease every lease/3 seconds, so a
  slow but alive worker keeps its jobs; a worker that died stops extending and the reaper frees them.
- allotted_seconds (seed 004's allotted time) bounds the whole run. The heartbeat never extends the
  lease past it. When it is over, the worker stops: no new job is started and no new batch claimed;
  the job being handled when the time ran out is still completed if its lease holds. The jobs of
  the batch not yet started are given up. By default (release_unstarted=True) they are handed back
  at once with fail(retry=True) and the error "allotted time over", so another worker can take them
  after the backoff instead of after the lease and the reaper; the claim already counted as an
  attempt either way, so a job on its last attempt is dead-lettered by this release as the reaper
  would. With release_unstarted=False they are left leased: the lease expires and reap releases them.
- A dequeue that comes back empty on a queue with a watermark calls watermark_correct once before
  the queue is taken as empty (an insert that committed late can sit below the watermark). The
  correction needs the admin role; a login without it skips the correction (PermissionDenied).
- stop_when_empty=False polls every poll_interval seconds instead of returning when empty (with
  one watermark correction per empty poll); set `stop` (a threading.Event) to end the loop.
- Maintenance: every maintain_every seconds (default 5; None or 0 switches it off) the loop calls
  the queue's maintain procedure, between batches and between the jobs of a batch, on the worker's
  own connection: it releases expired leases (a crashed worker's jobs), corrects the watermark and
  purges finished jobs, one bounded batch each. Only one maintain runs at a time per queue, so in a
  fleet the others return at once (skipped); when it reports more work it runs again at the next
  step instead of after the interval. A fleet of workers needs no other process to reap. The
  interval is kept per client, so calling run_worker again on the same client does not maintain
  more often. A login without EXECUTE on maintain (an install older than maintain) logs a warning
  once and works on without it; any other maintenance error is logged and retried next interval.
  With handlers slower than the interval, maintenance waits for the end of the job in hand.
- Logging: logger "qgen.worker" (handler failures, lost leases, maintenance problems) and
  "qgen.maintain" (what each maintain did, at INFO when it did something).

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
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Optional

from qgen.client import Job, LeaseLost, MaintainResult, PermissionDenied, QueueClient, QueueUsageError

OVERRUN_ERROR = "qgen worker: allotted time over before this job was started; released for another worker"
MAINTAIN_EVERY = 5.0  # seconds between maintain calls of one worker (run_worker's default)

log = logging.getLogger("qgen.worker")
maintain_log = logging.getLogger("qgen.maintain")


@dataclass
class WorkerStats:
    processed: int = 0       # handler returned and the job was completed
    failed: int = 0          # handler raised and the job was failed (retry or dead letter)
    dead_lettered: int = 0   # of the failed, those dead-lettered
    lease_lost: int = 0      # complete or fail refused: the lease was lost (reaped and taken over)
    given_up: int = 0        # jobs of a batch not started because the allotted time was over
    batches: int = 0         # non-empty dequeues
    watermark_corrections: int = 0
    deadlock_retries: int = 0
    overran: bool = False    # the allotted time ran out before the queue was empty
    maintenance_runs: int = 0     # maintain calls that did their work
    maintenance_skipped: int = 0  # maintain calls that found another one running on the queue
    reaped: int = 0               # expired leases those calls released (or dead-lettered)


# When each client last ran maintain (monotonic seconds): the interval holds across run_worker calls.
_last_maintained: "weakref.WeakKeyDictionary[QueueClient, float]" = weakref.WeakKeyDictionary()


class _Maintenance:
    """Calls the queue's maintain when maintain_every seconds have passed since this client last did."""

    def __init__(self, client: QueueClient, every: Optional[float], stats: "WorkerStats"):
        self.client, self.every, self.stats = client, every, stats
        self.on = bool(every)

    def run_if_due(self) -> None:
        if not self.on:
            return
        now = time.monotonic()
        last = _last_maintained.get(self.client)
        if last is not None and now - last < self.every:
            return
        _last_maintained[self.client] = now
        where = f"{self.client.spec.schema}.{self.client.queue_name}"
        try:
            result = self.client.maintain()
        except PermissionDenied as exc:
            self.on = False
            log.warning("maintain on %s refused (%s): this worker runs no maintenance; grant EXECUTE on "
                        "%s to its role, or run `qgen maintain` elsewhere", where, exc, self.client.qualified("maintain"))
            return
        except Exception as exc:  # maintenance must not stop the work; the next interval tries again
            log.warning("maintain on %s failed: %s: %s; next try in %s s", where, type(exc).__name__, exc, self.every)
            return
        self._record(where, result)
        if result.more:
            _last_maintained[self.client] = now - self.every  # due again at the next step

    def _record(self, where: str, result: MaintainResult) -> None:
        if result.skipped:
            self.stats.maintenance_skipped += 1
            return
        self.stats.maintenance_runs += 1
        self.stats.reaped += result.released + result.dead_lettered
        did = result.released or result.dead_lettered or result.archived or result.processed or result.dead \
            or result.old_watermark != result.new_watermark
        maintain_log.log(logging.INFO if did else logging.DEBUG,
                         "%s: released %d expired leases, dead-lettered %d, watermark %s -> %s, purged %d archived, "
                         "%d processed, %d dead%s", where, result.released, result.dead_lettered, result.old_watermark,
                         result.new_watermark, result.archived, result.processed, result.dead,
                         " (more to do)" if result.more else "")


class _Heartbeat:
    """Extends one lease from a background thread until stopped, never past the deadline."""

    def __init__(self, client: QueueClient, token: Any, lease_seconds: int, deadline: Optional[float]):
        self.client, self.token, self.lease_seconds, self.deadline = client, token, lease_seconds, deadline
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
            try:
                self.client.extend_lease(self.token, lease_seconds=seconds)
            except LeaseLost:
                self.lost = True  # every job of the lease is finished, or it was taken over
                return
            except Exception as exc:  # keep the worker going; its own calls will report the problem
                self.error = exc
                return


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
    poll_interval: float = 1.0,
    stop: Optional[threading.Event] = None,
    maintain_every: Optional[float] = MAINTAIN_EVERY,
) -> WorkerStats:
    """Work the queue until it is empty (or forever, with stop_when_empty=False), the allotted time
    is over, max_batches batches were claimed, or `stop` is set; run the queue's maintain every
    maintain_every seconds meanwhile (None or 0: never). Returns what it did."""
    if not client.lease_mode:
        raise QueueUsageError(f"run_worker needs a lease queue; {client.queue_name} has claim: delete "
                              "(handle its jobs inside `with client.transaction():`)")
    stats = WorkerStats()
    retries_before = client.deadlock_retries
    started = time.monotonic()
    deadline = started + allotted_seconds if allotted_seconds is not None else None
    owner = owner or f"qgen-worker:{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"
    lease = int(lease_seconds if lease_seconds is not None else client.queue.lease)
    may_correct = correct_watermark and client.queue.watermark.enabled
    corrected = False
    maintenance = _Maintenance(client, maintain_every, stats)

    def time_over() -> bool:
        return deadline is not None and time.monotonic() >= deadline

    try:
        while not (stop is not None and stop.is_set()):
            if max_batches is not None and stats.batches >= max_batches:
                break
            if time_over():
                stats.overran = True
                break
            maintenance.run_if_due()
            jobs = client.dequeue(batch_size=batch_size, job_type=job_type, owner=owner, lease_seconds=lease)
            if not jobs:
                if may_correct and not corrected:
                    corrected = True
                    try:
                        client.watermark_correct()
                        stats.watermark_corrections += 1
                    except PermissionDenied:
                        may_correct = False  # a consumer-only login: nothing to correct with
                    continue
                if stop_when_empty:
                    break
                if stop is not None:
                    stop.wait(poll_interval)
                else:
                    time.sleep(poll_interval)
                corrected = False
                continue
            corrected = False
            stats.batches += 1
            beat = _Heartbeat(client, jobs[0].lease_token, lease, deadline) if heartbeat else contextlib.nullcontext()
            with beat:
                for index, job in enumerate(jobs):
                    if time_over():
                        stats.overran = True
                        _give_up(client, jobs[index:], release_unstarted, stats)
                        break
                    if index:
                        maintenance.run_if_due()
                    _handle(client, handler, job, stats)
            if stats.overran:
                break
    finally:
        stats.deadlock_retries = client.deadlock_retries - retries_before
    return stats


def _handle(client: QueueClient, handler: Callable[[Job], Any], job: Job, stats: WorkerStats) -> None:
    try:
        handler(job)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        try:
            outcome = client.fail(job, error=error, retry=True)
        except LeaseLost:
            stats.lease_lost += 1
            log.warning("job %s of %s failed (%s), but its lease was lost meanwhile: not failed by this worker",
                        job.id, client.queue_name, error)
            return
        stats.failed += 1
        if outcome == "dead":
            stats.dead_lettered += 1
        log.log(logging.WARNING if outcome == "dead" else logging.INFO, "job %s of %s failed (%s): %s",
                job.id, client.queue_name, error, "dead-lettered" if outcome == "dead" else "to be retried")
        return
    try:
        client.complete(job)
    except LeaseLost:
        stats.lease_lost += 1
        log.warning("job %s of %s: lease lost before it was completed (it expired and was released); "
                    "another worker will take it", job.id, client.queue_name)
        return
    stats.processed += 1


def _give_up(client: QueueClient, jobs: list[Job], release: bool, stats: WorkerStats) -> None:
    stats.given_up += len(jobs)
    if not release:
        return
    for job in jobs:
        try:
            client.fail(job, error=OVERRUN_ERROR, retry=True)
        except LeaseLost:
            pass  # already reaped and taken over: nothing of ours to give back
