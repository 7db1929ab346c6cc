"""examples/000: the looping worker with a dedupe key and mark."""

from tests.support.sql import one

SPEC = "examples/000_flag_worker.yaml"
S = "four"
BEFORE_INSTALL = """
CREATE SCHEMA IF NOT EXISTS four;
CREATE TABLE four.seen (id bigint, reputation integer);
CREATE PROCEDURE four.count_users_with_reputation(id bigint, reputation integer)
LANGUAGE plpgsql AS $$ BEGIN INSERT INTO four.seen VALUES (id, reputation); END $$;
"""


def test_flag_worker(db):
    for r in (5, 7, 5):
        one(db, f"SELECT * FROM {S}.four_queue_enqueue(%s)", r)
    assert one(db, f"CALL {S}.four_queue_worker()")[0] == 2
    assert db.execute(f"SELECT id, reputation FROM {S}.seen ORDER BY id").fetchall() == [(1, 5), (2, 7)]
    assert one(db, f"SELECT processed FROM {S}.four_queue_metrics()")[0] == 2
    # mark keeps the rows, so their dedupe keys stay taken
    assert one(db, f"SELECT * FROM {S}.four_queue_enqueue(5)") == (1, False)
