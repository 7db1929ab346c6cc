"""Delete mode (example 002, card codes): concurrent buyers, each on its own connection, claim one code
per transaction. A code is handed out exactly once; a buyer that rolls back puts its code back, and
another buyer gets it."""

from __future__ import annotations

import collections
import threading
import time

import pytest

from tests.behaviour.helpers import EX002

QUEUE = "card_codes"
BUYERS = 8
CODES = 10_000
ROLLBACK_EVERY = 7  # each buyer's every 7th claim is rolled back (its payment "fails")


class PaymentFailed(Exception):
    pass


def test_a_rolled_back_code_goes_back_to_the_pool_and_to_another_buyer(use_spec):
    env = use_spec(EX002)
    env.client(QUEUE).enqueue_many([{"card_number": f"4000-{n:04}", "card_secret": "s"} for n in range(3)])
    first, second = env.client(QUEUE), env.client(QUEUE)
    with pytest.raises(PaymentFailed):
        with first.transaction():
            held, = first.dequeue()
            with second.transaction():
                other, = second.dequeue()  # skips the code the first buyer holds, without waiting
            assert other.id != held.id
            raise PaymentFailed()
    with second.transaction():
        again, = second.dequeue()
    assert (again.id, again.payload) == (held.id, held.payload), "the rolled-back code is claimable again"
    archived = sorted(r[0] for r in env.sql(f"SELECT {env.col('id')} FROM {env.name(QUEUE, 'archive_table')}"))
    assert archived == sorted([held.id, other.id]) and env.count(QUEUE) == 1


def test_eight_concurrent_buyers_get_every_code_exactly_once(use_spec):
    """8 threads, each with its own connection, loop: open a transaction, claim one code, record it
    when the transaction committed; every 7th claim of each buyer is rolled back instead. Until the
    pool is empty. Then: no code went to two buyers, every code was sold, the pool is empty, the
    archive holds each code once, and every rolled-back code was sold later, once."""
    env = use_spec(EX002)
    codes = {r.id: f"4000-{n:06}" for n, r in zip(range(CODES), env.client(QUEUE).enqueue_many(
        [{"card_number": f"4000-{n:06}", "card_secret": f"secret-{n}"} for n in range(CODES)]))}
    buyers = [env.client(QUEUE) for _ in range(BUYERS)]
    sold: dict[int, list[tuple[int, str]]] = {n: [] for n in range(BUYERS)}
    rolled_back: dict[int, list[int]] = {n: [] for n in range(BUYERS)}
    errors: list[BaseException] = []
    start = threading.Barrier(BUYERS)

    def buy(n: int) -> None:
        client, claims = buyers[n], 0
        try:
            start.wait()
            while True:
                claims += 1
                fail = claims % ROLLBACK_EVERY == 0
                try:
                    with client.transaction():
                        jobs = client.dequeue()
                        if jobs and fail:
                            rolled_back[n].append(jobs[0].id)
                            raise PaymentFailed()
                except PaymentFailed:
                    continue
                if not jobs:
                    return
                (job,) = jobs
                sold[n].append((job.id, job.payload["card_number"]))
        except BaseException as exc:  # reported below, with the buyer
            errors.append(exc)
            raise

    threads = [threading.Thread(target=buy, args=(n,), name=f"buyer{n}") for n in range(BUYERS)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    elapsed = time.monotonic() - started
    assert not any(t.is_alive() for t in threads), "a buyer is still running after 120 s"
    assert not errors, errors

    sales = [sale for n in range(BUYERS) for sale in sold[n]]
    count = collections.Counter(job_id for job_id, _ in sales)
    assert not [i for i, c in count.items() if c > 1], "a code was sold twice"
    assert set(count) == set(codes), f"lost: {sorted(set(codes) - set(count))[:10]}"
    assert all(codes[job_id] == card for job_id, card in sales), "a code came back with another card's number"
    assert env.count(QUEUE) == 0 and env.client(QUEUE).metrics()["ready"] == 0
    archive = env.name(QUEUE, "archive_table")
    assert env.scalar(f"SELECT count(*) FROM {archive}") == CODES
    assert sorted(r[0] for r in env.sql(f"SELECT DISTINCT {env.col('id')} FROM {archive}")) == sorted(codes)

    returned = [job_id for n in range(BUYERS) for job_id in rolled_back[n]]
    assert returned and set(returned) <= set(count), "every rolled-back code was sold afterwards"
    seller = {job_id: n for n in range(BUYERS) for job_id, _ in sold[n]}
    by_another = sum(1 for n in range(BUYERS) for job_id in rolled_back[n] if seller[job_id] != n)
    retries = sum(b.deadlock_retries for b in buyers)
    print(f"\n[{env.dialect}] {CODES:,} codes sold by {BUYERS} concurrent buyers in {elapsed:.1f} s "
          f"({(CODES + len(returned)) / elapsed:,.0f} claim transactions/s); {len(returned)} rollbacks put their "
          f"code back, {by_another} of those codes were then sold to another buyer; per buyer "
          f"{sorted(len(s) for s in sold.values())}; deadlock retries: {retries}")
