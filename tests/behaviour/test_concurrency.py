"""Sessions at once: claims skip what others hold, and a deadlock victim's call is retried."""

from __future__ import annotations

import threading
import time

import pytest

from tests.behaviour.helpers import EX002, EX004


@pytest.mark.babelfish_gap("B10", "two sessions at once: what it shows is SQL Server's locking (READPAST, UPDLOCK, isolation levels)")
def test_buyers_never_get_the_same_code(use_spec):
    env = use_spec(EX002)  # seed 002: claim-and-delete inside the buyer's transaction
    pool = env.client("card_codes")
    pool.enqueue_many([{"card_number": f"4000-{n}", "card_secret": "s"} for n in (1, 2, 3)])
    first, second, third = (env.client("card_codes") for _ in range(3))
    with pytest.raises(RuntimeError):
        with first.transaction():
            a, = first.dequeue()
            with second.transaction():
                b, = second.dequeue()       # not blocked by the code the first buyer holds
            assert b.id != a.id
            raise RuntimeError("the first buyer's payment fails")
    with third.transaction():
        c, = third.dequeue()
    assert c.id == a.id, "the code the first buyer put back is handed out again"
    assert sorted(env.sql(f"SELECT {env.col('id')} FROM {env.name('card_codes', 'archive_table')}")) == sorted([(a.id,), (b.id,)])
    assert pool.metrics()["ready"] == 1


def session_id(env, conn):
    cursor = conn.cursor()
    cursor.execute("SELECT pg_backend_pid()" if env.dialect == "postgres" else "SELECT @@SPID")
    value = cursor.fetchone()[0]
    conn.commit()
    return value


def wait_until_blocked(env, session, limit=20.0):
    query = ("SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND wait_event_type = 'Lock'"
             if env.dialect == "postgres" else
             "SELECT count(*) FROM sys.dm_exec_requests WHERE session_id = ? AND blocking_session_id <> 0")
    give_up = time.monotonic() + limit
    while env.scalar(query, session) == 0:
        if time.monotonic() > give_up:
            raise AssertionError("the client's call never waited on the lock")
        time.sleep(0.01)


@pytest.mark.babelfish_gap("B10", "a deadlock between two sessions under SQL Server's locking")
def test_a_deadlock_victims_call_is_retried(use_spec):
    """fail locks the job row, then the watermark row. Another session holding the watermark row
    and then asking for the job row closes a cycle; the client is made the victim (PostgreSQL: its
    deadlock_timeout is the shorter, so it detects the cycle; SQL Server: lower DEADLOCK_PRIORITY),
    backs off and retries once the other session has committed."""
    env = use_spec(EX004)
    events = env.client("rainfall_events")
    for n in range(3):
        events.enqueue(rainfall_id=n)
    jobs = events.dequeue()
    job = jobs[1]
    env.set_watermark("rainfall_events", 1000)  # so fail must lower it, and lock its row

    victim = env.client("rainfall_events", deadlock_backoff=0.05)
    spid = session_id(env, victim.connection)
    other = env.connect()
    cursor = other.cursor()
    watermark, job_table, id_ = env.name("rainfall_events", "watermark_table"), env.name("rainfall_events"), env.col("id")
    if env.dialect == "postgres":
        victim.connection.execute("SET deadlock_timeout = '1s'")
        victim.connection.commit()
        cursor.execute("SET deadlock_timeout = '60s'")
        cursor.execute(f"UPDATE {watermark} SET {id_} = {id_}")
    else:
        cursor.execute("SET DEADLOCK_PRIORITY HIGH")
        cursor.execute(f"UPDATE {watermark} SET {env.col('version')} = {env.col('version')}")

    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(victim.fail(job, "deadlocked once")))
    thread.start()
    try:
        wait_until_blocked(env, spid)  # the client holds the job row and waits for the watermark row
        placeholder = "%s" if env.dialect == "postgres" else "?"
        cursor.execute(f"UPDATE {job_table} SET {env.col('attempts')} = {env.col('attempts')} "
                       f"WHERE {id_} = {placeholder}", (job.id,))  # waits for the client: a cycle
        other.commit()
    finally:
        thread.join(60)
        other.close()
    assert outcome == ["retry"]
    assert victim.deadlock_retries == 1
    assert env.watermark("rainfall_events") == job.id
    assert events.metrics()["scheduled"] == 1
