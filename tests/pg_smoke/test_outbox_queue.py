"""complete hands its result to another queue of the spec in the same transaction."""

import psycopg
import pytest
from tests.support.sql import one

SPEC = "outbox_queue"
S = "pgs_obq"


def test_complete_enqueues_downstream(db):
    for n in ("o1", "o2", "o3"):
        one(db, f"SELECT * FROM {S}.orders_enqueue(%s)", n)
    jobs = db.execute(f"SELECT * FROM {S}.orders_dequeue()").fetchall()
    token = jobs[0][3]
    assert one(db, f"SELECT {S}.orders_complete(%s, %s, order_no => 'o1', total => 9.99)", token, jobs[0][0])[0] == 1
    # the downstream dedupe (return_existing) absorbs a repeat instead of failing the completion
    assert one(db, f"SELECT {S}.orders_complete(%s, %s, order_no => 'o1', total => 1)", token, jobs[1][0])[0] == 1
    assert one(db, f"SELECT {S}.orders_complete(%s, %s, no_result => true)", token, jobs[2][0])[0] == 1
    assert db.execute(f"SELECT order_no, total::text, enqueued_by FROM {S}.invoices").fetchall() == [("o1", "9.99", "postgres")]
    assert one(db, f"SELECT count(*) FROM {S}.orders_archive")[0] == 3
    inv = db.execute(f"SELECT * FROM {S}.invoices_dequeue()").fetchone()
    assert inv[1] == "o1"
    # a lost lease writes nothing downstream
    with pytest.raises(psycopg.Error) as err:
        db.execute(f"SELECT {S}.orders_complete(%s, %s, order_no => 'o9', total => 1)", (token, jobs[0][0]))
    assert err.value.sqlstate == "QG001"
    assert one(db, f"SELECT count(*) FROM {S}.invoices WHERE order_no = 'o9'")[0] == 0
