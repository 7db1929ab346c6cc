"""Finished jobs: archived, marked processed or dead-lettered, and purged by age."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from tests.behaviour.helpers import EX000, EX002, EX003, EX004, FEAT

DAY = 86400


def test_a_delete_queue_archives_what_a_committed_claim_took(use_spec):
    env = use_spec(EX002)  # claim: delete, on_complete: archive, retention 365d
    codes = env.client("card_codes")
    codes.enqueue_many([{"card_number": f"4000-{n}", "card_secret": f"s{n}"} for n in (1, 2, 3)])
    with codes.transaction():
        sold, = codes.dequeue()
    assert sold.payload == {"card_number": "4000-1", "card_secret": "s1"}
    assert env.count("card_codes") == 2
    archived = env.sql(f"SELECT {env.col('id')}, {env.col('card_number')} FROM {env.name('card_codes', 'archive_table')}")
    assert archived == [(sold.id, "4000-1")]

    with pytest.raises(RuntimeError):
        with codes.transaction():
            taken, = codes.dequeue()
            raise RuntimeError("the buyer's payment failed")
    assert env.count("card_codes") == 2 and env.count("card_codes", "archive_table") == 1
    with codes.transaction():
        assert [j.id for j in codes.dequeue()] == [taken.id], "a rollback puts the code back"

    metrics = codes.metrics()
    assert (metrics["ready"], metrics["archived"], metrics["watermark"]) == (1, 2, None)
    # purge by age: only what finished longer ago than older_than_seconds
    env.backdate("card_codes", "completed_at", 2 * DAY, ids=[sold.id], kind="archive_table")
    assert codes.purge() == (0, 0, 0), "the spec's retention is 365 days"
    assert codes.purge(older_than_seconds=DAY) == (1, 0, 0)
    assert env.count("card_codes", "archive_table") == 1


def test_a_lease_queue_archives_on_complete_and_purges_archive_and_dead(use_spec):
    env = use_spec(FEAT)  # on_complete: archive, retention: 1d
    jobs = env.client("jobs")
    for customer in (1, 2, 3):
        jobs.enqueue(job_type="t", customer_id=customer, amount=Decimal(customer))
    a, b, c = jobs.dequeue()
    assert jobs.complete(a, no_result=True) == 1 and jobs.complete(b, no_result=True) == 1
    assert jobs.fail(c, "poison", retry=False) == "dead"
    assert env.count("jobs") == 0
    assert env.count("jobs", "archive_table") == 2
    metrics = jobs.metrics()
    assert (metrics["archived"], metrics["dead"]) == (2, 1)

    assert jobs.purge() == (0, 0, 0)
    env.backdate("jobs", "completed_at", 2 * DAY, ids=[a.id], kind="archive_table")
    env.backdate("jobs", "dead_at", 2 * DAY, kind="dead_letter_table")
    assert jobs.purge() == (1, 0, 1)
    assert env.sql(f"SELECT {env.col('id')} FROM {env.name('jobs', 'archive_table')}") == [(b.id,)]
    assert jobs.purge(older_than_seconds=0, batch_size=1) == (1, 0, 0)
    assert jobs.metrics()["archived"] == 0


MARKED = {
    "000": (EX000, "four_queue", lambda n: {"reputation": n}),
    "003": (EX003, "WorkQueue", lambda n: {"job_type": uuid.UUID(int=n), "JobInfo": f"<n>{n}</n>"}),
    "004": (EX004, "rainfall_events", lambda n: {"rainfall_id": n}),
}


@pytest.mark.parametrize("example", sorted(MARKED))
def test_mark_keeps_processed_rows_until_purged(use_spec, example):
    path, queue_name, payload = MARKED[example]
    env = use_spec(path)
    queue = env.client(queue_name)
    for n in (1, 2, 3):
        queue.enqueue(**payload(n))
    done = []
    for _ in range(2):
        job, = queue.dequeue(batch_size=1)
        queue.complete(job, **({"no_result": True} if queue.outbox_columns else {}))
        done.append(job.id)
    assert env.count(queue_name) == 3, "mark keeps the rows"
    processed = env.col("processed")
    assert env.count(queue_name, "table", f"{processed} = ?", True) == 2
    metrics = queue.metrics()
    assert (metrics["processed"], metrics["ready"], metrics["in_flight"]) == (2, 1, 0)
    assert queue.dequeue(batch_size=10)[0].id not in done, "a processed job is never claimed again"

    assert queue.purge() == (0, 0, 0), "younger than the 7-day retention"
    env.backdate(queue_name, "processed_at", 8 * DAY, ids=done[:1])
    assert queue.purge() == (0, 1, 0)
    assert queue.purge(older_than_seconds=0) == (0, 1, 0)
    assert env.count(queue_name) == 1
    if example == "000":
        # the dedupe key of a purged job is free again
        assert queue.enqueue(reputation=1).enqueued is True


def test_archive_and_dead_letters_keep_a_job_id_that_repeats_after_a_reseed(use_spec):
    """The archive and dead-letter tables are keyed by an id of their own: once the queue's identity
    restarts (a reseed, a TRUNCATE), a job with an id they already hold still gets there."""
    env = use_spec(FEAT)  # on_complete: archive, dead letters on
    jobs = env.client("jobs")

    def finish_two() -> tuple[int, int]:
        for customer in (1, 2):
            jobs.enqueue(job_type="t", customer_id=customer, amount=Decimal(customer))
        done, dead = jobs.dequeue()
        assert jobs.complete(done, no_result=True) == 1 and jobs.fail(dead, "poison", retry=False) == "dead"
        return done.id, dead.id

    first = finish_two()
    queue = env.name("jobs")
    env.execute(f"TRUNCATE {queue} RESTART IDENTITY" if env.dialect == "postgres" else f"TRUNCATE TABLE {queue}")
    assert finish_two() == first, "the queue's ids start again"
    archived = env.sql(f"SELECT {env.col('id')} FROM {env.name('jobs', 'archive_table')}")
    dead = env.sql(f"SELECT {env.col('id')} FROM {env.name('jobs', 'dead_letter_table')}")
    assert archived == [(first[0],), (first[0],)] and dead == [(first[1],), (first[1],)]
    # purge still removes one entry at a time by age
    env.backdate("jobs", "completed_at", 2 * DAY, kind="archive_table")
    assert jobs.purge() == (2, 0, 0)
