"""What one claim costs as work piles up behind it: `qgen bench SPEC --experiment claim-cost`.

A claim should read a few pages however much the queue holds that it cannot take. For each factor
below, each claim mode and each size (0 up to 100k by default), a fresh scratch queue is filled with
`size` rows of that kind and READY jobs behind them; then claims of batch 1 and batch 10 are run
under EXPLAIN (ANALYZE, BUFFERS), a worker's claim each (lease mode: committed at once; delete mode:
at_most_once). The report gives the median buffers (shared pages hit or read, the whole call with
the statements inside it) and milliseconds per claim, the worst claim's buffers, and the ratio of
the median at the largest size to the median at 0 (target: at most 2).

Factors (the queue table's autovacuum is off throughout, so nothing is cleaned up behind a claim):
- delayed: jobs whose run_at is a day away, queued before the ready ones;
- backed-off (lease): jobs that failed and wait out a backoff of an hour;
- burned ids: every even id never was a job (dedupe hits, rolled-back enqueues), and `size` jobs were
  claimed one per claim (and completed) before the measurement;
- lagging type: jobs of a type nobody claims, queued before those of the type the claims ask for;
- in flight: jobs claimed and not finished (lease: leased for a day; delete: taken inside a
  transaction another session keeps open);
- unvacuumed completed: `size` jobs claimed and completed (ten per claim), never vacuumed;
- priority, unvacuumed: the same on a priority queue (no watermark).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Optional, TextIO

from qgen.bench.database import BenchDatabase, BenchError, scratch_spec, variant_queue
from qgen.bench.procs import sample_payload
from qgen.cli.tables import table
from qgen.spec.catalog import claims_in_place
from qgen.spec.model import Spec, object_name

FACTORS = ("delayed", "backed-off", "burned ids", "lagging type", "in flight", "unvacuumed completed",
           "priority, unvacuumed", "expired, not reaped")
FACTOR_KEYS = {"delayed": "delayed", "backed-off": "backed-off", "burned": "burned ids", "lagging": "lagging type",
               "in-flight": "in flight", "unvacuumed": "unvacuumed completed", "priority": "priority, unvacuumed",
               "expired": "expired, not reaped"}
MODES = ("lease", "delete")
TARGET_RATIO = 2.0
READY = 1000          # ready jobs behind the factor's rows: what the measured claims take
FILL_CHUNK = 10_000   # jobs per enqueue_batch call while filling
HELD_BATCH = 1000     # jobs per claim while filling the factor (in flight, backed off)
LAGGING, CURRENT = "lagging", "current"
EXPIRE_AFTER = 3600   # the expired factor's expire_after; its jobs are aged twice that


@dataclass(frozen=True)
class ClaimCostOptions:
    sizes: tuple[int, ...] = (0, 1_000, 10_000, 100_000)
    batches: tuple[int, ...] = (1, 10)
    modes: tuple[str, ...] = MODES
    factors: Optional[tuple[str, ...]] = None   # keys of FACTOR_KEYS
    claims: int = 5                             # measured claims per batch size (after 2 to warm up)
    schema: str = "qgen_bench"
    keep: bool = False
    replace: bool = False


def _variant(spec: Spec, queue: str, schema: str, mode: str, factor: str) -> Spec:
    """The spec's queue as the factor needs it: scheduling on, a backoff of an hour, a job type for
    the lagging-type factor, priority order for the priority factor."""
    body = variant_queue(spec, queue, mode, 10)
    body.update(scheduling=True, max_batch_size=HELD_BATCH)
    if mode == "lease":
        body.update(retry={"max_attempts": 5, "backoff": {"base": 3600, "factor": 1, "max": 3600}})
    if factor == "lagging type":
        body["job_type"] = {"column": "kind", "type": "string(20)"}
    if factor == "priority, unvacuumed":
        body.update(ordering="priority", watermark=False)
    if factor == "expired, not reaped":
        body["expire_after"] = EXPIRE_AFTER
    return scratch_spec(spec, schema, {queue: body})


class _Cell:
    """One scratch install: fill it as a factor says, then measure its claims."""

    def __init__(self, db: BenchDatabase, spec: Spec, queue: str, mode: str, factor: str):
        self.db, self.spec, self.queue, self.mode, self.factor = db, spec, queue, mode, factor
        self.schema = spec.schema
        self.lease = mode == "lease"
        self.by_type = factor == "lagging type"
        self.name = {kind: object_name(spec, queue, kind)
                     for kind in ("table", "enqueue_batch", "dequeue", "complete", "fail")}
        self.job = sample_payload(spec, queue, 1)
        self.conn = db.connect()

    def run(self, statement: str, params: Optional[dict] = None) -> None:
        self.conn.execute(statement, params)

    def fill(self, n: int, delay: Optional[int] = None, kind: str = CURRENT) -> None:
        import json

        statement = self.db.sql.fill_jobs(self.schema, self.name["enqueue_batch"], "kind" if self.by_type else None)
        for start in range(0, n, FILL_CHUNK):
            self.run(statement, {"job": json.dumps(self.job, default=str), "n": min(FILL_CHUNK, n - start),
                                 "delay": delay, "kind": kind})

    def claim_loop(self, n_claims: int, batch: int) -> None:
        if n_claims > 0:
            self.run(self.db.sql.claim_loop(self.schema, self.name["dequeue"], self.name["complete"], self.lease,
                                            n_claims, batch, claims_in_place(self.spec.queues[self.queue], "postgres")))

    def setup(self, size: int) -> Any:
        """Fill the queue for this factor and size; returns a connection to keep open meanwhile (or None)."""
        sql, table_name = self.db.sql, self.name["table"]
        self.run(sql.no_autovacuum(self.schema, table_name))
        self.run(sql.synchronous_commit(False))  # the setup's many commits need not wait for the disk
        held = None
        if self.factor == "delayed":
            self.fill(size, delay=86_400)
            self.fill(READY)
        elif self.factor == "backed-off":
            self.fill(size)
            if size:
                self.run(sql.lease_loop(self.schema, self.name["dequeue"], size, HELD_BATCH))
                self.run(sql.fail_leased(self.schema, table_name, self.name["fail"]))
            self.fill(READY)
        elif self.factor == "burned ids":
            self.fill(2 * (size + READY))
            self.run(sql.burn_even_ids(self.schema, table_name))
            self.run(sql.vacuum(self.schema, table_name))
            self.claim_loop(size, 1)
        elif self.factor == "lagging type":
            self.fill(size, kind=LAGGING)
            self.fill(READY, kind=CURRENT)
        elif self.factor == "in flight":
            self.fill(size + READY)
            if size and self.lease:
                self.run(sql.lease_loop(self.schema, self.name["dequeue"], size, HELD_BATCH))
            elif size:
                held = self.db.connect(autocommit=False)
                held.execute(sql.synchronous_commit(False))
                for start in range(0, size, HELD_BATCH):
                    held.execute(sql.claim_in_transaction(self.schema, self.name["dequeue"]),
                                 {"batch": min(HELD_BATCH, size - start)}).fetchall()
        elif self.factor == "expired, not reaped":
            # Jobs past expire_after ahead of the ready ones, which no claim takes and reap has not
            # taken away yet (maintain runs every few seconds): claims pass them.
            self.fill(size)
            if size:
                self.run(sql.age_jobs(self.schema, table_name, 2 * EXPIRE_AFTER))
            self.fill(READY)
        else:  # unvacuumed completed, on a fifo or a priority queue
            self.fill(size + READY)
            self.claim_loop(-(-size // 10), 10)
        self.run(sql.vacuum(self.schema, table_name, analyze_only=True))  # statistics, as a live queue has
        self.run(sql.synchronous_commit(True))   # the measured claims commit as a worker's do
        return held

    def measure(self, batch: int, claims: int) -> dict[str, Any]:
        statement = self.db.sql.claim(self.schema, self.name["dequeue"], self.lease, self.by_type)
        explain = self.db.sql.explain_buffers(statement)
        params = {"batch": batch, "kind": CURRENT}
        for _ in range(2):  # plans made and cached, catalogs read: what a worker's session has done already
            self.conn.execute(statement, params).fetchall()
        buffers, ms, taken = [], [], []
        for _ in range(claims):
            result = self.conn.execute(explain, params).fetchone()[0][0]
            plan = result["Plan"]
            buffers.append(int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0)))
            ms.append(float(result["Execution Time"]))
            taken.append(int(plan.get("Actual Rows", 0)))
        return {"buffers": statistics.median(buffers), "buffers_max": max(buffers),
                "ms": round(statistics.median(ms), 3), "jobs_per_claim": statistics.median(taken)}

    def close(self) -> None:
        self.conn.close()


def _chosen(options: ClaimCostOptions) -> list[str]:
    if not options.factors:
        return list(FACTORS)
    chosen = []
    for key in options.factors:
        if key not in FACTOR_KEYS:
            raise BenchError(f"--factors {key}: accepted: {', '.join(FACTOR_KEYS)}")
        chosen.append(FACTOR_KEYS[key])
    return chosen


def run_claim_cost(db: BenchDatabase, spec: Spec, queue: str, options: ClaimCostOptions,
                   stream: Optional[TextIO]) -> dict[str, Any]:
    for mode in options.modes:
        if mode not in MODES:
            raise BenchError(f"--modes {mode}: accepted: {', '.join(MODES)}")
    cases: dict[tuple[str, str, int], dict[str, Any]] = {}
    for factor in _chosen(options):
        for mode in options.modes:
            if factor in ("backed-off", "expired, not reaped") and mode != "lease":
                continue  # a delete-mode claim is final (nothing is retried), and no job of it expires
            bench_spec = _variant(spec, queue, options.schema, mode, factor)
            for size in options.sizes:
                if stream:
                    print(f"claim-cost: {factor}, {mode}, {size} ...", file=stream, flush=True)
                with db.scratch(bench_spec, "claim-cost", queue, keep=options.keep, replace=True):
                    cell = _Cell(db, bench_spec, queue, mode, factor)
                    held = cell.setup(size)
                    try:
                        for batch in options.batches:
                            point = {"size": size, **cell.measure(batch, options.claims)}
                            case = cases.setdefault((factor, mode, batch), {
                                "factor": factor, "mode": mode, "batch": batch, "points": []})
                            case["points"].append(point)
                    finally:
                        if held is not None:
                            held.rollback()
                            held.close()
                        cell.close()
    for case in cases.values():
        first, last = case["points"][0], case["points"][-1]
        case["ratio"] = round(last["buffers"] / first["buffers"], 2) if first["buffers"] else None
        case["within_target"] = case["ratio"] is not None and case["ratio"] <= TARGET_RATIO
    return {"experiment": "claim-cost", "sizes": list(options.sizes), "batches": list(options.batches),
            "claims": options.claims, "ready": READY, "target_ratio": TARGET_RATIO, "cases": list(cases.values())}


def claim_cost_table(report: dict[str, Any]) -> str:
    sizes = report["sizes"]
    headers = (["factor", "mode", "batch"] + [f"buffers @{s:,}" for s in sizes]
               + ["ratio", f"ms @{sizes[0]:,}", f"ms @{sizes[-1]:,}", "worst buffers"])
    rows = []
    for case in report["cases"]:
        points = case["points"]
        rows.append([case["factor"], case["mode"], case["batch"]] + [p["buffers"] for p in points]
                    + [case["ratio"], points[0]["ms"], points[-1]["ms"], max(p["buffers_max"] for p in points)])
    missed = [c for c in report["cases"] if not c["within_target"]]
    lines = [f"Claim cost (PostgreSQL): median shared buffers and ms per claim of {report['claims']} measured "
             f"claims, {report['ready']} ready jobs behind each factor's rows; ratio = buffers at "
             f"{sizes[-1]:,} / at {sizes[0]:,} (target <= {report['target_ratio']:g})",
             table(headers, rows),
             f"{len(report['cases']) - len(missed)} of {len(report['cases'])} cases within the target"
             + ("" if not missed else "; missed: " + "; ".join(
                 f"{c['factor']} / {c['mode']} / batch {c['batch']} ({c['ratio']}x)" for c in missed))]
    return "\n".join(lines)


def plot_claim_cost(report: dict[str, Any], path: Any, plt: Any) -> None:
    factors = list(dict.fromkeys(c["factor"] for c in report["cases"]))
    columns = min(3, len(factors))
    rows = -(-len(factors) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.4 * rows), dpi=100, squeeze=False)
    for index, factor in enumerate(factors):
        axis = axes[index // columns][index % columns]
        for case in (c for c in report["cases"] if c["factor"] == factor):
            points = case["points"]
            axis.plot([p["size"] for p in points], [p["buffers"] for p in points], marker="o",
                      label=f"{case['mode']}, batch {case['batch']}",
                      linestyle="-" if case["mode"] == "lease" else "--")
        axis.set_xscale("symlog", linthresh=1000)
        axis.set_xticks(report["sizes"], [f"{s:,}" for s in report["sizes"]], fontsize=7)
        axis.minorticks_off()
        axis.set_yscale("log")
        axis.set_title(factor, fontsize=10)
        axis.set_xlabel("rows behind the claim", fontsize=8)
        axis.set_ylabel("buffers per claim", fontsize=8)
        axis.grid(True, alpha=0.3)
        axis.legend(fontsize=7)
    for index in range(len(factors), rows * columns):
        axes[index // columns][index % columns].axis("off")
    figure.suptitle("Buffers per claim as work piles up behind it", fontsize=11)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
