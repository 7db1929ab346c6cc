"""watermark_correct under a caller's transactions: corrected_at means "searched
below the watermark at this time, with a view of at least that time", so a correction whose view is
older than the clock (a REPEATABLE READ caller's snapshot) leaves it alone, and the rescan bound
(docs/api.md, "The watermark never strands a job") still holds for a job that became claimable
below the watermark after that view was taken."""

from __future__ import annotations

import contextlib

import pytest

from tests.behaviour.helpers import BEHAVE
from tests.behaviour.test_hostile_session import at_isolation

QUEUE = "busy"  # lease, watermark every 10 ids, slack 2, rescan 2 s


@pytest.mark.babelfish_gap("B17", "a REPEATABLE READ caller")
def test_a_correction_from_an_old_snapshot_does_not_put_off_the_rescan(use_spec):
    """A job whose insert commits after a REPEATABLE READ caller's snapshot, below a watermark a
    mover already raised past it (it could not see the uncommitted insert): that caller's
    watermark_correct cannot see the job either. Were it to set corrected_at to the clock, the
    rescan that must find the job would be put off by watermark.rescan seconds from now, past the
    bound; it leaves corrected_at as it was, so the next dequeue rescans and claims the job."""
    env = use_spec(BEHAVE)
    producer, late, caller, worker = (env.client(QUEUE) for _ in range(4))
    at_isolation(caller, "REPEATABLE READ")
    with contextlib.ExitStack() as stack:
        stack.enter_context(late.transaction())
        stranded = late.enqueue(n=0)                             # its insert is not committed yet
        done = producer.enqueue_many([{"n": n} for n in range(1, 21)])
        env.execute(f"DELETE FROM {env.name(QUEUE)} WHERE {env.col('id')} > ?", stranded.id)  # finished
        top = max(r.id for r in done)
        env.set_watermark(QUEUE, top - 1, rescan_due=True)       # a mover passed the stranded job
        with caller.transaction():
            caller.peek()                                        # the caller's snapshot is taken here
            stack.close()                                        # the stranded job's insert commits
            correction = caller.watermark_correct()
            assert correction.new == top - 1, correction  # it cannot see the job
    claimed = [job.id for job in worker.dequeue(batch_size=5)]
    assert claimed == [stranded.id], "the rescan was still due: the job below the watermark is claimed"
