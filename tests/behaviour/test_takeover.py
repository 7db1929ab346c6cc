"""Expired leases, by the way each database claims.

PostgreSQL claims a job in place: the claim writes no indexed column (a HOT update), so a leased
row stays in the claim index and the next claim that reaches a job whose lease expired takes it
over (a new token fences the old worker off); one on its last attempt is dead-lettered by that
claim instead of handed out again. SQL Server's claim moves the row out of its filtered claim
index, and reap brings it back. Both end the same way, which is what each test asserts.
"""

from __future__ import annotations

import pytest

from qgen import dialects
from qgen.client import LeaseLost
from tests.behaviour.helpers import BEHAVE, EX004, FEAT


def claims_in_place(env) -> bool:
    return dialects.get(env.dialect).lease_claims_in_place


def test_an_expired_lease_is_claimed_again_and_fences_the_old_worker(use_spec):
    env = use_spec(BEHAVE)
    slow, fast = env.client("wm"), env.client("wm")
    job_id = slow.enqueue(n=1).id
    stale, = slow.dequeue(batch_size=1, owner="slow")
    assert fast.dequeue(batch_size=1) == [], "a leased job is not handed out twice"
    env.backdate("wm", "lease_expires_at", 60, ids=[job_id])
    if not claims_in_place(env):
        assert fast.dequeue(batch_size=1) == [], "SQL Server: an expired lease waits for reap"
        assert fast.reap() == (1, 0)
    again, = fast.dequeue(batch_size=1, owner="fast")
    assert (again.id, again.attempts) == (job_id, 2) and again.lease_token != stale.lease_token
    assert "lease expired" in env.scalar(f"SELECT {env.col('last_error')} FROM {env.name('wm')}")
    with pytest.raises(LeaseLost):
        slow.complete(stale)
    with pytest.raises(LeaseLost):
        slow.extend_lease(stale)
    with pytest.raises(LeaseLost):
        slow.fail(stale, "late")
    assert fast.complete(again) == 1
    assert env.count("wm") == 0


def test_a_job_whose_lease_expires_on_its_last_attempt_is_dead_lettered_not_handed_out(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    job_id = jobs.enqueue(job_type="t", customer_id=1, amount=1).id
    ready = jobs.enqueue(job_type="t", customer_id=2, amount=1).id
    for attempt in (1, 2, 3):  # max_attempts: 3
        if attempt > 1 and not claims_in_place(env):
            assert jobs.reap() == (1, 0)
        job, = jobs.dequeue(batch_size=1)
        assert (job.id, job.attempts) == (job_id, attempt)
        env.backdate("jobs", "lease_expires_at", 60, ids=[job_id])
    if not claims_in_place(env):
        assert jobs.reap() == (0, 1)
    # The claim that finds the job with no attempt left takes the next one in its place: a batch
    # comes back empty only when nothing is ready.
    assert [job.id for job in jobs.dequeue(batch_size=1)] == [ready], "never handed out a fourth time"
    assert env.count("jobs") == 1 and env.count("jobs", "dead_letter_table") == 1
    attempts, error = env.sql(f"SELECT {env.col('attempts')}, {env.col('last_error')} "
                              f"FROM {env.name('jobs', 'dead_letter_table')}")[0]
    assert attempts == 3 and "last attempt" in error
    assert jobs.metrics()["dead"] == 1


@pytest.mark.parametrize("spec, queue, enqueue", [
    (EX004, "rainfall_events", lambda client, n: client.enqueue(rainfall_id=n)),                  # mark, outbox
    (FEAT, "jobs", lambda client, n: client.enqueue(job_type="t", customer_id=n, amount=1)),      # archive, job types
], ids=["mark", "archive-job-types"])
def test_a_claim_and_a_lease_extension_write_no_index_entry(use_spec, spec, queue, enqueue):
    env = use_spec(spec)
    if not claims_in_place(env):
        pytest.skip(f"{env.dialect} claims by moving the row out of its claim index (no HOT updates to count)")
    client = env.client(queue)
    for n in range(1, 21):
        enqueue(client, n)
    dequeue, extend = env.name(queue, "dequeue"), env.name(queue, "extend_lease")
    conn = env.connect()
    # Counted inside one transaction (pg_stat_xact_*), so nothing else on the server blurs it.
    with conn.transaction(force_rollback=True):
        leases = [conn.execute(f'SELECT "lease_token", array_agg("id") FROM {dequeue}("batch_size" => 5) GROUP BY 1'
                               ).fetchone() for _ in range(4)]
        for token, ids in leases:
            assert conn.execute(f'SELECT {extend}("lease_token" => %s, "ids" => %s)', (token, ids)).fetchone()[0] == 5
        updated, hot = conn.execute(
            "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relid = %s::regclass",
            (env.name(queue),)).fetchone()
    assert (updated, hot) == (40, 40), "20 claims and 20 extensions, every one a HOT update"
