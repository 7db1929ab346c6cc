"""Deferred jobs (delayed by run_at, released by fail with a backoff or by reap) are kept off the
claim path and handed to claims once due. On PostgreSQL a job is deferred while its
available_at is later than its enqueued_at and no lease holds it; on SQL Server while its
maintained [deferred] bit is 1. Either way: not claimed before its time, claimed (first) after it,
no longer deferred once claimed, counted right by metrics and the pending view, and the watermark
passes it."""

from __future__ import annotations

import datetime as dt

from tests.behaviour.helpers import EX004, FEAT, ROOT, db_now

DEFER = ROOT / "tests" / "behaviour" / "specs" / "deferred.yaml"


def deferred(env, queue: str, job_id: int) -> bool:
    """Whether the job is deferred: in the due index rather than the claim index."""
    c = env.col
    if env.dialect == "postgres":
        query = (f"SELECT {c('available_at')} > {c('enqueued_at')}"
                 + (f" AND {c('lease_token')} IS NULL" if queue != "laterd" else "")
                 + f" FROM {env.name(queue)} WHERE {c('id')} = ?")
    else:
        query = f"SELECT CAST({c('deferred')} AS int) FROM {env.name(queue)} WHERE {c('id')} = ?"
    return bool(env.scalar(query, job_id))


def time_passes(env, queue: str, seconds: int, ids: list[int] | None = None) -> None:
    """As if seconds passed for these jobs: both their times move back (moving available_at alone
    would make a job look enqueued after it became available, which no job is)."""
    env.backdate(queue, "available_at", seconds, ids=ids)
    env.backdate(queue, "enqueued_at", seconds, ids=ids)


def pending_ids(env, queue: str) -> list[int]:
    return [row[0] for row in env.sql(f"SELECT {env.col('id')} FROM {env.name(queue, 'pending_view')} "
                                      f"ORDER BY {env.col('id')}")]


def test_a_delayed_job_waits_off_the_claim_path_then_is_claimed_first(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    now = db_now(env)
    later = jobs.enqueue(job_type="t", customer_id=1, amount=1, run_at=now + dt.timedelta(hours=1)).id
    ready = jobs.enqueue(job_type="t", customer_id=2, amount=1).id
    past = jobs.enqueue(job_type="t", customer_id=3, amount=1, run_at=now - dt.timedelta(hours=1)).id
    assert deferred(env, "jobs", later) and not deferred(env, "jobs", ready) and not deferred(env, "jobs", past)

    metrics = jobs.metrics()
    assert (metrics["ready"], metrics["scheduled"]) == (2, 1)
    assert pending_ids(env, "jobs") == [later, ready, past], "the pending view shows deferred jobs too"
    assert [j.id for j in jobs.dequeue(batch_size=10)] == [ready, past]
    assert jobs.dequeue(batch_size=10) == [], "not claimed before its time"
    assert deferred(env, "jobs", later)

    newer = jobs.enqueue(job_type="t", customer_id=4, amount=1).id
    time_passes(env, "jobs", 2 * 3600, ids=[later])  # its time comes
    metrics = jobs.metrics()
    assert (metrics["ready"], metrics["scheduled"]) == (2, 0)
    claimed = jobs.dequeue(batch_size=10)
    assert sorted(j.id for j in claimed) == [later, newer], "the due job and the ready one, in one batch"
    assert not deferred(env, "jobs", later), "claiming a due job clears its deferral"
    assert pending_ids(env, "jobs") == []
    assert jobs.metrics()["in_flight"] == 4


def test_a_job_type_claim_takes_only_its_own_due_jobs(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    now = db_now(env)
    a = jobs.enqueue(job_type="a", customer_id=1, amount=1, run_at=now + dt.timedelta(hours=1)).id
    b = jobs.enqueue(job_type="b", customer_id=2, amount=1, run_at=now + dt.timedelta(hours=1)).id
    time_passes(env, "jobs", 2 * 3600)
    assert [j.id for j in jobs.dequeue(job_type="b")] == [b]
    assert deferred(env, "jobs", a) and not deferred(env, "jobs", b)
    assert [j.id for j in jobs.dequeue(job_type="a")] == [a]


def test_a_failed_job_backs_off_off_the_claim_path_then_is_claimed(use_spec):
    env = use_spec(EX004)  # backoff 30s after the first attempt
    events = env.client("rainfall_events")
    first = events.enqueue(rainfall_id=1).id
    job, = events.dequeue()
    assert events.fail(job, "boom") == "retry"
    assert deferred(env, "rainfall_events", first)
    assert events.dequeue() == [], "not claimed during its backoff"
    second = events.enqueue(rainfall_id=2).id
    assert [j.id for j in events.dequeue()] == [second], "jobs behind a backed-off one are claimed"
    metrics = events.metrics()
    assert (metrics["ready"], metrics["scheduled"], metrics["in_flight"]) == (0, 1, 1)
    assert pending_ids(env, "rainfall_events") == [first]

    time_passes(env, "rainfall_events", 31, ids=[first])  # the backoff passes
    again, = events.dequeue()
    assert (again.id, again.attempts) == (first, 2)
    assert not deferred(env, "rainfall_events", first)
    assert events.metrics()["scheduled"] == 0


def test_a_reaped_job_is_claimed_again_ahead_of_newer_jobs(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    first = jobs.enqueue(job_type="t", customer_id=1, amount=1).id
    job, = jobs.dequeue(batch_size=1)
    assert job.id == first
    newer = jobs.enqueue(job_type="t", customer_id=2, amount=1).id
    env.backdate("jobs", "lease_expires_at", 3600, ids=[first])
    assert jobs.reap() == (1, 0)
    assert [j.id for j in jobs.dequeue(batch_size=1)] == [first], "the released job first"
    assert not deferred(env, "jobs", first)
    assert [j.id for j in jobs.dequeue(batch_size=1)] == [newer]


def test_deferred_jobs_do_not_pin_the_watermark(use_spec):
    env = use_spec(DEFER)  # watermark every 10, slack 2
    later = env.client("later")
    now = db_now(env)
    delayed = later.enqueue(n=0, run_at=now + dt.timedelta(hours=1)).id
    later.enqueue_many([{"n": i} for i in range(1, 41)])
    while later.dequeue(batch_size=5):
        pass
    assert env.watermark("later") > delayed, "the watermark passed the delayed job"
    later.watermark_correct()  # as maintain runs it: it does not bring the watermark back to the delayed job
    assert env.watermark("later") > delayed, "watermark_correct leaves the delayed job behind too"
    time_passes(env, "later", 2 * 3600, ids=[delayed])
    assert [j.id for j in later.dequeue()] == [delayed], "found through the due index, below the watermark"


def test_a_delayed_job_on_a_delete_queue_is_claimed_once_due(use_spec):
    env = use_spec(DEFER)
    queue = env.client("laterd")
    now = db_now(env)
    delayed, ready = queue.enqueue_many([{"n": 1, "run_at": now + dt.timedelta(hours=2)}, {"n": 2}])
    queue.enqueue_many([{"n": i} for i in range(3, 31)])
    assert deferred(env, "laterd", delayed.id) and not deferred(env, "laterd", ready.id)
    assert queue.metrics()["scheduled"] == 1
    while True:
        with queue.transaction():
            if not queue.dequeue(batch_size=5):
                break
    assert env.count("laterd") == 1
    assert env.watermark("laterd") > delayed.id, "the watermark passed the delayed job"
    time_passes(env, "laterd", 2 * 3600 + 5, ids=[delayed.id])
    with queue.transaction():
        assert [j.id for j in queue.dequeue(batch_size=10)] == [delayed.id]
    assert env.count("laterd") == 0
