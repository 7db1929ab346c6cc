"""Held as it always was (kept as evidence): a priority queue's claim marks (PostgreSQL, q_marks) against a
claim rolled back under them and an insert that commits late below them.

- A claim made inside a caller's transaction, then rolled back: other workers' claims meanwhile
  moved the mark (their snapshots show the held jobs unclaimed, so the mark stays below them); the
  jobs are claimable at once after the rollback, lease and delete mode alike.
- An enqueue that commits after claims moved the mark past its id waits for the rescan (the
  documented bound, watermark.rescan), and the rescan hands it out.
"""

from __future__ import annotations

import pytest

from tests.conftest import ROOT

SPEC = ROOT / "tests" / "cases" / "priority_marks_rescan" / "spec.yaml"
PRIORITY = 5


@pytest.fixture
def env(use_spec):
    env = use_spec(SPEC)
    if env.dialect != "postgres":
        pytest.skip("claim marks are PostgreSQL's")
    return env


def mark(env, queue: str) -> int:
    return int(env.scalar(f'SELECT "ids"[array_position("priorities", {PRIORITY})] FROM {env.name(queue, "priority_marks")}')
               or 0)


def claim_all(env, queue: str, conn) -> list[int]:
    taken: list[int] = []
    while True:
        rows = conn.execute(f'SELECT "id" FROM {env.name(queue, "dequeue")}("batch_size" => 5'
                            + (', "at_most_once" => TRUE' if queue == "priod" else "") + ")").fetchall()
        if not rows:
            return taken
        taken += [r[0] for r in rows]


@pytest.mark.parametrize("queue", ["prio", "priod"])
def test_a_rolled_back_claim_below_a_moved_mark_is_claimable_at_once(env, queue):
    env.client(queue).enqueue_many([{"n": n, "priority": PRIORITY} for n in range(40)])
    holder = env.connect()
    held = [r[0] for r in holder.execute(f'SELECT "id" FROM {env.name(queue, "dequeue")}("batch_size" => 5)').fetchall()]
    worker = env.connect(autocommit=True)
    rest = claim_all(env, queue, worker)
    assert len(held) == 5 and len(rest) == 35
    assert mark(env, queue) <= min(held)            # the mark stopped at the jobs the holder's snapshot hides
    holder.rollback()
    assert sorted(claim_all(env, queue, worker)) == sorted(held)


def test_an_enqueue_committed_late_below_a_mark_is_found_by_the_rescan(env):
    queue = "prio"
    late = env.connect()
    late_id = late.execute(f'SELECT * FROM {env.name(queue, "enqueue")}("n" => -1, "priority" => {PRIORITY})').fetchone()[0]
    env.client(queue).enqueue_many([{"n": n, "priority": PRIORITY} for n in range(40)])
    worker = env.connect(autocommit=True)
    assert len(claim_all(env, queue, worker)) == 40
    assert mark(env, queue) > late_id               # the mark passed the insert no snapshot showed
    late.commit()
    env.execute(f"UPDATE {env.name(queue, 'priority_marks')} SET \"corrected_at\" = '-infinity'")   # the rescan is due
    assert claim_all(env, queue, worker) == [late_id]
