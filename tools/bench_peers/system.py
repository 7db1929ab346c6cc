"""What every system of the peers bench provides, and the child processes the systems share.

A system's module (qgen_system, pgqueuer_system, procrastinate_system) provides, for the child
processes (spawn imports them by name, see tools.bench_peers.module):
- `async open_producer(target, name)`, `async enqueue(handle, payloads) -> ids`,
  `async close_producer(handle)`: its own enqueue (one job, or a batch through its batch API);
- peers only: `async open_consumer(target, name, batch, processed, completed)` and
  `async consume(handle, producers_done) -> stats`: its own worker, whose handler calls
  processed(id) and whose completion, once the library has recorded it, calls completed(ids);
and `system(name, token)`, the parent's System for that name.

The ledger is qgen.bench.procs': producers write `<name>.enqueued` (with the time the enqueue
returned), workers `<name>.claimed` (each job their handler saw) and `<name>.completed` (with the
time its completion was recorded); qgen.bench.fleet.verdict reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

import tools.bench_peers as peers
from qgen.bench.fleet import Fleet
from qgen.bench.procs import Signals, Target, _add, _ledger, _record, _run_child, sample_payload
from qgen.spec.model import Spec

QUEUE = "testq"   # example 001's queue: its payload (a 400-character filler) is every system's payload
FILL_CHUNK = 1000


@dataclass
class Installed:
    spec: Spec                 # the payload's spec (for qgen: the queue installed)
    left: Callable[[], int]    # how many jobs the database still holds unfinished


class System:
    """One system under test. Subclasses say how it is installed and how its workers start."""

    guarantee = ""   # what a job's delivery and completion promise, by default
    driven = ""      # how the bench drives it, for the report

    def __init__(self, name: str, token: str):
        self.name, self.token = name, token

    def installed(self, url: str, spec: Spec, batch: int) -> contextlib.AbstractContextManager[Installed]:
        raise NotImplementedError

    def start_worker(self, fleet: Fleet, target: Target, name: str, batch: int,
                     producers_done: Any = None) -> None:
        fleet.start(consumer, name, target, system=self.name, batch=batch, producers_done=producers_done)

    def start_producer(self, fleet: Fleet, target: Target, name: str, **options: Any) -> None:
        fleet.start(producer, name, target, system=self.name, **options)

    def fill(self, target: Target, rows: int) -> list[int]:
        """Enqueue jobs 1..rows through the system's own batch enqueue, FILL_CHUNK per call; their ids."""
        driver = peers.module(self.name)

        async def go() -> list[int]:
            handle = await driver.open_producer(target, "fill")
            ids: list[int] = []
            for start in range(1, rows + 1, FILL_CHUNK):
                ids += await driver.enqueue(handle, payloads(target, start, min(FILL_CHUNK, rows + 1 - start)))
            await driver.close_producer(handle)
            return ids

        return asyncio.run(go())


class PeerSystem(System):
    """A peer: installed by its own API into `public` of its scratch database, emptied before and
    after each measurement (fresh_public_schema). Subclasses give install and unfinished_sql."""

    unfinished_sql = ""   # counts the jobs its tables still hold unfinished

    async def install(self, url: str) -> None:
        raise NotImplementedError

    @contextlib.contextmanager
    def installed(self, url: str, spec: Spec, batch: int) -> Iterator[Installed]:
        with fresh_public_schema(url):
            asyncio.run(self.install(url))
            yield Installed(spec, lambda: count(url, self.unfinished_sql))


def payloads(target: Target, first: int, count: int) -> list[dict[str, Any]]:
    return [sample_payload(target.spec, target.queue, n) for n in range(first, first + count)]


async def stop_when_done(producers_done: Any, queue_empty: Callable[[], Any], stop: Callable[[], None]) -> None:
    """A mixed run's end for a worker that would otherwise wait for more: once every producer is
    done and the queue holds nothing waiting, stop(); the library then finishes what it holds."""
    while not (producers_done.is_set() and await queue_empty()):
        await asyncio.sleep(0.05)
    stop()


# ---------------------------------------------------------------------------------------------
# Child processes (qgen.bench.procs' life cycle: prepare, ready, go, work, done)


def _async_child(make: Callable[..., Any]) -> Callable[..., Callable[[], dict]]:
    """procs' prepare/work pair for asyncio: `make(...)` is awaited before ready (connections
    open there) and returns the coroutine function run after go, on the same event loop."""
    def prepare(target: Target, name: str, signals: Signals, **options: Any) -> Callable[[], dict]:
        loop = asyncio.new_event_loop()
        work = loop.run_until_complete(make(target, name, signals, **options))

        def run() -> dict:
            try:
                return loop.run_until_complete(work())
            finally:
                loop.close()

        return run

    return prepare


async def _producer(target: Target, name: str, signals: Signals, *, system: str, first: int, batch: int = 1,
                    seconds: Optional[float] = None, count: Optional[int] = None, rate: Optional[float] = None,
                    done: Any = None) -> Callable[[], Any]:
    """Enqueue jobs first, first+1, ...: `count`, or for `seconds`; `batch` per call; at most
    `rate` jobs a second when given (a mixed run's offered load)."""
    driver = peers.module(system)
    handle = await driver.open_producer(target, name)
    fd = _ledger(target, name, "enqueued")

    async def work() -> dict:
        enqueued = calls = 0
        began = asyncio.get_running_loop().time()
        deadline = None if seconds is None else began + seconds
        clock = asyncio.get_running_loop().time
        while (count is None or enqueued < count) and (deadline is None or clock() < deadline):
            if rate and began + enqueued / rate > clock():
                await asyncio.sleep(began + enqueued / rate - clock())
            size = batch if count is None else min(batch, count - enqueued)
            ids = await driver.enqueue(handle, payloads(target, first + enqueued, size))
            _record(fd, ids, stamp=True)
            _add(signals.enqueued, len(ids))
            calls, enqueued = calls + 1, enqueued + size
        if done is not None:
            done.set()
        await driver.close_producer(handle)
        return {"enqueued": enqueued, "calls": calls}

    return work


async def _consumer(target: Target, name: str, signals: Signals, *, system: str, batch: int,
                    producers_done: Any = None) -> Callable[[], Any]:
    """A peer's own worker: drains the queue (and stops when the library finds it empty), or with
    producers_done, works until the producers are done and nothing waits."""
    driver = peers.module(system)
    claimed_fd, completed_fd = _ledger(target, name, "claimed"), _ledger(target, name, "completed")

    def processed(job_id: int) -> None:
        _record(claimed_fd, [job_id])

    def completed(ids: list[int]) -> None:
        _record(completed_fd, ids, stamp=True)
        _add(signals.completed, len(ids))

    handle = await driver.open_consumer(target, name, batch, processed, completed)

    async def work() -> dict:
        return await driver.consume(handle, producers_done)

    return work


def producer(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_async_child(_producer), target, name, signals, **options)


def consumer(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_async_child(_consumer), target, name, signals, **options)


@contextlib.contextmanager
def fresh_public_schema(url: str) -> Iterator[None]:
    """A peer installs into `public` of its own scratch database: empty it before and after, so no
    measurement inherits another's dead rows (autovacuum may be off)."""
    import psycopg

    def reset() -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
            conn.execute("CREATE SCHEMA public")

    reset()
    try:
        yield
    finally:
        reset()


def count(url: str, statement: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return int(conn.execute(statement).fetchone()[0])
