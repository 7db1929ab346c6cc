"""Measure, on a real SQL Server, what Babelfish cannot show (docs/testing.md, "Measured on
a real SQL Server"). It prints numbers; it asserts nothing.

1. 601 under NOLOCK: the watermark mover, the dequeue rescan and watermark_correct read the queue
   WITH (NOLOCK); on a delete-heavy table a NOLOCK range scan can fail with error 601 ("could not
   continue scan with NOLOCK due to data movement"). Workers enqueue and claim (delete mode: every
   claim deletes) example 001's queue while one session calls watermark_correct and dequeue in a
   loop; it counts each error number.
2. 004's claim and its claim index: the actual plan of rainfall_events_dequeue (SET STATISTICS XML)
   and which indexes it seeks or scans.
3. Recompiles from SET options: .NET's SqlClient runs with ARITHABORT OFF, SSMS with ON; a procedure
   gets one cached plan per set of SET options, and each SET inside a procedure body may recompile.
   Calls dequeue and complete under ARITHABORT OFF and ON and reports the procedures' cached plans
   (sys.dm_exec_cached_plans: one per SET-option set) and statement recompiles
   (sys.dm_exec_query_stats.plan_generation_num).

Before: a scratch database with generated/001_watermark/mssql/install.sql and
generated/004_rainfall/mssql/install.sql run in it, and a login that may read the DMVs (VIEW SERVER
STATE). Run:

    .venv/bin/python scripts/measure_mssql.py 'mssql+pyodbc://USER:PASS@HOST:1433/DB?driver=...' [SECONDS]
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections import Counter

from qgen.cli.dburl import connect

ERROR_NUMBER = re.compile(r"\((\d{3,5})\)")


def error_number(exc: BaseException) -> str:
    found = ERROR_NUMBER.findall(str(exc))
    return found[-1] if found else type(exc).__name__


def drain(cursor) -> list:
    rows = []
    while True:
        if cursor.description:
            rows += cursor.fetchall()
        if not cursor.nextset():
            return rows


def churn(url: str, stop: threading.Event, errors: Counter) -> None:
    """A producer and consumer of 001's delete-mode queue: every claim deletes its row."""
    conn = connect(url)
    cur = conn.cursor()
    while not stop.is_set():
        try:
            cur.execute("SET NOCOUNT ON; DECLARE @n int = 0; WHILE @n < 50 BEGIN "
                        "EXEC [ghosts].[testq_enqueue] @filler = N'x'; SET @n += 1; END;")
            drain(cur)
            cur.execute("BEGIN TRANSACTION; EXEC [ghosts].[testq_dequeue] @batch_size = 1; COMMIT;")
            drain(cur)
            for _ in range(49):
                cur.execute("EXEC [ghosts].[testq_dequeue] @batch_size = 1, @at_most_once = 1;")
                drain(cur)
        except Exception as exc:  # noqa: BLE001 (counted)
            errors["churn " + error_number(exc)] += 1
    conn.close()


def nolock_601(url: str, seconds: float) -> None:
    stop, errors, calls = threading.Event(), Counter(), Counter()
    workers = [threading.Thread(target=churn, args=(url, stop, errors)) for _ in range(4)]
    for worker in workers:
        worker.start()
    conn = connect(url)
    cur = conn.cursor()
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        for name, sql in (("watermark_correct", "EXEC [ghosts].[testq_watermark_correct];"),
                          ("dequeue+rescan", "BEGIN TRANSACTION; EXEC [ghosts].[testq_dequeue] @batch_size = 1; ROLLBACK;")):
            try:
                cur.execute(sql)
                drain(cur)
                calls[name] += 1
            except Exception as exc:  # noqa: BLE001 (counted)
                errors[f"{name} {error_number(exc)}"] += 1
                try:
                    cur.execute("IF @@TRANCOUNT > 0 ROLLBACK;")
                except Exception:  # noqa: BLE001
                    pass
    stop.set()
    for worker in workers:
        worker.join()
    print(f"1. NOLOCK scans on a delete-heavy queue, {seconds:g} s: calls {dict(calls)}; errors {dict(errors) or 'none'}"
          f" (601 is the one this measures)")


def claim_plan(url: str) -> None:
    conn = connect(url)
    cur = conn.cursor()
    cur.execute("EXEC [rainfall].[rainfall_events_enqueue] @rainfall_id = 1;")
    drain(cur)
    cur.execute("SET STATISTICS XML ON; BEGIN TRANSACTION; EXEC [rainfall].[rainfall_events_dequeue] @batch_size = 1; "
                "ROLLBACK; SET STATISTICS XML OFF;")
    plans = [row[0] for row in drain(cur) if row and isinstance(row[0], str) and "<ShowPlanXML" in row[0]]
    seen = Counter()
    for plan in plans:
        for op, index in re.findall(r'PhysicalOp="([^"]+)"[^>]*>(?:(?!</RelOp>).)*?Index="\[([^\]]+)\]"', plan, re.S):
            seen[f"{op} {index}"] += 1
    print(f"2. 004's claim (rainfall_events_dequeue): {len(plans)} statement plans; operators on indexes: {dict(seen)}")
    print("   expected: seeks on rainfall_events_claim_ix / _claim_ix_due, no scan of rainfall_events_pk")


PLANS = """
SELECT OBJECT_NAME(st.objectid, st.dbid), COUNT(DISTINCT cp.plan_handle), MAX(qs.plan_generation_num)
FROM sys.dm_exec_cached_plans AS cp
CROSS APPLY sys.dm_exec_sql_text(cp.plan_handle) AS st
LEFT JOIN sys.dm_exec_query_stats AS qs ON qs.plan_handle = cp.plan_handle
WHERE st.dbid = DB_ID() AND OBJECT_SCHEMA_NAME(st.objectid, st.dbid) = N'rainfall'
  AND OBJECT_NAME(st.objectid, st.dbid) IN (N'rainfall_events_dequeue', N'rainfall_events_complete')
GROUP BY OBJECT_NAME(st.objectid, st.dbid)
"""


def set_option_recompiles(url: str, calls: int = 200) -> None:
    conn = connect(url)
    cur = conn.cursor()
    for arithabort in ("OFF", "ON"):
        cur.execute(f"SET ARITHABORT {arithabort};")
        for n in range(calls):
            cur.execute(f"EXEC [rainfall].[rainfall_events_enqueue] @rainfall_id = {n};")
            drain(cur)
            cur.execute("EXEC [rainfall].[rainfall_events_dequeue] @batch_size = 1;")
            rows = drain(cur)
            if rows:
                cur.execute("EXEC [rainfall].[rainfall_events_complete] @lease_token = ?, @id = ?, "
                            "@rainfall_id = ?, @summary = N'measured';", rows[0][3], rows[0][0], rows[0][1])
                drain(cur)
        cur.execute(PLANS)
        print(f"3. after {calls} calls with ARITHABORT {arithabort}: (procedure, cached plans, max plan_generation_num) "
              f"{[tuple(r) for r in drain(cur)]}")
    print("   a plan count of 2 per procedure: one per SET-option set (ARITHABORT OFF and ON callers do not share);"
          " a plan_generation_num that grows with the calls: recompiles")


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    url, seconds = argv[0], float(argv[1]) if len(argv) > 1 else 30.0
    nolock_601(url, seconds)
    claim_plan(url)
    set_option_recompiles(url)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
