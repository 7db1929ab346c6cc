"""Held as it always was (kept as evidence): dequeue's one-statement completion (complete_ids) against a
takeover of the same job by another worker.

Worker 1's lease on a job has run out; worker 2's claim takes the job over and has not committed
yet when worker 1's next dequeue names the job in complete_ids. Worker 1's completion waits for the
row, then re-reads it under the new token (READ COMMITTED's re-check of the UPDATE's WHERE) and
completes nothing: QG001, its own claim rolled back with it. The job is worker 2's, unprocessed:
it is never completed twice nor completed under a lease that no longer holds it.
"""

from __future__ import annotations

import threading

import psycopg
import pytest

from tests.behaviour.helpers import BEHAVE, wait_past

QUEUE = "wm"          # lease, in place, watermark


@pytest.fixture
def env(use_spec):
    env = use_spec(BEHAVE)
    if env.dialect != "postgres":
        pytest.skip("PostgreSQL's one-statement completion and claim")
    return env


def test_a_completion_by_id_loses_to_a_takeover_it_waited_for(env):
    job_id = env.client(QUEUE).enqueue(n=1).id
    dequeue = env.name(QUEUE, "dequeue")
    first = env.connect(autocommit=True)
    (_, token1, expires), = first.execute(
        f'SELECT "id", "lease_token", "lease_expires_at" FROM {dequeue}("batch_size" => 1, "lease_seconds" => 1)').fetchall()
    wait_past(env, expires)
    second = env.connect()                                              # takes the job over, not committed yet
    taken = second.execute(f'SELECT "id", "lease_token" FROM {dequeue}("batch_size" => 1)').fetchall()
    assert [r[0] for r in taken] == [job_id]
    token2 = taken[0][1]
    outcome: dict = {}

    def complete_and_claim() -> None:
        try:
            outcome["rows"] = first.execute(
                f'SELECT "id" FROM {dequeue}("batch_size" => 1, "complete_lease_token" => %s, "complete_ids" => %s)',
                (token1, [job_id])).fetchall()
        except psycopg.Error as exc:
            outcome["sqlstate"] = exc.sqlstate

    pid = first.info.backend_pid
    worker = threading.Thread(target=complete_and_claim)
    worker.start()
    while env.scalar("SELECT wait_event_type FROM pg_stat_activity WHERE pid = ?", pid) != "Lock":
        assert worker.is_alive(), outcome                               # it must wait for worker 2's row
    second.commit()
    worker.join()
    assert outcome == {"sqlstate": "QG001"}
    # Completed would be deleted (the queue's on_complete): the job is still there, under worker 2's lease.
    assert env.sql(f'SELECT "lease_token" FROM {env.name(QUEUE)} WHERE "id" = ?', job_id) == [(token2,)]
