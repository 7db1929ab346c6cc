"""Delayed jobs: invisible to dequeue before their run_at, claimable after it."""

from __future__ import annotations


import datetime as dt

from tests.behaviour.helpers import FEAT, FEATD, db_now, soon, wait_past


def test_a_delayed_job_is_not_visible_before_run_at_then_is(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    now, ahead = db_now(env), soon(env)
    due = jobs.enqueue(job_type="t", customer_id=1, amount=1, run_at=now + ahead).id
    later = jobs.enqueue(job_type="t", customer_id=2, amount=1, run_at=now + dt.timedelta(hours=1)).id
    ready = jobs.enqueue(job_type="t", customer_id=3, amount=1).id
    past = jobs.enqueue(job_type="t", customer_id=4, amount=1, run_at=now - dt.timedelta(hours=1)).id

    metrics = jobs.metrics()
    assert (metrics["ready"], metrics["scheduled"]) == (2, 2)
    assert [j.id for j in jobs.dequeue()] == [ready, past]
    assert jobs.dequeue() == []
    assert [p["id"] for p in jobs.peek()] == [due, later], "peek shows delayed jobs too"
    # Just before its run_at it is still invisible (on Babelfish the job is 8 s ahead: this is what
    # catches a claim that takes it a few seconds early there).
    wait_past(env, now + ahead - dt.timedelta(seconds=1.5))
    assert jobs.dequeue() == [], "a delayed job claimed before its run_at"

    wait_past(env, now + ahead)
    assert [j.id for j in jobs.dequeue()] == [due]
    assert jobs.dequeue() == []
    assert jobs.metrics()["scheduled"] == 1


def test_delayed_jobs_on_a_delete_queue(use_spec):
    env = use_spec(FEATD)
    mail = env.client("mail")
    now = db_now(env)
    batch = mail.enqueue_many([
        {"job_type": "w", "address": "later@x", "run_at": now + dt.timedelta(hours=2)},
        {"job_type": "w", "address": "now@x"},
    ])
    with mail.transaction():
        assert [j.payload["address"] for j in mail.dequeue(batch_size=10)] == ["now@x"]
    assert mail.metrics()["scheduled"] == 1
    # two hours pass for that job
    env.backdate("mail", "available_at", 2 * 3600 + 5, ids=[batch[0].id])
    with mail.transaction():
        assert [j.id for j in mail.dequeue(batch_size=10)] == [batch[0].id]
