"""The watermark: where claims start. It moves up as claims cross `every`, fail and reap lower it,
and watermark_correct repairs it from the table, whichever way it is wrong."""

from __future__ import annotations

import pytest

from tests.behaviour.helpers import BEHAVE, EX001, EX002, EX004


def take(client, n):
    """Claim n jobs of a delete queue in one committed transaction; their ids."""
    with client.transaction():
        return [j.id for j in client.dequeue(batch_size=n)]


def test_the_watermark_moves_when_a_claim_is_every_plus_slack_above_it(use_spec):
    env = use_spec(EX001)  # claim: delete, every 100, slack 50
    queue = env.client("testq")
    ids = [r.id for r in queue.enqueue_many([{"filler": f"row {n}"} for n in range(400)])]
    assert ids == list(range(1, 401))
    assert take(queue, 60) == ids[0:60]
    assert env.watermark("testq") == 0
    assert take(queue, 60) == ids[60:120]     # 120 is not yet 150 above 0
    assert env.watermark("testq") == 0
    assert take(queue, 60) == ids[120:180]    # 180 is: moves to 50 below this claim's highest id
    assert env.watermark("testq") == 180 - 50
    assert take(queue, 60) == ids[180:240]    # 240 is 110 above 130
    assert env.watermark("testq") == 130
    assert take(queue, 60) == ids[240:300]    # 300 is 170 above it
    assert env.watermark("testq") == 300 - 50
    metrics = queue.metrics()
    assert (metrics["watermark"], metrics["lowest_pending_id"], metrics["ready"]) == (250, 301, 100)


def test_gaps_at_every_multiple_do_not_keep_the_watermark_still(use_spec):
    """Ids with gaps (dedupe hits, rolled-back enqueues): no claim of one job ever crossed the
    multiples of `every` that never were jobs, and the watermark stayed at 0."""
    env = use_spec(EX001)
    queue = env.client("testq")
    queue.enqueue_many([{"filler": f"row {n}"} for n in range(400)])
    env.execute(f"DELETE FROM {env.name('testq')} WHERE {env.col('id')} % 2 = 0")  # every multiple of 100 a gap
    for _ in range(100):
        take(queue, 1)                           # ids 1, 3, ..., 199
    assert env.watermark("testq") >= 150 - 50, "the watermark follows the claims across the gaps"


@pytest.mark.babelfish_gap("B10", "another session's open claim of a row the mover must not pass: SQL Server's locking")
def test_a_lease_queue_watermark_moves_but_never_past_an_unclaimed_row(use_spec):
    env = use_spec(BEHAVE)  # wm: batch 5, every 10, slack 3
    queue, holder = env.client("wm"), env.client("wm")
    queue.enqueue_many([{"n": n} for n in range(1, 31)])
    env.set_watermark("wm", 0)                 # searched just now: no rescan takes the watermark row
    with holder.transaction():                 # a claim that may still roll back: 1..5 look unclaimed
        assert [j.id for j in holder.dequeue()] == [1, 2, 3, 4, 5]
        assert [j.id for j in queue.dequeue()] == [6, 7, 8, 9, 10]    # 10 is not yet every + slack (13) above 0
        assert env.watermark("wm") == 0
        assert [j.id for j in queue.dequeue()] == [11, 12, 13, 14, 15]  # 15 is: target 15 - 3 = 12
        assert env.watermark("wm") == 1, "stops at the row 1 the open claim holds instead of passing it"


def test_a_backed_off_job_does_not_hold_the_watermark_back(use_spec):
    """A job waiting out its backoff is deferred: the watermark passes it (it used to stop there,
    and every claim walked every job behind it for as long as the backoff ran), and the due index
    hands it to the first claim once its time comes, ahead of jobs that were ready at enqueue."""
    env = use_spec(BEHAVE)  # wm: batch 5, every 10, slack 3
    queue = env.client("wm")
    queue.enqueue_many([{"n": n} for n in range(1, 31)])
    first = queue.dequeue()                   # 1..5
    queue.fail(first[1], "back with a backoff")  # 2 is deferred: not available for 10 s
    assert [j.id for j in queue.dequeue()] == [6, 7, 8, 9, 10]
    assert [j.id for j in queue.dequeue()] == [11, 12, 13, 14, 15]  # target 12
    assert env.watermark("wm") == 12, "passes the backed-off row 2"
    # the backoff runs out (its enqueue and its backoff an hour earlier)
    env.backdate("wm", "enqueued_at", 3600, ids=[2])
    env.backdate("wm", "available_at", 3600, ids=[2])
    again = queue.dequeue()
    assert [j.id for j in again] == [2, 16, 17, 18, 19]
    assert again[0].attempts == 2


def test_a_watermark_set_too_high_hides_jobs_until_corrected(use_spec):
    env = use_spec(EX001)
    queue = env.client("testq")
    queue.enqueue_many([{"filler": "x"} for _ in range(5)])
    env.set_watermark("testq", 1000)
    assert take(queue, 10) == [], "every job sits below the watermark"
    assert queue.watermark_correct() == (1000, 0)   # 50 below the lowest pending id 1, never below 0
    assert take(queue, 10) == [1, 2, 3, 4, 5]


def test_a_lease_queue_watermark_set_too_high_is_corrected(use_spec):
    env = use_spec(BEHAVE)
    queue = env.client("wm")
    queue.enqueue_many([{"n": n} for n in range(1, 21)])
    for _ in range(3):
        queue.dequeue()                                # 1..15 leased; the move put the watermark at 15 - 3
    assert env.watermark("wm") == 12
    env.set_watermark("wm", 500)
    assert queue.dequeue() == []
    assert queue.metrics()["lowest_pending_id"] == 16
    assert queue.watermark_correct() == (500, 16 - 3)
    assert [j.id for j in queue.dequeue()] == [16, 17, 18, 19, 20]


def test_a_watermark_left_at_zero_is_raised_by_correct(use_spec):
    env = use_spec(EX001)
    queue = env.client("testq")
    queue.enqueue_many([{"filler": "x"} for _ in range(200)])
    assert len(take(queue, 150)) == 150
    env.set_watermark("testq", 0)
    assert queue.watermark_correct() == (0, 151 - 50)
    metrics = queue.metrics()
    assert (metrics["watermark"], metrics["lowest_pending_id"]) == (101, 151)
    assert take(queue, 1) == [151]
    assert queue.watermark_correct() == (101, 152 - 50)


def test_correct_with_every_row_claimed_and_on_an_empty_table(use_spec):
    env = use_spec(BEHAVE)
    queue = env.client("wm")
    assert queue.watermark_correct() == (0, 0), "an empty table leaves it alone"
    queue.enqueue_many([{"n": n} for n in range(1, 11)])
    a, b = queue.dequeue(), queue.dequeue()
    env.set_watermark("wm", 0)
    assert queue.watermark_correct() == (0, 11 - 3), "slack below one past the highest id"
    for job in a + b:
        queue.complete(job)  # on_complete: delete: the table is empty again
    assert queue.watermark_correct() == (8, 8)


@pytest.mark.parametrize("release", ["fail", "reap"])
def test_a_release_below_the_watermark_lowers_it(use_spec, release):
    env = use_spec(BEHAVE)
    queue = env.client("wm")
    queue.enqueue_many([{"n": n} for n in range(1, 21)])
    batches = [queue.dequeue() for _ in range(4)]    # 1..20, all leased
    assert env.watermark("wm") == 15 - 3
    job = batches[1][1]                               # id 7
    assert job.id == 7
    if release == "fail":
        assert queue.fail(job, "try again") == "retry"
        env.backdate("wm", "available_at", 3600, ids=[7])   # the backoff passes
    else:
        env.backdate("wm", "lease_expires_at", 3600, ids=[7])
        assert queue.reap() == (1, 0)
    assert env.watermark("wm") == 7
    assert queue.metrics()["lowest_pending_id"] == 7
    again, = queue.dequeue()
    assert (again.id, again.attempts) == (7, 2)


def test_correct_after_a_drain_raises_a_watermark_a_release_lowered(use_spec):
    """The reaper releases an early job after the watermark passed it: the release lowers the
    watermark to that job. Once it is done too and the table is empty, correct must raise the
    watermark to the next id again (from the identity), or every later claim walks the drained
    range (the ghost rows of claimed jobs, until vacuum)."""
    env = use_spec(BEHAVE)
    queue = env.client("wm")
    queue.enqueue_many([{"n": n} for n in range(1, 31)])
    batches = [queue.dequeue() for _ in range(6)]    # 1..30, all leased
    env.backdate("wm", "lease_expires_at", 3600, ids=[2])
    assert queue.reap() == (1, 0)
    assert env.watermark("wm") == 2
    for batch in batches:
        for job in batch:
            if job.id != 2:
                queue.complete(job)
    again, = queue.dequeue()
    queue.complete(again)
    assert queue.metrics()["ready"] == 0
    assert queue.watermark_correct() == (2, 31 - 3)


@pytest.mark.babelfish_gap("B10", "another session claims past rows an open claim holds: SQL Server's READPAST")
def test_a_rolled_back_claim_is_found_again_after_correct(use_spec):
    """A delete-mode claim that rolls back while another claim moves the watermark can leave its
    rows below it (SQL Server's READPAST skips them); dequeue, then correct when empty, finds
    every job exactly once on both databases."""
    env = use_spec(EX001)
    queue, other = env.client("testq"), env.client("testq")
    queue.enqueue_many([{"filler": "x"} for _ in range(130)])
    with pytest.raises(RuntimeError):
        with queue.transaction():
            held = [j.id for j in queue.dequeue(batch_size=60)]
            assert held == list(range(1, 61))
            assert take(other, 60) == list(range(61, 121))    # crosses 100 while 1..60 are held
            raise RuntimeError("roll back")
    seen = list(range(61, 121))
    while True:
        got = take(other, 25)
        if not got:
            correction = other.watermark_correct()
            got = take(other, 25)
            if not got:
                break
            assert correction.new < correction.old
        seen += got
    assert sorted(seen) == list(range(1, 131))
    assert len(seen) == len(set(seen)) == 130


def test_a_queue_without_a_watermark_reports_none(use_spec):
    transfer = use_spec(EX004).client("rainfall_transfer")  # a fifo delete queue: on by default
    assert transfer.metrics()["watermark"] == 0
    codes = use_spec(EX002).client("card_codes")  # watermark: false
    assert codes.metrics()["watermark"] is None


def test_a_claim_rolled_back_in_one_session_is_found_again_without_correct(use_spec):
    """The half of test_a_rolled_back_claim_is_found_again_after_correct one session shows: the
    rolled-back claim of 60 takes the watermark's move with it, so the claims after it hand out
    every job exactly once, in id order, with no correction needed."""
    env = use_spec(EX001)
    queue = env.client("testq")
    queue.enqueue_many([{"filler": "x"} for _ in range(130)])
    with pytest.raises(RuntimeError):
        with queue.transaction():
            assert [j.id for j in queue.dequeue(batch_size=60)] == list(range(1, 61))
            raise RuntimeError("roll back")
    assert env.watermark("testq") == 0
    seen: list[int] = []
    while got := take(queue, 50):
        seen += got
    assert seen == list(range(1, 131))
    assert env.count("testq") == 0


def test_a_lease_queue_watermark_moves_past_its_leased_rows(use_spec):
    """The half of test_a_lease_queue_watermark_moves_but_never_past_an_unclaimed_row one session
    shows: committed lease claims do not hold the watermark; it moves once a claim is every + slack
    above it, to slack below that claim's highest id, and a claim of less leaves it."""
    env = use_spec(BEHAVE)  # wm: batch 5, every 10, slack 3
    queue = env.client("wm")
    queue.enqueue_many([{"n": n} for n in range(1, 31)])
    env.set_watermark("wm", 0)                 # searched just now: no rescan takes the watermark row
    assert [j.id for j in queue.dequeue()] == [1, 2, 3, 4, 5]
    assert [j.id for j in queue.dequeue()] == [6, 7, 8, 9, 10]    # 10 is not yet every + slack (13) above 0
    assert env.watermark("wm") == 0
    assert [j.id for j in queue.dequeue()] == [11, 12, 13, 14, 15]  # 15 is: target 15 - 3 = 12
    assert env.watermark("wm") == 12, "the leased rows 1..11 do not hold it back"
    assert queue.metrics()["in_flight"] == 15
