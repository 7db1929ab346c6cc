"""Sessions at once: claims skip what others hold, and a deadlock victim's call is retried."""

from __future__ import annotations

import threading
import time

import pytest

from tests.behaviour.helpers import EX002, EX004


@pytest.mark.babelfish_gap("B10", "two sessions at once: what it shows is SQL Server's locking (READPAST, UPDLOCK, isolation levels)")
def test_buyers_never_get_the_same_code(use_spec):
    env = use_spec(EX002)  # example 002: claim-and-delete inside the buyer's transaction
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


@pytest.mark.parametrize("outcome", ["rollback", "commit"])
def test_a_code_the_buyer_puts_back_is_sold_again_and_a_sold_one_is_archived(use_spec, outcome):
    """The half of test_buyers_never_get_the_same_code one session shows: a buyer whose payment
    fails (rollback) puts the code back, the next claim hands it out; a committed sale moves it to
    the archive and it is never handed out again."""
    env = use_spec(EX002)  # claim-and-delete inside the buyer's transaction, archive on delete
    buyer = env.client("card_codes")
    buyer.enqueue_many([{"card_number": f"4000-{n}", "card_secret": "s"} for n in (1, 2)])
    archive = env.name("card_codes", "archive_table")
    try:
        with buyer.transaction():
            a, = buyer.dequeue()
            if outcome == "rollback":
                raise RuntimeError("the buyer's payment fails")
    except RuntimeError:
        pass
    if outcome == "rollback":
        assert env.count("card_codes") == 2 and env.count("card_codes", "archive_table") == 0
        with buyer.transaction():
            again, = buyer.dequeue()
        assert again.id == a.id, "the code put back is handed out again"
        assert env.sql(f"SELECT {env.col('id')} FROM {archive}") == [(a.id,)]
    else:
        assert env.sql(f"SELECT {env.col('id')} FROM {archive}") == [(a.id,)]
        with buyer.transaction():
            other, = buyer.dequeue()
        assert other.id != a.id, "a sold code is never handed out again"
    assert buyer.metrics()["ready"] == (1 if outcome == "rollback" else 0), "each code sold once, the rest waits"


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
    """A client call that closes a lock cycle with another session is made the victim (PostgreSQL:
    its deadlock_timeout is the shorter, so it detects the cycle; SQL Server: lower
    DEADLOCK_PRIORITY), backs off and is retried once the other session has committed.

    The cycle, per database. SQL Server: fail locks the job row, then waits for the watermark row,
    which the other session holds, and the other session then asks for the job row. PostgreSQL's
    fail never waits on the watermark row (docs/api.md, "No worker waits on the watermark row"), so
    there the call is extend_lease of a whole lease, which locks its jobs in id order: the other
    session holds the last job, the call locks the first and waits for the last, and the other
    session then asks for the first."""
    env = use_spec(EX004)
    events = env.client("rainfall_events")
    for n in range(3):
        events.enqueue(rainfall_id=n)
    victim = env.client("rainfall_events", deadlock_backoff=0.05)
    jobs = victim.dequeue(batch_size=3)
    assert len(jobs) == 3
    job = jobs[1]
    env.set_watermark("rainfall_events", 1000)  # so fail must lower it (SQL Server: lock its row)

    spid = session_id(env, victim.connection)
    other = env.connect()
    cursor = other.cursor()
    watermark, job_table, id_ = env.name("rainfall_events", "watermark_table"), env.name("rainfall_events"), env.col("id")
    placeholder = "%s" if env.dialect == "postgres" else "?"
    touch = f"UPDATE {job_table} SET {env.col('attempts')} = {env.col('attempts')} WHERE {id_} = {placeholder}"
    if env.dialect == "postgres":
        victim.connection.execute("SET deadlock_timeout = '1s'")
        victim.connection.commit()
        cursor.execute("SET deadlock_timeout = '60s'")
        cursor.execute(touch, (jobs[-1].id,))
        call, closing = (lambda: victim.extend_lease(job.lease_token)), jobs[0].id
    else:
        cursor.execute("SET DEADLOCK_PRIORITY HIGH")
        cursor.execute(f"UPDATE {watermark} SET {env.col('version')} = {env.col('version')}")
        call, closing = (lambda: victim.fail(job, "deadlocked once")), job.id

    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(call()))
    thread.start()
    try:
        wait_until_blocked(env, spid)  # the client holds a job row and waits for the other session
        cursor.execute(touch, (closing,))  # waits for the client: a cycle
        other.commit()
    finally:
        thread.join(60)
        other.close()
    assert victim.deadlock_retries == 1
    if env.dialect == "postgres":
        assert outcome == [3]
    else:
        assert outcome == ["retry"]
        assert env.watermark("rainfall_events") == job.id
        assert events.metrics()["scheduled"] == 1
