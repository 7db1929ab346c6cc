"""PostgreSQL: leases, extensions and backoff are timed from the clock, not from now().

now() is the start of the caller's transaction. A worker's own calls commit at once, but a caller
may claim, extend or fail inside a transaction that began long before (a request handler that did
other work first, a pooled connection left in a transaction): a lease timed from now() would be
over before the call returned, the next claim would take the job over, and the job would run twice.
Each test opens a transaction, lets `AGE` seconds pass, and then makes the call in it.

SQL Server's procedures read SYSUTCDATETIME(), the clock, already: these tests are PostgreSQL's.
"""

from __future__ import annotations

import time

import pytest

from qgen.client import LeaseLost
from tests.behaviour.helpers import BEHAVE

AGE = 2.5   # seconds between the caller's BEGIN and its call: more than the 2 s leases below


@pytest.fixture
def env(use_spec):
    env = use_spec(BEHAVE)
    if env.dialect != "postgres":
        pytest.skip("SQL Server times everything from SYSUTCDATETIME(), the clock")
    return env


def old_transaction(env):
    """A connection inside a transaction that began AGE seconds ago."""
    conn = env.connect()
    conn.execute("SELECT 1")   # psycopg opens the transaction here
    time.sleep(AGE)
    return conn


def seconds_left(conn, expires) -> float:
    return conn.execute("SELECT extract(epoch FROM %s - clock_timestamp())::float8", (expires,)).fetchone()[0]


def test_a_claim_in_an_old_transaction_gets_its_whole_lease_and_is_not_taken_over(env):
    job_id = env.client("wm").enqueue(n=1).id
    early = old_transaction(env)
    job_id_claimed, token, expires = early.execute(
        f'SELECT "id", "lease_token", "lease_expires_at" FROM {env.name("wm", "dequeue")}'
        '("batch_size" => 1, "lease_seconds" => 2)').fetchone()
    assert job_id_claimed == job_id
    assert seconds_left(early, expires) > 1.5, "the lease was timed from the transaction's start: already over"
    early.commit()
    other = env.client("wm")
    assert other.dequeue(batch_size=1) == [], "a claim took over the lease the old transaction had just been given"
    assert env.client("wm").complete(token, id=job_id) == 1
    assert env.scalar(f"SELECT {env.col('attempts')} FROM {env.name('wm')}") is None, "completed once, claimed once"


def test_a_lease_extended_in_an_old_transaction_runs_from_the_extension(env):
    client = env.client("wm")
    client.enqueue(n=1)
    job, = client.dequeue(batch_size=1, lease_seconds=60)
    early = old_transaction(env)
    assert early.execute(f'SELECT {env.name("wm", "extend_lease")}(%s, 2, %s)', (job.lease_token, job.id)).fetchone()[0] == 1
    expires = early.execute(f'SELECT "lease_expires_at" FROM {env.name("wm")}').fetchone()[0]
    assert seconds_left(early, expires) > 1.5, "the extension was timed from the transaction's start: already over"
    early.commit()
    assert env.client("wm").dequeue(batch_size=1) == [], "the extended lease was taken over at once"
    assert client.complete(job) == 1


def test_a_backoff_set_in_an_old_transaction_runs_from_the_failure(env):
    client = env.client("retrying")   # first backoff: 10 s
    client.enqueue(n=1)
    job, = client.dequeue(batch_size=1)
    early = old_transaction(env)
    assert early.execute(f'SELECT {env.name("retrying", "fail")}(%s, %s, %s)', (job.lease_token, job.id, "boom")).fetchone()[0] == 0
    available = early.execute(f'SELECT "available_at" FROM {env.name("retrying")}').fetchone()[0]
    assert seconds_left(early, available) > 9.5, "the backoff was timed from the transaction's start"
    early.commit()


def test_reap_in_an_old_transaction_releases_a_lease_that_expired_after_it_began(env):
    client = env.client("wm")
    client.enqueue(n=1)
    job, = client.dequeue(batch_size=1, lease_seconds=1)
    early = old_transaction(env)   # the lease expires while this transaction is open
    assert early.execute(f'SELECT * FROM {env.name("wm", "reap")}()').fetchone() == (1, 0)
    early.commit()
    with pytest.raises(LeaseLost):
        client.complete(job)


def test_the_watermark_does_not_pass_a_lease_that_expired_after_an_old_transaction_began(env):
    """A lease that is over is a job a claim must reach: a mover in an old transaction must see it
    as over (with now() it did not, and moved the watermark past it)."""
    client = env.client("wm")
    client.enqueue_many([{"n": n} for n in range(30)])
    job, = client.dequeue(batch_size=1, lease_seconds=1)
    early = old_transaction(env)
    early.execute(f'SELECT {env.name("wm", "watermark_move")}(30)')
    early.commit()
    assert env.watermark("wm") <= job.id, "the watermark passed a job whose lease had expired"
