"""The default bench: producers and workers on one queue at once, through the Python client.

A worker that dies does not end the run: the others go on, its leased jobs come back through a
reaper process the bench starts (the queue's own reap procedure, every `reap_every` seconds), and
the ledger still gives the verdict. With `chaos`, the bench kills workers on purpose
(qgen/bench/chaos.py) and reports how long the queue took to recover.
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass
from typing import Any, Optional, TextIO

from qgen.bench.chaos import Chaos, ChaosOptions, recovery
from qgen.bench.database import BenchDatabase, BenchError
from qgen.bench.fleet import Fleet, Progress, in_doubt, percentile, verdict
from qgen.bench.procs import Target, producer, reaper, worker
from qgen.spec.model import Spec


@dataclass(frozen=True)
class LoadOptions:
    producers: int = 2
    workers: int = 4
    jobs: int = 20_000
    batch: int = 10            # claim batch size (the command passes the queue's batch_size)
    enqueue_batch: int = 1     # jobs per enqueue call (1: enqueue, more: enqueue_many)
    lease_complete: str = "with-claim"  # lease mode: with-claim | separate
    timeout: float = 900
    lease: int = 300           # seconds a worker's claim holds its jobs
    reap_every: float = 1.0    # seconds between the reaper's calls (when one runs)
    work_ms: float = 0.0       # the time a worker spends on each job it claimed, as a handler would
    chaos: Optional[ChaosOptions] = None


def worker_mode(spec: Spec, queue: str, lease_complete: str) -> str:
    if spec.queues[queue].claim == "delete":
        return "delete"
    if spec.queues[queue].outbox is not None:
        return "lease-each"  # outbox values belong to one job: such a queue refuses a whole-lease completion
    return "lease" if lease_complete == "with-claim" else "lease-separate"


def run_load(db: BenchDatabase, spec: Spec, queue: str, options: LoadOptions,
             stream: Optional[TextIO]) -> dict[str, Any]:
    """Run producers and workers together on the installed queue; return the report (a dict)."""
    if min(options.producers, options.workers, options.jobs, options.batch, options.enqueue_batch, options.lease) < 1:
        raise BenchError("--producers, --workers, --jobs, --batch, --enqueue-batch and --lease must each be at least 1")
    if options.work_ms < 0:
        raise BenchError("--work-ms must be 0 or more")
    if options.chaos is not None and options.chaos.every <= 0:
        raise BenchError("--chaos-every must be more than 0 seconds")
    mode = worker_mode(spec, queue, options.lease_complete)
    lease_mode = spec.queues[queue].claim == "lease"
    with tempfile.TemporaryDirectory(prefix="qgen-bench-") as ledger, Fleet() as fleet:
        target = Target(db.url, spec, queue, ledger)
        done = {f"producer-{p + 1}": fleet.event() for p in range(options.producers)}
        share, extra = divmod(options.jobs, options.producers)
        first = 1
        for p, name in enumerate(done):
            count = share + (1 if p < extra else 0)
            fleet.start(producer, name, target, first=first, count=count, batch=options.enqueue_batch, done=done[name])
            first += count
        all_done = _AllSet(list(done.values()))
        for w in range(options.workers):
            fleet.start(worker, f"worker-{w + 1}", target, mode=mode, batch=options.batch, producers_done=all_done,
                        lease_seconds=options.lease, drain_in_flight=True, work_seconds=options.work_ms / 1000)

        def start_reaper() -> None:
            if lease_mode and "reaper-1" not in fleet.procs:
                fleet.start(reaper, "reaper-1", target, service=True, every=options.reap_every, stop=fleet.service_stop)

        def lost(name: str) -> None:
            if name in done:
                done[name].set()  # what it enqueued is in the ledger; the workers need not wait for the rest
            elif name.startswith("worker-"):
                start_reaper()  # its leased jobs come back when their lease expires

        fleet.on_lost = lost
        chaos = None
        if options.chaos is not None:
            held_by = (lambda owner: db.leased_by(spec, queue, owner)) if lease_mode else (lambda owner: set())
            chaos = Chaos(options.chaos, all_done, held_by, ledger)
        if chaos is not None:
            start_reaper()
        run = fleet.run(Progress(stream, f"{spec.schema}.{queue}", options.jobs, fleet.counts), options.timeout,
                        tick=chaos.tick if chaos is not None else None)
        if chaos is not None:
            chaos.finish()
        remaining = db.remaining_ids(spec, queue)
        found = verdict(ledger, remaining)
        resolved = in_doubt(ledger, remaining)[1]
        chaos_report = recovery(ledger, chaos, run.started, resolved) if chaos is not None else None
    return _report(spec, queue, mode, options, run, found, chaos_report)


def _report(spec: Spec, queue: str, mode: str, options: LoadOptions, run: Any, found: Any,
            chaos: Optional[dict[str, Any]]) -> dict[str, Any]:
    producers = {n: s for n, s in run.stats.items() if n.startswith("producer")}
    workers = {n: s for n, s in run.stats.items() if n.startswith("worker")}
    reapers = {n: s for n, s in run.stats.items() if n.startswith("reaper")}
    if not producers:
        raise BenchError("no producer finished: " + ", ".join(f"{n} (code {c})" for n, c in sorted(run.lost.items())))
    enqueue_seconds = max(s["ended"] for s in producers.values()) - min(s["started"] for s in producers.values())
    latencies = [1000 * v for v in run.latencies()]
    report = {
        "queue": f"{spec.schema}.{queue}",
        "claim": spec.queues[queue].claim,
        "worker_mode": mode,
        "options": {k: v for k, v in asdict(options).items() if k != "chaos"},
        "seconds": round(run.seconds, 3),
        "enqueued_per_second": round(found.enqueued / max(enqueue_seconds, 1e-9), 1),
        "completed_per_second": round(found.completed / max(run.seconds, 1e-9), 1),
        "claim_calls": sum(s["claims"] for s in workers.values()),
        "claim_latency_ms": {f"p{p}": round(percentile(latencies, p), 3) if latencies else None for p in (50, 95, 99)},
        "redeliveries": found.redeliveries,
        "deadlock_retries": sum(s["deadlock_retries"] for s in run.stats.values()),
        "reconnects": sum(s.get("reconnects", 0) for s in run.stats.values()),
        "ledger": asdict(found),
        # children that exited without reporting (killed, or crashed): their exit codes
        "lost_processes": {n: c for n, c in sorted(run.lost.items())},
        "reaped": {"released": sum(s["released"] for s in reapers.values()),
                   "dead_lettered": sum(s["dead_lettered"] for s in reapers.values())} if reapers else None,
    }
    if chaos is not None:
        report["chaos"] = chaos
    return report


class _AllSet:
    """Set once every one of several events is set (a worker polls it; picklable for spawn)."""

    def __init__(self, events: list[Any]):
        self.events = events

    def is_set(self) -> bool:
        return all(e.is_set() for e in self.events)
