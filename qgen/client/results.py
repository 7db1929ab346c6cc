"""What the Python client's calls and the worker loop return (qgen.client and qgen.client.worker re-export each)."""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Optional

__all__ = [
    "EnqueueResult", "BatchResult", "ReapResult", "PurgeResult", "WatermarkCorrection", "MaintainResult",
    "RedriveResult", "Job", "WorkerStats", "DeadLetter", "JobState",
]


class EnqueueResult(NamedTuple):
    id: int
    enqueued: bool  # False: dedupe found the job already queued and returned its id


class BatchResult(NamedTuple):
    ordinal: int  # 1-based position of the job in the list given to enqueue_many
    id: int
    enqueued: bool


class ReapResult(NamedTuple):
    released: int
    dead_lettered: int


class PurgeResult(NamedTuple):
    archived: int
    processed: int
    dead: int


class WatermarkCorrection(NamedTuple):
    old: Optional[int]
    new: Optional[int]


class MaintainResult(NamedTuple):
    """What one maintain call did (docs/api.md, maintain)."""

    skipped: bool                  # another maintain was running on this queue: nothing done
    released: int                  # expired leases released (reap)
    dead_lettered: int             # expired leases on their last attempt, dead-lettered (reap)
    old_watermark: Optional[int]
    new_watermark: Optional[int]
    archived: int                  # purged from the archive
    processed: int                 # purged processed rows (on_complete: mark)
    dead: int                      # purged dead letters
    more: bool                     # a step filled its batch: call again for the rest


class RedriveResult(NamedTuple):
    redriven: int            # dead jobs put back into the queue as new jobs
    skipped_duplicates: int  # left dead: their dedupe key is queued again


class Cancelled(NamedTuple):
    """What cancel did to one job: outcome is cancelled (it was waiting), cancelled_in_flight (it held a
    lease, now void), held (delete mode: another open transaction holds it, a claim or a cancel: nothing done) or
    not_queued (finished, dead, purged or never enqueued: nothing done)."""

    id: int
    outcome: str


@dataclass(frozen=True)
class Job:
    """One claimed job. Lease mode fills lease_token and lease_expires_at; delete mode enqueued_at."""

    id: int
    payload: dict[str, Any]
    job_type: Any = None
    attempts: Optional[int] = None
    lease_token: Optional[uuid.UUID] = None
    lease_expires_at: Optional[dt.datetime] = None
    priority: Optional[int] = None
    enqueued_at: Optional[dt.datetime] = None
    # Set by run_worker's heartbeat once it learns that cancel took the job out while its lease ran
    # (extend_lease raised JobCancelled): a long handler may check it and stop early.
    cancelled: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)


@dataclass
class WorkerStats:
    processed: int = 0       # handler returned and the job was completed
    failed: int = 0          # handler raised and the job was failed (retry or dead letter)
    dead_lettered: int = 0   # of the failed, those dead-lettered
    lease_lost: int = 0      # complete or fail refused: the lease was lost (reaped and taken over)
    given_up: int = 0        # jobs of a batch not started because the allotted time was over
    cancelled: int = 0       # jobs cancel took out of the batch: not started, or their completion refused
    batches: int = 0         # non-empty dequeues
    watermark_corrections: int = 0
    deadlock_retries: int = 0
    connection_lost: int = 0  # calls that raised ConnectionLost (the loop waited and went on)
    outcome_unknown: int = 0  # completions or failures whose commit could not be confirmed
    reconnects: int = 0       # new connections the client made after a loss
    maintenance_runs: int = 0     # maintain calls that did their work
    maintenance_skipped: int = 0  # maintain calls that found another one running on the queue
    reaped: int = 0               # expired leases those calls released (or dead-lettered)
    # The allotted time ran out with work left: jobs of the batch not started (given_up), or after a full
    # batch (the queue may hold more); not after a claim that found the queue empty or took what was left.
    overran: bool = False
    released: int = 0        # jobs of a batch not started when `stop` was set, handed back (release: no attempt)


@dataclass(frozen=True)
class DeadLetter:
    """One dead letter (QueueClient.dead_letters): a job that used up its attempts, or a duplicate a
    delete-mode claim kept back, with the error it died of."""

    id: int                          # the job's id: what redrive takes
    attempts: int
    dead_at: dt.datetime
    last_error: Optional[str]
    enqueued_at: dt.datetime
    payload: dict[str, Any]
    job_type: Any = None
    priority: Optional[int] = None


@dataclass(frozen=True)
class JobState:
    """Where one job is (QueueClient.job). state: queued, scheduled (delayed, or backing off after a
    failure), in_flight (leased), processed (on_complete: mark), archived, dead, or not_found (never
    enqueued; or finished with on_complete: delete, purged, or redriven under a new id)."""

    id: int
    state: str
    enqueued_at: Optional[dt.datetime] = None
    available_at: Optional[dt.datetime] = None
    attempts: Optional[int] = None
    lease_owner: Optional[str] = None
    lease_expires_at: Optional[dt.datetime] = None  # in_flight: past it, the lease is expired and reap releases it
    last_error: Optional[str] = None
    finished_at: Optional[dt.datetime] = None       # processed, archived or dead: when

    @property
    def found(self) -> bool:
        return self.state != "not_found"
