"""The admin role's calls of a queue, maintenance and inspection (reap, metrics, peek, purge, maintain,
redrive, dead letters, a job by id, the watermark's correction, the in-database worker): QueueClient's
(qgen/client/queue.py), kept apart so each file holds one role's calls. They use the queue shape and the
session QueueClient holds, and its one way of calling a procedure (_run)."""

from __future__ import annotations

import logging
import math
import time
from decimal import Decimal
from typing import Any, Callable, Optional, Sequence

from qgen.client.results import DeadLetter, JobState, MaintainResult, PurgeResult, ReapResult, RedriveResult, WatermarkCorrection
from qgen.client.session import Session
from qgen.client.values import INT_MAX, QueueShape, check_label, check_number
from qgen.errors import QueueUsageError
from qgen.spec.catalog import has_dead_letters
from qgen.spec.model import DEAD_LETTERS_MAX, Queue, Spec

# For an argument whose procedure states its own range (dequeue's and reap's batch_size against the
# queue's max_batch_size, a lease's seconds): the client checks only what the parameter can carry, and
# the procedure's refusal (50003 / QG003) names the range.
STATED_BY_THE_PROCEDURE = -INT_MAX - 1


def _size(shape: QueueShape, call: str, name: str, value: Optional[int], low: int = 1) -> list[tuple[str, Any]]:
    """A whole-number argument (a batch size, a limit, seconds) as a parameter, checked (an int from
    low to 2^31-1); none when not given."""
    return [(name, check_number(shape.where(call), name, value, low, INT_MAX))] if value is not None else []


class AdminCalls:
    """Maintenance and inspection calls; QueueClient's (what they use of it is declared here)."""

    _shape: QueueShape
    _session: Session
    spec: Spec
    queue_name: str
    queue: Queue
    lease_mode: bool
    job_type_column: Optional[str]
    payload_columns: list[str]

    def _run(self, kind: str, params: Sequence[tuple[str, Any]], result: str) -> Any:
        raise NotImplementedError

    # -----------------------------------------------------------------------------------------
    # Maintenance and inspection

    def reap(self, batch_size: Optional[int] = None) -> ReapResult:
        """Release jobs whose lease expired (dead-letter those out of attempts)."""
        self._shape.need_lease("reap")
        row = self._run("reap", _size(self._shape, "reap", "batch_size", batch_size, STATED_BY_THE_PROCEDURE), "rows")[0]
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
            params.append(("job_type", self._shape.value_in(self.job_type_column, job_type)))
        return [self._shape.row(r) for r in self._run("peek", params + _size(self._shape, "peek", "limit", limit, 0), "rows")]

    def purge(self, older_than_seconds: Optional[int] = None, batch_size: Optional[int] = None, *,
              on_batch: Optional[Callable[[PurgeResult], None]] = None) -> PurgeResult:
        """Delete archived, processed and dead-lettered jobs finished longer ago than older_than_seconds
        (the spec's retention by default), one purge_batch call of at most batch_size rows (1000 by
        default, at most the queue's maintenance maximum) at a time, each its own transaction, until a batch comes back short.
        Jobs that finish while it runs are left for the next purge, so it ends on a busy queue too.
        Inside client.transaction() every batch joins that transaction instead: refused. on_batch, when
        given, is called after each committed batch with the totals so far (`qgen purge`'s progress)."""
        if self._session.in_transaction:
            raise QueueUsageError("purge commits after every batch: call it outside client.transaction() "
                                  "(purge_batch(...) deletes one batch inside it)")
        older = self.queue.retention if older_than_seconds is None else \
            check_number(self._shape.where("purge"), "older_than_seconds", older_than_seconds, 0, INT_MAX)
        _size(self._shape, "purge", "batch_size", batch_size)
        started = time.monotonic()
        total = PurgeResult(0, 0, 0)
        while True:
            # A later call has a later now(): widen the age by the whole seconds spent, so the cutoff
            # stays within a second of where it was at the start and rows finishing now never count.
            batch = self.purge_batch(older + math.floor(time.monotonic() - started), batch_size)
            total = PurgeResult(*(a + b for a, b in zip(total, batch)))
            if on_batch is not None:
                on_batch(total)
            if sum(batch) < (batch_size or self._shape.limits.maintenance_batch):
                return total

    def purge_batch(self, older_than_seconds: Optional[int] = None, batch_size: Optional[int] = None) -> PurgeResult:
        """Delete one batch, at most batch_size rows over the archive, processed rows and dead
        letters together, of the jobs purge() would delete, in one transaction (the caller's inside
        client.transaction())."""
        params = (_size(self._shape, "purge_batch", "older_than_seconds", older_than_seconds, 0)
                  + _size(self._shape, "purge_batch", "batch_size", batch_size))
        row = self._run("purge_batch", params, "rows")[0]
        return PurgeResult(int(row["archived"]), int(row["processed"]), int(row["dead"]))

    def maintain(self, batch_size: Optional[int] = None) -> MaintainResult:
        """Run the queue's maintain once: one bounded batch each of purge, reap (lease mode) and a
        watermark correction, unless another maintain is running on the queue (skipped=True)."""
        row = self._shape.row(self._run("maintain", _size(self._shape, "maintain", "batch_size", batch_size), "rows")[0])

        def number(name: str) -> Optional[int]:
            return None if row[name] is None else int(row[name])

        result = MaintainResult(bool(row["skipped"]), number("released") or 0, number("dead_lettered") or 0,
                                number("old_watermark"), number("new_watermark"), number("archived") or 0,
                                number("processed") or 0, number("dead") or 0, bool(row["more"]))
        logging.getLogger("qgen.maintain").debug("%s.%s: %s", self.spec.schema, self.queue_name, result)
        return result

    def redrive(self, ids: Optional[Sequence[int]] = None, *, all: bool = False, batch_size: Optional[int] = None,
                on_batch: Optional[Callable[[RedriveResult, int], None]] = None) -> RedriveResult:
        """Put dead-lettered jobs back into the queue as new jobs (new id, attempts 0, available
        now): those with these dead-letter ids, or every one with all=True (in calls of at most
        batch_size). Each job moves in one transaction, so it is redriven once; a job whose dedupe
        key is queued again stays dead and is counted in skipped_duplicates. on_batch, when given, is
        called after each call that looked at dead letters with the totals so far and the last id it
        looked at (`qgen redrive`'s progress)."""
        if not self.lease_mode or not self.queue.dead_letter:
            raise QueueUsageError(f"redrive: queue {self.queue_name} has no dead-letter table")
        if (ids is None) == (not all):
            raise TypeError("redrive: give either ids or all=True")
        extra = _size(self._shape, "redrive", "batch_size", batch_size)
        redriven = skipped = 0
        if not all:
            chosen = [check_number(self._shape.where("redrive"), "ids", i, 1, 2**63 - 1) for i in ids or []]
            step = batch_size or self._shape.limits.maintenance_batch
            for start in range(0, len(chosen), step):
                part = chosen[start:start + step]
                row = self._run("redrive", [("ids", self._shape.id_list(part))] + extra, "rows")[0]
                redriven, skipped = redriven + int(row["redriven"]), skipped + int(row["skipped_duplicates"])
                if on_batch is not None:
                    on_batch(RedriveResult(redriven, skipped), part[-1])
            return RedriveResult(redriven, skipped)
        after = 0
        while True:
            row = self._run("redrive", [("redrive_all", True), ("after_id", after)] + extra, "rows")[0]
            redriven, skipped = redriven + int(row["redriven"]), skipped + int(row["skipped_duplicates"])
            if row["last_id"] is None:
                return RedriveResult(redriven, skipped)
            after = int(row["last_id"])
            if on_batch is not None:
                on_batch(RedriveResult(redriven, skipped), after)

    def dead_letters(self, limit: Optional[int] = None) -> list[DeadLetter]:
        """The queue's dead letters, newest first, at most limit (100 by default, 1 to 1000) of them,
        each with the error it died of. Reads only (docs/api.md, "Dead letters and jobs by id"): the
        admin role's, as redrive is."""
        if not has_dead_letters(self.queue):
            raise QueueUsageError(f"dead_letters: queue {self.queue_name} has no dead-letter table (it needs "
                                  "claim: lease with dead_letter: true, or a delete-mode archive with dedupe.scope: ever)")
        params = [] if limit is None else [("limit", check_number(self._shape.where("dead_letters"), "limit", limit, 1,
                                                                   DEAD_LETTERS_MAX))]
        found = []
        for row in (self._shape.row(r) for r in self._run("dead_letters", params, "rows")):
            job_type = row.pop(self.job_type_column) if self.job_type_column else None
            found.append(DeadLetter(id=int(row["id"]), attempts=int(row["attempts"]), dead_at=row["dead_at"],
                                    last_error=row["last_error"], enqueued_at=row["enqueued_at"],
                                    payload={c: row[c] for c in self.payload_columns}, job_type=job_type,
                                    priority=None if row.get("priority") is None else int(row["priority"])))
        return found

    def job(self, id: int) -> JobState:
        """Where one job is now, by its id: queued, scheduled, in_flight (lease_owner, lease_expires_at),
        processed, archived, dead (last_error), or not_found. Reads only, the admin role's."""
        job_id = check_number(self._shape.where("job"), "id", id, 1, 2**63 - 1)
        row = self._shape.row(self._run("job", [("job_id", job_id)], "rows")[0])
        attempts = row.get("attempts")
        return JobState(id=int(row["id"]), state=str(row["state"]), enqueued_at=row.get("enqueued_at"),
                        available_at=row.get("available_at"), attempts=None if attempts is None else int(attempts),
                        lease_owner=row.get("lease_owner"), lease_expires_at=row.get("lease_expires_at"),
                        last_error=row.get("last_error"), finished_at=row.get("finished_at"))

    def watermark_correct(self) -> WatermarkCorrection:
        """Reset the watermark from the table (after a dequeue that found nothing, or periodically)."""
        if self.queue.watermark is None or not self.queue.watermark.enabled:
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
        check_label(self._shape.where("run_procedure_worker"), "owner", owner)
        params = (_size(self._shape, "run_procedure_worker", "max_items", max_items, 0)
                  + _size(self._shape, "run_procedure_worker", "max_seconds", max_seconds, 0)
                  + ([("owner", owner)] if owner is not None else [])
                  + _size(self._shape, "run_procedure_worker", "lease_seconds", lease_seconds))
        with self._session.autocommitted("the worker procedure commits job by job: call it outside client.transaction()"):
            return self._session.driver.run_worker(self._run, params)
