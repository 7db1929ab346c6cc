"""Lease queue with every default: the full lifecycle, watermark, concurrency and grants."""

import threading

import psycopg
import pytest

from tests.support.run import named
from tests.support.sql import one

SPEC = "minimal"
S = "pgs_min"
C1 = named("pgs_min_c1")  # a login of this run's own
P1 = named("pgs_min_p1")  # a login of this run's own
A1 = named("pgs_min_a1")  # a login of this run's own


def reset(db):
    db.execute(f"TRUNCATE {S}.jobs, {S}.jobs_dead RESTART IDENTITY")
    db.execute(f"UPDATE {S}.jobs_watermark SET id = 0")


def test_enqueue_dequeue_complete(db):
    reset(db)
    row = one(db, f"SELECT * FROM {S}.jobs_enqueue(%s)", "http://a")
    assert row == (1, True)
    jobs = db.execute(f"SELECT * FROM {S}.jobs_dequeue(owner => 'w1')").fetchall()
    assert len(jobs) == 1
    job = jobs[0]
    cols = [d.name for d in db.execute(f"SELECT * FROM {S}.jobs_dequeue() LIMIT 0").description]
    assert cols == ["id", "url", "attempts", "lease_token", "lease_expires_at"]
    assert job[0] == 1 and job[1] == "http://a" and job[2] == 1
    owner = one(db, f"SELECT lease_owner FROM {S}.jobs WHERE id = 1")[0]
    assert owner == "w1"
    assert one(db, f"SELECT {S}.jobs_complete(%s, %s)", job[3], job[0])[0] == 1
    assert one(db, f"SELECT count(*) FROM {S}.jobs")[0] == 0
    with pytest.raises(psycopg.Error) as err:
        db.execute(f"SELECT {S}.jobs_complete(%s, %s)", (job[3], job[0]))
    assert err.value.sqlstate == "QG001"
    assert "qgen: lease lost" in str(err.value)


def test_complete_whole_lease_and_extend(db):
    reset(db)
    for i in range(3):
        db.execute(f"SELECT * FROM {S}.jobs_enqueue(%s)", (f"u{i}",))
    jobs = db.execute(f"SELECT * FROM {S}.jobs_dequeue(batch_size => 2)").fetchall()
    assert [j[0] for j in jobs] == [1, 2]
    token = jobs[0][3]
    assert all(j[3] == token for j in jobs)
    before = one(db, f"SELECT max(lease_expires_at) FROM {S}.jobs")[0]
    assert one(db, f"SELECT {S}.jobs_extend_lease(%s, 3600)", token)[0] == 2
    assert one(db, f"SELECT {S}.jobs_extend_lease(%s, 3600, %s)", token, 1)[0] == 1
    assert one(db, f"SELECT max(lease_expires_at) FROM {S}.jobs")[0] > before
    assert one(db, f"SELECT {S}.jobs_complete(%s)", token)[0] == 2
    with pytest.raises(psycopg.Error) as err:
        db.execute(f"SELECT {S}.jobs_extend_lease(%s)", (token,))
    assert err.value.sqlstate == "QG001"


def test_fail_retry_backoff_then_dead_letter(db):
    reset(db)
    db.execute(f"SELECT * FROM {S}.jobs_enqueue('x')")
    job = db.execute(f"SELECT * FROM {S}.jobs_dequeue()").fetchone()
    assert one(db, f"SELECT {S}.jobs_fail(%s, %s, 'boom')", job[3], job[0])[0] == 0
    row = one(db, f"SELECT lease_token, last_error, round(extract(epoch from available_at - now())) FROM {S}.jobs")
    assert row[0] is None and row[1] == "boom" and row[2] == 10  # base 10 * 2^0
    assert db.execute(f"SELECT * FROM {S}.jobs_dequeue()").fetchall() == []  # backing off
    assert one(db, f"SELECT scheduled, ready FROM {S}.jobs_metrics()") == (1, 0)
    # Fail it until the attempts (5) run out; the backoff grows 10, 20, 40, 80.
    delays = []
    for attempt in range(2, 6):
        db.execute(f"UPDATE {S}.jobs SET available_at = now()")
        job = db.execute(f"SELECT * FROM {S}.jobs_dequeue()").fetchone()
        assert job[2] == attempt
        result = one(db, f"SELECT {S}.jobs_fail(%s, %s, %s)", job[3], job[0], f"e{attempt}")[0]
        if attempt < 5:
            assert result == 0
            delays.append(one(db, f"SELECT round(extract(epoch from available_at - now())) FROM {S}.jobs")[0])
        else:
            assert result == 1
    assert delays == [20, 40, 80]
    assert one(db, f"SELECT count(*) FROM {S}.jobs")[0] == 0
    dead = one(db, f"SELECT id, url, attempts, last_error FROM {S}.jobs_dead")
    assert dead == (1, "x", 5, "e5")
    # retry => false dead-letters at once; a wrong token is lease lost.
    db.execute(f"SELECT * FROM {S}.jobs_enqueue('y')")
    job = db.execute(f"SELECT * FROM {S}.jobs_dequeue()").fetchone()
    with pytest.raises(psycopg.Error) as err:
        db.execute(f"SELECT {S}.jobs_fail(gen_random_uuid(), %s)", (job[0],))
    assert err.value.sqlstate == "QG001"
    assert one(db, f"SELECT {S}.jobs_fail(%s, %s, 'no', retry => false)", job[3], job[0])[0] == 1
    assert one(db, f"SELECT dead FROM {S}.jobs_metrics()")[0] == 2


def test_reap(db):
    reset(db)
    for i in range(3):
        db.execute(f"SELECT * FROM {S}.jobs_enqueue(%s)", (f"u{i}",))
    jobs = db.execute(f"SELECT * FROM {S}.jobs_dequeue()").fetchall()
    db.execute(f"UPDATE {S}.jobs SET lease_expires_at = now() - interval '1 second' WHERE id IN (1, 2)")
    db.execute(f"UPDATE {S}.jobs SET attempts = 5 WHERE id = 2")
    db.execute(f"UPDATE {S}.jobs_watermark SET id = 3")
    assert one(db, f"SELECT expired, in_flight FROM {S}.jobs_metrics()") == (2, 3)
    assert one(db, f"SELECT * FROM {S}.jobs_reap()") == (1, 1)
    assert one(db, f"SELECT id FROM {S}.jobs_watermark")[0] == 1  # lowered to the released job
    assert one(db, f"SELECT last_error FROM {S}.jobs_dead WHERE id = 2")[0].startswith("qgen: lease expired")
    with pytest.raises(psycopg.Error) as err:  # the late worker is fenced off
        db.execute(f"SELECT {S}.jobs_complete(%s, 1)", (jobs[0][3],))
    assert err.value.sqlstate == "QG001"
    assert one(db, f"SELECT {S}.jobs_complete(%s, 3)", jobs[0][3])[0] == 1  # its other job still holds
    assert one(db, f"SELECT * FROM {S}.jobs_reap()") == (0, 0)


def test_expired_lease_still_completes_when_not_taken(db):
    reset(db)
    db.execute(f"SELECT * FROM {S}.jobs_enqueue('x')")
    job = db.execute(f"SELECT * FROM {S}.jobs_dequeue()").fetchone()
    db.execute(f"UPDATE {S}.jobs SET lease_expires_at = now() - interval '1 hour'")
    assert one(db, f"SELECT {S}.jobs_complete(%s, %s)", job[3], job[0])[0] == 1


def test_watermark_move_fail_correct(db):
    reset(db)
    db.execute(f"SELECT * FROM {S}.jobs_enqueue_batch(%s::jsonb)",
               ("[" + ",".join(f'{{"url": "u{i}"}}' for i in range(300)) + "]",))
    tokens = []
    for _ in range(16):  # claims ids 1..160; the claim of 141..150, every + slack above 0, moves it to 150 - 50
        tokens.append(db.execute(f"SELECT * FROM {S}.jobs_dequeue()").fetchall())
    assert one(db, f"SELECT id FROM {S}.jobs_watermark")[0] == 100
    # A release below the watermark lowers it.
    first = tokens[0][0]
    assert one(db, f"SELECT {S}.jobs_fail(%s, %s)", first[3], first[0])[0] == 0
    assert one(db, f"SELECT id FROM {S}.jobs_watermark")[0] == 1
    # move never lowers, stops at the lowest unclaimed row in the range it would pass; a job waiting
    # out its backoff (deferred: available later than enqueued) is not one, the due index holds it.
    db.execute(f"SELECT {S}.jobs_watermark_move(200)")
    assert one(db, f"SELECT id FROM {S}.jobs_watermark")[0] == 150
    db.execute(f"UPDATE {S}.jobs SET lease_token = NULL, available_at = enqueued_at WHERE id = 3")  # unclaimed, ready
    db.execute(f"UPDATE {S}.jobs_watermark SET id = 1")
    db.execute(f"SELECT {S}.jobs_watermark_move(200)")
    assert one(db, f"SELECT id FROM {S}.jobs_watermark")[0] == 3
    db.execute(f"UPDATE {S}.jobs SET lease_token = gen_random_uuid() WHERE id = 3")
    db.execute(f"UPDATE {S}.jobs_watermark SET id = 5")
    db.execute(f"SELECT {S}.jobs_watermark_move(60)")
    assert one(db, f"SELECT id FROM {S}.jobs_watermark")[0] == 10  # ids 5..9 are claimed: up to the target
    db.execute(f"SELECT {S}.jobs_watermark_move(1000)")
    assert one(db, f"SELECT id FROM {S}.jobs_watermark")[0] == 161  # the lowest unclaimed id in [10, 950)
    # correct: the slack (50) below the lowest unclaimed id overall (the deferred job 1 aside), never below 0.
    assert one(db, f"SELECT * FROM {S}.jobs_watermark_correct()") == (161, 111)
    db.execute(f"UPDATE {S}.jobs SET available_at = enqueued_at WHERE id = 1")  # no longer deferred: it counts
    assert one(db, f"SELECT * FROM {S}.jobs_watermark_correct()") == (111, 0)
    # everything claimed: the slack below one past the highest id
    db.execute(f"UPDATE {S}.jobs SET lease_token = gen_random_uuid()")
    assert one(db, f"SELECT * FROM {S}.jobs_watermark_correct()") == (0, 251)
    db.execute(f"TRUNCATE {S}.jobs")
    assert one(db, f"SELECT * FROM {S}.jobs_watermark_correct()") == (251, 251)
    # a dequeue below the watermark sees nothing; correct repairs it
    db.execute(f"SELECT * FROM {S}.jobs_enqueue('late')")
    db.execute(f"UPDATE {S}.jobs_watermark SET id = 10000")
    assert db.execute(f"SELECT * FROM {S}.jobs_dequeue()").fetchall() == []
    db.execute(f"SELECT * FROM {S}.jobs_watermark_correct()")
    assert len(db.execute(f"SELECT * FROM {S}.jobs_dequeue()").fetchall()) == 1


def test_move_skips_when_locked(installed, db):
    reset(db)
    db.execute(f"SELECT * FROM {S}.jobs_enqueue_batch(%s::jsonb)", ('[{"url": "a"}]',))
    db.execute(f"UPDATE {S}.jobs SET lease_token = gen_random_uuid()")
    with installed.connect(autocommit=False) as other:
        other.execute(f"SELECT id FROM {S}.jobs_watermark FOR UPDATE")
        db.execute(f"SELECT {S}.jobs_watermark_move(1000)")  # returns at once
        assert one(db, f"SELECT id FROM {S}.jobs_watermark")[0] == 0
        other.rollback()
    db.execute(f"SELECT {S}.jobs_watermark_move(1000)")
    assert one(db, f"SELECT id FROM {S}.jobs_watermark")[0] == 950


def test_peek_metrics_purge(db):
    reset(db)
    for i in range(3):
        db.execute(f"SELECT * FROM {S}.jobs_enqueue(%s)", (f"u{i}",))
    db.execute(f"SELECT * FROM {S}.jobs_dequeue(batch_size => 1)")
    peeked = db.execute(f'SELECT id, url FROM {S}.jobs_peek("limit" => 1)').fetchall()
    assert peeked == [(2, "u1")]
    assert len(db.execute(f"SELECT * FROM {S}.jobs_peek()").fetchall()) == 2
    m = db.execute(f"SELECT * FROM {S}.jobs_metrics()")
    row = dict(zip([d.name for d in m.description], m.fetchone()))
    assert row["ready"] == 2 and row["in_flight"] == 1 and row["scheduled"] == 0 and row["archived"] == 0
    assert row["lowest_pending_id"] == 2 and row["watermark"] == 0 and row["oldest_ready_age_seconds"] >= 0
    db.execute(f"INSERT INTO {S}.jobs_dead (id, url, enqueued_at, attempts, dead_at) VALUES (90, 'd', now(), 5, now() - interval '8 days'), (91, 'd', now(), 5, now())")
    assert one(db, f"CALL {S}.jobs_purge()") == (0, 0, 1)
    assert one(db, f"CALL {S}.jobs_purge(0, 1)") == (0, 0, 1)


def test_skip_locked_two_sessions(installed, db):
    reset(db)
    db.execute(f"SELECT * FROM {S}.jobs_enqueue_batch(%s::jsonb)",
               ("[" + ",".join(f'{{"url": "u{i}"}}' for i in range(10)) + "]",))
    with installed.connect(autocommit=False) as a, installed.connect(autocommit=False) as b:
        got_a = [r[0] for r in a.execute(f"SELECT * FROM {S}.jobs_dequeue(batch_size => 4)").fetchall()]
        got_b = [r[0] for r in b.execute(f"SELECT * FROM {S}.jobs_dequeue(batch_size => 4)").fetchall()]
        assert got_a == [1, 2, 3, 4] and got_b == [5, 6, 7, 8]  # b skipped a's locked, uncommitted rows
        a.commit()
        b.commit()


def test_concurrent_claims_never_overlap(installed, db):
    reset(db)
    total = 3000
    db.execute(f"SELECT * FROM {S}.jobs_enqueue_batch(%s::jsonb)",
               ("[" + ",".join(f'{{"url": "u{i}"}}' for i in range(total)) + "]",))
    claimed: list[int] = []
    lock = threading.Lock()

    def worker():
        with installed.connect() as conn:
            while True:
                rows = conn.execute(f"SELECT * FROM {S}.jobs_dequeue(batch_size => 7)").fetchall()
                if not rows:
                    return
                for r in rows:
                    conn.execute(f"SELECT {S}.jobs_complete(%s, %s)", (r[3], r[0]))
                with lock:
                    claimed.extend(r[0] for r in rows)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(claimed) == len(set(claimed)) == total
    assert one(db, f"SELECT count(*) FROM {S}.jobs")[0] == 0


def test_grants(installed, db):
    db.execute(f"DROP ROLE IF EXISTS {C1}")
    db.execute(f"DROP ROLE IF EXISTS {P1}")
    db.execute(f"CREATE ROLE {C1} LOGIN IN ROLE {installed.role('consumer')}")
    db.execute(f"CREATE ROLE {P1} LOGIN IN ROLE {installed.role('producer')}")
    try:
        reset(db)
        with psycopg.connect(installed.dsn.replace("user=postgres", f"user={P1}"), autocommit=True) as p:
            assert one(p, f"SELECT enqueued FROM {S}.jobs_enqueue('g')")[0] is True
            p.execute(f"SELECT * FROM {S}.jobs_enqueue_batch('[{{\"url\": \"h\"}}]')")
            for sql in (f"SELECT * FROM {S}.jobs", f"SELECT * FROM {S}.jobs_dequeue()"):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    p.execute(sql)
        with psycopg.connect(installed.dsn.replace("user=postgres", f"user={C1}"), autocommit=True) as c:
            job = c.execute(f"SELECT * FROM {S}.jobs_dequeue()").fetchone()
            assert one(c, f"SELECT {S}.jobs_complete(%s, %s)", job[3], job[0])[0] == 1
            for sql in (f"SELECT * FROM {S}.jobs", f"SELECT * FROM {S}.jobs_pending", f"SELECT * FROM {S}.jobs_metrics()",
                        f"SELECT * FROM {S}.jobs_enqueue('x')", f"DELETE FROM {S}.jobs", f"SELECT * FROM {S}.jobs_watermark_move(5)"):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    c.execute(sql)
    finally:
        db.execute(f"DROP ROLE {C1}")
        db.execute(f"DROP ROLE {P1}")


def test_admin_grants(installed, db):
    db.execute(f"DROP ROLE IF EXISTS {A1}")
    db.execute(f"CREATE ROLE {A1} LOGIN IN ROLE {installed.role('admin')}")
    try:
        with psycopg.connect(installed.dsn.replace("user=postgres", f"user={A1}"), autocommit=True) as a:
            a.execute(f"SELECT * FROM {S}.jobs_metrics()")
            a.execute(f"SELECT * FROM {S}.jobs_pending")
            a.execute(f"SELECT * FROM {S}.jobs_reap()")
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                a.execute(f"SELECT * FROM {S}.jobs")
    finally:
        db.execute(f"DROP ROLE {A1}")
