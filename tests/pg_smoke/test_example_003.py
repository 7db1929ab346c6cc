"""examples/003: mixed-case names, names: overrides, a uuid job type, an xml payload, audit and mark."""

import uuid
from tests.support.sql import one

SPEC = "examples/003_queue_sample.yaml"
S = '"QueueSample"'


def test_queue_sample(db):
    kind = uuid.uuid4()
    assert one(db, f'SELECT * FROM {S}."QueueJob"(%s)', kind)[1] is True  # JobInfo defaults to NULL
    one(db, f'SELECT * FROM {S}."QueueJob"(%s, %s::xml)', kind, "<a>1</a>")
    one(db, f'SELECT * FROM {S}."QueueJob"(%s)', uuid.uuid4())
    assert [r[0] for r in db.execute(f'SELECT * FROM {S}."ViewQueue"(job_type => %s)', (kind,)).fetchall()] == [1, 2]
    job = db.execute(f'SELECT * FROM {S}."GetNextJob"(job_type => %s)', (kind,)).fetchone()
    assert job[0] == 1 and job[1] == kind
    assert one(db, f'SELECT {S}."WorkQueue_complete"(%s)', job[4])[0] == 1
    assert one(db, f'SELECT processed, ready FROM {S}."WorkQueue_metrics"()') == (1, 2)
    assert [r[0] for r in db.execute(f'SELECT "id" FROM {S}."WorkQueue_Pending" ORDER BY 1').fetchall()] == [2, 3]
