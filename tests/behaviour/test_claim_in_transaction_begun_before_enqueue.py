"""Regression (the test failed before the fix): a claim inside a caller's transaction that began before a job was enqueued does not see
that job, though it is committed and ready.

docs/api.md ("Times: the clock, not the transaction's start") promises that whether a job is
available is judged by the clock at the call, never now(), and that a job enqueued without run_at
is available "at once on commit". dequeue's claim compares available_at (the producer's now()) with
the *claimer's* now(): a READ COMMITTED caller whose transaction began before the producer's sees
the committed row (each statement has a fresh snapshot) but the lease claim ("due"/"ready" CTEs,
`available_at <= now()`) skips it as not yet available (a delete queue without scheduling has no
such test and claims it). The job is left to other
sessions, or to this one after it commits: a worker that opens a transaction and then claims,
or a pooled connection left in a transaction, returns nothing from a queue with work in it.

Fix suggested: compare with the call's clock as the docs say (capture clock_timestamp() once in a
variable at the top of dequeue and use it instead of now(); a plpgsql variable is a parameter of a
generic plan too, so the claim-cost seeks hold; tests/test_claim_cost.py is the check).
"""

from __future__ import annotations

import pytest

from tests.behaviour.helpers import BEHAVE


@pytest.fixture
def env(use_spec):
    env = use_spec(BEHAVE)
    if env.dialect != "postgres":
        pytest.skip("PostgreSQL's now() (SQL Server reads SYSUTCDATETIME(), the clock)")
    return env


def test_a_committed_ready_job_is_claimed_inside_a_transaction_that_began_before_it(env):
    queue = "wm"                                                # lease, in place
    caller = env.connect()
    caller.execute("SELECT 1")                                  # the caller's transaction begins (READ COMMITTED)
    producer = env.client(queue)
    job_id = producer.enqueue(n=1).id                       # committed after the caller began
    rows = caller.execute(f'SELECT "id" FROM {env.name(queue, "dequeue")}("batch_size" => 1)').fetchall()
    caller.rollback()
    assert [r[0] for r in rows] == [job_id]
