"""QueueClient's maintenance and inspection calls: reap, metrics, peek, purge, maintain, redrive,
watermark_correct and the in-database worker (qgen/client.py has the job calls)."""

from __future__ import annotations

import logging
import math
import time
from decimal import Decimal
from typing import Any, Optional, Sequence

from qgen.client_session import ClientSession
from qgen.client_values import LABEL_MAX, check_text
from qgen.errors import QueueUsageError
from qgen.results import MaintainResult, PurgeResult, ReapResult, RedriveResult, WatermarkCorrection


def _size(name: str, value: Optional[int]) -> list[tuple[str, Any]]:
    return [(name, int(value))] if value is not None else []


class MaintenanceCalls(ClientSession):
    """The queue's maintenance procedures."""

    def reap(self, batch_size: Optional[int] = None) -> ReapResult:
        """Release jobs whose lease expired (dead-letter those out of attempts)."""
        self._need_lease("reap")
        row = self._run("reap", _size("batch_size", batch_size), "rows")[0]
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
            params.append(("job_type", self._in(self.job_type_column, job_type)))
        return [self._row(r) for r in self._run("peek", params + _size("limit", limit), "rows")]

    def purge(self, older_than_seconds: Optional[int] = None, batch_size: Optional[int] = None) -> PurgeResult:
        """Delete archived, processed and dead-lettered jobs finished longer ago than older_than_seconds
        (the spec's retention by default), one purge_batch call of at most batch_size rows (1000 by
        default, at most the queue's maintenance maximum) at a time, each its own transaction, until a batch comes back short.
        Jobs that finish while it runs are left for the next purge, so it ends on a busy queue too.
        Inside client.transaction() every batch joins that transaction instead: refused."""
        if self._tx_depth:
            raise QueueUsageError("purge commits after every batch: call it outside client.transaction() "
                                  "(purge_batch(...) deletes one batch inside it)")
        older = self.queue.retention if older_than_seconds is None else int(older_than_seconds)
        started = time.monotonic()
        total = PurgeResult(0, 0, 0)
        while True:
            # A later call has a later now(): widen the age by the whole seconds spent, so the cutoff
            # stays within a second of where it was at the start and rows finishing now never count.
            batch = self.purge_batch(older + math.floor(time.monotonic() - started), batch_size)
            total = PurgeResult(*(a + b for a, b in zip(total, batch)))
            if sum(batch) < (batch_size or self._limits.maintenance_batch):
                return total

    def purge_batch(self, older_than_seconds: Optional[int] = None, batch_size: Optional[int] = None) -> PurgeResult:
        """Delete one batch, at most batch_size rows over the archive, processed rows and dead
        letters together, of the jobs purge() would delete, in one transaction (the caller's inside
        client.transaction())."""
        params = _size("older_than_seconds", older_than_seconds) + _size("batch_size", batch_size)
        row = self._run("purge_batch", params, "rows")[0]
        return PurgeResult(int(row["archived"]), int(row["processed"]), int(row["dead"]))

    def maintain(self, batch_size: Optional[int] = None) -> MaintainResult:
        """Run the queue's maintain once: one bounded batch each of purge, reap (lease mode) and a
        watermark correction, unless another maintain is running on the queue (skipped=True)."""
        row = self._row(self._run("maintain", _size("batch_size", batch_size), "rows")[0])

        def number(name: str) -> Optional[int]:
            return None if row[name] is None else int(row[name])

        result = MaintainResult(bool(row["skipped"]), number("released") or 0, number("dead_lettered") or 0,
                                number("old_watermark"), number("new_watermark"), number("archived") or 0,
                                number("processed") or 0, number("dead") or 0, bool(row["more"]))
        logging.getLogger("qgen.maintain").debug("%s.%s: %s", self.spec.schema, self.queue_name, result)
        return result

    def redrive(self, ids: Optional[Sequence[int]] = None, *, all: bool = False,
                batch_size: Optional[int] = None) -> RedriveResult:
        """Put dead-lettered jobs back into the queue as new jobs (new id, attempts 0, available
        now): those with these dead-letter ids, or every one with all=True (in calls of at most
        batch_size). Each job moves in one transaction, so it is redriven once; a job whose dedupe
        key is queued again stays dead and is counted in skipped_duplicates."""
        if not self.lease_mode or not self.queue.dead_letter:
            raise QueueUsageError(f"redrive: queue {self.queue_name} has no dead-letter table")
        if (ids is None) == (not all):
            raise TypeError("redrive: give either ids or all=True")
        extra = _size("batch_size", batch_size)
        redriven = skipped = 0
        if not all:
            chosen = [int(i) for i in ids or []]
            step = batch_size or self._limits.maintenance_batch
            for start in range(0, len(chosen), step):
                part = chosen[start:start + step]
                row = self._run("redrive", [("ids", self._database.id_list(part))] + extra, "rows")[0]
                redriven, skipped = redriven + int(row["redriven"]), skipped + int(row["skipped_duplicates"])
            return RedriveResult(redriven, skipped)
        after = 0
        while True:
            row = self._run("redrive", [("redrive_all", True), ("after_id", after)] + extra, "rows")[0]
            redriven, skipped = redriven + int(row["redriven"]), skipped + int(row["skipped_duplicates"])
            if row["last_id"] is None:
                return RedriveResult(redriven, skipped)
            after = int(row["last_id"])

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
        check_text("run_procedure_worker", "owner", owner, LABEL_MAX)
        params = [(name, value) for name, value in (("max_items", max_items), ("max_seconds", max_seconds),
                                                   ("owner", owner), ("lease_seconds", lease_seconds))
                  if value is not None]
        with self._lock:
            if self._tx_depth:
                raise QueueUsageError("the worker procedure commits job by job: call it outside client.transaction()")
            conn = self._connected()
            autocommit = conn.autocommit
            conn.commit()
            conn.autocommit = True
            try:
                return self._driver.run_worker(self._run, params)
            finally:
                if conn is self.connection:
                    conn.autocommit = autocommit
