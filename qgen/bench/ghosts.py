"""The ghost-row experiment: how a claim slows down when the rows it already took cannot be cleaned up.

For each variant and queue size: install the variant in the scratch schema, fill it, open a long
reader (a REPEATABLE READ transaction that has read the queue, as a report or a backup would), and
drain the queue with N worker processes claiming one job at a time. The reader's snapshot keeps
every deleted or updated row version, and its index entries, where the claims must walk past them.
At the end, with the reader still open, one more claim of the empty queue is run under EXPLAIN
(ANALYZE, BUFFERS): the pages it touches are the ghosts it walks.

Variants: naive (a naive queue's pattern: delete the first unlocked row by id, skip locked; its own
table), and qgen's queue in both claim modes, with the watermark off and on. The lease variants
also check that the watermark stays correct when the reaper releases rows below it: before the
drain, a claim of the lowest jobs is abandoned (its lease runs out); after the drain, reap releases
them and they must still be claimed, or the ledger counts them lost.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass
from typing import Any, Optional, TextIO

from qgen.bench.database import BenchDatabase, BenchError, fill_queue, queue_variant
from qgen.bench.fleet import Fleet, Progress, verdict, write_ledger
from qgen.bench.procs import Target, worker
from qgen.cli.tables import table
from qgen.client import QueueClient
from qgen.spec.model import Spec

# name: (claim mode, watermark on); None for the naive pattern's own table
VARIANTS: dict[str, Optional[tuple[str, bool]]] = {
    "naive": None,
    "lease, watermark off": ("lease", False),
    "lease, watermark on": ("lease", True),
    "delete, watermark off": ("delete", False),
    "delete, watermark on": ("delete", True),
}
VARIANT_KEYS = {"naive": "naive", "lease-off": "lease, watermark off", "lease-on": "lease, watermark on",
                "delete-off": "delete, watermark off", "delete-on": "delete, watermark on"}
ABANDONED = 20          # lease variants: jobs claimed and left to expire before the drain
ABANDON_LEASE = 1       # seconds
# The targets for the watermark-on variants.
TARGET_RATIO, TARGET_SPEEDUP, TARGET_PAGES = 2.1, 8.0, 10


@dataclass(frozen=True)
class GhostOptions:
    rows: tuple[int, ...] = (30_000, 60_000)
    workers: int = 4
    schema: str = "qgen_bench"
    keep: bool = False
    replace: bool = False
    variants: Optional[tuple[str, ...]] = None   # keys of VARIANT_KEYS


def run_ghosts(db: BenchDatabase, spec: Spec, queue: str, options: GhostOptions,
               stream: Optional[TextIO]) -> dict[str, Any]:
    chosen = list(VARIANTS) if not options.variants else []
    for key in options.variants or ():
        if key not in VARIANT_KEYS:
            raise BenchError(f"--variants {key}: accepted: {', '.join(VARIANT_KEYS)}")
        chosen.append(VARIANT_KEYS[key])
    results: dict[str, dict[str, Any]] = {}
    for name in chosen:
        shape = VARIANTS[name]
        claim, watermark = shape if shape else ("delete", False)
        # the naive variant needs only the reference tables; the queue installed beside it is unused
        bench_spec = queue_variant(spec, queue, options.schema, claim, 1, watermark)
        runs = []
        for rows in options.rows:
            with db.scratch(bench_spec, "ghosts", queue, keep=options.keep, replace=True):
                runs.append(_drain_once(db, bench_spec, queue, name, shape is None, rows, options, stream))
        results[name] = {"variant": name, "claim": None if shape is None else claim, "watermark": watermark,
                         "runs": runs}
    # variants as a list: their order (naive first) survives JSON with sorted keys
    return {"experiment": "ghosts", "workers": options.workers, "rows": list(options.rows),
            "variants": list(results.values()), "targets": _targets(results, options.rows)}


def _drain_once(db: BenchDatabase, spec: Spec, queue: str, name: str, naive: bool, rows: int,
                options: GhostOptions, stream: Optional[TextIO]) -> dict[str, Any]:
    schema = spec.schema
    table = "naive" if naive else queue
    with tempfile.TemporaryDirectory(prefix="qgen-ghosts-") as ledger:
        client = QueueClient(db.connect(), spec, queue, owner="bench-parent")
        write_ledger(ledger, "fill", "enqueued", db.fill_naive(spec, queue, rows) if naive else fill_queue(client, rows))
        abandoned = []
        if not naive and client.lease_mode:
            jobs = client.dequeue(batch_size=ABANDONED, lease_seconds=ABANDON_LEASE)
            abandoned = [j.id for j in jobs]
            write_ledger(ledger, "abandon", "claimed", abandoned)
        reader = db.snapshot_reader(db.sql.read_for_snapshot(schema, table))
        try:
            with Fleet() as fleet:
                target = Target(db.url, spec, queue, ledger)
                # delete mode claims as the naive pattern does, each claim committed by itself
                mode = "naive" if naive else ("lease" if client.lease_mode else "delete-at-once")
                for w in range(options.workers):
                    fleet.start(worker, f"worker-{w + 1}", target, mode=mode, batch=1)
                run = fleet.run(Progress(stream, f"ghosts: {name}, {rows:,} rows", rows, fleet.counts))
            reaped = 0
            if abandoned:
                time.sleep(max(0.0, ABANDON_LEASE + 0.1 - run.seconds))
                reaped = client.reap().released
                _drain_rest(client, ledger)
            pages = _claim_pages(db, client, naive)
        finally:
            reader.rollback()
            reader.close()
        found = verdict(ledger)
        client.connection.close()
    return {"rows": rows, "seconds": round(run.seconds, 3), "jobs_per_second": round(rows / run.seconds, 1),
            "pages_one_claim": pages, "abandoned": len(abandoned), "reaped": reaped,
            "deadlock_retries": sum(s["deadlock_retries"] for s in run.stats.values()), **asdict(found)}


def _drain_rest(client: QueueClient, ledger: str) -> None:
    """After the reap: claim and complete what is left (the released jobs), one batch at a time."""
    while True:
        jobs = client.dequeue(batch_size=100)
        if not jobs:
            if client.queue.watermark.enabled:
                client.watermark_correct()  # as a worker does on an empty queue: back up past them
            return
        write_ledger(ledger, "parent", "claimed", [j.id for j in jobs])
        client.complete(jobs[0].lease_token)
        write_ledger(ledger, "parent", "completed", [j.id for j in jobs])


def _claim_pages(db: BenchDatabase, client: QueueClient, naive: bool) -> int:
    """Pages (buffers) one claim of the drained queue touches, counted by EXPLAIN (ANALYZE,
    BUFFERS), after a first claim that warms the session's plans; both rolled back."""
    if naive:
        statement, values = db.sql.claim_naive(client.spec.schema), {"batch": 1}
    else:
        # the very statement the client sends for a claim of one job
        statement, values = client.statement("dequeue", owner="bench-probe", batch_size=1)
    return db.buffers_touched(statement, values)


def _targets(results: dict[str, dict], rows: tuple[int, ...]) -> list[dict[str, Any]]:
    """The issue's targets for the watermark-on variants: growth no worse than linear (2.1x for 2x
    rows), at least 8x faster than naive at the largest size, at most 10 pages per claim."""
    if len(rows) < 2:
        return []
    allowed_growth = TARGET_RATIO / 2 * rows[-1] / rows[0]
    naive = results.get("naive")
    found = []
    for name, result in results.items():
        if not result["watermark"]:
            continue
        first, last = result["runs"][0], result["runs"][-1]
        growth = last["seconds"] / first["seconds"]
        speedup = naive["runs"][-1]["seconds"] / last["seconds"] if naive else None
        found.append({
            "variant": name,
            "growth": round(growth, 2), "growth_target": round(allowed_growth, 2), "growth_met": growth <= allowed_growth,
            "speedup": None if speedup is None else round(speedup, 1), "speedup_target": TARGET_SPEEDUP,
            "speedup_met": None if speedup is None else speedup >= TARGET_SPEEDUP,
            "pages": last["pages_one_claim"], "pages_target": TARGET_PAGES, "pages_met": last["pages_one_claim"] <= TARGET_PAGES,
        })
    return found


def ghost_table(report: dict[str, Any]) -> str:
    sizes = report["rows"]
    headers = (["variant"] + [f"drain {n:,} (s)" for n in sizes] + [f"{sizes[-1]:,}/{sizes[0]:,}"] * (len(sizes) > 1)
               + ["jobs/s at largest", "pages per claim at end", "exactly once"])
    rows = []
    for result in report["variants"]:
        name, runs = result["variant"], result["runs"]
        growth = [round(runs[-1]["seconds"] / runs[0]["seconds"], 2)] if len(runs) > 1 else []
        rows.append([name] + [r["seconds"] for r in runs] + growth
                    + [runs[-1]["jobs_per_second"], runs[-1]["pages_one_claim"], all(r["exactly_once"] for r in runs)])
    text = table(headers, rows)
    if report["targets"]:
        checks = [[t["variant"], f"{t['growth']} (<= {t['growth_target']})", _met(t["growth_met"]),
                   "-" if t["speedup"] is None else f"{t['speedup']}x (>= {t['speedup_target']:g}x)", _met(t["speedup_met"]),
                   f"{t['pages']} (<= {t['pages_target']})", _met(t["pages_met"])] for t in report["targets"]]
        text += "\n\n" + table(["target", "growth", "met", "vs naive", "met", "pages", "met"], checks)
    return text


def _met(value: Optional[bool]) -> str:
    return "-" if value is None else ("met" if value else "MISSED")
