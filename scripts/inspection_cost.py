"""What dead_letters and job cost on PostgreSQL (issue 25), as numbers: a lease queue that archives
(tests/behaviour/specs/behaviour.yaml, queue kept) with ROWS archived jobs and ROWS dead letters, and
the median time of each kind of call (client round trip included) over REPEAT calls.

    .venv/bin/python scripts/inspection_cost.py [--rows 200000] [--repeat 50]

job reads the queue table and the dead letters by key; the archive has no index on id, so a job
archived long ago, or not found at all, costs a scan of the archive (bounded by retention): the
numbers say how much. Runs in a scratch database of its own, dropped afterwards."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qgen.client import QueueClient  # noqa: E402
from qgen.render.engine import render_spec  # noqa: E402
from qgen.spec.load import load_spec  # noqa: E402
from tests.support.pg import run_script, scratch_database  # noqa: E402
from tests.support.run import run_spec  # noqa: E402

SPEC = ROOT / "tests" / "behaviour" / "specs" / "behaviour.yaml"


def median_ms(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000, help="archived jobs, and dead letters (default 200000)")
    parser.add_argument("--repeat", type=int, default=50, help="calls per measurement (default 50)")
    args = parser.parse_args()
    spec = run_spec(load_spec(SPEC))
    rendering = render_spec(spec, SPEC.name, "postgres")
    with scratch_database("qgen_inspect") as url:
        run_script(url, rendering.install)
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                s = spec.schema
                for table, extra in (("kept_archive", '"attempts", "completed_at"'), ("kept_dead", '"attempts", "last_error", "dead_at"')):
                    values = "1, now()" if table == "kept_archive" else "1, 'boom ' || g, now() - make_interval(secs => g)"
                    conn.execute(f'INSERT INTO "{s}"."{table}" ("id", "n", "enqueued_at", {extra}) '
                                 f"SELECT g, g, now(), {values} FROM generate_series(1, {args.rows}) AS g")
                    conn.execute(f'VACUUM ANALYZE "{s}"."{table}"')
                conn.execute(f'ALTER TABLE "{s}"."kept" ALTER COLUMN "id" RESTART WITH {args.rows * 3}')
                client = QueueClient(conn, spec, "kept")
                queued = client.enqueue(n=1).id
                oldest_archived, newest_archived, dead = 1, args.rows, args.rows // 2
                # The dead letters use ids 1..rows too: look the archive's up past them.
                conn.execute(f'UPDATE "{s}"."kept_dead" SET "id" = "id" + {args.rows}')
                dead += args.rows
                cases = {
                    "job: queued (queue table, by key)": lambda: client.job(queued),
                    "job: dead (dead letters, by the id index)": lambda: client.job(dead),
                    "job: archived, the newest entry": lambda: client.job(newest_archived),
                    "job: archived, the oldest entry (whole archive scanned)": lambda: client.job(oldest_archived),
                    "job: not found (whole archive scanned)": lambda: client.job(args.rows * 10),
                    "dead_letters(limit=100)": lambda: client.dead_letters(limit=100),
                    "dead_letters(limit=1000)": lambda: client.dead_letters(limit=1000),
                }
                assert client.job(oldest_archived).state == "archived" and client.job(dead).state == "dead"
                print(f"PostgreSQL, {args.rows:,} archived jobs and {args.rows:,} dead letters; median of {args.repeat} calls")
                for name, call in cases.items():
                    print(f"  {name:<58} {median_ms(call, args.repeat):8.2f} ms")
        finally:
            run_script(url, rendering.force_uninstall + rendering.uninstall)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
