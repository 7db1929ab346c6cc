"""The default bench: producers and workers on one queue at once, through the Python client."""

from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass
from typing import Any, Optional, TextIO

from qgen.bench.database import BenchDatabase, BenchError
from qgen.bench.fleet import Fleet, Progress, percentile, verdict
from qgen.bench.procs import Target, producer, worker
from qgen.spec import Spec


@dataclass(frozen=True)
class LoadOptions:
    producers: int = 2
    workers: int = 4
    jobs: int = 20_000
    batch: int = 10            # claim batch size (the command passes the queue's batch_size)
    enqueue_batch: int = 1     # jobs per enqueue call (1: enqueue, more: enqueue_many)
    lease_complete: str = "with-claim"  # lease mode: with-claim | separate
    timeout: float = 900


def worker_mode(spec: Spec, queue: str, lease_complete: str) -> str:
    if spec.queues[queue].claim == "delete":
        return "delete"
    if spec.queues[queue].outbox is not None:
        return "lease-each"  # outbox values belong to one job: such a queue refuses a whole-lease completion
    return "lease" if lease_complete == "with-claim" else "lease-separate"


def run_load(db: BenchDatabase, spec: Spec, queue: str, options: LoadOptions,
             stream: Optional[TextIO]) -> dict[str, Any]:
    """Run producers and workers together on the installed queue; return the report (a dict)."""
    if options.producers < 1 or options.workers < 1 or options.jobs < 1 or options.batch < 1 or options.enqueue_batch < 1:
        raise BenchError("--producers, --workers, --jobs, --batch and --enqueue-batch must each be at least 1")
    mode = worker_mode(spec, queue, options.lease_complete)
    with tempfile.TemporaryDirectory(prefix="qgen-bench-") as ledger, Fleet() as fleet:
        target = Target(db.url, spec, queue, ledger)
        done = [fleet.event() for _ in range(options.producers)]
        share, extra = divmod(options.jobs, options.producers)
        first = 1
        for p in range(options.producers):
            count = share + (1 if p < extra else 0)
            fleet.start(producer, f"producer-{p + 1}", target, first=first, count=count,
                        batch=options.enqueue_batch, done=done[p])
            first += count
        all_done = _AllSet(done)
        for w in range(options.workers):
            fleet.start(worker, f"worker-{w + 1}", target, mode=mode, batch=options.batch, producers_done=all_done)
        run = fleet.run(Progress(stream, f"{spec.schema}.{queue}", options.jobs, fleet.counts), options.timeout)
        found = verdict(ledger)
    producers = {n: s for n, s in run.stats.items() if n.startswith("producer")}
    workers = {n: s for n, s in run.stats.items() if n.startswith("worker")}
    enqueue_seconds = max(s["ended"] for s in producers.values()) - min(s["started"] for s in producers.values())
    latencies = [1000 * v for v in run.latencies()]
    return {
        "queue": f"{spec.schema}.{queue}",
        "claim": spec.queues[queue].claim,
        "worker_mode": mode,
        "options": asdict(options),
        "seconds": round(run.seconds, 3),
        "enqueued_per_second": round(found.enqueued / enqueue_seconds, 1),
        "completed_per_second": round(found.completed / run.seconds, 1),
        "claim_calls": sum(s["claims"] for s in workers.values()),
        "claim_latency_ms": {f"p{p}": round(percentile(latencies, p), 3) if latencies else None for p in (50, 95, 99)},
        "redeliveries": found.redeliveries,
        "deadlock_retries": sum(s["deadlock_retries"] for s in run.stats.values()),
        "ledger": asdict(found),
    }


class _AllSet:
    """Set once every one of several events is set (a worker polls it; picklable for spawn)."""

    def __init__(self, events: list[Any]):
        self.events = events

    def is_set(self) -> bool:
        return all(e.is_set() for e in self.events)
