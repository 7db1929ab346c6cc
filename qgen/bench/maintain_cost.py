"""What run_worker's built-in maintenance costs: `qgen bench SPEC --experiment maintain`.

One connection calls the queue's maintain back to back and times each call, in four situations:
- idle: an empty queue (what most calls of a healthy fleet look like);
- skipped: another session is inside maintain on the queue, so the call takes no lock and returns;
- busy: the queue holds `rows` jobs and `workers` worker processes drain it meanwhile (maintain is
  called every 50 ms while they do);
- full reap: `reap_rows` leases expired at once (a crashed worker's batch), released by as few
  calls as their batches need.
The report gives milliseconds per call (median, 95th percentile) and calls per second on one
connection, and what a fleet pays: W workers each calling every maintain_every seconds make W /
maintain_every calls per second per queue, all but one of them skipped when they overlap.
"""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any, Optional, TextIO

from qgen.bench.database import BenchDatabase, fill_queue, scratch_spec
from qgen.bench.fleet import Fleet, Progress, percentile
from qgen.bench.load import worker_mode
from qgen.bench.procs import Target, worker
from qgen.cli.tables import table
from qgen.client import QueueClient
from qgen.spec.model import Spec
from qgen.client.worker import MAINTAIN_EVERY


@dataclass(frozen=True)
class MaintainCostOptions:
    workers: int = 4
    calls: int = 300            # timed calls per idle / skipped measurement
    rows: int = 20_000          # jobs the busy measurement drains
    reap_rows: int = 2_000      # leases that expire at once for the full-reap measurement
    schema: str = "qgen_bench"
    keep: bool = False
    replace: bool = False


def _timed(label: str, call: Any, count: Optional[int] = None, until: Any = None, pause: float = 0.0) -> dict[str, Any]:
    """Time `call` count times (or until `until()` is true); one row of the report."""
    durations, outcomes = [], []
    started = time.perf_counter()
    while (count is not None and len(durations) < count) or (until is not None and not until()):
        begun = time.perf_counter()
        outcomes.append(call())
        durations.append(time.perf_counter() - begun)
        if pause:
            time.sleep(pause)
    elapsed = time.perf_counter() - started
    ordered = sorted(1000 * d for d in durations)
    return {
        "measure": label, "calls": len(durations),
        "ms_p50": round(percentile(ordered, 50), 3) if ordered else None,
        "ms_p95": round(percentile(ordered, 95), 3) if ordered else None,
        "calls_per_second": round(len(durations) / sum(durations), 1) if durations else None,
        "skipped": sum(1 for o in outcomes if o.skipped),
        "released": sum(o.released + o.dead_lettered for o in outcomes),
        "purged": sum(o.archived + o.processed + o.dead for o in outcomes),
        "seconds": round(elapsed, 3),
    }


def run_maintain_cost(db: BenchDatabase, spec: Spec, queue: str, options: MaintainCostOptions,
                      stream: Optional[TextIO]) -> dict[str, Any]:
    bench_spec = scratch_spec(spec, options.schema)
    lease = bench_spec.queues[queue].claim == "lease"
    measured: list[dict[str, Any]] = []
    with db.scratch(bench_spec, "maintain", queue, keep=options.keep, replace=options.replace):
        client = QueueClient(db.connect(), bench_spec, queue)
        client.maintain()  # plans and caches warm
        measured.append(_timed("idle (empty queue)", client.maintain, options.calls))

        holder = QueueClient(db.connect(autocommit=False), bench_spec, queue)
        with holder.transaction():
            holder.maintain()  # holds the queue's maintenance lock until the block ends
            measured.append(_timed("skipped (another one running)", client.maintain, options.calls))

        fill_queue(client, options.rows)
        with tempfile.TemporaryDirectory(prefix="qgen-maintain-") as ledger, Fleet() as fleet:
            target = Target(db.url, bench_spec, queue, ledger)
            for w in range(options.workers):
                fleet.start(worker, f"worker-{w + 1}", target, mode=worker_mode(bench_spec, queue, "with-claim"),
                            batch=bench_spec.queues[queue].batch_size)
            done = threading.Event()
            result: dict[str, Any] = {}
            timer = threading.Thread(target=lambda: result.setdefault(
                "busy", _timed(f"busy ({options.rows:,} jobs, {options.workers} workers draining)", client.maintain,
                               until=done.is_set, pause=0.05)))
            timer.start()
            try:
                fleet.run(Progress(stream, f"{bench_spec.schema}.{queue}", options.rows, fleet.counts))
            finally:
                done.set()
                timer.join()
            measured.append(result["busy"])

        if lease:
            fill_queue(client, options.reap_rows)
            while client.dequeue(batch_size=min(1000, options.reap_rows), lease_seconds=1):
                pass
            time.sleep(1.1)
            released = {"n": 0}

            def all_released() -> bool:
                return released["n"] >= options.reap_rows

            def reap_call() -> Any:
                outcome = client.maintain()
                released["n"] += outcome.released + outcome.dead_lettered
                return outcome

            measured.append(_timed(f"full reap ({options.reap_rows:,} expired leases)", reap_call, until=all_released))
        client.connection.close()
        holder.connection.close()
    idle = measured[0]["ms_p50"] or 0.0
    return {
        "queue": f"{bench_spec.schema}.{queue}",
        "claim": bench_spec.queues[queue].claim,
        "options": asdict(options),
        "maintain_every": MAINTAIN_EVERY,
        "measured": measured,
        # A fleet of W workers: W / maintain_every calls per second, at about the idle cost each.
        "fleet_ms_per_second": {w: round(w / MAINTAIN_EVERY * idle, 3) for w in (1, 8, 64)},
    }


def maintain_table(report: dict[str, Any]) -> str:
    rows = [(m["measure"], m["calls"], m["ms_p50"], m["ms_p95"], m["calls_per_second"], m["skipped"], m["released"],
             m["purged"]) for m in report["measured"]]
    text = table(("measure", "calls", "ms p50", "ms p95", "calls/s (one connection)", "skipped", "released", "purged"),
                 rows)
    fleet = ", ".join(f"{w} workers: {ms} ms/s" for w, ms in report["fleet_ms_per_second"].items())
    return (f"{report['queue']} (claim: {report['claim']})\n{text}\n\n"
            f"run_worker calls maintain every {report['maintain_every']:g} s per worker; database time per second "
            f"per queue at the idle cost: {fleet}")
