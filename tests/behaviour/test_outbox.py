"""complete hands a result on in the same transaction: to a downstream queue (example 004) or an
outbox table; a refused complete hands on nothing."""

from __future__ import annotations

import pytest

from qgen.client import InvalidArgument, LeaseLost, QueueUsageError
from tests.behaviour.helpers import BEHAVE, EX004, FEAT


def test_complete_enqueues_into_the_transfer_queue(use_spec):
    env = use_spec(EX004)
    events, transfer = env.client("rainfall_events"), env.client("rainfall_transfer")
    events.enqueue_many([{"rainfall_id": 10}, {"rainfall_id": 11}, {"rainfall_id": 12}])
    wet, dry, plain = events.dequeue()
    assert events.complete(wet, rainfall_id=10, summary="wet") == 1
    assert transfer.metrics()["ready"] == 1

    # refused: already completed, so nothing more is handed on
    with pytest.raises(LeaseLost):
        events.complete(wet, rainfall_id=10, summary="wet again")
    # refused: the lease expired and another worker took the job over
    env.backdate("rainfall_events", "lease_expires_at", 3600, ids=[dry.id])
    assert events.reap() == (1, 0)
    other = env.client("rainfall_events")
    taken, = other.dequeue()
    assert taken.id == dry.id
    with pytest.raises(LeaseLost):
        events.complete(dry, rainfall_id=11, summary="stale")
    assert transfer.metrics()["ready"] == 1
    assert other.complete(taken, rainfall_id=11, summary="dry") == 1
    with pytest.raises(QueueUsageError, match="no_result"):
        events.complete(plain)  # no values and no "no result": refused, not finished with nothing handed on
    assert events.complete(plain, no_result=True) == 1, "said explicitly: nothing is handed on"

    with transfer.transaction():
        rows = transfer.dequeue(batch_size=10)
    assert [(j.payload["rainfall_id"], j.payload["summary"]) for j in rows] == [(10, "wet"), (11, "dry")]
    assert transfer.metrics()["ready"] == 0
    assert events.metrics()["processed"] == 3


def test_complete_writes_the_outbox_table(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    for customer in (1, 2):
        jobs.enqueue(job_type="t", customer_id=customer, amount=1)
    first, second = jobs.dequeue()
    assert jobs.complete(first, summary_text="ok", score=5) == 1
    with pytest.raises(LeaseLost):
        jobs.complete(first, summary_text="twice")
    with pytest.raises(TypeError, match="outbox"):
        jobs.complete(second.lease_token, summary_text="a whole lease has no single result")
    with pytest.raises(TypeError, match="unknown outbox"):
        jobs.complete(second, colour="red")
    assert jobs.complete(second, summary_text="no score") == 1
    outbox = env.sql(f"SELECT {env.col('source_id')}, {env.col('summary_text')}, {env.col('score')} "
                     f"FROM {env.name('jobs', 'outbox_table')} ORDER BY {env.col('id')}")
    assert outbox == [(first.id, "ok", 5), (second.id, "no score", None)]


def test_hand_off_skips_a_key_the_downstream_queue_holds(use_spec):
    """The downstream queue refuses duplicates (on_duplicate: error): a hand-off whose key is already
    queued there is skipped and the completion commits, rather than failing on every retry until the
    finished job is dead-lettered. A handed job's enqueued_by is the completing session's user, as
    enqueue's default is."""
    env = use_spec(BEHAVE)
    source, downstream = env.client("handing_on"), env.client("handed_to")
    assert downstream.enqueue(code="A", n=0, enqueued_by="someone").enqueued
    source.enqueue_many([{"n": 1}, {"n": 2}])
    clash, fresh = source.dequeue(batch_size=2)
    assert source.complete(clash, code="A", n=1) == 1, "a key already queued downstream is skipped"
    assert source.complete(fresh, code="B", n=2) == 1
    assert env.count("handing_on") == 0, "both jobs completed"
    rows = env.sql(f"SELECT {env.col('code')}, {env.col('n')}, {env.col('enqueued_by')} FROM {env.name('handed_to')} "
                   f"ORDER BY {env.col('id')}")
    me = env.scalar("SELECT session_user" if env.dialect == "postgres" else "SELECT ORIGINAL_LOGIN()")
    assert rows == [("A", 0, "someone"), ("B", 2, me)]


def test_a_result_is_handed_on_or_said_to_be_none(use_spec):
    """complete with a job's id and no outbox values marked it processed and handed
    nothing on (silently); one value without the other failed with 515 / 23502 on every retry. Now
    "no result" is said (no_result), a missing NOT NULL value is refused by name, and a refused
    completion changes nothing: the job stays leased and nothing is handed on."""
    env = use_spec(EX004)
    events, transfer = env.client("rainfall_events"), env.client("rainfall_transfer")
    events.enqueue_many([{"rainfall_id": 1}, {"rainfall_id": 2}, {"rainfall_id": 3}])
    first, second, third = events.dequeue()
    with pytest.raises(QueueUsageError, match=r"outbox values \(rainfall_id, summary\), or with @?no_result") as refused:
        events.complete(first)
    assert not isinstance(refused.value, InvalidArgument)
    with pytest.raises(InvalidArgument, match="outbox value @?summary is missing"):
        events.complete(first, rainfall_id=1)
    with pytest.raises(InvalidArgument, match="outbox value @?rainfall_id is missing"):
        events.complete(first, summary="no id")
    with pytest.raises(InvalidArgument, match="not both"):
        events.complete(first, rainfall_id=1, summary="wet", no_result=True)
    metrics = events.metrics()
    assert (metrics["in_flight"], metrics["processed"]) == (3, 0), "every refusal left the jobs leased"
    assert transfer.metrics()["ready"] == 0, "and handed nothing on"
    assert events.complete(first, rainfall_id=1, summary="wet") == 1
    assert events.complete(second, no_result=True) == 1
    assert events.complete(third, rainfall_id=3, summary="dry") == 1
    with transfer.transaction():
        rows = transfer.dequeue(batch_size=10)
    assert sorted((j.payload["rainfall_id"], j.payload["summary"]) for j in rows) == [(1, "wet"), (3, "dry")]
    assert events.metrics()["processed"] == 3
