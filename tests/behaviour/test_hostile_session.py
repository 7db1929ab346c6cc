"""Hostile sessions: callers whose transactions and isolation levels qgen does not choose, on a
queue that never empties (producers and workers keep it busy, and nobody runs watermark_correct).

- A producer whose insert commits late, after the watermark passed its id; a delete-mode claim, and
  a lease claim inside the caller's own transaction, rolled back below the watermark: each job is
  delivered within watermark.rescan seconds (plus a margin for a loaded test machine) of becoming
  claimable (docs/api.md, "The watermark never strands a job").
- A caller transaction at SERIALIZABLE or REPEATABLE READ around delete claims: every job is handed
  out exactly once, and a rollback puts its jobs back.

Written for both databases (SQL Server by QGEN_TEST_MSSQL_URL). Where the databases differ by
design, a test says so: a PostgreSQL snapshot cannot see an uncommitted insert (the mover passes
it), but sees the committed version of a row an open claim holds (the mover stops at it); SQL
Server's mover reads NOLOCK, which sees an uncommitted insert and a lease claim's lock, but not a
row an open delete holds."""

from __future__ import annotations

import threading
import time
from typing import Callable

import pytest

from qgen.client import QueueClient, error_kind
from tests.behaviour.helpers import BEHAVE

QUEUES = {"lease": "busy", "delete": "busyd"}   # tests/behaviour/specs/behaviour.yaml
MARGIN = 3.0   # seconds on top of watermark.rescan: the delivery itself, and a busy test machine


class Rollback(Exception):
    """Raised inside a transaction block to roll it back."""


def wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    """Poll condition until it holds (True) or timeout seconds pass (False)."""
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


class BusyQueue:
    """One producer and two workers that keep a queue busy: the producer keeps about `backlog`
    jobs waiting, so a dequeue never comes back empty; workers claim batches and finish them
    (lease: complete with the next dequeue; delete: commit the claim). Every claimed id is noted
    with the moment its claim committed. Nobody calls watermark_correct."""

    # 200 waiting: two workers take at most ~200 a second, so a producer held up for a second (a loaded
    # machine; 40 emptied the queue once in CI) does not leave a dequeue empty.
    def __init__(self, env, name: str, backlog: int = 200, workers: int = 2):
        self.env, self.name, self.backlog = env, name, backlog
        self.lease = env.spec.queues[name].claim == "lease"
        self.claimed: dict[int, float] = {}
        self.produced = 0
        self.empty_dequeues = 0
        self.errors: list[BaseException] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._guard(self._produce), daemon=True)]
        self.threads += [threading.Thread(target=self._guard(self._work), daemon=True) for _ in range(workers)]

    def __enter__(self) -> "BusyQueue":
        self.env.client(self.name).enqueue_many([{"n": n} for n in range(self.backlog)])
        self.produced = self.backlog
        for thread in self.threads:
            thread.start()
        assert self.wait_for(lambda: len(self.claimed) >= 40, 30), "the busy queue did not get going"
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(30)
        assert not self.errors, self.errors

    def _guard(self, body: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                body()
            except BaseException as error:  # reported by __exit__
                self.errors.append(error)
                self.stop.set()
        return run

    def _produce(self) -> None:
        client = self.env.client(self.name)
        while not self.stop.is_set():
            with self.lock:
                waiting = self.produced - len(self.claimed)
            if waiting < self.backlog:
                client.enqueue_many([{"n": n} for n in range(10)])
                with self.lock:
                    self.produced += 10
            time.sleep(0.005)

    def _note(self, ids: list[int]) -> None:
        now = time.monotonic()
        with self.lock:
            for job_id in ids:
                assert job_id not in self.claimed, f"job {job_id} was handed out twice"
                self.claimed[job_id] = now
            if not ids:
                self.empty_dequeues += 1

    def _work(self) -> None:
        client = self.env.client(self.name)
        previous = None
        while not self.stop.is_set():
            if self.lease:
                jobs = client.dequeue(complete=previous) if previous else client.dequeue()
                previous = jobs[0] if jobs else None
            else:
                with client.transaction():
                    jobs = client.dequeue()
            self._note([job.id for job in jobs])
            time.sleep(0.01)

    def wait_for(self, condition: Callable[[], bool], timeout: float) -> bool:
        return wait_until(lambda: condition() or bool(self.errors), timeout) and not self.errors

    def delivered(self, ids: list[int], timeout: float) -> dict[int, float]:
        """When each of ids was claimed by a worker (waits up to timeout for all of them)."""
        self.wait_for(lambda: all(i in self.claimed for i in ids), timeout)
        with self.lock:
            return {i: self.claimed[i] for i in ids if i in self.claimed}


def rescan_of(env, name: str) -> float:
    return float(env.spec.queues[name].watermark.rescan)


# --------------------------------------------------------------------------------------------
# The watermark never strands a job


@pytest.mark.babelfish_gap("B10", "two sessions at once: what it shows is SQL Server's locking (READPAST, UPDLOCK, isolation levels)")
@pytest.mark.parametrize("mode", sorted(QUEUES))
def test_a_late_committing_insert_is_delivered_within_the_rescan_bound(use_spec, mode):
    env = use_spec(BEHAVE)
    name = QUEUES[mode]
    bound = rescan_of(env, name) + MARGIN
    with BusyQueue(env, name) as busy:
        producer = env.client(name)
        with producer.transaction():
            late = producer.enqueue(n=-1).id
            # Hold the insert until the watermark has passed its id (or long enough that it would have).
            passed = busy.wait_for(lambda: env.watermark(name) > late, 5)
        committed = time.monotonic()
        delivered = busy.delivered([late], bound + 5)
        assert late in delivered, f"job {late} committed below the watermark and was never delivered"
        assert delivered[late] - committed <= bound
        assert busy.empty_dequeues == 0, "the queue emptied: the test did not keep it busy"
    if env.dialect == "postgres":
        assert passed, "a snapshot cannot see an uncommitted insert: the mover passes it (the rescan finds it)"
    else:
        assert not passed, "the NOLOCK mover sees an uncommitted insert and stops at it"


@pytest.mark.babelfish_gap("B10", "two sessions at once: what it shows is SQL Server's locking (READPAST, UPDLOCK, isolation levels)")
@pytest.mark.parametrize("mode", sorted(QUEUES))
def test_a_claim_rolled_back_by_the_callers_transaction_is_delivered_again(use_spec, mode):
    """delete: the claim itself rolls back; lease: the caller's outer transaction around a lease
    claim rolls back."""
    env = use_spec(BEHAVE)
    name = QUEUES[mode]
    bound = rescan_of(env, name) + MARGIN
    with BusyQueue(env, name) as busy:
        holder = env.client(name)
        with pytest.raises(Rollback):
            with holder.transaction():
                held = [job.id for job in holder.dequeue(batch_size=3)]
                assert len(held) == 3
                passed = busy.wait_for(lambda: env.watermark(name) > max(held), 5)
                raise Rollback
        rolled_back = time.monotonic()
        delivered = busy.delivered(held, bound + 5)
        assert sorted(delivered) == held, f"rolled back below the watermark and never delivered: {held}"
        assert max(delivered.values()) - rolled_back <= bound
        assert busy.empty_dequeues == 0, "the queue emptied: the test did not keep it busy"
    if env.dialect == "postgres" or mode == "lease":
        assert not passed, "the mover sees the rows an open claim holds as unclaimed, and stops at them"


# --------------------------------------------------------------------------------------------
# Caller transactions at SERIALIZABLE and REPEATABLE READ around delete claims


def at_isolation(client: QueueClient, level: str) -> None:
    """Every transaction the client opens from now on runs at level (the caller's choice)."""
    if client.dialect == "postgres":
        import psycopg

        client.connection.isolation_level = psycopg.IsolationLevel[level.replace(" ", "_")]
    else:
        cursor = client.connection.cursor()
        cursor.execute(f"SET TRANSACTION ISOLATION LEVEL {level}")
        cursor.close()


@pytest.mark.babelfish_gap("B10", "two sessions at once: what it shows is SQL Server's locking (READPAST, UPDLOCK, isolation levels)")
@pytest.mark.parametrize("level", ["SERIALIZABLE", "REPEATABLE READ"])
def test_delete_claims_in_a_strict_callers_transaction_hand_out_each_job_once(use_spec, level):
    env = use_spec(BEHAVE)
    name = QUEUES["delete"]
    total = 120
    env.client(name).enqueue_many([{"n": n} for n in range(total)])
    committed: list[int] = []
    rolled_back: list[int] = []
    conflicts = [0]
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker(index: int) -> None:
        client = env.client(name)
        at_isolation(client, level)
        attempt = 0
        try:
            while True:
                attempt += 1
                ids: list[int] = []
                try:
                    with client.transaction():
                        ids = [job.id for job in client.dequeue(batch_size=2)]
                        if not ids:
                            return
                        if attempt % 4 == index:
                            raise Rollback       # the caller gives up: the jobs go back
                except Rollback:
                    with lock:
                        rolled_back.extend(ids)
                    continue
                except Exception as error:
                    if error_kind(env.dialect, error) != "deadlock":   # 40001 / 40P01 / 1205
                        raise
                    with lock:
                        conflicts[0] += 1
                    continue
                with lock:
                    committed.extend(ids)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert sorted(committed) == list(range(1, total + 1)), "every job handed out exactly once"
    assert rolled_back, "some claims were rolled back"
    assert set(rolled_back) <= set(committed), "a rolled-back job was put back and handed out again"
    assert env.count(name) == 0


# --------------------------------------------------------------------------------------------
# The single-session halves of the tests above (they run on Babelfish too): what one caller's own
# transaction does to its claims, without another session racing it.


@pytest.mark.parametrize("mode", sorted(QUEUES))
def test_a_claim_the_callers_transaction_rolls_back_is_claimed_again(use_spec, mode):
    """The half of test_a_claim_rolled_back_by_the_callers_transaction_is_delivered_again that one
    session shows: the rollback puts the claimed jobs back (not leased, attempts as before, the
    watermark not left above them) and the next claim hands them out again."""
    env = use_spec(BEHAVE)
    name = QUEUES[mode]
    holder = env.client(name)
    holder.enqueue_many([{"n": n} for n in range(8)])
    with pytest.raises(Rollback):
        with holder.transaction():
            held = [job.id for job in holder.dequeue(batch_size=3)]
            assert held == [1, 2, 3]
            raise Rollback
    assert env.count(name) == 8, "the rolled-back claim took nothing"
    assert env.watermark(name) < min(held), "the watermark moved by the rolled-back claim went back with it"
    if mode == "lease":
        assert holder.metrics()["in_flight"] == 0, "no lease survives the rollback"
    with holder.transaction():
        again = holder.dequeue(batch_size=3)
    assert [job.id for job in again] == held
    if mode == "lease":
        assert {job.attempts for job in again} == {1}, "the rolled-back claim counted no attempt"


@pytest.mark.parametrize("mode", sorted(QUEUES))
def test_claims_a_caller_rolls_back_now_and_then_hand_out_each_job_once(use_spec, mode):
    """The half of test_delete_claims_in_a_strict_callers_transaction_hand_out_each_job_once that one
    session shows (at its default level: the strict levels are B17 on Babelfish): every job is
    handed out and committed exactly once, and each rolled-back claim's jobs come back."""
    env = use_spec(BEHAVE)
    name = QUEUES[mode]
    total = 30
    client = env.client(name)
    client.enqueue_many([{"n": n} for n in range(total)])
    committed: list[int] = []
    rolled_back: list[int] = []
    for attempt in range(1, 4 * total):
        ids: list[int] = []
        try:
            with client.transaction():
                jobs = client.dequeue(batch_size=4)
                ids = [job.id for job in jobs]
                if not ids:
                    break
                if attempt % 3 == 0:
                    raise Rollback
                if mode == "lease":
                    for job in jobs:
                        client.complete(job)
        except Rollback:
            rolled_back.extend(ids)
            continue
        committed.extend(ids)
    assert sorted(committed) == list(range(1, total + 1)), "every job committed exactly once"
    assert rolled_back and set(rolled_back) <= set(committed), "a rolled-back job came back and was handed out"
    assert client.metrics()["ready"] == 0 and client.metrics()["in_flight"] == 0
