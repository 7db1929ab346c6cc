"""Regression (the test failed before the fix): run_worker(stop_when_empty=True) takes the queue as empty while a job is claimable below
a watermark whose row another transaction holds.

The worker calls watermark_correct once before it takes the queue as empty, to find jobs below the
watermark (docs: "an insert that committed late can sit below the watermark"). Since the change,
fail and reap leave their lowering to the rescan when the watermark row is held, and
watermark_correct returns unchanged when the row is held: the one call that was there to find such
a job now silently does nothing, the second dequeue does not rescan (not due yet), and the worker
returns with the released job still queued. The worker should not conclude "empty" from a
correction that did not happen.
"""

from __future__ import annotations

import pytest

from qgen.client.worker import run_worker
from tests.behaviour.helpers import BEHAVE

QUEUE = "busy"        # lease, watermark every 10 ids, slack 2, rescan 2 s


@pytest.fixture
def env(use_spec):
    env = use_spec(BEHAVE)
    if env.dialect != "postgres":
        pytest.skip("PostgreSQL's watermark lowering (SKIP LOCKED, left to the rescan)")
    return env


def test_a_draining_worker_does_not_stop_while_a_released_job_sits_below_a_held_watermark(env):
    client = env.client(QUEUE)
    client.enqueue_many([{"n": n} for n in range(10)])
    jobs = client.dequeue(batch_size=10)
    for job in jobs[1:]:
        client.complete(job)
    expired = jobs[0]
    env.set_watermark(QUEUE, 8)                        # above job 1, as a move leaves it; rescan not due
    holder = env.connect()                             # an uncommitted watermark_correct holds the row
    holder.execute(f'SELECT * FROM {env.name(QUEUE, "watermark_correct")}()')
    try:
        env.backdate(QUEUE, "lease_expires_at", 120, ids=[expired.id])
        reaper = env.connect(autocommit=True)
        assert reaper.execute(f'SELECT * FROM {env.name(QUEUE, "reap")}()').fetchone() == (1, 0)
        seen = []
        run_worker(env.client(QUEUE), lambda job: seen.append(job.id), stop_when_empty=True,
                   maintain_every=None, allotted_seconds=30)
        assert expired.id in seen, "the worker stopped as if empty; the released job is still queued"
    finally:
        holder.rollback()
