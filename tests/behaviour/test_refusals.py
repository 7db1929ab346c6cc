"""Calls a procedure refuses (SQL Server 50005, PostgreSQL QG002; the client raises QueueUsageError)
instead of doing something the caller did not ask for:

- a delete-mode dequeue outside a transaction, whose claim would commit at once (at-most-once
  delivery), unless the caller says at_most_once;
- a completion by lease token alone (complete without an id, dequeue's complete_lease_token) on a
  queue with an outbox, whose values belong to one job and would be skipped silently.

The procedures are called with raw SQL as well as through the client, so the refusal is the
database's, not only the client's."""

from __future__ import annotations

import pytest

from qgen.client import QueueUsageError, error_kind
from tests.behaviour.helpers import EX001, EX004, FEAT


def call(env, kind: str, queue: str, **params) -> str:
    """SQL that calls one of the queue's procedures with literal parameters."""
    def literal(value):
        if isinstance(value, bool):
            return ("TRUE" if value else "FALSE") if env.dialect == "postgres" else str(int(value))
        return str(value) if isinstance(value, int) else f"'{value}'"
    name = env.name(queue, kind)
    if env.dialect == "postgres":
        return f"SELECT * FROM {name}({', '.join(f'{env.col(k)} => {literal(v)}' for k, v in params.items())})"
    return f"EXEC {name} " + ", ".join(f"@{k} = {literal(v)}" for k, v in params.items())


def refused(env, sql: str, conn=None) -> Exception:
    """Run sql (autocommit, as the owner, unless conn is given); it must be refused."""
    cursor = (conn or env.admin).cursor()
    with pytest.raises(Exception) as caught:
        cursor.execute(sql)
        if env.dialect == "mssql":
            while cursor.nextset():
                pass
    assert error_kind(env.dialect, caught.value) == "refused", caught.value
    return caught.value


# --------------------------------------------------------------------------------------------
# Delete-mode dequeue and the caller's transaction


def test_a_delete_claim_outside_a_transaction_is_refused_and_takes_nothing(use_spec):
    env = use_spec(EX001)
    queue = env.client("testq")
    queue.enqueue_many([{"filler": f"row {n}"} for n in range(4)])
    error = refused(env, call(env, "dequeue", "testq", batch_size=2))
    assert "at_most_once" in str(error)
    assert env.count("testq") == 4, "the refused claim was rolled back: every job is still queued"


def test_a_delete_claim_inside_a_transaction_commits_with_it(use_spec):
    env = use_spec(EX001)
    env.client("testq").enqueue_many([{"filler": f"row {n}"} for n in range(4)])
    conn = env.connect(autocommit=True)
    cursor = conn.cursor()
    cursor.execute("BEGIN" if env.dialect == "postgres" else "BEGIN TRANSACTION")
    cursor.execute(call(env, "dequeue", "testq", batch_size=2))
    assert [row[0] for row in cursor.fetchall()] == [1, 2]
    cursor.execute("COMMIT" if env.dialect == "postgres" else "COMMIT TRANSACTION")
    assert env.count("testq") == 2


def test_at_most_once_is_the_callers_choice(use_spec):
    env = use_spec(EX001)
    queue = env.client("testq")
    queue.enqueue_many([{"filler": f"row {n}"} for n in range(5)])
    rows = env.sql(call(env, "dequeue", "testq", batch_size=2, at_most_once=True))
    assert [row[0] for row in rows] == [1, 2]
    assert env.count("testq") == 3, "the claim committed by itself"
    assert [job.id for job in queue.dequeue(batch_size=2, at_most_once=True)] == [3, 4]
    assert env.count("testq") == 1


# --------------------------------------------------------------------------------------------
# Outbox and completion by lease token


def test_a_whole_lease_cannot_complete_past_a_downstream_queue(use_spec):
    env = use_spec(EX004)
    events, transfer = env.client("rainfall_events"), env.client("rainfall_transfer")
    events.enqueue_many([{"rainfall_id": n} for n in (10, 11)])
    first, second = events.dequeue(batch_size=2)
    with pytest.raises(QueueUsageError, match="outbox"):
        events.complete(first.lease_token)
    with pytest.raises(QueueUsageError, match="outbox"):
        events.dequeue(complete=first)
    refused(env, call(env, "complete", "rainfall_events", lease_token=first.lease_token))
    assert events.metrics()["in_flight"] == 2, "nothing was completed"
    assert events.metrics()["ready"] == 0, "nothing new was claimed"
    assert events.complete(first, rainfall_id=10, summary="wet") == 1
    assert events.complete(second, rainfall_id=11, summary="dry") == 1
    assert transfer.metrics()["ready"] == 2


def test_a_whole_lease_cannot_complete_past_an_outbox_table(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    for customer in (1, 2):
        jobs.enqueue(job_type="t", customer_id=customer, amount=1)
    first, second = jobs.dequeue()
    with pytest.raises(QueueUsageError, match="outbox"):
        jobs.complete(first.lease_token)
    with pytest.raises(QueueUsageError, match="outbox"):
        jobs.dequeue(complete=first.lease_token)
    assert jobs.metrics()["in_flight"] == 2
    assert jobs.complete(first, summary_text="one") == 1
    assert jobs.complete(second, summary_text="two") == 1
    assert env.count("jobs", "outbox_table") == 2


def test_a_consumer_login_claims_and_commits_past_the_guard(use_spec):
    """The commit-time check runs as whoever commits: a consumer, who may touch no table, still
    commits its claim, and is still refused outside a transaction."""
    env = use_spec(EX001)
    env.client("testq").enqueue_many([{"filler": f"row {n}"} for n in range(3)])
    with env.login("consumer") as login:
        consumer = env.client("testq", login=login)
        with consumer.transaction():
            assert [job.id for job in consumer.dequeue(batch_size=2)] == [1, 2]
        refused(env, call(env, "dequeue", "testq", batch_size=1), conn=env.connect(autocommit=True, login=login))
    assert env.count("testq") == 1


# --------------------------------------------------------------------------------------------
# Arguments out of range: refused with the "invalid" code, as the batch size checks refuse theirs


@pytest.mark.parametrize("limit", ["NULL", -1])
def test_peek_refuses_a_null_or_negative_limit_with_the_out_of_range_code(use_spec, limit):
    """SQL Server's TOP (NULL) raised 1014 (no code the client maps) and
    PostgreSQL's LIMIT NULL returned every pending row; both now refuse it as out of range."""
    env = use_spec(FEAT)
    env.client("jobs").enqueue(job_type="t", customer_id=1, amount=1)
    name = env.name("jobs", "peek")
    sql = (f"SELECT * FROM {name}({env.col('limit')} => {limit})" if env.dialect == "postgres"
           else f"EXEC {name} @limit = {limit}")
    cursor = env.admin.cursor()
    with pytest.raises(Exception) as caught:
        cursor.execute(sql)
        cursor.fetchall()
    assert error_kind(env.dialect, caught.value) == "invalid", caught.value
    assert "limit is out of range" in str(caught.value), caught.value
    assert [job["id"] for job in env.client("jobs").peek(limit=0)] == []
