"""The worker loop's built-in maintenance: the queue's maintain procedure, every few seconds.

run_worker (qgen/client/worker.py) calls Maintenance.run_if_due between batches and between the jobs of a
batch, on the worker's own connection. maintain releases expired leases (a crashed worker's jobs),
corrects the watermark and purges finished jobs, one bounded batch each; only one runs at a time per
queue, so in a fleet the others return at once (skipped). When it reports more work it runs again at
the next step instead of after the interval. The interval is kept per client, so calling run_worker
again on the same client does not maintain more often. A login without EXECUTE on maintain (an
install older than maintain) logs a warning once and works on without it; any other maintenance
error (a lost connection included) is logged and retried next interval: maintenance never stops
the work. Logger "qgen.maintain" says what each call did (INFO when it did something).
"""

from __future__ import annotations

import logging
import time
import weakref
from typing import Optional

from qgen.errors import PermissionDenied
from qgen.client.queue import QueueClient
from qgen.client.results import MaintainResult, WorkerStats

MAINTAIN_EVERY = 5.0  # seconds between maintain calls of one worker (run_worker's default)

log = logging.getLogger("qgen.worker")
maintain_log = logging.getLogger("qgen.maintain")

# When each client last ran maintain (monotonic seconds): the interval holds across run_worker calls.
_last_maintained: "weakref.WeakKeyDictionary[QueueClient, float]" = weakref.WeakKeyDictionary()


class Maintenance:
    """Calls the queue's maintain when `every` seconds have passed since this client last did."""

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
