"""release: a worker hands leased jobs back unstarted (a stopping worker's batch), ready at once and
with the claim not counted as an attempt; fenced by the lease token like complete, fail and extend."""

from __future__ import annotations

import pytest

from qgen.client import LeaseLost
from tests.behaviour.helpers import BEHAVE, EX004, FEAT, assert_denied
from tests.behaviour.test_priority_marks import PRIO, claim_and_complete, expect_marks


def attempts(env, queue: str) -> dict[int, int]:
    rows = env.sql(f"SELECT {env.col('id')}, {env.col('attempts')} FROM {env.name(queue)}")
    return {int(i): int(a) for i, a in rows}


def test_a_released_batch_is_ready_at_once_with_its_attempts_not_counted(use_spec):
    env = use_spec(EX004)
    events = env.client("rainfall_events")
    events.enqueue_many([{"rainfall_id": n} for n in range(5)])
    batch = events.dequeue(batch_size=5)
    assert [j.attempts for j in batch] == [1] * 5
    assert events.release(batch[0]) == 1                       # one job of the lease
    assert events.release(batch[0].lease_token) == 4           # the rest of it, by the token
    assert attempts(env, "rainfall_events") == {j.id: 0 for j in batch}
    metrics = events.metrics()
    assert (metrics["in_flight"], metrics["ready"], metrics["scheduled"]) == (0, 5, 0)
    again = env.client("rainfall_events").dequeue(batch_size=5)
    assert sorted((j.id, j.attempts) for j in again) == sorted((j.id, 1) for j in batch)
    with pytest.raises(LeaseLost):
        events.release(batch[1])                               # the old token holds nothing now
    with pytest.raises(LeaseLost):
        events.release(batch[1].lease_token)
    assert events.metrics()["in_flight"] == 5, "a stale release changes nothing"


def test_release_keeps_a_job_on_its_last_attempt_alive_and_its_last_error(use_spec):
    env = use_spec(BEHAVE)
    queue = env.client("retrying")                             # max_attempts 4
    job_id = queue.enqueue(n=1).id
    for _ in range(3):
        job, = queue.dequeue()
        assert queue.fail(job, "boom") == "retry"
        env.backdate("retrying", "available_at", 3600, ids=[job_id])
    last, = queue.dequeue()
    assert last.attempts == 4
    assert queue.release(last) == 1
    assert env.count("retrying", "dead_letter_table") == 0
    assert env.scalar(f"SELECT {env.col('last_error')} FROM {env.name('retrying')}") == "boom"
    again, = queue.dequeue()                                   # ready now: no backoff
    assert (again.id, again.attempts) == (job_id, 4)
    assert queue.fail(again, "really") == "dead", "the released claim did not count; this one does"


def test_release_of_a_finished_or_taken_over_job_is_refused(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    jobs.enqueue(job_type="t", customer_id=1, amount=1)
    jobs.enqueue(job_type="t", customer_id=2, amount=1)
    done, stale = jobs.dequeue(batch_size=2)
    jobs.complete(done, summary_text="ok")
    with pytest.raises(LeaseLost):
        jobs.release(done)
    env.backdate("jobs", "lease_expires_at", 3600, ids=[stale.id])
    assert jobs.reap().released == 1
    holder = env.client("jobs")
    fresh, = holder.dequeue()
    with pytest.raises(LeaseLost):
        jobs.release(stale)
    assert holder.release(fresh) == 1
    assert attempts(env, "jobs") == {stale.id: 1}, "reap counted the first claim; the release the second not"


def test_a_released_job_below_the_watermark_is_claimed_first(use_spec):
    env = use_spec(BEHAVE)
    queue = env.client("wm")                                   # the watermark moves every 10 ids, 3 of slack
    queue.enqueue_many([{"n": n} for n in range(40)])
    held, = queue.dequeue(batch_size=1)
    for _ in range(5):
        queue.complete(queue.dequeue(batch_size=5)[0].lease_token)
    assert env.watermark("wm") > held.id
    assert queue.release(held) == 1
    assert env.watermark("wm") <= held.id
    first = queue.dequeue(batch_size=1)
    assert [(j.id, j.attempts) for j in first] == [(held.id, 1)]


def test_a_released_job_below_its_priority_mark_is_claimed_first(use_spec):
    env = use_spec(PRIO)
    queue = env.client("pl")
    queue.enqueue_many([{"n": n} for n in range(30)])
    held = queue.dequeue(batch_size=1)
    assert claim_and_complete(queue, 4) == list(range(2, 22))
    expect_marks(env, "pl", {0: 13})
    assert queue.release(held[0].lease_token) == 1
    expect_marks(env, "pl", {0: 1})
    assert [(j.id, j.attempts) for j in queue.dequeue(batch_size=2)] == [(1, 1), (22, 1)]


def test_a_consumer_may_release_and_nobody_may_touch_the_table(use_spec):
    env = use_spec(FEAT)
    env.client("jobs").enqueue(job_type="t", customer_id=1, amount=1)
    with env.login("consumer") as login:
        consumer = env.client("jobs", login=login)
        job, = consumer.dequeue()
        assert consumer.release(job) == 1
        raw = env.connect(autocommit=True, login=login)
        assert_denied(env, raw, f"UPDATE {env.name('jobs')} SET {env.col('attempts')} = 0")
    assert env.client("jobs").metrics()["ready"] == 1
