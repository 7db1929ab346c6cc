"""Job control (issue 29), the admin role's calls of a queue: pause and resume its claims, cancel jobs
by id. QueueClient's (qgen/client/queue.py), kept apart as admin.py keeps maintenance; they use the
queue shape and QueueClient's one way of calling a procedure (_run)."""

from __future__ import annotations

from typing import Any, Sequence

from qgen.client.results import Cancelled
from qgen.client.values import QueueShape, check_number
from qgen.errors import QueueUsageError


class ControlCalls:
    """pause, resume, paused, cancel; QueueClient's (what they use of it is declared here)."""

    _shape: QueueShape
    queue_name: str

    def _run(self, kind: str, params: Sequence[tuple[str, Any]], result: str) -> Any:
        raise NotImplementedError

    def metrics(self) -> dict[str, Any]:
        raise NotImplementedError

    def pause(self) -> bool:
        """Pause the queue: from the commit, claims return no job (dequeue, workers, the in-database
        worker); enqueues go on, and leases already granted run to their end. True when this call
        paused it, False when it was paused already (idempotent). Inside client.transaction() it
        counts from that transaction's commit."""
        return int(self._run("pause", [], "scalar")) == 1

    def resume(self) -> bool:
        """Resume a paused queue: claims take jobs again. True when this call resumed it, False when
        it was not paused."""
        return int(self._run("resume", [], "scalar")) == 1

    def paused(self) -> bool:
        """Whether the queue is paused now (metrics' paused column)."""
        return bool(self.metrics()["paused"])

    def cancel(self, ids: Sequence[int]) -> list[Cancelled]:
        """Cancel jobs by id: each still in the queue leaves it at once (into the dead letters with
        last_error 'cancelled', or deleted where the queue keeps none) and never runs; a leased one's
        worker is fenced off (its complete, fail and extend_lease raise LeaseLost). One Cancelled per
        distinct id, in id order (see Cancelled for the outcomes). In calls of at most the queue's
        maintenance batch maximum, each its own transaction (inside client.transaction(): that one)."""
        where = self._shape.where("cancel")
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence) or not ids:
            raise QueueUsageError(f"{where}: ids must be a non-empty list of job ids, e.g. [3, 7]")
        chosen = sorted({check_number(where, "ids", i, 1, 2**63 - 1) for i in ids})
        step = self._shape.limits.maintenance_max
        found: list[Cancelled] = []
        for start in range(0, len(chosen), step):
            rows = self._run("cancel", [("ids", self._shape.id_list(chosen[start:start + step]))], "rows")
            found += [Cancelled(int(r["id"]), str(r["outcome"])) for r in rows]
        return found
