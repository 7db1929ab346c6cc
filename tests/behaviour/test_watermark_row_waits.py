"""PostgreSQL: no procedure on a worker's path waits on the watermark row another transaction holds.

Two live sessions. The holder keeps the watermark row locked in a transaction it leaves open: a
caller's transaction whose dequeue crossed a multiple of watermark.every (watermark_move locks the
row), or an uncommitted watermark_correct. Meanwhile a worker, whose session has a lock_timeout,
fails a job below the watermark, reaps an expired lease below it, runs maintain and corrects the
watermark. Each must return without waiting: a call that waited on the row would hit the
lock_timeout (SQLSTATE 55P03) instead, which is the assertion, not a measured duration. Once the
holder is gone, the released jobs are delivered within the rescan bound (docs/api.md).
"""

from __future__ import annotations

import pytest

from tests.behaviour.helpers import BEHAVE
from tests.behaviour.test_hostile_session import MARGIN, wait_until

QUEUE = "busy"        # lease, watermark every 10 ids, slack 2, rescan 2 s
LOCK_TIMEOUT = "3s"   # far longer than any of these calls takes when it does not wait


@pytest.fixture
def env(use_spec):
    env = use_spec(BEHAVE)
    if env.dialect != "postgres":
        pytest.skip("SQL Server's releases lower the watermark under their own lock rules (UPDLOCK, READPAST)")
    return env


def hold_by_dequeue(env):
    """A caller's transaction whose dequeue crossed a multiple of watermark.every: it holds the row."""
    holder = env.connect()
    ids = [r[0] for r in holder.execute(f'SELECT "id" FROM {env.name(QUEUE, "dequeue")}("batch_size" => 5)')]
    assert ids and max(ids) // 10 > (min(ids) - 1) // 10, ids
    return holder


def hold_by_correct(env):
    """An uncommitted watermark_correct."""
    holder = env.connect()
    holder.execute(f'SELECT * FROM {env.name(QUEUE, "watermark_correct")}()')
    return holder


@pytest.mark.parametrize("hold", [hold_by_dequeue, hold_by_correct], ids=["dequeue-in-transaction", "open-correct"])
def test_a_worker_never_waits_on_the_watermark_row(env, hold):
    client = env.client(QUEUE)
    client.enqueue_many([{"n": n} for n in range(40)])
    failing, expiring = client.dequeue(batch_size=2)                 # jobs 1 and 2
    env.backdate(QUEUE, "lease_expires_at", 120, ids=[expiring.id])
    env.set_watermark(QUEUE, 8)                                      # above both, as a move leaves it
    holder = hold(env)
    try:
        worker = env.connect(autocommit=True)
        worker.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
        fail, reap, maintain, correct = (env.name(QUEUE, k) for k in ("fail", "reap", "maintain", "watermark_correct"))
        # Each raises LockNotAvailable after LOCK_TIMEOUT if it waits on the row.
        assert worker.execute(f"SELECT {fail}(%s, %s, 'boom')", (failing.lease_token, failing.id)).fetchone()[0] == 0
        assert worker.execute(f"SELECT * FROM {reap}()").fetchone() == (1, 0)
        assert worker.execute(f"SELECT \"skipped\" FROM {maintain}()").fetchone() is not None
        worker.execute(f"SELECT * FROM {correct}()").fetchone()
    finally:
        holder.rollback()
    # The reaped job (available at once) is delivered within the rescan bound, whatever the holder did.
    bound = float(env.spec.queues[QUEUE].watermark.rescan) + MARGIN
    seen: list[int] = []

    def delivered() -> bool:
        seen.extend(job.id for job in client.dequeue(batch_size=5))
        return expiring.id in seen

    assert wait_until(delivered, bound), f"job {expiring.id}, released below the watermark, was not delivered"


@pytest.mark.parametrize("level", ["REPEATABLE READ", "SERIALIZABLE"])
def test_a_caller_at_a_snapshot_level_fails_and_corrects_after_the_row_changed(env, level):
    """The DBA's question: a caller at REPEATABLE READ or SERIALIZABLE whose snapshot is older than
    the watermark row's last change (a mover ran meanwhile). Locking that row would raise a
    serialization failure (SQLSTATE 40001) and roll back the caller's whole transaction, its work
    with it; the release is kept and its lowering left to the rescan, and watermark_correct
    changes nothing, as when another transaction holds the row."""
    client = env.client(QUEUE)
    client.enqueue_many([{"n": n} for n in range(20)])
    job, = client.dequeue(batch_size=1)
    env.set_watermark(QUEUE, 8)
    caller = env.connect(autocommit=True)
    caller.execute(f"BEGIN ISOLATION LEVEL {level}")
    caller.execute(f'SELECT count(*) FROM {env.name(QUEUE)}')   # the caller's snapshot
    env.set_watermark(QUEUE, 9)                                  # the row changes after it
    fail, correct = env.name(QUEUE, "fail"), env.name(QUEUE, "watermark_correct")
    assert caller.execute(f"SELECT {fail}(%s, %s, 'boom')", (job.lease_token, job.id)).fetchone()[0] == 0
    # Unchanged, as its snapshot shows it.
    assert caller.execute(f"SELECT * FROM {correct}()").fetchone() == (8, 8)
    caller.execute("COMMIT")
    assert env.scalar(f"SELECT {env.col('last_error')} FROM {env.name(QUEUE)} WHERE {env.col('id')} = ?", job.id) == "boom"
