"""Example 000's in-database worker: claims, calls the handler, completes or fails, until done."""

from __future__ import annotations

import pytest

from qgen.client import InvalidArgument
from tests.behaviour.helpers import EX000


def handled(env):
    return env.sql("SELECT job_id, reputation FROM four.handled ORDER BY job_id")


def test_the_worker_procedure_drains_the_queue(use_spec, dialect):
    env = use_spec(EX000)  # the handler raises for reputation 13 (tests/support/backends.py)
    queue = env.client()
    ids = {r: queue.enqueue(reputation=r).id for r in (5, 13, 7)}
    assert queue.run_procedure_worker() == 3
    assert handled(env) == [(ids[5], 5), (ids[7], 7)], "the failed handler's own work is undone"
    metrics = queue.metrics()
    assert (metrics["processed"], metrics["scheduled"], metrics["in_flight"]) == (2, 1, 0)
    row = env.sql("SELECT attempts, last_error, processed FROM four.four_queue WHERE id = ?", ids[13])
    attempts, last_error, processed = row[0]
    assert attempts == 1 and "unlucky reputation 13" in last_error and not processed
    assert queue.run_procedure_worker() == 0, "the failed job waits out its backoff"


def test_the_worker_procedure_stops_after_max_items(use_spec):
    env = use_spec(EX000)
    queue = env.client()
    queue.enqueue_many([{"reputation": r} for r in (1, 2, 3)])
    assert queue.run_procedure_worker(max_items=2, owner="agent job") == 2
    assert queue.metrics()["processed"] == 2
    assert queue.run_procedure_worker() == 1
    assert [r for _, r in handled(env)] == [1, 2, 3]


def test_the_worker_procedure_refuses_a_lease_of_no_time(use_spec):
    """A lease of 0 s or less is over as it is taken: reap could hand the job to a second worker while
    the first still runs it (and NULL never expires). The worker refuses it, as dequeue does, before
    it claims anything (SQL Server's worker claimed by itself and took it; PostgreSQL's calls dequeue)."""
    env = use_spec(EX000)
    queue = env.client()
    queue.enqueue(reputation=21)
    for lease in (0, -5):
        with pytest.raises(InvalidArgument):
            queue.run_procedure_worker(lease_seconds=lease)
    assert queue.metrics()["ready"] == 1 and handled(env) == []


def test_the_worker_procedure_claims_through_the_watermark_as_dequeue_does(use_spec):
    """The worker claims where dequeue claims: from the watermark, after the rescan when it is due
    (SQL Server's worker claimed on its own and ignored the watermark: it neither started there nor
    moved it, so claims walked every ghost below). A job below the watermark waits for the rescan,
    as it does for dequeue; once the rescan is due the worker finds it."""
    env = use_spec(EX000)
    queue = env.client()
    ids = [queue.enqueue(reputation=r).id for r in (1, 2, 3)]
    env.set_watermark("four_queue", ids[1])                    # a watermark a move left past job 1
    assert queue.run_procedure_worker() == 2
    assert [r for _, r in handled(env)] == [2, 3], "the claims started at the watermark"
    env.set_watermark("four_queue", ids[1], rescan_due=True)
    assert queue.run_procedure_worker() == 1
    assert [r for _, r in handled(env)] == [1, 2, 3], "the rescan found the job below the watermark"
    assert env.watermark("four_queue") < ids[0]


def test_the_worker_procedure_refuses_an_owner_past_its_column(use_spec):
    """The worker's owner is a label (lease_owner string(128)): one past it is refused with the
    located code before anything is claimed (SQL Server cut it to the parameter's nvarchar(128);
    PostgreSQL's varchar(128) variable dropped trailing spaces past 128), one at it works. Called as
    a T-SQL or psql caller would, bypassing the client's own check."""
    env = use_spec(EX000)
    queue = env.client()
    queue.enqueue(reputation=21)
    worker = env.name("four_queue", "worker")
    cursor = env.connect(autocommit=True).cursor()
    call = (f'CALL {worker}("owner" => %s::text, "max_items" => 1)' if env.dialect == "postgres"
            else f"EXEC {worker} @owner = ?, @max_items = 1")
    for past in ("w" * 129, "w" * 128 + " "):
        with pytest.raises(Exception) as refused:
            cursor.execute(call, (past,))
        state, native = queue._session.driver.codes(refused.value)
        assert {"QG010", 50010} & {state, *native}, refused.value
        assert "owner" in str(refused.value) and "four_queue_worker" in str(refused.value)
    assert queue.metrics()["ready"] == 1 and handled(env) == []
    cursor.execute(call, ("w" * 128,))
    assert [r for _, r in handled(env)] == [21]
