"""A priority queue's claims, live: priority order, and no job hidden for long, whatever sits behind
a claim. On PostgreSQL a claim starts each priority at its mark (templates/postgres/
priority_marks.sql.j2), which moves up as claims take jobs, and which fail, reap and the rescan
lower to jobs that became claimable below it; SQL Server's claim keeps its shape (no marks), and
the same calls must give the same jobs there."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT

PRIO = ROOT / "tests" / "behaviour" / "specs" / "priority_marks.yaml"
TOP, BOTTOM = 2_147_483_647, -2_147_483_648


def marks(env, queue: str) -> dict[int, int] | None:
    """PostgreSQL: the queue's marks, priority -> id; None on SQL Server (it has none)."""
    if env.dialect != "postgres":
        return None
    rows = env.sql(f"SELECT {env.col('priorities')}, {env.col('ids')} FROM {env.name(queue, 'priority_marks')}")
    return dict(zip(rows[0][0], rows[0][1]))


def expect_marks(env, queue: str, expected: dict[int, int]) -> None:
    found = marks(env, queue)
    assert found is None or found == expected


def claim_and_complete(queue, rounds: int) -> list[int]:
    taken = []
    for _ in range(rounds):
        jobs = queue.dequeue()
        taken += [j.id for j in jobs]
        for job in jobs:
            queue.complete(job)
    return taken


def test_claims_keep_priority_order_across_marks_and_new_priorities(use_spec):
    env = use_spec(PRIO)  # pl: batch 5, every 10, slack 3
    queue = env.client("pl")
    queue.enqueue_many([{"n": n, "priority": 0} for n in range(40)])   # ids 1..40
    queue.enqueue_many([{"n": n, "priority": 5} for n in range(40)])   # ids 41..80
    assert claim_and_complete(queue, 6) == list(range(41, 71))
    # moved at claims 41..45 (to 42), 51..55 (to 52), 61..65 (to 62): each every + slack above it
    expect_marks(env, "pl", {5: 62})
    queue.enqueue_many([{"n": 1, "priority": 9}, {"n": 2, "priority": 3}, {"n": 3, "priority": 5},
                        {"n": 4, "priority": TOP}, {"n": 5, "priority": BOTTOM}])  # ids 81..85
    # above the marked priority, between marked ones, at both ends of the integer: none is missed
    claimed = queue.dequeue(batch_size=5)
    assert [(j.id, j.priority) for j in claimed] == [(84, TOP), (81, 9), (71, 5), (72, 5), (73, 5)]
    rest = queue.dequeue(batch_size=50)
    assert [j.id for j in rest] == list(range(74, 81)) + [83, 82] + list(range(1, 41)) + [85]
    assert queue.dequeue() == []


def test_a_failed_job_below_its_priority_mark_is_claimed_first(use_spec):
    env = use_spec(PRIO)
    queue = env.client("pl")
    queue.enqueue_many([{"n": n} for n in range(30)])   # priority 0, ids 1..30
    held = queue.dequeue(batch_size=1)
    assert [j.id for j in held] == [1]
    assert claim_and_complete(queue, 4) == list(range(2, 22))
    expect_marks(env, "pl", {0: 13})   # passed the leased job 1 (a lease is not a job to claim)
    assert queue.fail(held[0], "again") == "retry"
    env.backdate("pl", "available_at", 3600, ids=[1])   # its backoff is over
    expect_marks(env, "pl", {0: 1})
    again = queue.dequeue(batch_size=2)
    assert [(j.id, j.attempts) for j in again] == [(1, 2), (22, 1)]


def test_a_reaped_job_below_its_priority_mark_is_claimed_first(use_spec):
    env = use_spec(PRIO)
    queue = env.client("pl")
    queue.enqueue_many([{"n": n} for n in range(30)])
    held = queue.dequeue(batch_size=1)
    assert claim_and_complete(queue, 4) == list(range(2, 22))
    expect_marks(env, "pl", {0: 13})
    env.backdate("pl", "lease_expires_at", 3600, ids=[held[0].id])
    assert queue.reap().released == 1
    expect_marks(env, "pl", {0: 1})
    assert [(j.id, j.attempts) for j in queue.dequeue(batch_size=2)] == [(1, 2), (22, 1)]


def test_a_late_insert_a_mark_passed_is_found_by_the_rescan(use_spec, dialect):
    if dialect != "postgres":
        pytest.skip("claim marks and their rescan are PostgreSQL's")
    env = use_spec(PRIO)
    queue, late = env.client("pl"), env.client("pl")
    queue.enqueue_many([{"n": n} for n in range(20)])        # ids 1..20
    with late.transaction():
        assert late.enqueue(n=99).id == 21                  # not committed yet: no claim sees it
        queue.enqueue_many([{"n": n} for n in range(20)])    # ids 22..41
        assert claim_and_complete(queue, 8) == list(range(1, 21)) + list(range(22, 42))
    assert marks(env, "pl")[0] > 21
    assert queue.dequeue() == [], "below the mark until the rescan"
    env.execute(f"UPDATE {env.name('pl', 'priority_marks')} SET {env.col('corrected_at')} = '-infinity'")
    assert [j.id for j in queue.dequeue()] == [21]
    assert marks(env, "pl")[0] <= 21


@pytest.mark.babelfish_gap("B10", "a second session's claim skips the row an open delete claim holds: SQL Server's READPAST")
def test_a_delete_claim_held_open_keeps_the_mark_below_it_and_its_rollback_loses_nothing(use_spec):
    env = use_spec(PRIO)  # pd: claim delete
    queue, holder = env.client("pd"), env.client("pd")
    queue.enqueue_many([{"n": n} for n in range(40)])   # ids 1..40
    if env.dialect == "postgres":  # searched just now: the holder's claim does not rescan (and keep the row)
        env.execute(f"UPDATE {env.name('pd', 'priority_marks')} SET {env.col('corrected_at')} = now()")

    def take(n: int) -> list[int]:
        with queue.transaction():
            return [j.id for j in queue.dequeue(batch_size=n)]

    class RolledBack(Exception):
        pass

    with pytest.raises(RolledBack):
        with holder.transaction():
            assert [j.id for j in holder.dequeue(batch_size=1)] == [1]
            assert take(20) == list(range(2, 22))
            assert take(5) == list(range(22, 27))
            expect_marks(env, "pd", {0: 1})   # stops at the row the open claim holds
            raise RolledBack
    assert take(2) == [1, 27]


def test_delete_claims_one_session_rolls_back_lose_nothing(use_spec):
    """The half of test_a_delete_claim_held_open_keeps_the_mark_below_it_and_its_rollback_loses_nothing
    one session shows: claims of 1 and then 20 more in one caller transaction, rolled back, put every
    job back, and the next claims hand them out again in order (PostgreSQL: the mark the rolled-back
    claims moved goes back with them)."""
    env = use_spec(PRIO)  # pd: claim delete
    queue = env.client("pd")
    queue.enqueue_many([{"n": n} for n in range(40)])   # ids 1..40

    class RolledBack(Exception):
        pass

    with pytest.raises(RolledBack):
        with queue.transaction():
            assert [j.id for j in queue.dequeue(batch_size=1)] == [1]
            assert [j.id for j in queue.dequeue(batch_size=20)] == list(range(2, 22))
            raise RolledBack
    assert env.count("pd") == 40
    with queue.transaction():
        assert [j.id for j in queue.dequeue(batch_size=25)] == list(range(1, 26))
    with queue.transaction():
        assert [j.id for j in queue.dequeue(batch_size=25)] == list(range(26, 41))
    assert env.count("pd") == 0
