"""PgQueuer in the peers bench, through its public API on asyncpg (the driver its docs use):
- install: Queries(AsyncpgDriver(connection)).install() in `public` of its own scratch database;
- enqueue: Queries.enqueue(entrypoint, payload) for one job, and its batch form with lists
  (entrypoints, payloads, priorities): one INSERT for the batch;
- worker: QueueManager(queries) with one entrypoint whose handler only records the job id, run with
  QueueManager.run(batch_size=b, mode=drain) for a drain (it stops once the queue is empty), or in
  its default continuous mode (woken by its NOTIFY) for a mixed run, stopped by setting its
  shutdown event once the producers are done and nothing is queued.
Completion is PgQueuer's default: the worker buffers each finished job (JobStatusLogBuffer, flushed
at batch_size jobs or every 0.1 s) and log_jobs deletes them from the queue table and writes the
log table in one statement. The bench records a completion when that call returns: the only hook
is a Queries subclass whose log_jobs calls PgQueuer's own and then writes the ledger.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any, Callable

import asyncpg
from pgqueuer import AsyncpgDriver, Queries, QueueManager
from pgqueuer.types import QueueExecutionMode

from tools.bench_peers.system import PeerSystem, System, stop_when_done
from qgen.bench.procs import Target

ENTRYPOINT = "bench"


class PgQueuerSystem(PeerSystem):
    guarantee = ("at least once: a picked job whose worker stops heartbeating is picked again; completions "
                 "are buffered (up to batch_size jobs or 0.1 s), so a worker that dies loses its buffer and "
                 "those jobs run again")
    driven = ("Queries.enqueue(entrypoint, payload) / enqueue([entrypoints], [payloads], [priorities]); "
              "worker: QueueManager.run(batch_size=b, mode=drain|continuous), handler records the id")

    unfinished_sql = "SELECT count(*) FROM pgqueuer"   # a completed job leaves the queue table

    async def install(self, url: str) -> None:
        connection = await asyncpg.connect(url)
        try:
            await Queries(AsyncpgDriver(connection)).install()
        finally:
            await connection.close()


def system(name: str, token: str) -> System:
    return PgQueuerSystem(name, token)


@dataclasses.dataclass
class _RecordingQueries(Queries):
    """PgQueuer's Queries; once its log_jobs (the completion) returns, the successful ids go to the ledger."""

    on_completed: Callable[[list[int]], None] = lambda ids: None

    async def log_jobs(self, job_status: list) -> None:
        await super().log_jobs(job_status)
        self.on_completed([int(job.id) for job, status, _ in job_status if status == "successful"])


async def open_producer(target: Target, name: str) -> Any:
    connection = await asyncpg.connect(target.url)
    return connection, Queries(AsyncpgDriver(connection))


async def enqueue(handle: Any, payloads: list[dict[str, Any]]) -> list[int]:
    queries = handle[1]
    data = [json.dumps(p).encode() for p in payloads]
    if len(data) == 1:
        return [int(i) for i in await queries.enqueue(ENTRYPOINT, data[0])]
    return [int(i) for i in await queries.enqueue([ENTRYPOINT] * len(data), data, [0] * len(data))]


async def close_producer(handle: Any) -> None:
    await handle[0].close()


async def open_consumer(target: Target, name: str, batch: int, processed: Callable[[int], None],
                        completed: Callable[[list[int]], None]) -> Any:
    connection = await asyncpg.connect(target.url)
    queries = _RecordingQueries(AsyncpgDriver(connection), on_completed=completed)
    manager = QueueManager(queries)

    @manager.entrypoint(ENTRYPOINT)
    async def handle(job: Any) -> None:
        processed(int(job.id))

    return connection, queries, manager, batch


async def consume(handle: Any, producers_done: Any) -> dict:
    connection, queries, manager, batch = handle
    if producers_done is None:
        await manager.run(batch_size=batch, mode=QueueExecutionMode.drain)
    else:
        async def nothing_queued() -> bool:
            return await queries.queued_work([ENTRYPOINT]) == 0

        stopper = asyncio.create_task(stop_when_done(producers_done, nothing_queued, manager.shutdown.set))
        await manager.run(batch_size=batch)
        await stopper
    await connection.close()
    return {}
