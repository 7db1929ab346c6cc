"""The rescan (watermark.rescan): once per interval a dequeue searches below the watermark for jobs
it passed and lowers the watermark to them, so nothing waits for a watermark_correct that a busy
queue never runs. It only lowers. And a missing watermark row reads as 0 and is put back.
(The busy-queue cases, with late inserts and rolled-back claims, are in test_hostile_session.py.)"""

from __future__ import annotations

import pytest

from tests.behaviour.helpers import BEHAVE, EX001

# (spec, queue, payload of job n, how a test claims: delete queues inside a transaction)
QUEUES = {
    "delete": (EX001, "testq", lambda n: {"filler": f"row {n}"}),
    "lease": (BEHAVE, "wm", lambda n: {"n": n}),
}


def claim(client, n: int) -> list[int]:
    if client.lease_mode:
        return [job.id for job in client.dequeue(batch_size=n)]
    with client.transaction():
        return [job.id for job in client.dequeue(batch_size=n)]


def corrected_age(env, queue: str) -> float:
    """Seconds since the watermark was last searched below (negative: in the future)."""
    return -float(env.scalar(f"SELECT {env.seconds_from_now(env.col('corrected_at'))} "
                             f"FROM {env.name(queue, 'watermark_table')}"))


@pytest.mark.parametrize("mode", sorted(QUEUES))
def test_a_due_rescan_finds_jobs_the_watermark_passed(use_spec, mode):
    path, name, payload = QUEUES[mode]
    env = use_spec(path)
    queue = env.client(name)
    slack = env.spec.queues[name].watermark.slack
    queue.enqueue_many([payload(n) for n in range(5)])
    env.set_watermark(name, 1000)                  # counts as corrected now: no rescan is due
    assert claim(queue, 10) == [], "every job sits below the watermark"
    assert env.watermark(name) == 1000
    env.set_watermark(name, 1000, rescan_due=True)
    assert claim(queue, 10) == [1, 2, 3, 4, 5], "the rescan lowered it, and the claim started there"
    assert env.watermark(name) == max(1 - slack, 0)
    assert 0 <= corrected_age(env, name) < 5, "the rescan noted when it ran"


@pytest.mark.parametrize("mode", sorted(QUEUES))
def test_a_rescan_only_lowers(use_spec, mode):
    path, name, payload = QUEUES[mode]
    env = use_spec(path)
    queue = env.client(name)
    queue.enqueue_many([payload(n) for n in range(8)])
    assert claim(queue, 3) == [1, 2, 3]
    env.set_watermark(name, 0, rescan_due=True)    # too low: only watermark_correct or a move raises it
    assert claim(queue, 1) == [4]                  # crosses no multiple of `every`: no move either
    assert env.watermark(name) == 0
    assert 0 <= corrected_age(env, name) < 5


@pytest.mark.parametrize("mode", sorted(QUEUES))
def test_a_missing_watermark_row_reads_as_zero_and_is_put_back(use_spec, mode):
    path, name, payload = QUEUES[mode]
    env = use_spec(path)
    queue = env.client(name)
    queue.enqueue_many([payload(n) for n in range(4)])
    env.execute(f"DELETE FROM {env.name(name, 'watermark_table')}")
    assert claim(queue, 2) == [1, 2], "claims start at 0, not at a NULL that matches nothing"
    assert env.count(name, "watermark_table") == 1, "the dequeue put the row back"
    assert env.watermark(name) == 0
    assert claim(queue, 2) == [3, 4]
    env.execute(f"DELETE FROM {env.name(name, 'watermark_table')}")
    correction = queue.watermark_correct()
    assert correction.old is None and correction.new is not None
    assert env.count(name, "watermark_table") == 1, "watermark_correct puts it back too"
