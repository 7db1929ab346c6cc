"""What a priority queue's claim costs for each emptied priority above the one it claims from.

`python scripts/claim_cost_priority_levels.py URL`: for lease and delete mode and 0, 1, 4 and 16
priorities above priority 0, each with 2,000 jobs claimed (ten a claim) and completed, never
vacuumed, then 1,000 ready jobs of priority 0, the median shared buffers and ms of 5 claims of batch
1 and 10 (the claim-cost bench's own scratch queue and measure; BENCHMARKS.md, "Claim cost").
Each emptied priority keeps its mark (templates/postgres/priority_marks.sql.j2): a claim visits it.
"""

from __future__ import annotations

import sys

from qgen.bench.claim_cost import _Cell, _variant
from qgen.bench.database import BenchDatabase
from qgen.spec.load import load_spec

FACTOR, PER_LEVEL, READY = "priority, unvacuumed", 2000, 1000


def measure(db: BenchDatabase, mode: str, levels: int) -> tuple:
    spec = _variant(load_spec("examples/001_watermark.yaml"), "testq", "qgen_bench_levels", mode, FACTOR)
    with db.scratch(spec, "claim-cost priority levels", "testq", replace=True):
        cell = _Cell(db, spec, "testq", mode, FACTOR)
        try:
            cell.run(db.sql.no_autovacuum(cell.schema, cell.name["table"]))
            cell.run(db.sql.synchronous_commit(False))
            job = dict(cell.job)
            for level in range(levels, 0, -1):
                cell.job = {**job, "priority": level}
                cell.fill(PER_LEVEL)
            cell.claim_loop(levels * PER_LEVEL // 10, 10)   # every job above priority 0, highest first
            cell.job = {**job, "priority": 0}
            cell.fill(READY)
            cell.run(db.sql.vacuum(cell.schema, cell.name["table"], analyze_only=True))
            cell.run(db.sql.synchronous_commit(True))
            one, ten = cell.measure(1, 5), cell.measure(10, 5)
            return one["buffers"], ten["buffers"], one["ms"], ten["ms"]
        finally:
            cell.close()


def main() -> None:
    db = BenchDatabase(sys.argv[1])
    print("| mode | emptied priorities above | buffers, batch 1 | buffers, batch 10 | ms, batch 1 | ms, batch 10 |")
    print("|---|--:|--:|--:|--:|--:|")
    for mode in ("lease", "delete"):
        for levels in (0, 1, 4, 16):
            print(f"| {mode} | {levels} | " + " | ".join(str(v) for v in measure(db, mode, levels)) + " |", flush=True)


if __name__ == "__main__":
    main()
