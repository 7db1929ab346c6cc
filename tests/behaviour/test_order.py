"""Claim order and size: FIFO by id, priority first, the batch size, job-type sub-queues."""

from __future__ import annotations

import uuid

from tests.behaviour.helpers import EX003, EX004, FEAT, FEATD


def test_fifo_order_and_the_spec_batch_size(use_spec):
    env = use_spec(EX004)  # batch_size: 5
    events = env.client("rainfall_events")
    ids = [events.enqueue(rainfall_id=100 + i).id for i in range(7)]
    assert ids == sorted(ids)

    first = events.dequeue()
    assert [j.id for j in first] == ids[:5]
    assert [j.payload for j in first] == [{"rainfall_id": 100 + i} for i in range(5)]
    assert {j.attempts for j in first} == {1}
    assert len({j.lease_token for j in first}) == 1, "one lease token per dequeue call"

    second = events.dequeue()
    assert [j.id for j in second] == ids[5:]
    assert second[0].lease_token != first[0].lease_token
    assert events.dequeue() == []


def test_an_explicit_batch_size_wins_over_the_spec(use_spec):
    env = use_spec(EX004)
    events = env.client("rainfall_events")
    ids = [r.id for r in events.enqueue_many([{"rainfall_id": i} for i in range(6)])]
    assert [j.id for j in events.dequeue(batch_size=2)] == ids[:2]
    assert [j.id for j in events.dequeue(batch_size=1)] == ids[2:3]
    assert [j.id for j in events.dequeue(batch_size=100)] == ids[3:]


def test_priority_order_lease_queue(use_spec):
    env = use_spec(FEAT)
    urgent = env.client("urgent")
    ids = {}
    for name, priority in (("a", 0), ("b", 5), ("c", 1), ("d", 5), ("e", None)):
        ids[name] = urgent.enqueue(task=name, priority=priority).id  # None: the default, 0
    claimed = urgent.dequeue(batch_size=3)
    assert [j.payload["task"] for j in claimed] == ["b", "d", "c"]
    assert [j.priority for j in claimed] == [5, 5, 1]
    rest = urgent.dequeue()
    assert [(j.payload["task"], j.priority) for j in rest] == [("a", 0), ("e", 0)]


def test_priority_order_and_job_types_delete_queue(use_spec):
    env = use_spec(FEATD)
    mail = env.client("mail")
    mail.enqueue_many([
        {"job_type": "welcome", "address": "w1@x", "priority": 1},
        {"job_type": "reset", "address": "r1@x", "priority": 9},
        {"job_type": "welcome", "address": "w2@x", "priority": 9},
        {"job_type": "reset", "address": "r2@x"},
    ])
    with mail.transaction():
        welcome = mail.dequeue(job_type="welcome", batch_size=10)
    assert [(j.payload["address"], j.job_type, j.priority) for j in welcome] == [("w2@x", "welcome", 9), ("w1@x", "welcome", 1)]
    with mail.transaction():
        rest = mail.dequeue(batch_size=10)
    assert [j.payload["address"] for j in rest] == ["r1@x", "r2@x"]


def test_job_type_filter_with_the_articles_names(use_spec):
    env = use_spec(EX003)  # uuid job types; QueueJob / GetNextJob / ViewQueue
    queue = env.client("WorkQueue")
    assert queue.qualified("dequeue").endswith(("\"GetNextJob\"", "[GetNextJob]"))
    build, mail = uuid.uuid4(), uuid.uuid4()
    ids = [queue.enqueue(job_type=t, JobInfo=f'<job n="{n}"/>').id
           for n, t in enumerate((build, mail, build, mail, build))]

    got = queue.dequeue(job_type=mail)  # batch_size: 1
    assert [(j.id, j.job_type) for j in got] == [(ids[1], mail)]
    assert 'n="1"' in got[0].payload["JobInfo"]
    assert [j.id for j in queue.dequeue(job_type=mail)] == [ids[3]]
    assert queue.dequeue(job_type=mail) == []
    assert queue.dequeue(job_type=uuid.uuid4()) == []
    assert [j.id for j in queue.dequeue()] == [ids[0]]

    pending = queue.peek(job_type=build)
    assert [(p["id"], p["JobType"]) for p in pending] == [(ids[2], build), (ids[4], build)]
    assert [p["id"] for p in queue.peek()] == [ids[2], ids[4]]
    assert [p["id"] for p in queue.peek(limit=1)] == [ids[2]]


def test_audit_records_who_enqueued_and_who_claimed(use_spec):
    env = use_spec(EX003)
    queue = env.client("WorkQueue")
    kind = uuid.uuid4()
    named = queue.enqueue(job_type=kind, enqueued_by="alice").id
    default = queue.enqueue(job_type=kind).id  # JobInfo is nullable
    batch = [r.id for r in queue.enqueue_many([{"job_type": kind}, {"job_type": kind}], enqueued_by="bob")]
    by = {p["id"]: p["enqueued_by"] for p in queue.peek()}
    assert by[named] == "alice"
    assert by[default], "without enqueued_by the database user is recorded"
    assert [by[i] for i in batch] == ["bob", "bob"]

    job, = queue.dequeue(owner="worker-7")
    assert job.id == named and job.payload == {"JobInfo": None}
    table, claimed_by, claimed_at = env.name("WorkQueue"), env.col("claimed_by"), env.col("claimed_at")
    row = env.sql(f"SELECT {claimed_by}, {claimed_at} FROM {table} WHERE {env.col('id')} = ?", named)
    assert row[0][0] == "worker-7" and row[0][1] is not None
    queue.complete(job)
    # mark keeps the row, and with it who claimed it
    assert env.scalar(f"SELECT {claimed_by} FROM {table} WHERE {env.col('id')} = ?", named) == "worker-7"
