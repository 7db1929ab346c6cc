"""The due index's bound never hides a due job, live on PostgreSQL.

Claims read the due index from the watermark row's due_from (postgres__due_bound_move in
templates/postgres/macros.sql.j2). It is safe only if no deferred job a claim may take is due before
it. Each writer of a deferred job (fail, reap, enqueue and enqueue_batch with a run_at) is raced
against a move of the bound, generated over all of them: the writer's transaction is open while
another session's dequeue tries to move the bound, and once it commits its job must be claimed (and
be due no earlier than the bound). Without the writer's lock (or, for a run_at, without the due time
taken no earlier than the clock read under it) the bound passes the job and no claim ever takes it.
A row loaded past enqueue takes no lock: the watermark's rescan finds it below the bound. Then
workers, producers and forced moves run at once, and a checker asserts the bound's invariant
on every snapshot it takes; at the end every job was completed or dead-lettered.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import threading
import time

import pytest

from qgen.bench.database import BenchDatabase, scratch_spec, variant_queue
from qgen.spec.load import load_spec
from tests.conftest import ROOT
from tests.support.pg import scratch_database
from tests.support.run import named

SCHEMA = named("qgen_due")
SPEC = ROOT / "examples" / "001_watermark.yaml"
WRITERS = ["fail", "reap", "enqueue", "enqueue_batch"]


@pytest.fixture(scope="module")
def queue(postgres_server):
    with scratch_database("qgen_due_bound") as url:
        db = BenchDatabase(url)
        body = variant_queue(load_spec(SPEC), "testq", "lease", 10)
        body.update(scheduling=True, max_batch_size=1000,
                    retry={"max_attempts": 3, "backoff": {"base": 0, "factor": 1, "max": 0}})
        spec = scratch_spec(load_spec(SPEC), SCHEMA, {"testq": body})
        with db.scratch(spec, "due-bound test", "testq", replace=True):
            yield db


def q(name: str) -> str:
    return f'"{SCHEMA}"."testq{name}"'


def fresh(conn) -> None:
    """An empty queue and a bound at its start."""
    conn.execute(f"DELETE FROM {q('')}")
    conn.execute(f"UPDATE {q('_watermark')} SET due_from = '-infinity', due_moved_at = '-infinity'")


def move(conn) -> bool:
    """A dequeue that moves the bound (the once-a-second limit lifted): only a claim that takes a
    due job moves it, so it takes one enqueued for this (the only claimable job), then completes it.
    Whether it moved."""
    conn.execute(f"UPDATE {q('_watermark')} SET due_moved_at = '-infinity'")
    helper = enqueue(conn, conn.execute("SELECT clock_timestamp() + interval '1 millisecond'").fetchone()[0])
    wait_for(lambda: conn.execute(f"SELECT available_at < clock_timestamp() FROM {q('')} WHERE id = %s",
                                  (helper,)).fetchone()[0])
    taken = claim(conn)
    assert [j for j, _ in taken] == [helper]
    conn.execute(f"SELECT {q('_complete')}(lease_token => %s, ids => ARRAY[%s::bigint])", (taken[0][1], helper))
    return conn.execute(f"SELECT due_moved_at > '-infinity' FROM {q('_watermark')}").fetchone()[0]


def moved(conn) -> dt.datetime:
    """Move the bound, trying again while a move skips (it never waits: an autovacuum of the
    watermark table holds a lock it needs a moment); the bound."""
    wait_for(lambda: move(conn))
    return bound(conn)


def bound(conn) -> dt.datetime:
    return conn.execute(f"SELECT due_from FROM {q('_watermark')}").fetchone()[0]


def hidden(conn) -> list:
    """Deferred jobs due before the bound, in one snapshot: what no claim would ever see."""
    return conn.execute(f"SELECT j.id, j.available_at, w.due_from FROM {q('')} AS j, {q('_watermark')} AS w "
                        "WHERE j.available_at > j.enqueued_at AND j.available_at < w.due_from").fetchall()


def enqueue(conn, run_at=None) -> int:
    return conn.execute(f"SELECT id FROM {q('_enqueue')}(filler => 'x', run_at => %s)", (run_at,)).fetchone()[0]


def claim(conn, lease: int = 60) -> list[tuple[int, object]]:
    return conn.execute(f"SELECT id, lease_token FROM {q('_dequeue')}(batch_size => 100, lease_seconds => %s)",
                        (lease,)).fetchall()


def wait_for(what, guard: float = 30.0):
    """Poll until what() is truthy; fail after `guard` seconds (a failure guard, not a delay)."""
    deadline = time.monotonic() + guard
    while not (result := what()):
        assert time.monotonic() < deadline, f"not within {guard} s"
        time.sleep(0.05)
    return result


@pytest.mark.parametrize("writer", WRITERS)
def test_a_deferred_job_written_while_the_bound_moves_is_claimed(queue, writer):
    main = queue.connect()
    other = queue.connect(autocommit=False)
    try:
        fresh(main)
        if writer in ("fail", "reap"):
            job = enqueue(main)
            [(job_id, token)] = claim(main, lease=1 if writer == "reap" else 60)
            assert job_id == job
            if writer == "reap":
                wait_for(lambda: main.execute(f"SELECT lease_expires_at < clock_timestamp() FROM {q('')} "
                                              "WHERE id = %s", (job,)).fetchone()[0])
        # The writer's transaction: begun now, its write uncommitted while another dequeue moves the bound.
        start = other.execute("SELECT now()").fetchone()[0]
        if writer == "fail":
            other.execute(f"SELECT {q('_fail')}(lease_token => %s, id => %s, error => 'once', retry => TRUE)",
                          (token, job))
            assert not move(main), "the writer's open transaction keeps the bound where it is"
        elif writer == "reap":
            assert other.execute(f"SELECT * FROM {q('_reap')}(batch_size => 10)").fetchone() == (1, 0)
            assert not move(main), "the writer's open transaction keeps the bound where it is"
        else:
            # A run_at after the writer's transaction began (so the job is deferred) but before the
            # bound the move sets: due already when it is written.
            time.sleep(0.01)  # the clock moves past `start` (not a wait for another session)
            now_bound = moved(main)
            assert now_bound > start
            run_at = start + (now_bound - start) / 2
            if writer == "enqueue":
                job = enqueue(other, run_at)
            else:
                jobs = json.dumps([{"filler": "x", "run_at": run_at.isoformat()}])
                job = other.execute(f"SELECT id FROM {q('_enqueue_batch')}(jobs => %s::jsonb)", (jobs,)).fetchone()[0]
            # And a move while the job is written but not committed: the bound must not pass it.
            assert not move(main), "the writer's open transaction keeps the bound where it is"
        other.commit()
        assert hidden(main) == []
        assert [j for j, _ in claim(main)] == [job], f"{writer}: the job is due, and no claim takes it"
    finally:
        other.rollback()
        other.close()
        main.close()


def test_a_deferred_job_loaded_past_enqueue_below_the_bound_is_found_by_the_rescan(queue):
    """A row written past the routines (a bulk load, a hand insert) takes no lock: it may be due
    before the bound. The watermark's rescan (every watermark.rescan seconds) lowers the bound to it,
    as it lowers the watermark to a job it passed."""
    main = queue.connect()
    try:
        fresh(main)
        now_bound = moved(main)
        # Deferred (available_at after enqueued_at), due before the bound: as if its transaction began early.
        job = main.execute(f"INSERT INTO {q('')} (filler, enqueued_at, available_at) VALUES ('x', %s, %s) "
                           "RETURNING id", (now_bound - dt.timedelta(seconds=2), now_bound - dt.timedelta(seconds=1))).fetchone()[0]
        assert hidden(main) != []
        main.execute(f"UPDATE {q('_watermark')} SET corrected_at = '-infinity'")  # a rescan is due
        assert [j for j, _ in claim(main)] == [job]
        assert hidden(main) == []
    finally:
        main.close()


def _loaded(conn) -> int:
    """A row loaded past enqueue (a bulk load, rows restored from a backup), due before the bound."""
    now_bound = moved(conn)
    return conn.execute(f"INSERT INTO {q('')} (filler, enqueued_at, available_at) VALUES ('x', %s, %s) RETURNING id",
                        (now_bound - dt.timedelta(seconds=2), now_bound - dt.timedelta(seconds=1))).fetchone()[0]


def _hand_update(conn) -> int:
    """A delayed job a DBA makes due by hand (UPDATE ... SET available_at = now() in a transaction
    begun a while ago): a time after its enqueue (still deferred) but behind the bound."""
    job = enqueue(conn, conn.execute("SELECT clock_timestamp() + interval '1 hour'").fetchone()[0])
    [enqueued] = conn.execute(f"SELECT enqueued_at FROM {q('')} WHERE id = %s", (job,)).fetchone()
    wait_for(lambda: conn.execute("SELECT clock_timestamp() > %s + interval '20 milliseconds'", (enqueued,)).fetchone()[0])
    now_bound = moved(conn)
    conn.execute(f"UPDATE {q('')} SET available_at = %s WHERE id = %s", (enqueued + (now_bound - enqueued) / 2, job))
    return job


def _clock_back(conn) -> int:
    """The clock went back behind the bound (a failover to a server whose clock is behind, a step of
    NTP): a retry with no backoff is due at the clock, before the bound."""
    moved(conn)
    conn.execute(f"UPDATE {q('_watermark')} SET due_from = clock_timestamp() + interval '1 hour'")
    job = enqueue(conn)
    [(taken, token)] = claim(conn)
    assert taken == job
    conn.execute(f"SELECT {q('_fail')}(lease_token => %s, id => %s, error => 'once', retry => TRUE)", (token, job))
    return job


PAST_THE_ROUTINES = {"loaded": _loaded, "hand_update": _hand_update, "clock_back": _clock_back}


@pytest.mark.parametrize("repair", ["rescan", "watermark_correct"])
@pytest.mark.parametrize("way", sorted(PAST_THE_ROUTINES))
def test_a_deferred_job_due_before_the_bound_is_claimed_after_a_rescan_or_a_correction(queue, way, repair):
    """A deferred job due before the bound, however it got there, is found by the next rescan or by
    watermark_correct, which maintain runs every few seconds and which counts as a rescan: it sets
    corrected_at, so with maintain running a dequeue never rescans, and a correction that did not
    lower the bound left such a job unclaimed for good (found by a live review)."""
    main = queue.connect()
    try:
        fresh(main)
        job = PAST_THE_ROUTINES[way](main)
        assert [j for j, _, _ in hidden(main)] == [job]
        if repair == "rescan":
            main.execute(f"UPDATE {q('_watermark')} SET corrected_at = '-infinity'")  # a rescan is due
        else:
            main.execute(f"UPDATE {q('_watermark')} SET corrected_at = clock_timestamp()")  # none is due
            main.execute(f"SELECT * FROM {q('_watermark_correct')}()")
        assert [j for j, _ in claim(main)] == [job]
        assert hidden(main) == []
    finally:
        main.close()


def test_workers_producers_and_moves_at_once_hide_no_job(queue):
    """Three workers (claim, then fail or complete each job at random), two producers (run_at a
    little in the past or the future, some inside a transaction held open a moment), and a checker
    that forces a move on every claim and asserts, on each snapshot, that no deferred job is due
    before the bound. Then the queue drains: every job is completed or dead-lettered."""
    setup = queue.connect()
    fresh(setup)
    stop, errors, violations = threading.Event(), [], []
    enqueued: list[int] = []
    done: list[int] = []
    seeds = iter(range(100))

    def guarded(body):
        def run():
            conn = queue.connect()
            try:
                body(conn, random.Random(next(seeds)))
            except Exception as exc:  # noqa: BLE001 - reported by the test below
                errors.append(exc)
                stop.set()
            finally:
                conn.close()
        return threading.Thread(target=run)

    def producer(conn, rnd):
        for _ in range(150):
            run_at = None if rnd.random() < 0.3 else (
                conn.execute("SELECT clock_timestamp()").fetchone()[0] + dt.timedelta(seconds=rnd.uniform(-0.2, 0.2)))
            if rnd.random() < 0.3:
                with conn.transaction():
                    conn.execute("SELECT now()")
                    time.sleep(rnd.uniform(0, 0.02))
                    enqueued.append(enqueue(conn, run_at))
            else:
                enqueued.append(enqueue(conn, run_at))

    def worker(conn, rnd):
        while not stop.is_set():
            for job_id, token in claim(conn):
                if rnd.random() < 0.4:
                    gone = conn.execute(f"SELECT {q('_fail')}(lease_token => %s, id => %s, error => 'x', retry => TRUE)",
                                        (token, job_id)).fetchone()[0]
                    if gone == 1:
                        done.append(job_id)
                else:
                    conn.execute(f"SELECT {q('_complete')}(lease_token => %s, ids => ARRAY[%s::bigint])",
                                 (token, job_id))
                    done.append(job_id)

    def checker(conn, rnd):
        while not stop.is_set():
            conn.execute(f"UPDATE {q('_watermark')} SET due_moved_at = '-infinity'")
            violations.extend(hidden(conn))

    producers = [guarded(producer) for _ in range(2)]
    others = [guarded(worker) for _ in range(3)] + [guarded(checker)]
    for t in producers + others:
        t.start()
    for t in producers:
        t.join(timeout=300)
    # Drained: every job completed or dead-lettered (deferred ones are due within 0.2 s).
    wait_for(lambda: errors or setup.execute(f"SELECT count(*) FROM {q('')}").fetchone()[0] == 0, guard=120)
    stop.set()
    for t in others:
        t.join(timeout=60)
    assert errors == []
    assert violations == []
    assert sorted(done) == sorted(enqueued)
    setup.close()
