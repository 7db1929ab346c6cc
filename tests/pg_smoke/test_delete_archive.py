"""Delete-mode queues: claims inside the caller's transaction, archive in the same statement, watermark."""

import datetime as dt
import json
import threading

from tests.support.sql import one

SPEC = "delete_archive"
S = "pgs_del"


def test_rollback_puts_back_commit_archives(installed, db):
    db.execute(f"TRUNCATE {S}.events, {S}.events_archive RESTART IDENTITY")
    db.execute(f"UPDATE {S}.events_watermark SET id = 0")
    for i in range(3):
        one(db, f"SELECT * FROM {S}.events_enqueue(%s, %s::jsonb)", f"e{i}", json.dumps({"i": i}))
    with installed.connect(autocommit=False) as conn:
        rows = conn.execute(f"SELECT * FROM {S}.events_dequeue(batch_size => 2)").fetchall()
        assert [r[:3] for r in rows] == [(1, "e0", {"i": 0}), (2, "e1", {"i": 1})]
        conn.rollback()
    assert one(db, f"SELECT count(*) FROM {S}.events")[0] == 3
    assert one(db, f"SELECT count(*) FROM {S}.events_archive")[0] == 0
    with installed.connect(autocommit=False) as conn:
        rows = conn.execute(f"SELECT * FROM {S}.events_dequeue(batch_size => 2)").fetchall()
        cols = [d.name for d in conn.execute(f"SELECT * FROM {S}.events_dequeue() LIMIT 0").description]
        assert cols == ["id", "name", "data", "enqueued_at"]
        conn.commit()
    assert db.execute(f"SELECT id, name, enqueued_by FROM {S}.events_archive ORDER BY id").fetchall() == [(1, "e0", "postgres"), (2, "e1", "postgres")]
    assert one(db, f"SELECT ready, archived, in_flight FROM {S}.events_metrics()") == (1, 2, 0)


def test_watermark_in_delete_mode(installed, db):
    db.execute(f"TRUNCATE {S}.events, {S}.events_archive RESTART IDENTITY")
    db.execute(f"UPDATE {S}.events_watermark SET id = 0")
    db.execute(f"SELECT * FROM {S}.events_enqueue_batch(%s::jsonb)", (json.dumps([{"name": f"n{i}"} for i in range(40)]),))
    with installed.connect(autocommit=False) as conn:
        assert len(conn.execute(f"SELECT * FROM {S}.events_dequeue(batch_size => 3)").fetchall()) == 3  # 1..3
        assert len(conn.execute(f"SELECT * FROM {S}.events_dequeue(batch_size => 9)").fetchall()) == 9  # 4..12: 12 above it
        assert one(conn, f"SELECT id FROM {S}.events_watermark")[0] == 10  # 12 - slack 2: nothing unclaimed below
        conn.rollback()  # the move goes with the claim
    assert one(db, f"SELECT id FROM {S}.events_watermark")[0] == 0
    with installed.connect(autocommit=False) as a, installed.connect(autocommit=False) as b:
        got_a = [r[0] for r in a.execute(f"SELECT * FROM {S}.events_dequeue(batch_size => 5)").fetchall()]
        got_b = [r[0] for r in b.execute(f"SELECT * FROM {S}.events_dequeue(batch_size => 10)").fetchall()]
        assert got_a == [1, 2, 3, 4, 5] and got_b == list(range(6, 16))
        # b reached every + slack above it and moved the watermark in its own transaction; a's rows
        # (still there for b) stop it
        assert one(b, f"SELECT id FROM {S}.events_watermark")[0] == 1
        a.commit()
        b.commit()
    assert one(db, f"SELECT * FROM {S}.events_watermark_correct()") == (1, 14)  # 16 less the slack of 2


def test_concurrent_delete_claims(installed, db):
    db.execute(f"TRUNCATE {S}.events, {S}.events_archive RESTART IDENTITY")
    db.execute(f"UPDATE {S}.events_watermark SET id = 0")
    total = 2000
    db.execute(f"SELECT * FROM {S}.events_enqueue_batch(%s::jsonb)", (json.dumps([{"name": f"n{i}"} for i in range(total)]),))
    claimed, lock = [], threading.Lock()

    def worker():
        with installed.connect(autocommit=False) as conn:
            while True:
                rows = conn.execute(f"SELECT id FROM {S}.events_dequeue(batch_size => 5)").fetchall()
                conn.commit()
                if not rows:
                    return
                with lock:
                    claimed.extend(r[0] for r in rows)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(claimed) == len(set(claimed)) == total
    assert one(db, f"SELECT count(*) FROM {S}.events_archive")[0] == total
    assert one(db, f"CALL {S}.events_purge(0)") == (total, 0, 0)


def test_typed_delete_queue_with_scheduling(db):
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)
    one(db, f"SELECT * FROM {S}.typed_enqueue('x', 1)")
    one(db, f"SELECT * FROM {S}.typed_enqueue('y', 2)")
    one(db, f"SELECT * FROM {S}.typed_enqueue('y', 3, run_at => %s)", later)
    assert one(db, f"SELECT ready, scheduled FROM {S}.typed_metrics()") == (2, 1)
    assert [r[1:3] for r in db.execute(f"SELECT * FROM {S}.typed_dequeue(job_type => 'y', at_most_once => true)").fetchall()] == [("y", 2)]
    assert [r[2] for r in db.execute(f"SELECT * FROM {S}.typed_peek()").fetchall()] == [1, 3]
    rows = db.execute(f"SELECT * FROM {S}.typed_enqueue_batch(%s::jsonb)", (json.dumps([{"kind": "z", "v": 9, "run_at": later.isoformat()}]),)).fetchall()
    assert one(db, f"SELECT available_at > now() FROM {S}.typed WHERE id = %s", rows[0][1])[0] is True
    assert one(db, f"SELECT to_regclass('{S}.typed_claim_ix') IS NOT NULL, to_regclass('{S}.events_claim_ix') IS NULL") == (True, True)


def test_claims_behind_a_held_claim_leave_the_watermark_row_alone(installed, db):
    """While a claim held open in a caller's transaction pins the watermark, every later claim is
    far enough above it to call the mover. The mover must not take the watermark row then (it can
    move nothing): a delete-mode claim would hold it through its caller's transaction, and with
    claims coming all the time the rescan (SKIP LOCKED on that row) would never run."""
    db.execute(f"TRUNCATE {S}.events, {S}.events_archive RESTART IDENTITY")
    db.execute(f"UPDATE {S}.events_watermark SET id = 0, corrected_at = now()")
    db.execute(f"SELECT * FROM {S}.events_enqueue_batch(%s::jsonb)", (json.dumps([{"name": f"n{i}"} for i in range(60)]),))
    with installed.connect(autocommit=False) as holder, installed.connect(autocommit=False) as worker:
        assert [r[0] for r in holder.execute(f"SELECT * FROM {S}.events_dequeue(batch_size => 3)").fetchall()] == [1, 2, 3]
        worker.execute(f"SELECT * FROM {S}.events_dequeue(batch_size => 20)").fetchall()  # 4..23: moves it to 1
        worker.commit()
        assert one(db, f"SELECT id FROM {S}.events_watermark")[0] == 1
        worker.execute(f"SELECT * FROM {S}.events_dequeue(batch_size => 5)").fetchall()   # 24..28: pinned at 1
        free = db.execute(f"SELECT id FROM {S}.events_watermark FOR UPDATE SKIP LOCKED").fetchall()
        assert free == [(1,)], "a claim that could move nothing holds the watermark row"
        worker.rollback()
        holder.rollback()
