"""dequeue(complete=...): the previous lease is completed and the next batch claimed in one call
(one transaction), fenced by the lease token exactly as complete is."""

from __future__ import annotations

import uuid

import pytest

from qgen.client import LeaseLost, QueueUsageError
from tests.behaviour.helpers import BEHAVE, EX001, EX002, EX004, wait_past
from tests.behaviour.test_archive_purge import MARKED


@pytest.mark.parametrize("batch", [1, 3])
def test_it_completes_the_previous_lease_and_claims_the_next(use_spec, batch):
    env = use_spec(BEHAVE)  # "retrying": on_complete delete
    queue = env.client("retrying")
    queue.enqueue_many([{"n": n} for n in range(2 * batch + 1)])
    first = queue.dequeue(batch_size=batch)
    assert len(first) == batch
    second = queue.dequeue(batch_size=batch, complete=first[0])  # a Job stands for its whole lease
    assert [j.id for j in second] == [j.id + batch for j in first]
    assert len({j.lease_token for j in second}) == 1 and second[0].lease_token != first[0].lease_token
    assert env.count("retrying") == batch + 1, "the first lease's jobs are deleted"
    metrics = queue.metrics()
    assert (metrics["in_flight"], metrics["ready"]) == (batch, 1)

    last = queue.dequeue(batch_size=batch, complete=str(second[0].lease_token))
    assert [j.id for j in last] == [first[0].id + 2 * batch]
    assert queue.dequeue(complete=last[0].lease_token) == [], "completes the last lease even when nothing is left"
    assert env.count("retrying") == 0


def test_a_lost_or_unknown_token_raises_and_claims_nothing(use_spec):
    env = use_spec(BEHAVE)  # "kept": on_complete archive
    jobs = env.client("kept")
    for customer in (1, 2, 3):
        jobs.enqueue(n=customer)
    with pytest.raises(LeaseLost):
        jobs.dequeue(batch_size=2, complete=uuid.uuid4())
    assert (jobs.metrics()["ready"], jobs.metrics()["in_flight"]) == (3, 0), "nothing was claimed"

    # A lease that was reaped and taken over: the late worker's token holds nothing any more.
    late = env.client("kept")
    stale, = late.dequeue(batch_size=1, lease_seconds=1)
    wait_past(env, stale.lease_expires_at)
    assert jobs.reap() == (1, 0)
    holder = env.client("kept")
    fresh, = holder.dequeue(batch_size=1)
    assert fresh.id == stale.id
    with pytest.raises(LeaseLost):
        late.dequeue(batch_size=5, complete=stale)
    metrics = jobs.metrics()
    assert (metrics["ready"], metrics["in_flight"], metrics["archived"]) == (2, 1, 0), \
        "the rows stay claimable and the holder's job is not completed"

    # Completed once, not twice: the same token again is refused, and claims nothing.
    claimed = holder.dequeue(batch_size=1, complete=fresh)
    assert env.count("kept", "archive_table") == 1
    with pytest.raises(LeaseLost):
        holder.dequeue(batch_size=5, complete=fresh)
    metrics = jobs.metrics()
    assert (metrics["ready"], metrics["in_flight"], metrics["archived"]) == (1, 1, 1)
    assert holder.dequeue(batch_size=5, complete=claimed[0]) != []


def test_archive_moves_the_completed_lease_as_complete_does(use_spec):
    env = use_spec(BEHAVE)
    jobs = env.client("kept")
    for customer in (1, 2, 3, 4):
        jobs.enqueue(n=customer)
    a, b = jobs.dequeue(batch_size=2, owner="w")
    c, d = jobs.dequeue(batch_size=2, owner="w", complete=a.lease_token)
    archived = env.sql(f"SELECT {env.col('id')}, {env.col('attempts')}, {env.col('claimed_by')} "
                       f"FROM {env.name('kept', 'archive_table')} ORDER BY {env.col('id')}")
    assert archived == [(a.id, 1, "w"), (b.id, 1, "w")]
    assert env.count("kept") == 2


# 004 has an outbox: a whole lease cannot complete there (tests/behaviour/test_refusals.py).
@pytest.mark.parametrize("example", sorted(set(MARKED) - {"004"}))
def test_mark_keeps_the_completed_lease_as_complete_does(use_spec, example):
    path, queue_name, payload = MARKED[example]
    env = use_spec(path)
    queue = env.client(queue_name)
    for n in (1, 2, 3):
        queue.enqueue(**payload(n))
    first, = queue.dequeue(batch_size=1)
    second, = queue.dequeue(batch_size=1, complete=first)
    processed = env.col("processed")
    assert env.count(queue_name, "table", f"{processed} = ?", True) == 1
    token = env.col("lease_token")
    assert env.count(queue_name, "table", f"{processed} = ? AND {token} IS NULL", True) == 1
    metrics = queue.metrics()
    assert (metrics["processed"], metrics["in_flight"], metrics["ready"]) == (1, 1, 1)
    assert second.id != first.id
    queue.dequeue(batch_size=1, complete=second)
    assert queue.metrics()["processed"] == 2


def test_a_delete_queue_has_no_lease_to_complete(use_spec):
    env = use_spec(EX002)
    codes = env.client("card_codes")
    with pytest.raises(QueueUsageError):
        with codes.transaction():
            codes.dequeue(complete=uuid.uuid4())


def test_a_delete_queue_claim_can_commit_at_once(use_spec):
    """at_most_once: a dequeue whose claim that commits by itself. The jobs are gone from the
    queue when the call returns; a second session cannot get them; a rollback has nothing to undo."""
    env = use_spec(EX001)
    queue, other = env.client("testq"), env.client("testq")
    ids = [r.id for r in queue.enqueue_many([{"filler": f"row {n}"} for n in range(5)])]
    with pytest.raises(QueueUsageError, match="inside `with client.transaction"):
        queue.dequeue(batch_size=2)
    taken = queue.dequeue(batch_size=2, at_most_once=True)
    assert [j.id for j in taken] == ids[:2]
    assert env.count("testq") == 3, "committed: another session sees them gone"
    with other.transaction():
        assert [j.id for j in other.dequeue(batch_size=5)] == ids[2:]
    with pytest.raises(QueueUsageError, match="inside client.transaction"):
        with queue.transaction():
            queue.dequeue(at_most_once=True)
    lease_env = use_spec(EX004)
    with pytest.raises(QueueUsageError, match="has claim: lease"):
        lease_env.client("rainfall_events").dequeue(at_most_once=True)


def test_an_expired_lease_its_worker_completes_is_not_claimed_again_by_the_same_call(use_spec):
    # The completion and the claim are one statement (claims in place): the jobs it completes must
    # not also be picked, though an expired lease makes them takeable. Their token still holds them
    # (no one took them over), so they are completed, and the claim takes the next job instead.
    env = use_spec(BEHAVE)
    queue = env.client("wm")
    queue.enqueue_many([{"n": n} for n in range(3)])
    first = queue.dequeue(batch_size=2, lease_seconds=1)
    wait_past(env, first[0].lease_expires_at)
    second = queue.dequeue(batch_size=3, complete=first[0])
    assert [j.id for j in second] == [first[-1].id + 1]
    assert [j.attempts for j in second] == [1]
    assert env.count("wm") == 1, "the first lease's jobs are deleted, not handed out again"
