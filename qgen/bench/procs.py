"""What a bench runs in its child processes (multiprocessing, spawn start method).

Each child opens its own autocommit connection, reports ("ready", name), waits for `go`, works,
and reports ("done", name, stats) or ("error", name, traceback). Functions are top level so that
spawn can import them by name.

The ledger: a producer writes the id of every job it enqueued to `<name>.enqueued`; a worker writes
the id of every job whose completion committed to `<name>.completed` (lease mode: after the call
that completed it returned; delete mode: after the transaction of the claim committed), with the
time (the monotonic clock every process shares), and the id of every job it claimed to
`<name>.claimed` (in lease mode with the claim's attempts: a job claimed with attempts 2 was
delivered before, perhaps to a worker that died before its claim reached the ledger). Before the call (or commit) that completes jobs, it writes their ids to
`<name>.completing`: a worker killed, or whose connection was lost, between the two leaves ids whose
completion nobody saw, which the parent resolves against the queue afterwards (fleet.verdict). Lines
are written with one unbuffered append each, so a killed worker's ledger holds every line it wrote.
The parent reads them afterwards: a job completed twice, or enqueued and never completed, breaks
exactly-once.
"""

from __future__ import annotations

import array
import logging
import os
import random
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Optional

from qgen.bench.payload import sample_payload  # noqa: F401  (processes and tests take it from here)
from qgen.spec.model import Spec


@dataclass(frozen=True)
class Target:
    url: str
    spec: Spec
    queue: str
    ledger_dir: str


@dataclass(frozen=True)
class Signals:
    """What the parent shares with every child: the start signal, the results queue, and the
    counters its progress bar reads (multiprocessing.Value('q'))."""
    go: Any
    results: Any
    enqueued: Any
    completed: Any


def _connect(url: str) -> Any:
    from qgen.bench.database import BenchDatabase

    return BenchDatabase(url).connect()


def _sql(url: str) -> Any:
    from qgen.bench.database import bench_sql, dialect_of

    return bench_sql(dialect_of(url))


def _client(target: Target, name: str) -> Any:
    """A client that makes a new connection when its connection is lost (a restarted database; a
    replacement worker may start while it restarts: it waits for it as a lost connection would)."""
    from qgen.client import QueueClient

    return QueueClient(target.url, target.spec, target.queue, owner=name, reconnect_timeout=120)


def _ledger(target: Target, name: str, kind: str) -> int:
    return os.open(os.path.join(target.ledger_dir, f"{name}.{kind}"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)


def _record(fd: int, ids: list[int], stamp: bool = False) -> None:
    if ids:
        suffix = f" {time.monotonic():.3f}\n" if stamp else "\n"
        os.write(fd, "".join(f"{i}{suffix}" for i in ids).encode())


def _record_claims(fd: int, jobs: list) -> None:
    if jobs:
        os.write(fd, "".join(f"{job.id} {job.attempts}\n" for job in jobs).encode())


def _add(counter: Any, amount: int) -> None:
    with counter.get_lock():
        counter.value += amount


def _run_child(work: Callable[..., Callable[[], dict]], target: Target, name: str, signals: Signals,
               **options: Any) -> None:
    """A child's life: prepare (connect, build payloads), report ready, wait for go, work, and
    report done (with start and end on the system's monotonic clock, which every process shares)
    or the traceback. The client's warnings (a lost connection, a reconnection) go to stderr under
    the child's name."""
    logging.basicConfig(level=logging.WARNING, format=f"{name}: %(name)s: %(message)s")
    try:
        ready = work(target, name, signals, **options)
        signals.results.put(("ready", name))
        signals.go.wait()
        started = time.monotonic()
        stats = ready()
        signals.results.put(("done", name, {**stats, "started": started, "ended": time.monotonic()}))
    except BaseException:
        signals.results.put(("error", name, traceback.format_exc()))
        raise


def _producer(target: Target, name: str, signals: Signals, *, first: int, count: Optional[int] = None,
              batch: int = 1, seconds: Optional[float] = None, done: Any = None) -> Callable[[], dict]:
    """Enqueue jobs first, first+1, ...: `count` of them, or as many as fit in `seconds`; one by
    one (batch 1) or `batch` per enqueue_many."""
    client = _client(target, name)
    fd = _ledger(target, name, "enqueued")

    def work() -> dict:
        calls = enqueued = 0
        deadline = None if seconds is None else time.monotonic() + seconds
        while (count is None or enqueued < count) and (deadline is None or time.monotonic() < deadline):
            size = batch if count is None else min(batch, count - enqueued)
            chunk = [sample_payload(target.spec, target.queue, n) for n in range(first + enqueued, first + enqueued + size)]
            if size == 1:
                ids = [client.enqueue(**chunk[0]).id]
            else:
                ids = [row.id for row in client.enqueue_many(chunk)]
            calls += 1
            enqueued += size
            _record(fd, ids)
            _add(signals.enqueued, len(ids))
        if done is not None:
            done.set()
        client.close()
        return {"enqueued": enqueued, "calls": calls, "deadlock_retries": client.deadlock_retries}

    return work


def _worker(target: Target, name: str, signals: Signals, *, mode: str, batch: int,
            producers_done: Any = None, lease_seconds: int = 300, drain_in_flight: bool = False,
            work_seconds: float = 0.0) -> Callable[[], dict]:
    """Claim and finish jobs until the queue is empty once the producers are done (or at once, for
    a pre-filled queue). mode: lease (a claim that also completes the previous batch), lease-separate
    (claim, then complete the batch in its own call), lease-each (claim, then complete each job in
    a call of its own: a queue with an outbox), delete (claim inside a transaction, as the
    work would run), delete-at-once (a claim that commits by itself, at most once), naive (a
    naive queue's delete, from the bench template, on its own table). drain_in_flight: the queue is
    empty only when no job is leased either (a killed worker's jobs wait for their lease and reap).
    work_seconds: per job claimed, the time the worker then spends on it while it holds it.
    A lost connection (ConnectionLost, or a lease the retry found gone) costs the jobs of that call
    their certainty, not the run: they stay in `completing` and the loop goes on."""
    from qgen.client import ConnectionLost, LeaseLost

    completed_fd = _ledger(target, name, "completed")
    claimed_fd = _ledger(target, name, "claimed")
    completing_fd = _ledger(target, name, "completing")
    latencies = array.array("d")
    if mode == "naive":
        connection = _connect(target.url)
        claim_sql = _sql(target.url).claim_naive(target.spec.schema)
        client = None
    else:
        client = _client(target, name)
        watermark = target.spec.queues[target.queue].watermark.enabled

    state: dict[str, Any] = {"token": None, "held": []}  # lease mode: the lease the next claim completes

    def spend(ids: list[int]) -> None:
        """The handler's time on the jobs just claimed (not counted in the claim's latency)."""
        if work_seconds and ids:
            time.sleep(work_seconds * len(ids))
            state["worked"] += work_seconds * len(ids)

    def claim() -> list[int]:
        begun, state["worked"] = time.perf_counter(), 0.0
        # Each claim is written to `claimed` as soon as its ids are known, and what a call is about
        # to complete to `completing` before the call (in delete mode: before the commit).
        if mode == "naive":
            ids = [row[0] for row in connection.execute(claim_sql, {"batch": batch}).fetchall()]
            _record(claimed_fd, ids)
        elif mode == "delete":
            with client.transaction():  # where the work would go: the claim commits with it
                ids = [job.id for job in client.dequeue(batch_size=batch)]
                _record(claimed_fd, ids)
                spend(ids)
                _record(completing_fd, ids)
        elif mode == "delete-at-once":
            ids = [job.id for job in client.dequeue(batch_size=batch, at_most_once=True)]
            _record(claimed_fd, ids)
        elif mode == "lease":
            _record(completing_fd, state["held"])
            jobs = client.dequeue(batch_size=batch, lease_seconds=lease_seconds, complete=state["token"])
            state["token"] = jobs[0].lease_token if jobs else None
            ids = [job.id for job in jobs]
            _record_claims(claimed_fd, jobs)
            spend(ids)  # held until the next claim completes them
        else:  # lease-separate, lease-each
            jobs = client.dequeue(batch_size=batch, lease_seconds=lease_seconds)
            ids = [job.id for job in jobs]
            _record_claims(claimed_fd, jobs)
            spend(ids)
            if jobs:
                _record(completing_fd, ids)
            if mode == "lease-each":
                # A queue with an outbox: each job in a call of its own (a whole-lease completion is
                # refused there). No outbox values, said so (no_result): the work measured stays what
                # it was before complete refused a job without them.
                for job in jobs:
                    client.complete(job, no_result=True)
            elif jobs:
                client.complete(jobs[0].lease_token)
        if ids:  # the polls of an empty queue say nothing about claiming
            latencies.append(time.perf_counter() - begun - state["worked"])
        return ids

    def in_flight() -> bool:
        """Jobs still waiting or leased (a killed worker's, until reap releases them)?"""
        m = client.metrics()
        return sum(m.get(k) or 0 for k in ("ready", "scheduled", "in_flight")) > 0

    def work() -> dict:
        claims = empty = corrections = uncertain = 0
        # One watermark correction per empty streak, and one more once the producers are done:
        # a worker that outruns the producers must not correct on every poll.
        corrected = corrected_last = False
        while True:
            last_round = producers_done is None or producers_done.is_set()
            try:
                ids = claim()
            except (ConnectionLost, LeaseLost):
                # Whatever that call was completing stays in `completing`: resolved afterwards.
                uncertain += 1
                state["token"], state["held"] = None, []
                continue
            claims += 1
            done = state["held"] if mode == "lease" else ids  # lease: the claim completed the batch before
            _record(completed_fd, done, stamp=True)
            _add(signals.completed, len(done))
            if mode == "lease":
                state["held"] = ids
            if ids:
                corrected = False
                continue
            empty += 1
            try:
                if client is not None and watermark and (not corrected or (last_round and not corrected_last)):
                    # an insert that committed late may sit below the watermark: look once more
                    client.watermark_correct()
                    corrections += 1
                    corrected, corrected_last = True, last_round
                    continue
                if last_round and drain_in_flight and client is not None and in_flight():
                    corrected = corrected_last = False
                    time.sleep(0.1)
                    continue
            except ConnectionLost:
                continue
            if last_round:
                break
            if client is not None:  # with wakeup: notify, an enqueue ends the wait at once
                client.wait_for_jobs(0.02)
            else:
                time.sleep(0.02)
        deadlocks = client.deadlock_retries if client is not None else 0
        client.close() if client is not None else connection.close()
        return {"claims": claims, "empty_claims": empty, "watermark_corrections": corrections,
                "deadlock_retries": deadlocks, "latencies": latencies.tobytes(), "uncertain_calls": uncertain,
                "reconnects": client.reconnects if client is not None else 0}

    return work


def _updater(target: Target, name: str, signals: Signals, *, rows: int, seconds: float) -> Callable[[], dict]:
    """R1: single-row UPDATEs of random rows of the counter table, each its own commit, for `seconds`."""
    connection = _connect(target.url)
    statement = _sql(target.url).update_counter(target.spec.schema)

    def work() -> dict:
        done = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            connection.execute(statement, {"id": random.randint(1, rows)})
            done += 1
        _add(signals.completed, done)
        connection.close()
        return {"rows": done}

    return work


def _inserter(target: Target, name: str, signals: Signals, *, first: int, seconds: float) -> Callable[[], dict]:
    """The plain-INSERT reference: the payloads an enqueue takes, straight into a table, for `seconds`."""
    from qgen.bench.database import payload_columns

    connection = _connect(target.url)
    statement = _sql(target.url).insert_plain(target.spec.schema, payload_columns(target.spec, target.queue))

    def work() -> dict:
        done = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            connection.execute(statement, sample_payload(target.spec, target.queue, first + done))
            done += 1
        _add(signals.enqueued, done)
        connection.close()
        return {"rows": done}

    return work


def _reaper(target: Target, name: str, signals: Signals, *, every: float, stop: Any) -> Callable[[], dict]:
    """Release expired leases every `every` seconds until `stop` is set: the bench's own maintenance,
    so that the jobs of a killed worker come back whatever else runs on the database."""
    from qgen.client import ConnectionLost

    client = _client(target, name)

    def work() -> dict:
        calls = released = dead = 0
        while not stop.wait(every):
            try:
                result = client.reap()
            except ConnectionLost:
                continue
            calls += 1
            released += result.released
            dead += result.dead_lettered
            if result.released or result.dead_lettered:
                os.write(fd, f"{time.monotonic():.3f} {result.released} {result.dead_lettered}\n".encode())
        client.close()
        return {"reap_calls": calls, "released": released, "dead_lettered": dead,
                "deadlock_retries": client.deadlock_retries}

    fd = _ledger(target, name, "reaped")
    return work


# The entry points the parent starts (spawn imports them by name).
def producer(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_producer, target, name, signals, **options)


def worker(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_worker, target, name, signals, **options)


def updater(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_updater, target, name, signals, **options)


def inserter(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_inserter, target, name, signals, **options)


def reaper(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_reaper, target, name, signals, **options)
