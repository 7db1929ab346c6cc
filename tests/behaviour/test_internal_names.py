"""Payload columns that share a name with a procedure's own variables are plain columns: they do not
change what the procedure does. The procedures' variables carry a `$`
(PostgreSQL v$..., SQL Server @q$...), which no spec name can hold, so no column can stand in for one."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

from qgen.client import LeaseLost
from tests.behaviour.helpers import ROOT, db_now, soon, wait_past

NAMES = ROOT / "tests" / "behaviour" / "specs" / "internal_names.yaml"


def test_a_column_named_like_the_lease_token_variable_does_not_open_the_fence(use_spec):
    env = use_spec(NAMES)
    jobs = env.client("fenced")
    column_token = uuid.uuid4()
    jobs.enqueue(v_token=column_token, token=column_token, now=1, v_completed=0)
    late = env.client("fenced")
    stale, = late.dequeue(lease_seconds=1)
    assert stale.lease_token != column_token, "the claim's token is fresh, not the row's column"
    assert stale.payload == {"v_token": column_token, "token": column_token, "now": 1, "v_completed": 0}
    wait_past(env, stale.lease_expires_at)
    assert jobs.reap() == (1, 0)
    holder = env.client("fenced")
    fresh, = holder.dequeue()
    assert fresh.id == stale.id and fresh.lease_token != stale.lease_token

    with pytest.raises(LeaseLost):
        late.complete(stale)
    assert holder.complete(fresh) == 1


def test_columns_named_like_the_watermark_variables_do_not_move_it_past_a_waiting_job(use_spec):
    env = use_spec(NAMES)
    queue = env.client("scheduled")
    now, ahead = db_now(env), soon(env)
    # Job 1 waits for its run_at; its columns would make "id < target" false if read as the target.
    waiting = queue.enqueue(v_current=10**12, v_target=0, target=0, run_at=now + ahead).id
    queue.enqueue_many([{"v_current": 10**12, "v_target": 0, "target": 0} for _ in range(11)])
    assert [j.id for j in queue.dequeue()] == [2, 3, 4, 5, 6]
    assert [j.id for j in queue.dequeue()] == [7, 8, 9, 10, 11]
    # The watermark may pass job 1 (deferred: its run_at is later than its enqueue); the due index
    # hands it to the first claim once its time has come.
    wait_past(env, now + ahead)
    assert [j.id for j in queue.dequeue()] == [waiting, 12]


def test_purge_keeps_fresh_rows_whatever_their_columns_are_called(use_spec):
    env = use_spec(NAMES)
    queue = env.client("archived")
    far = dt.datetime(2999, 1, 1, tzinfo=dt.timezone.utc)
    queue.enqueue(v_cutoff=far, cutoff=far, deleted=1)
    job, = queue.dequeue()
    assert queue.complete(job) == 1
    assert queue.purge(older_than_seconds=3600) == (0, 0, 0), "a row completed just now is not an hour old"
    assert env.count("archived", "archive_table") == 1


def test_enqueue_many_and_dedupe_whatever_the_columns_are_called(use_spec):
    env = use_spec(NAMES)
    queue = env.client("batched")
    others = {"v_sequence": 99, "v_id": 7, "v_key_1": 5, "new": 0, "new_id": 0, "ordinality": 9}
    first = queue.enqueue_many([{**others, "existing": n} for n in (1, 2, 3)])
    assert [(r.ordinal, r.id, r.enqueued) for r in first] == [(1, 1, True), (2, 2, True), (3, 3, True)]
    again = queue.enqueue_many([{**others, "existing": n} for n in (3, 4)])
    # The new job's id is the table's next identity value: 5 on SQL Server and PostgreSQL, which burn
    # one on the skipped duplicate, 4 on Babelfish (B19); which one is the engine's, not qgen's.
    assert [(r.id, r.enqueued) for r in again][0] == (3, False) and again[1].enqueued and again[1].id > 3
    assert tuple(queue.enqueue(**others, existing=2)) == (2, False)
    assert [j.payload["existing"] for j in queue.dequeue()] == [1, 2, 3, 4]


def test_outbox_columns_named_like_completes_variables_and_arguments(use_spec):
    env = use_spec(NAMES)
    queue = env.client("handing")
    queue.enqueue(n=1)
    job, = queue.dequeue()
    assert queue.complete(job, job=7, completed=8, error=9) == 1
    columns = ", ".join(env.col(c) for c in ("source_id", "job", "completed", "error"))
    assert env.sql(f"SELECT {columns} FROM {env.name('handing', 'outbox_table')}") == [(job.id, 7, 8, 9)]
