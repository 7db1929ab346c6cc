"""Regression (the test failed before the fix): a REPEATABLE READ caller's dequeue fails with 40001 on the watermark row alone.

watermark_correct catches the serialization failure a snapshot older than the watermark row raises,
and fail/reap skip the row at REPEATABLE READ; dequeue's rescan (watermark_start) still locks the row
FOR UPDATE SKIP LOCKED at the caller's level. When another worker moved or rescanned the watermark
after the caller's snapshot, and that snapshot shows the rescan as due, the caller's dequeue fails
with SQLSTATE 40001 although no job it would claim was touched by anyone: docs/api.md only names a
job claimed or deleted after the snapshot as a cause.
"""

from __future__ import annotations

import pytest

from tests.behaviour.helpers import BEHAVE

QUEUE = "busy"        # lease, watermark every 10 ids, slack 2, rescan 2 s


@pytest.fixture
def env(use_spec):
    env = use_spec(BEHAVE)
    if env.dialect != "postgres":
        pytest.skip("PostgreSQL's snapshot isolation")
    return env


def test_a_repeatable_read_dequeue_is_not_failed_by_another_workers_watermark_move(env):
    """The rescan is due as the caller's REPEATABLE READ snapshot is taken; another worker then
    changes the watermark row. The caller's dequeue must not lock that row (40001 for a row nobody
    claimed from it): at REPEATABLE READ or SERIALIZABLE it leaves the rescan to a READ COMMITTED call."""
    worker = env.client(QUEUE)
    worker.enqueue_many([{"n": n} for n in range(40)])
    taken = [job.id for job in worker.dequeue(batch_size=5)]
    for _ in range(7):                                                # until the watermark moves
        if env.watermark(QUEUE) > 0:
            break
        taken += [job.id for job in worker.dequeue(batch_size=5)]
    assert env.watermark(QUEUE) > 0
    env.set_watermark(QUEUE, env.watermark(QUEUE), rescan_due=True)
    caller = env.connect(autocommit=True)
    caller.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    caller.execute(f"SELECT count(*) FROM {env.name(QUEUE)}")         # the caller's snapshot: rescan due
    env.set_watermark(QUEUE, env.watermark(QUEUE))                    # another session changes the row
    # The jobs after those taken were touched by nobody since the caller's snapshot.
    rows = caller.execute(f'SELECT "id" FROM {env.name(QUEUE, "dequeue")}("batch_size" => 2)').fetchall()
    caller.execute("COMMIT")
    assert [r[0] for r in rows] == [max(taken) + 1, max(taken) + 2]
