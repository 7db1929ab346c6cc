"""Lease queue with job types, dedupe, scheduling, audit, mark and an outbox table; plus dedupe: error."""

import datetime as dt
import json

import psycopg
import pytest
from tests.support.sql import one

SPEC = "full_lease"
S = "pgs_full"


def reset(db):
    db.execute(f"TRUNCATE {S}.tasks, {S}.tasks_dead, {S}.tasks_outbox, {S}.strict RESTART IDENTITY")
    db.execute(f"UPDATE {S}.tasks_watermark SET id = 0")


def test_signature_defaults(db):
    # nullable payload columns after the required ones keep their DEFAULT NULL
    row = one(db, f"SELECT * FROM {S}.tasks_enqueue('a', 1, 'i1')")
    assert row[1] is True


def test_dedupe_return_existing_and_audit(db):
    reset(db)
    first = one(db, f"SELECT * FROM {S}.tasks_enqueue(job_type => 'a', tenant => 1, item => 'x', body => %s::jsonb)", json.dumps({"k": 1}))
    again = one(db, f"SELECT * FROM {S}.tasks_enqueue(job_type => 'b', tenant => 1, item => 'x')")
    assert first == (1, True) and again == (1, False)
    row = one(db, f"SELECT enqueued_by, body FROM {S}.tasks WHERE id = 1")
    assert row == ("postgres", {"k": 1})
    new_id = one(db, f"SELECT id FROM {S}.tasks_enqueue('a', 2, 'y', enqueued_by => 'me')")[0]
    assert one(db, f"SELECT enqueued_by FROM {S}.tasks WHERE id = %s", new_id)[0] == "me"


def test_batch_ordinals_and_dedupe(db):
    reset(db)
    one(db, f"SELECT * FROM {S}.tasks_enqueue('a', 1, 'old')")
    jobs = [
        {"ordinal": 30, "job_type": "a", "tenant": 1, "item": "p"},
        {"ordinal": 10, "job_type": "a", "tenant": 1, "item": "q", "amount": 12.5},
        {"ordinal": 20, "job_type": "a", "tenant": 1, "item": "old"},
        {"ordinal": 40, "job_type": "a", "tenant": 1, "item": "q"},
    ]
    rows = db.execute(f"SELECT * FROM {S}.tasks_enqueue_batch(%s::jsonb, 'batcher')", (json.dumps(jobs),)).fetchall()
    assert rows[0] == (10, 2, True)       # ids drawn in ordinal order
    assert rows[1] == (20, 1, False)      # already queued
    assert rows[2] == (30, 4, True)
    assert rows[3] == (40, 2, False)      # repeated in the batch
    assert one(db, f"SELECT count(*), min(enqueued_by) FROM {S}.tasks WHERE id > 1") == (2, "batcher")
    # no ordinal: the array position
    rows = db.execute(f"SELECT * FROM {S}.tasks_enqueue_batch(%s::jsonb)",
                      (json.dumps([{"job_type": "a", "tenant": 2, "item": "m"}, {"job_type": "a", "tenant": 2, "item": "n"}]),)).fetchall()
    assert [r[0] for r in rows] == [1, 2] and rows[0][1] < rows[1][1]
    # a missing required column is the table's not-null error
    with pytest.raises(psycopg.errors.NotNullViolation):
        db.execute(f"SELECT * FROM {S}.tasks_enqueue_batch(%s::jsonb)", (json.dumps([{"tenant": 3, "item": "z"}]),))


def test_dedupe_error(db):
    reset(db)
    assert one(db, f"SELECT * FROM {S}.strict_enqueue('k1')") == (1, True)
    with pytest.raises(psycopg.errors.UniqueViolation) as err:
        db.execute(f"SELECT * FROM {S}.strict_enqueue('k1')")
    assert str(err.value).startswith("qgen: duplicate job on pgs_full.strict")
    with pytest.raises(psycopg.errors.UniqueViolation) as err:
        db.execute(f"SELECT * FROM {S}.strict_enqueue_batch(%s::jsonb)", (json.dumps([{"key": "k2"}, {"key": "k2"}]),))
    assert "qgen: duplicate job" in str(err.value)
    assert one(db, f"SELECT count(*) FROM {S}.strict")[0] == 1  # nothing of the failed batch stayed
    rows = db.execute(f"SELECT * FROM {S}.strict_enqueue_batch(%s::jsonb)", (json.dumps([{"key": "k3"}, {"key": "k4"}]),)).fetchall()
    assert [r[2] for r in rows] == [True, True]


def test_job_types_scheduling(db):
    reset(db)
    one(db, f"SELECT * FROM {S}.tasks_enqueue('a', 1, 'i1')")
    one(db, f"SELECT * FROM {S}.tasks_enqueue('b', 1, 'i2')")
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)
    one(db, f"SELECT * FROM {S}.tasks_enqueue('b', 1, 'i3', run_at => %s)", later)
    assert one(db, f"SELECT ready, scheduled FROM {S}.tasks_metrics()") == (2, 1)
    got = db.execute(f"SELECT id, job_type FROM {S}.tasks_dequeue(job_type => 'b', owner => 'w')").fetchall()
    assert got == [(2, "b")]
    assert one(db, f"SELECT claimed_by, claimed_at IS NOT NULL FROM {S}.tasks WHERE id = 2") == ("w", True)
    assert db.execute(f"SELECT id FROM {S}.tasks_dequeue(job_type => 'b')").fetchall() == []
    assert [r[0] for r in db.execute(f"SELECT id FROM {S}.tasks_peek(job_type => 'b')").fetchall()] == [3]
    assert [r[0] for r in db.execute(f"SELECT id FROM {S}.tasks_peek()").fetchall()] == [1, 3]
    cols = [d.name for d in db.execute(f"SELECT * FROM {S}.tasks_dequeue() LIMIT 0").description]
    assert cols == ["id", "job_type", "tenant", "item", "note", "body", "amount", "attempts", "lease_token", "lease_expires_at"]


def test_mark_outbox_purge(db):
    reset(db)
    one(db, f"SELECT * FROM {S}.tasks_enqueue('a', 1, 'i1')")
    one(db, f"SELECT * FROM {S}.tasks_enqueue('a', 1, 'i2')")
    jobs = db.execute(f"SELECT * FROM {S}.tasks_dequeue()").fetchall()
    token = jobs[0][8]
    assert one(db, f"SELECT {S}.tasks_complete(%s, %s, summary => 'done', score => 7)", token, jobs[0][0])[0] == 1
    assert one(db, f"SELECT {S}.tasks_complete(%s, %s, no_result => true)", token, jobs[1][0])[0] == 1  # no outbox row
    assert db.execute(f"SELECT source_id, summary, score FROM {S}.tasks_outbox").fetchall() == [(1, "done", 7)]
    row = one(db, f"SELECT processed, processed_at IS NOT NULL, lease_token, lease_owner FROM {S}.tasks WHERE id = 1")
    assert row == (True, True, None, None)
    assert one(db, f"SELECT processed, ready, lowest_pending_id FROM {S}.tasks_metrics()") == (2, 0, None)
    assert db.execute(f"SELECT * FROM {S}.tasks_dequeue()").fetchall() == []
    # complete again: the job is finished, lease lost
    with pytest.raises(psycopg.Error) as err:
        db.execute(f"SELECT {S}.tasks_complete(%s, %s, summary => 'again')", (token, jobs[0][0]))
    assert err.value.sqlstate == "QG001"
    assert one(db, f"SELECT count(*) FROM {S}.tasks_outbox")[0] == 1  # rolled back with the error
    assert one(db, f"CALL {S}.tasks_purge()") == (0, 0, 0)
    db.execute(f"UPDATE {S}.tasks SET processed_at = now() - interval '8 days' WHERE id = 1")
    assert one(db, f"CALL {S}.tasks_purge()") == (0, 1, 0)
    # watermark: processed rows are not pending; correct goes past them
    assert one(db, f"SELECT * FROM {S}.tasks_watermark_correct()") == (0, 0)  # 3 less the slack of 50, not below 0


def test_fail_backoff_custom(db):
    reset(db)
    one(db, f"SELECT * FROM {S}.tasks_enqueue('a', 1, 'i1')")
    delays = []
    for _attempt in (1, 2):
        db.execute(f"UPDATE {S}.tasks SET available_at = now()")
        job = db.execute(f"SELECT * FROM {S}.tasks_dequeue()").fetchone()
        assert one(db, f"SELECT {S}.tasks_fail(%s, %s, 'x')", job[8], job[0])[0] == 0
        delays.append(one(db, f"SELECT round(extract(epoch from available_at - now())) FROM {S}.tasks")[0])
    assert delays == [2, 6]  # base 2, factor 3 (max 10)
    db.execute(f"UPDATE {S}.tasks SET available_at = now()")
    job = db.execute(f"SELECT * FROM {S}.tasks_dequeue()").fetchone()
    assert one(db, f"SELECT {S}.tasks_fail(%s, %s, 'x')", job[8], job[0])[0] == 1
    assert one(db, f"SELECT attempts, claimed_by FROM {S}.tasks_dead")[0] == 3


def test_dedupe_races(installed, db):
    """A second session enqueueing a key another has inserted but not committed waits, then gets that id."""
    import threading

    reset(db)
    results = {}
    with installed.connect(autocommit=False) as a:
        first = one(a, f"SELECT * FROM {S}.tasks_enqueue('a', 9, 'race')")
        first_b = one(a, f"SELECT * FROM {S}.tasks_enqueue('a', 9, 'race2')")

        def single():
            with installed.connect() as b:
                results["single"] = one(b, f"SELECT * FROM {S}.tasks_enqueue('a', 9, 'race')")

        def batch():
            with installed.connect() as b:
                results["batch"] = b.execute(f"SELECT * FROM {S}.tasks_enqueue_batch(%s::jsonb)",
                                             (json.dumps([{"job_type": "a", "tenant": 9, "item": "race2"},
                                                          {"job_type": "a", "tenant": 9, "item": "fresh"}]),)).fetchall()

        threads = [threading.Thread(target=single), threading.Thread(target=batch)]
        for t in threads:
            t.start()
        import time
        time.sleep(0.5)
        assert results == {}  # both wait on the uncommitted keys
        a.commit()
        for t in threads:
            t.join()
    assert results["single"] == (first[0], False)
    assert results["batch"][0] == (1, first_b[0], False)  # found by the follow-up lookup
    assert results["batch"][1][2] is True
