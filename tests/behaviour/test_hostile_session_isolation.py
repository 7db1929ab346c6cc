"""Hostile sessions, isolation: callers whose transactions run at REPEATABLE READ, SERIALIZABLE or
SNAPSHOT (a .NET TransactionScope is SERIALIZABLE by default), and batch sizes outside the cap.

SQL Server: every qgen procedure pins READ COMMITTED for itself (the caller's level comes back when
it returns), so a claim works at any caller level (READPAST raised error 650 under SERIALIZABLE and
SNAPSHOT before). PostgreSQL: a function cannot change the isolation of a transaction already under
way. A claim there reads the caller's snapshot: one that meets a job another session claimed after
that snapshot was taken fails with a serialization failure (40001) instead of skipping it, so the
caller retries its transaction; no job is ever handed out twice. The watermark is never raised from
such a snapshot (it could still show as claimed a job released since).
"""

from __future__ import annotations

import threading
import time

import pytest

from qgen.client import InvalidArgument, QueueUsageError, error_kind
from tests.behaviour.helpers import HOSTILE_ISOLATION

LEVELS = ("repeatable read", "serializable", "snapshot")
_MSSQL_LEVELS = {1: "read uncommitted", 2: "read committed", 3: "repeatable read", 4: "serializable", 5: "snapshot"}


def set_isolation(env, client, level: str) -> None:
    """Every later transaction of the client's session runs at `level` (the caller's choice)."""
    cursor = client.connection.cursor()
    if env.dialect == "postgres":
        if level == "snapshot":
            pytest.skip("PostgreSQL's REPEATABLE READ is snapshot isolation: the repeatable read case covers it")
        cursor.execute(f"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {level.upper()}")
        client.connection.commit()
    else:
        if level == "snapshot":
            env.execute("ALTER DATABASE CURRENT SET ALLOW_SNAPSHOT_ISOLATION ON")
        cursor.execute(f"SET TRANSACTION ISOLATION LEVEL {level.upper()}")
    cursor.close()


def current_isolation(env, client) -> str:
    """The isolation level the client's session (or open transaction) runs at now."""
    cursor = client.connection.cursor()
    if env.dialect == "postgres":
        cursor.execute("SELECT pg_catalog.current_setting('transaction_isolation')")
        level = cursor.fetchone()[0]
    else:
        cursor.execute("SELECT transaction_isolation_level FROM sys.dm_exec_sessions WHERE session_id = @@SPID")
        level = _MSSQL_LEVELS[cursor.fetchone()[0]]
    cursor.close()
    if not client.in_transaction and env.dialect == "postgres":
        client.connection.commit()
    return level


def claim_in_transaction(env, client, batch_size: int):
    """A caller's transaction around a delete claim, retried as a caller must when the database
    refuses it (a serialization failure or a deadlock). Returns (jobs, refusals, level inside)."""
    refusals = 0
    while True:
        try:
            with client.transaction():
                jobs = client.dequeue(batch_size=batch_size)
                level = current_isolation(env, client)
            return jobs, refusals, level
        except Exception as exc:
            if error_kind(env.dialect, exc) != "deadlock" or refusals >= 50:
                raise
            refusals += 1
            time.sleep(0.005 * refusals)


def run_together(workers: list, target) -> list[BaseException]:
    errors: list[BaseException] = []

    def run(worker):
        try:
            target(worker)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return errors


# ---------------------------------------------------------------------------------------------
# The batch cap


def test_dequeue_and_reap_refuse_a_batch_size_outside_1_to_max_batch_size(use_spec):
    env = use_spec(HOSTILE_ISOLATION)  # max_batch_size 50 on both queues
    leases, codes = env.client("leases"), env.client("codes")
    leases.enqueue_many([{"n": n} for n in range(60)])
    codes.enqueue(code="a")
    for bad in (0, -1, 51, 4000):
        with pytest.raises(InvalidArgument, match=f"batch_size {bad} .*accepted: 1 to 50"):
            leases.dequeue(batch_size=bad)
        with pytest.raises(InvalidArgument, match="accepted: 1 to 50"):
            with codes.transaction():
                codes.dequeue(batch_size=bad)
        with pytest.raises(InvalidArgument, match="accepted: 1 to 50"):
            leases.reap(batch_size=bad)
    assert issubclass(InvalidArgument, QueueUsageError)
    assert leases.metrics()["ready"] == 60 and codes.metrics()["ready"] == 1, "a refused call claims nothing"
    assert len(leases.dequeue(batch_size=50)) == 50, "the cap itself is accepted"
    assert leases.reap() == (0, 0), "reap's default batch is the cap"
    with codes.transaction():
        assert [j.payload["code"] for j in codes.dequeue()] == ["a"]


# ---------------------------------------------------------------------------------------------
# Claims inside a caller's transaction at REPEATABLE READ / SERIALIZABLE / SNAPSHOT


@pytest.mark.babelfish_gap("B10", "two sessions at once: what it shows is SQL Server's locking (READPAST, UPDLOCK, isolation levels)")
@pytest.mark.parametrize("level", LEVELS[:2])
def test_a_delete_claim_after_another_buyers_commit_never_repeats_a_job(use_spec, level):
    """The buyer's transaction is open (on PostgreSQL: its snapshot taken) before another buyer
    claims and commits. Its claim then gets the other codes, or is refused and retried: never the
    codes already sold. Its session keeps its own isolation level."""
    env = use_spec(HOSTILE_ISOLATION)
    ids = [r.id for r in env.client("codes").enqueue_many([{"code": f"c{n}"} for n in range(4)])]
    buyer, other = env.client("codes"), env.client("codes")
    set_isolation(env, buyer, level)
    refused = False
    try:
        with buyer.transaction():
            assert current_isolation(env, buyer) == level  # the transaction's first statement
            with other.transaction():
                sold = [j.id for j in other.dequeue(batch_size=2)]
            got = [j.id for j in buyer.dequeue(batch_size=4)]
            assert current_isolation(env, buyer) == level, "the procedure changed the caller's level"
    except Exception as exc:
        assert error_kind(env.dialect, exc) == "deadlock", f"refused with something else than a serialization failure: {exc}"
        refused = True
        jobs, _, _ = claim_in_transaction(env, buyer, 4)
        got = [j.id for j in jobs]
    assert sold == ids[:2]
    assert got == ids[2:]
    # What each database makes the caller experience (docs/api.md, Isolation):
    if env.dialect == "postgres":
        assert refused, "PostgreSQL refuses a claim that meets a row changed after the caller's snapshot (40001)"
    else:
        assert not refused, "SQL Server claims at READ COMMITTED whatever the caller's level"


def test_a_read_committed_claim_after_another_buyers_commit_gets_the_other_codes(use_spec):
    """The half of test_a_delete_claim_after_another_buyers_commit_never_repeats_a_job that needs no
    lock and no strict level (B17 on Babelfish): the buyer's transaction is open when another buyer
    claims and commits; its claim gets the codes left, never the sold ones, and its session stays
    at READ COMMITTED."""
    env = use_spec(HOSTILE_ISOLATION)
    ids = [r.id for r in env.client("codes").enqueue_many([{"code": f"c{n}"} for n in range(4)])]
    buyer, other = env.client("codes"), env.client("codes")
    with buyer.transaction():
        assert current_isolation(env, buyer) == "read committed"
        with other.transaction():
            sold = [j.id for j in other.dequeue(batch_size=2)]
        got = [j.id for j in buyer.dequeue(batch_size=4)]
        assert current_isolation(env, buyer) == "read committed", "the procedure changed the caller's level"
    assert (sold, got) == (ids[:2], ids[2:])
    assert env.count("codes") == 0


@pytest.mark.babelfish_gap("B10", "two sessions at once: what it shows is SQL Server's locking (READPAST, UPDLOCK, isolation levels)")
@pytest.mark.parametrize("level", LEVELS)
def test_concurrent_delete_claims_at_the_callers_level_hand_each_job_out_once(use_spec, level):
    env = use_spec(HOSTILE_ISOLATION)
    ids = [r.id for r in env.client("codes").enqueue_many([{"code": f"c{n}"} for n in range(60)])]
    buyers = [env.client("codes") for _ in range(4)]
    for buyer in buyers:
        set_isolation(env, buyer, level)
    handed: list[int] = []
    levels: set[str] = set()
    lock = threading.Lock()

    def buy(client):
        give_up = time.monotonic() + 60
        while time.monotonic() < give_up:
            with lock:
                if len(handed) >= len(ids):
                    return
            jobs, _, seen = claim_in_transaction(env, client, 2)
            with lock:
                handed.extend(j.id for j in jobs)
                levels.add(seen)

    assert run_together(buyers, buy) == []
    assert sorted(handed) == ids, "every code is sold exactly once"
    assert levels == {level}
    assert env.count("codes") == 0


@pytest.mark.babelfish_gap("B10", "two sessions at once: what it shows is SQL Server's locking (READPAST, UPDLOCK, isolation levels)")
@pytest.mark.parametrize("level", LEVELS)
def test_concurrent_lease_claims_from_sessions_at_the_callers_level_hand_each_job_out_once(use_spec, level):
    """Each dequeue its own transaction, at the session's level: the client retries a claim the
    database refused (PostgreSQL: a serialization failure when another worker claimed first)."""
    env = use_spec(HOSTILE_ISOLATION)
    ids = [r.id for r in env.client("leases").enqueue_many([{"n": n} for n in range(60)])]
    workers = [env.client("leases", max_deadlock_retries=50, deadlock_backoff=0.005) for _ in range(4)]
    for worker in workers:
        set_isolation(env, worker, level)
    handed: list[int] = []
    lock = threading.Lock()

    def work(client):
        give_up = time.monotonic() + 60
        while time.monotonic() < give_up:
            with lock:
                if len(handed) >= len(ids):
                    return
            jobs = client.dequeue(batch_size=3)
            with lock:
                handed.extend(j.id for j in jobs)
            for job in jobs:
                client.complete(job)

    assert run_together(workers, work) == []
    assert sorted(handed) == ids, "every job is handed out exactly once"
    assert env.count("leases") == 0


@pytest.mark.babelfish_gap("B10", "two sessions at once: what it shows is SQL Server's locking (READPAST, UPDLOCK, isolation levels)")
@pytest.mark.parametrize("mover", ["dequeue", "watermark_correct"])
def test_a_repeatable_read_caller_never_raises_the_watermark_past_a_job_released_meanwhile(use_spec, mover):
    """The caller's snapshot shows jobs 1..5 leased; job 1 is released (fail) and committed while
    its transaction is open. A claim of ids 6..25 (crossing a multiple of 10) or a correction made
    from that snapshot must not raise the watermark past job 1, or job 1 is stranded."""
    env = use_spec(HOSTILE_ISOLATION)  # watermark every 10, slack 3
    leases = env.client("leases")
    leases.enqueue_many([{"n": n} for n in range(30)])
    released = leases.dequeue(batch_size=5)[0]
    caller = env.client("leases")
    set_isolation(env, caller, "repeatable read")
    with caller.transaction():
        assert current_isolation(env, caller) == "repeatable read"  # the snapshot: jobs 1..5 leased
        assert leases.fail(released, "released while the caller's transaction is open") == "retry"
        if mover == "dequeue":
            assert [j.id for j in caller.dequeue(batch_size=20)] == list(range(6, 26))
        else:
            caller.watermark_correct()
    env.backdate("leases", "available_at", 3600, ids=[released.id])  # its backoff is over
    assert env.watermark("leases") <= released.id
    assert released.id in [j.id for j in leases.dequeue(batch_size=50)], "the released job is stranded below the watermark"


@pytest.mark.parametrize("mover", ["dequeue", "watermark_correct"])
def test_a_mover_after_a_release_never_raises_the_watermark_past_the_released_job(use_spec, mover):
    """The half of test_a_repeatable_read_caller_never_raises_the_watermark_past_a_job_released_meanwhile
    one session shows (at READ COMMITTED: the strict levels are B17 on Babelfish): job 1 of a lease
    of 1..5 is released; after a claim of 6..25 (crossing a multiple of 10) or a correction, job 1
    is claimed again once its backoff is over."""
    env = use_spec(HOSTILE_ISOLATION)  # watermark every 10, slack 3
    leases = env.client("leases")
    leases.enqueue_many([{"n": n} for n in range(30)])
    released = leases.dequeue(batch_size=5)[0]
    assert leases.fail(released, "released before the mover runs") == "retry"
    if mover == "dequeue":
        assert [j.id for j in leases.dequeue(batch_size=20)] == list(range(6, 26))
    else:
        leases.watermark_correct()
    # Both databases may pass a job waiting out its backoff (it is deferred: the due index, not the
    # watermark, finds it once due); what must hold is that it is claimed again then.
    env.backdate("leases", "enqueued_at", 3600, ids=[released.id])  # its enqueue and its backoff an hour ago
    env.backdate("leases", "available_at", 3600, ids=[released.id])
    assert released.id in [j.id for j in leases.dequeue(batch_size=50)], "the released job is stranded below the watermark"


def test_a_lease_of_less_than_a_second_is_refused(use_spec):
    """A NULL lease expiry is never reaped (the job would stay leased forever), and a lease that is
    over at once lets reap give the job to a second worker while the first still runs it."""
    env = use_spec(HOSTILE_ISOLATION)
    leases = env.client("leases")
    leases.enqueue(n=1)
    for bad in (0, -5):
        with pytest.raises(InvalidArgument, match="lease_seconds .*accepted: 1 or more"):
            leases.dequeue(lease_seconds=bad)
    assert leases.metrics()["ready"] == 1, "a refused claim claims nothing"
    [job] = leases.dequeue(lease_seconds=60)
    for bad in (0, -5):
        with pytest.raises(InvalidArgument, match="lease_seconds .*accepted: 1 or more"):
            leases.extend_lease(job, lease_seconds=bad)
    assert leases.reap() == (0, 0), "the refused extensions left the lease as it was"
    leases.complete(job)


def test_maintain_takes_a_batch_above_the_queues_claim_cap(use_spec):
    """maintain's batch (up to 4000) is not refused because reap's is capped at max_batch_size (50
    here): maintain hands reap at most that cap."""
    env = use_spec(HOSTILE_ISOLATION)
    leases = env.client("leases")
    result = leases.maintain(batch_size=200)
    assert not result.skipped and result.released == 0
