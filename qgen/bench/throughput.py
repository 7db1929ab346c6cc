"""The throughput matrix: qgen's claim, complete and enqueue next to reference workloads that run
in the same bench, so the ratios hold on a machine whose absolute speed drifts.

References (templates/<dialect>/bench/bench.sql.j2):
- R1: a single-row UPDATE by random id, one commit each (pgbench's simple-update);
- R2(b): a naive queue's claim: delete the first b unlocked rows by id, skip locked, no watermark,
  no lease, drained from a pre-filled table;
- a plain single-row INSERT of the same payload.
Every measurement runs `workers` processes. Drains start on a pre-filled queue (claim and complete
measured apart from enqueue) and run to empty; each is installed fresh, so none inherits another's
dead rows. After each lease drain the queue table's footprint is read: its size against the size
right after the fill, and how many of its updates were HOT.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from typing import Any, Optional, TextIO

from qgen.bench.database import BenchDatabase, fill_queue, queue_variant
from qgen.bench.fleet import Fleet, Progress, verdict, write_ledger
from qgen.bench.procs import Target, inserter, producer, updater, worker
from qgen.cli.tables import table
from qgen.client import QueueClient
from qgen.spec.model import Spec

COUNTER_ROWS = 100_000
ENQUEUE_BATCH = 100
# The targets: (what, reference, factor)
LEASE_TARGETS = {1: ("R1", 0.8), 10: ("R2(10)", 0.9), 100: ("R2(100)", 0.9)}
REFILL_BATCH = 10          # the drain of the drain-and-refill cycle: lease claim + complete, 10 per call
REFILL_GROWTH = 1.3        # target: the table after the cycle, against its size after the first fill
AUTOVACUUM_WAIT = 150.0    # seconds to wait after the drain for autovacuum to visit the table
AUTOVACUUM_MIN_ROWS = 10_000
DELETE_FACTOR = 0.9
ENQUEUE_FACTOR = 0.9
ENQUEUE_BATCH_FLOOR = 50_000


@dataclass(frozen=True)
class ThroughputOptions:
    workers: int = 4
    batches: tuple[int, ...] = (1, 10, 100)
    seconds: float = 5.0
    schema: str = "qgen_bench"
    keep: bool = False
    replace: bool = False
    refill_rows: int = 100_000  # the drain-and-refill cycle's size (0: skip it)
    lease_only: bool = False    # only R1, R2(b) and the lease claim + complete in one call


def drain_rows(batch: int, seconds: float) -> int:
    """How many rows to pre-fill so a drain at this batch size lasts about `seconds` here
    (claims of b rows run roughly b^0.4 times faster per row than single ones)."""
    return max(1000, int(round(seconds * 6000 * batch ** 0.4, -3)))


def run_throughput(db: BenchDatabase, spec: Spec, queue: str, options: ThroughputOptions,
                   stream: Optional[TextIO]) -> dict[str, Any]:
    measured: list[dict[str, Any]] = []
    lease_spec = queue_variant(spec, queue, options.schema, "lease", 1)

    def measure(label: str, bench_spec: Spec, start: Any, *, total: int = 0, prepare: Any = None,
                footprint: bool = False, refill: Any = None) -> dict[str, Any]:
        with db.scratch(bench_spec, "throughput", queue, keep=options.keep, replace=True), \
                tempfile.TemporaryDirectory(prefix="qgen-throughput-") as ledger, Fleet() as fleet:
            target = Target(db.url, bench_spec, queue, ledger)
            before = prepare(target) if prepare else None
            db.checkpoint()
            for w in range(options.workers):
                start(fleet, target, w)
            run = fleet.run(Progress(stream, label, total, fleet.counts) if total else None)
            rows = sum(int(s.get("rows", 0)) for s in run.stats.values()) or fleet.counts()[1] or fleet.counts()[0]
            found = verdict(ledger) if total else None
            result = {"measure": label, "rows": rows, "seconds": round(run.seconds, 3),
                      "rows_per_second": round(rows / run.seconds, 1),
                      "deadlock_retries": sum(int(s.get("deadlock_retries", 0)) for s in run.stats.values())}
            if found is not None:
                result.update(exactly_once=found.exactly_once, duplicates=found.duplicates, lost=found.lost)
            if footprint:
                time.sleep(0.5)  # the workers' statistics reach the server as their sessions end
                after = _footprint(db, bench_spec, queue)
                result["footprint"] = {"after_fill": before, "after_drain": after}
                if refill is not None:
                    result["footprint"].update(refill(target, after))
        measured.append(result)
        return result

    def prefill_naive(rows: int) -> Any:
        def prepare(target: Target) -> None:
            write_ledger(target.ledger_dir, "fill", "enqueued", db.fill_naive(target.spec, queue, rows))
        return prepare

    def prefill_queue(rows: int) -> Any:
        def prepare(target: Target) -> dict[str, int]:
            client = QueueClient(db.connect(), target.spec, queue)
            write_ledger(target.ledger_dir, "fill", "enqueued", fill_queue(client, rows))
            client.connection.close()
            return _footprint(db, target.spec, queue)
        return prepare

    def fill_counter(target: Target) -> None:
        db.execute(db.sql.fill_counter(target.spec.schema), {"rows": COUNTER_ROWS})

    seconds = options.seconds
    measure("R1: single-row UPDATE", lease_spec,
            lambda f, t, w: f.start(updater, f"updater-{w + 1}", t, rows=COUNTER_ROWS, seconds=seconds),
            prepare=fill_counter)
    if options.lease_only:
        for b in options.batches:
            rows = drain_rows(b, seconds)
            measure(f"R2({b}): naive delete", queue_variant(spec, queue, options.schema, "delete", b),
                    lambda f, t, w, b=b: f.start(worker, f"worker-{w + 1}", t, mode="naive", batch=b),
                    total=rows, prepare=prefill_naive(rows))
            measure(f"lease claim + complete, one call ({b})", queue_variant(spec, queue, options.schema, "lease", b),
                    lambda f, t, w, b=b: f.start(worker, f"worker-{w + 1}", t, mode="lease", batch=b),
                    total=rows, prepare=prefill_queue(rows), footprint=True)
        autovacuum = db.execute(db.sql.autovacuum_setting(), {})[0][0]
        return {"experiment": "throughput", "workers": options.workers, "autovacuum": autovacuum,
                "measured": measured, "targets": _targets(measured, options.batches)}
    measure("plain INSERT", lease_spec,
            lambda f, t, w: f.start(inserter, f"inserter-{w + 1}", t, first=w * 10_000_000 + 1, seconds=seconds))
    measure("enqueue (one job per call)", lease_spec,
            lambda f, t, w: f.start(producer, f"producer-{w + 1}", t, first=w * 10_000_000 + 1, seconds=seconds))
    measure(f"enqueue_batch ({ENQUEUE_BATCH} jobs per call)", lease_spec,
            lambda f, t, w: f.start(producer, f"producer-{w + 1}", t, first=w * 10_000_000 + 1,
                                    batch=ENQUEUE_BATCH, seconds=seconds))
    for b in options.batches:
        rows = drain_rows(b, seconds)
        delete_spec = queue_variant(spec, queue, options.schema, "delete", b)
        measure(f"R2({b}): naive delete", delete_spec,
                lambda f, t, w, b=b: f.start(worker, f"worker-{w + 1}", t, mode="naive", batch=b),
                total=rows, prepare=prefill_naive(rows))
        # R2 commits each claim by itself; so does the claim its target compares
        measure(f"delete claim, commits at once ({b})", delete_spec,
                lambda f, t, w, b=b: f.start(worker, f"worker-{w + 1}", t, mode="delete-at-once", batch=b),
                total=rows, prepare=prefill_queue(rows))
        measure(f"delete claim in a transaction ({b})", delete_spec,
                lambda f, t, w, b=b: f.start(worker, f"worker-{w + 1}", t, mode="delete", batch=b),
                total=rows, prepare=prefill_queue(rows))
        batch_spec = queue_variant(spec, queue, options.schema, "lease", b)
        for mode, label in (("lease", f"lease claim + complete, one call ({b})"),
                            ("lease-separate", f"lease claim, then complete ({b})")):
            measure(label, batch_spec,
                    lambda f, t, w, b=b, mode=mode: f.start(worker, f"worker-{w + 1}", t, mode=mode, batch=b),
                    total=rows, prepare=prefill_queue(rows), footprint=True)
    if options.refill_rows:
        rows = options.refill_rows
        cycle_spec = queue_variant(spec, queue, options.schema, "lease", REFILL_BATCH)
        measure(f"drain and refill {rows:,} (lease, {REFILL_BATCH})", cycle_spec,
                lambda f, t, w: f.start(worker, f"worker-{w + 1}", t, mode="lease", batch=REFILL_BATCH),
                total=rows, prepare=prefill_queue(rows), footprint=True,
                refill=lambda target, drained: _refill(db, target, queue, rows, drained))
    autovacuum = db.execute(db.sql.autovacuum_setting(), {})[0][0]
    return {"experiment": "throughput", "workers": options.workers, "autovacuum": autovacuum, "measured": measured,
            "targets": _targets(measured, options.batches)}


def _refill(db: BenchDatabase, target: Any, queue: str, rows: int, drained: dict[str, int]) -> dict[str, Any]:
    """The second half of the cycle: give autovacuum (where the server runs it) the time it has in
    production between a drain and the next backlog, then fill the queue again; its footprint."""
    waited, started = 0.0, time.monotonic()
    # Below the queue table's autovacuum threshold (1,000 dead rows plus 1%) autovacuum never comes.
    if rows >= AUTOVACUUM_MIN_ROWS and db.execute(db.sql.autovacuum_setting(), {})[0][0] == "on":
        while (_footprint(db, target.spec, queue)["autovacuums"] <= drained["autovacuums"]
               and time.monotonic() - started < AUTOVACUUM_WAIT):
            time.sleep(1.0)
        waited = time.monotonic() - started
    client = QueueClient(db.connect(), target.spec, queue)
    fill_queue(client, rows)
    client.connection.close()
    return {"after_refill": _footprint(db, target.spec, queue), "waited_for_autovacuum": round(waited, 1)}


def _footprint(db: BenchDatabase, spec: Spec, queue: str) -> dict[str, int]:
    row = db.execute(db.sql.table_footprint(), {"schema": spec.schema, "table": queue})
    total, heap, updates, hot, autovacuums = row[0] if row else (0, 0, 0, 0, 0)
    return {"total_bytes": int(total), "heap_bytes": int(heap), "updates": int(updates), "hot_updates": int(hot),
            "autovacuums": int(autovacuums)}


def _targets(measured: list[dict[str, Any]], batches: tuple[int, ...]) -> list[dict[str, Any]]:
    rate = {m["measure"]: m["rows_per_second"] for m in measured}

    def reference(name: str) -> Optional[float]:
        if name == "R1":
            return rate.get("R1: single-row UPDATE")
        return rate.get(f"{name}: naive delete")

    checks = []

    def check(what: str, value: Optional[float], ref_name: str, ref: Optional[float], factor: float) -> None:
        if value is None or ref is None:
            return
        checks.append({"target": what, "measured": value, "reference": ref_name, "reference_rate": ref,
                       "ratio": round(value / ref, 2), "needed": factor, "met": value / ref >= factor})

    for b in batches:
        if b in LEASE_TARGETS:
            ref_name, factor = LEASE_TARGETS[b]
            check(f"lease claim + complete ({b})", rate.get(f"lease claim + complete, one call ({b})"),
                  ref_name, reference(ref_name), factor)
        check(f"delete claim ({b})", rate.get(f"delete claim, commits at once ({b})"), f"R2({b})",
              reference(f"R2({b})"), DELETE_FACTOR)
    check("enqueue (single)", rate.get("enqueue (one job per call)"), "plain INSERT", rate.get("plain INSERT"),
          ENQUEUE_FACTOR)
    for m in measured:
        refilled = m.get("footprint", {}).get("after_refill")
        if refilled:
            growth = refilled["total_bytes"] / max(1, m["footprint"]["after_fill"]["total_bytes"])
            checks.append({"target": "table after drain and refill", "measured": round(growth, 2),
                           "reference": "first fill", "reference_rate": 1.0, "ratio": round(growth, 2),
                           "needed": REFILL_GROWTH, "met": growth <= REFILL_GROWTH, "at_most": True})
    batch_rate = rate.get(f"enqueue_batch ({ENQUEUE_BATCH} jobs per call)")
    if batch_rate is not None:
        checks.append({"target": f"enqueue_batch ({ENQUEUE_BATCH})", "measured": batch_rate, "reference": "floor",
                       "reference_rate": ENQUEUE_BATCH_FLOOR, "ratio": round(batch_rate / ENQUEUE_BATCH_FLOOR, 2),
                       "needed": 1.0, "met": batch_rate >= ENQUEUE_BATCH_FLOOR})
    return checks


def throughput_table(report: dict[str, Any]) -> str:
    rows = []
    for m in report["measured"]:
        growth = ""
        if "footprint" in m and m["footprint"]["after_fill"]:
            fill, drain = m["footprint"]["after_fill"], m["footprint"]["after_drain"]
            growth = (f"{drain['total_bytes'] / max(1, fill['total_bytes']):.2f}x size, "
                      f"{drain['hot_updates']:,}/{drain['updates']:,} HOT")
            if "after_refill" in m["footprint"]:
                refilled = m["footprint"]["after_refill"]["total_bytes"] / max(1, fill["total_bytes"])
                growth += f"; refilled {refilled:.2f}x"
        rows.append([m["measure"], m["rows"], m["seconds"], m["rows_per_second"],
                     m.get("exactly_once", "-"), growth or "-"])
    text = table(["measure", "rows", "seconds", "rows/s", "exactly once", "table after drain"], rows)
    checks = [[c["target"], c["measured"], f"{c['reference']} = {c['reference_rate']:,.0f}", c["ratio"],
               f"{'<=' if c.get('at_most') else '>='} {c['needed']}", "met" if c["met"] else "MISSED"]
              for c in report["targets"]]
    return (text + "\n\n" + table(["target", "rows/s", "reference", "ratio", "needed", ""], checks)
            + f"\n\nautovacuum on this server: {report.get('autovacuum', '?')}")
