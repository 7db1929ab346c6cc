"""purge on a live queue: bounded batches, each its own transaction, so no
statement escalates to a table lock and no transaction holds more than one batch; the loop ends.

A statement trigger on the archive table (created for the test, dropped afterwards) records, for
every DELETE the purge runs, the transaction it ran in and how many rows it removed, then sleeps a
little, so a second connection can watch the table while the purge is still running."""

from __future__ import annotations

import threading
import time

import pytest

from qgen.client import QueueUsageError
from qgen.spec.locks import limits
from tests.behaviour.helpers import FEAT, call_sql

ROWS, BATCH, DAY = 3200, 500, 86400

LOG = {
    "postgres": ("""
CREATE TABLE "feat"."purge_log" ("xid" text NOT NULL, "n" integer NOT NULL);
-- SECURITY DEFINER: the purge runs as qgen's owner role, which has no rights on this test's table.
CREATE FUNCTION "feat"."purge_log_row"() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    INSERT INTO "feat"."purge_log" ("xid", "n") SELECT pg_catalog.pg_current_xact_id()::text, count(*) FROM "old_rows";
    PERFORM pg_catalog.pg_sleep(0.15);
    RETURN NULL;
END
$$;
CREATE TRIGGER "purge_log" AFTER DELETE ON "feat"."jobs_archive" REFERENCING OLD TABLE AS "old_rows"
    FOR EACH STATEMENT EXECUTE FUNCTION "feat"."purge_log_row"();
""", """
DROP TRIGGER IF EXISTS "purge_log" ON "feat"."jobs_archive";
DROP FUNCTION IF EXISTS "feat"."purge_log_row"();
DROP TABLE IF EXISTS "feat"."purge_log";
"""),
    "mssql": ("""
CREATE TABLE [feat].[purge_log] ([xid] bigint NOT NULL, [n] int NOT NULL);
GO
CREATE TRIGGER [feat].[jobs_archive_purge_log] ON [feat].[jobs_archive] AFTER DELETE AS
BEGIN
    SET NOCOUNT ON;
    INSERT INTO [feat].[purge_log] ([xid], [n]) SELECT CURRENT_TRANSACTION_ID(), COUNT(*) FROM deleted;
    WAITFOR DELAY '00:00:00.150';
END;
GO
""", """
DROP TRIGGER IF EXISTS [feat].[jobs_archive_purge_log];
DROP TABLE IF EXISTS [feat].[purge_log];
"""),
}

FILL = {  # rows archived jobs with ids first+1.., finished `age` seconds ago
    "postgres": """INSERT INTO "feat"."jobs_archive" ("id", "job_type", "customer_id", "amount", "enqueued_at", "attempts", "completed_at")
SELECT {first} + "g", 't', {first} + "g", 1, now() - interval '3 days', 1, now() - make_interval(secs => {age})
FROM generate_series(1, {rows}) AS "g" """,
    "mssql": """WITH [n] AS (SELECT TOP ({rows}) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS [i]
              FROM sys.all_objects AS [a] CROSS JOIN sys.all_objects AS [b])
INSERT INTO [feat].[jobs_archive] ([id], [job_type], [customer_id], [amount], [enqueued_at], [attempts], [completed_at])
SELECT {first} + [i], N't', {first} + [i], 1, DATEADD(day, -3, SYSUTCDATETIME()), 1, DATEADD(second, -{age}, SYSUTCDATETIME())
FROM [n]""",
}


def fill(env, rows, first=0, age=2 * 86400):
    env.execute(FILL[env.dialect].format(rows=rows, first=first, age=age))


@pytest.fixture
def logged_archive(use_spec):
    """FEAT's jobs queue with ROWS archived jobs two days old and the purge log trigger."""
    env = use_spec(FEAT)  # retention 1d
    fill(env, ROWS)
    create, drop = LOG[env.dialect]
    env.backend.run_script(drop)
    env.backend.run_script(create)
    try:
        yield env
    finally:
        env.backend.run_script(drop)


def purge_by_procedure(env):
    conn = env.connect(autocommit=True)
    args = (f"@older_than_seconds = {DAY}, @batch_size = {BATCH}" if env.dialect == "mssql"
            else f"older_than_seconds => {DAY}, batch_size => {BATCH}")
    cursor = conn.cursor()
    cursor.execute(call_sql(env, "jobs", "purge", args))
    rows = []
    while True:
        if cursor.description is not None:
            rows = cursor.fetchall()
        if env.dialect == "postgres" or not cursor.nextset():
            break
    return tuple(int(v) for v in rows[-1])


def purge_by_client(env):
    return tuple(env.client("jobs").purge(older_than_seconds=DAY, batch_size=BATCH))


@pytest.mark.parametrize("how", [purge_by_procedure, purge_by_client], ids=["procedure", "client"])
def test_purge_commits_every_batch_and_no_batch_exceeds_its_size(logged_archive, how):
    env = logged_archive
    result, seen = {}, []
    runner = threading.Thread(target=lambda: result.setdefault("purged", how(env)))
    runner.start()
    while runner.is_alive():
        seen.append(env.count("jobs", "archive_table"))
        time.sleep(0.02)
    runner.join()
    assert result["purged"] == (ROWS, 0, 0)
    assert env.count("jobs", "archive_table") == 0

    batches = [(xid, int(n)) for xid, n in env.sql(f"SELECT {env.col('xid')}, {env.col('n')} "
                                                   f"FROM {env.name('jobs', 'table').rsplit('.', 1)[0]}.{env.col('purge_log')}")
               if int(n) > 0]
    assert sum(n for _, n in batches) == ROWS
    assert max(n for _, n in batches) <= BATCH, f"a batch deleted more than {BATCH} rows: {batches}"
    assert len(batches) == -(-ROWS // BATCH)
    assert len({xid for xid, _ in batches}) == len(batches), f"batches shared a transaction: {batches}"
    assert any(0 < count < ROWS for count in seen), \
        f"another connection never saw a batch committed before the purge ended: {sorted(set(seen))}"


def test_purge_refuses_batches_beyond_the_cap(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    # The cap: 4000, or on SQL Server what keeps a batch of this queue's rows under lock escalation.
    cap = min(4000, limits(env.spec, "jobs", env.dialect).maintenance_max)
    for size in (0, cap + 1):
        with pytest.raises(Exception, match="batch_size"):
            jobs.purge_batch(batch_size=size)
        with pytest.raises(Exception, match="batch_size"):
            jobs.purge(batch_size=size)
    assert jobs.purge(batch_size=cap) == (0, 0, 0)


def test_purge_will_not_run_inside_the_callers_transaction(use_spec):
    """It could not commit per batch there: the procedure refuses (PostgreSQL: COMMIT inside a
    transaction block is invalid; SQL Server: error 50004), the client too, and nothing is deleted."""
    env = use_spec(FEAT)
    fill(env, 10)
    conn = env.connect(autocommit=False)
    with pytest.raises(Exception) as refused:
        conn.cursor().execute(call_sql(env, "jobs", "purge", "@older_than_seconds = 0" if env.dialect == "mssql"
                                       else "older_than_seconds => 0"))
    assert ("50004" in str(refused.value)) if env.dialect == "mssql" else (refused.value.sqlstate == "2D000")
    conn.rollback()
    jobs = env.client("jobs")
    with pytest.raises(QueueUsageError):
        with jobs.transaction():
            jobs.purge(older_than_seconds=0)
    assert env.count("jobs", "archive_table") == 10
    with jobs.transaction():
        assert jobs.purge_batch(older_than_seconds=0, batch_size=4) == (4, 0, 0), "one batch joins the transaction"
    assert env.count("jobs", "archive_table") == 6


def test_purge_ends_while_jobs_keep_finishing(use_spec):
    """Rows that finish while a purge runs are not its business: with older_than_seconds = 0 and
    batches of one row, it still ends while a writer archives a row every few milliseconds."""
    env = use_spec(FEAT)
    fill(env, 20)
    stop = threading.Event()

    def write():
        for first in range(1000, 10**6):
            if stop.is_set():
                return
            fill(env, 1, first=first, age=0)  # env.admin: the purge runs on the client's own connection
            time.sleep(0.005)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        started = time.monotonic()
        purged = env.client("jobs").purge(older_than_seconds=0, batch_size=1)
        took = time.monotonic() - started
    finally:
        stop.set()
        writer.join()
    assert purged.archived >= 20
    assert took < 30, f"purge ran {took:.1f}s while rows kept finishing"
