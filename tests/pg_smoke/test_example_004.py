"""examples/004: complete (mark) hands the result to a delete-mode queue in the same transaction."""

from tests.support.sql import one

SPEC = "examples/004_rainfall.yaml"
S = "rainfall"


def test_rainfall(installed, db):
    for i in (10, 11):
        one(db, f"SELECT * FROM {S}.rainfall_events_enqueue(%s)", i)
    jobs = db.execute(f"SELECT * FROM {S}.rainfall_events_dequeue()").fetchall()
    assert one(db, f"SELECT {S}.rainfall_events_complete(%s, %s, rainfall_id => 10, summary => 'wet')", jobs[0][3], jobs[0][0])[0] == 1
    job = db.execute(f"SELECT * FROM {S}.rainfall_events_dequeue()").fetchall()
    assert job == []
    with installed.connect(autocommit=False) as conn:
        rows = conn.execute(f"SELECT rainfall_id, summary FROM {S}.rainfall_transfer_dequeue()").fetchall()
        assert rows == [(10, "wet")]
        conn.commit()
    assert one(db, f"SELECT processed, in_flight FROM {S}.rainfall_events_metrics()") == (1, 1)
