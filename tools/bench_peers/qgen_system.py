"""qgen in the peers bench: example 001's queue installed in a scratch schema of qgen's own
scratch database (qgen.bench.database.BenchDatabase.scratch), driven through qgen.client:
enqueue (one job) and enqueue_many (a batch); workers are qgen.bench.procs' own, in the modes
the throughput experiment measures:
- qgen-lease: claim: lease; each dequeue(batch_size=b, complete=<the previous batch's token>)
  completes the batch before and claims the next in one call and one commit;
- qgen-delete: claim: delete; dequeue(batch_size=b, at_most_once=True): the claim deletes the
  jobs and commits by itself (at most once: a worker that dies loses what it holds);
- qgen-delete-tx: claim: delete; dequeue(batch_size=b) inside client.transaction(): the jobs
  leave the queue when the work's transaction commits (exactly once).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from qgen.bench.database import BenchDatabase, queue_variant
from qgen.bench.fleet import Fleet
from tools.bench_peers.system import QUEUE, Installed, System
from qgen.bench.procs import Target, _client, worker
from qgen.spec.model import Spec

VARIANTS = {  # name: (claim, qgen.bench.procs worker mode)
    "qgen-lease": ("lease", "lease"),
    "qgen-delete": ("delete", "delete-at-once"),
    "qgen-delete-tx": ("delete", "delete"),
}
GUARANTEES = {
    "qgen-lease": "at least once delivery (a lease that expires is claimed again), completion fenced by the "
                  "lease token: exactly once when no worker dies",
    "qgen-delete": "at most once (the claim commits the delete before the work)",
    "qgen-delete-tx": "exactly once (the claim's delete commits with the work)",
}
_WAKE = "; wakeup: notify (an idle worker waits on LISTEN, 20 ms at most)"
DRIVEN = {
    "qgen-lease": "QueueClient.enqueue / enqueue_many; worker: dequeue(batch_size=b, complete=previous lease token)"
                  + _WAKE,
    "qgen-delete": "QueueClient.enqueue / enqueue_many; worker: dequeue(batch_size=b, at_most_once=True)" + _WAKE,
    "qgen-delete-tx": "QueueClient.enqueue / enqueue_many; worker: with transaction(): dequeue(batch_size=b)" + _WAKE,
}


class QgenSystem(System):
    def __init__(self, name: str, token: str):
        super().__init__(name, token)
        self.claim, self.mode = VARIANTS[name]
        self.guarantee, self.driven = GUARANTEES[name], DRIVEN[name]
        # Roles are named after the schema and belong to the server: this run's own.
        self.schema = f"{name.replace('-', '_')}_{token}"

    @contextlib.contextmanager
    def installed(self, url: str, spec: Spec, batch: int) -> Iterator[Installed]:
        db = BenchDatabase(url)
        # Both peers wake their workers with NOTIFY; qgen's workers LISTEN too (wakeup: notify).
        variant = queue_variant(spec, QUEUE, self.schema, self.claim, batch, wakeup="notify")
        with db.scratch(variant, "peers", QUEUE):
            yield Installed(variant, lambda: len(db.remaining_ids(variant, QUEUE)))

    def start_worker(self, fleet: Fleet, target: Target, name: str, batch: int, producers_done: Any = None) -> None:
        fleet.start(worker, name, target, mode=self.mode, batch=batch, producers_done=producers_done)


def system(name: str, token: str) -> System:
    return QgenSystem(name, token)


# The producer side, in the child (tools.bench_peers.system._producer): the client is synchronous.
async def open_producer(target: Target, name: str) -> Any:
    return _client(target, name)


async def enqueue(client: Any, payloads: list[dict[str, Any]]) -> list[int]:
    if len(payloads) == 1:
        return [client.enqueue(**payloads[0]).id]
    return [row.id for row in client.enqueue_many(payloads)]


async def close_producer(client: Any) -> None:
    client.close()
