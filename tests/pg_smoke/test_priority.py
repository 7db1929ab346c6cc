"""Priority queue without watermark, archive on complete, dead_letter: false."""

import json

from tests.support.sql import one

SPEC = "priority"
S = "pgs_prio"


def test_priority_order_archive_no_dead_letter(db):
    for msg, prio in (("low", 0), ("high", 9), ("mid", 5), ("high2", 9)):
        one(db, f"SELECT * FROM {S}.urgent_enqueue(%s, priority => %s)", msg, prio)
    db.execute(f"SELECT * FROM {S}.urgent_enqueue_batch(%s::jsonb)", (json.dumps([{"msg": "batch-top", "priority": 10}, {"msg": "batch-default"}]),))
    assert [r[1] for r in db.execute(f"SELECT * FROM {S}.urgent_peek()").fetchall()] == ["batch-top", "high", "high2", "mid", "low", "batch-default"]
    jobs = db.execute(f"SELECT * FROM {S}.urgent_dequeue(batch_size => 3)").fetchall()
    assert [(j[1], j[2]) for j in jobs] == [("batch-top", 10), ("high", 9), ("high2", 9)]
    cols = [d.name for d in db.execute(f"SELECT * FROM {S}.urgent_dequeue() LIMIT 0").description]
    assert cols == ["id", "msg", "priority", "attempts", "lease_token", "lease_expires_at"]
    token = jobs[0][4]
    assert one(db, f"SELECT {S}.urgent_complete(%s)", token)[0] == 3
    assert db.execute(f"SELECT msg, priority, attempts FROM {S}.urgent_archive ORDER BY id").fetchall() == [("high", 9, 1), ("high2", 9, 1), ("batch-top", 10, 1)]
    m = db.execute(f"SELECT * FROM {S}.urgent_metrics()")
    row = dict(zip([d.name for d in m.description], m.fetchone()))
    assert row["archived"] == 3 and row["watermark"] is None and row["dead"] == 0
    # max_attempts 2, dead_letter false: the second failure deletes the job
    job = db.execute(f"SELECT * FROM {S}.urgent_dequeue(batch_size => 1)").fetchone()
    assert one(db, f"SELECT {S}.urgent_fail(%s, %s)", job[4], job[0])[0] == 0
    db.execute(f"UPDATE {S}.urgent SET available_at = now() WHERE id = %s", (job[0],))
    job2 = db.execute(f"SELECT * FROM {S}.urgent_dequeue(batch_size => 1)").fetchone()
    assert job2[0] == job[0] and job2[3] == 2
    assert one(db, f"SELECT {S}.urgent_fail(%s, %s)", job2[4], job2[0])[0] == 1
    assert one(db, f"SELECT count(*) FROM {S}.urgent WHERE id = %s", job[0])[0] == 0
    db.execute(f"UPDATE {S}.urgent_archive SET completed_at = now() - interval '30 days'")
    assert one(db, f"CALL {S}.urgent_purge(batch_size => 2)") == (3, 0, 0)


def test_no_watermark_objects(db):
    assert one(db, f"SELECT to_regclass('{S}.urgent_watermark') IS NULL, to_regprocedure('{S}.urgent_watermark_move(bigint)') IS NULL") == (True, True)
