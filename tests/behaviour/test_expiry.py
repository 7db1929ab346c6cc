"""expire_after (issue 29 item 5): a job not handed out within that time of its enqueue never runs. No
claim hands it out (nor takes its expired lease over); reap (and so maintain) moves it to the dead
letters with last_error 'expired', or deletes it where a queue keeps none; a lease already granted runs
to its end. Each claim path: a fifo queue with a watermark and delayed jobs (PostgreSQL claims in
place there), a priority queue, a queue that marks jobs processed and keeps no dead letters."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.behaviour.helpers import ROOT

EXPIRY = ROOT / "tests" / "behaviour" / "specs" / "expiry.yaml"
HOUR = 3600
QUEUES = ["fresh", "ranked", "marked"]


def dead(env, queue: str) -> dict[int, tuple[str, int]]:
    if queue == "marked":  # dead_letter: false
        return {}
    rows = env.sql(f"SELECT {env.col('id')}, {env.col('last_error')}, {env.col('attempts')} "
                   f"FROM {env.name(queue, 'dead_letter_table')}")
    return {int(i): (e, int(a)) for i, e, a in rows}


def queued(env, queue: str) -> set[int]:
    where = f" WHERE {env.col('processed')} = {'FALSE' if env.dialect == 'postgres' else '0'}" if queue == "marked" else ""
    return {int(r[0]) for r in env.sql(f"SELECT {env.col('id')} FROM {env.name(queue)}{where}")}


def age(env, queue: str, ids: list[int], seconds: int) -> None:
    """As if these jobs had been enqueued `seconds` earlier (their due time with them)."""
    env.backdate(queue, "enqueued_at", seconds, ids=ids)
    env.backdate(queue, "available_at", seconds, ids=ids)


def reap_all(client) -> tuple[int, int]:
    released = dead_lettered = 0
    while True:
        r = client.reap(batch_size=2)
        released, dead_lettered = released + r.released, dead_lettered + r.dead_lettered
        if r.released + r.dead_lettered < 2:
            return released, dead_lettered


@pytest.mark.parametrize("queue", QUEUES)
def test_an_expired_job_is_never_handed_out_and_reap_takes_it_away(use_spec, queue):
    env = use_spec(EXPIRY)
    client = env.client(queue)
    ids = [client.enqueue(n=n).id for n in range(6)]
    old, young = ids[:3], ids[3:]
    age(env, queue, old, HOUR + 60)
    age(env, queue, young[:1], HOUR - 120)                     # two minutes left: still handed out
    claimed = [j.id for j in client.dequeue(batch_size=10)]
    assert sorted(claimed) == young, "only the jobs within expire_after are handed out"
    assert client.dequeue(batch_size=10) == []
    assert reap_all(client) == (0, 3), "reap moves the three expired jobs (counted as dead-lettered)"
    expected = {} if queue == "marked" else {i: ("expired", 0) for i in old}
    assert dead(env, queue) == expected, "last_error 'expired', never tried"
    assert queued(env, queue) == set(young), "the leased jobs stay, the expired ones are gone"
    assert reap_all(client) == (0, 0)


@pytest.mark.parametrize("queue", QUEUES)
def test_a_leased_job_runs_to_its_lease_end_then_expires_instead_of_being_released(use_spec, queue):
    """Its worker may complete it while the lease holds; once the lease is over nobody takes it over
    and reap does not release it: it expires, and the late worker is fenced off (lease lost)."""
    env = use_spec(EXPIRY)
    client = env.client(queue)
    a, b = client.enqueue(n=1).id, client.enqueue(n=2).id
    held = client.dequeue(batch_size=2, lease_seconds=60)
    assert sorted(j.id for j in held) == [a, b]
    age(env, queue, [a, b], HOUR + 60)
    assert reap_all(client) == (0, 0), "a live lease is left alone"
    first = next(j for j in held if j.id == a)
    client.complete(first)                                     # within its lease: completes
    env.backdate(queue, "lease_expires_at", 120, ids=[b])
    assert client.dequeue(batch_size=2) == [], "an expired lease of an expired job is not taken over"
    assert reap_all(client) == (0, 1)
    if queue != "marked":
        assert dead(env, queue) == {b: ("expired", 1)}
    assert queued(env, queue) == set()
    late = next(j for j in held if j.id == b)
    with pytest.raises(Exception) as caught:
        client.complete(late)
    assert type(caught.value).__name__ == "LeaseLost", caught.value


def test_a_delayed_job_past_its_expiry_never_runs(use_spec):
    """expire_after counts from enqueue, not from run_at: a job delayed past it never runs."""
    env = use_spec(EXPIRY)
    client = env.client("fresh")
    late = client.enqueue(n=1, run_at=dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=30)).id
    age(env, "fresh", [late], HOUR + 60)                       # due 30 s before now - an hour: due now
    assert client.dequeue(batch_size=5) == []
    assert reap_all(client) == (0, 1)
    assert dead(env, "fresh") == {late: ("expired", 0)}


def test_a_redriven_expired_job_gets_a_new_expiry(use_spec):
    env = use_spec(EXPIRY)
    client = env.client("fresh")
    job = client.enqueue(n=7).id
    age(env, "fresh", [job], HOUR + 60)
    assert reap_all(client) == (0, 1)
    assert client.redrive([job]).redriven == 1
    again = client.dequeue(batch_size=5)
    assert [j.payload["n"] for j in again] == [7], "a redriven job is enqueued anew, its hour starts again"


def test_maintain_expires_what_reap_would(use_spec):
    env = use_spec(EXPIRY)
    client = env.client("ranked")
    ids = [client.enqueue(n=n).id for n in range(4)]
    age(env, "ranked", ids[:2], HOUR + 60)
    done = client.maintain(batch_size=10)
    assert done.dead_lettered == 2 and dead(env, "ranked") == {i: ("expired", 0) for i in ids[:2]}
