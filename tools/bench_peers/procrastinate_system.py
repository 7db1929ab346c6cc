"""procrastinate in the peers bench, through its public API on psycopg 3 (PsycopgConnector, whose
pool is psycopg_pool's default: 4 connections):
- install: App.schema_manager.apply_schema_async() in `public` of its own scratch database;
- enqueue: Task.defer_async(**payload) for one job, Task.batch_defer_async(*payloads) for a batch
  (its documented batch form: one INSERT for the batch);
- worker: App.run_worker_async(queues=[...], concurrency=b, install_signal_handlers=False), with
  wait=False for a drain (it stops once it finds no job), or wait=True for a mixed run, cancelled
  (its graceful stop: running jobs finish) once the producers are done and no job is 'todo'.
  procrastinate fetches one job per query; it has no claim batch size, so the bench gives it
  concurrency=min(b, 10), the number of jobs a worker holds at once where the others claim b per
  query. Capped at 10: at 100 its worker was slower than at 10 (186 against 362 jobs/s, median of
  3 rounds), its 100 tasks queueing for the 4 connections of its default pool.
The task is `async def` with pass_context=True; it only records context.job.id. Completion is
procrastinate's default: JobManager.finish_job sets the job 'succeeded' (delete_jobs=never keeps
the row). The bench records a completion when finish_job returns: the only hook is that method,
wrapped on the app's JobManager to call procrastinate's own and then write the ledger.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Callable, Optional

import procrastinate

from tools.bench_peers.system import PeerSystem, System, stop_when_done
from qgen.bench.procs import Target

TASK, QUEUE_NAME = "bench", "bench"
CONCURRENCY_CAP = 10


class ProcrastinateSystem(PeerSystem):
    guarantee = ("at most once by default: a job is 'doing' from its fetch; if its worker dies it stays "
                 "'doing' until someone retries stalled jobs (a documented periodic task, not run by default)")
    driven = ("Task.defer_async(**payload) / Task.batch_defer_async(*payloads); worker: "
              "App.run_worker_async(concurrency=min(b, 10), wait=False|True), one job per fetch")

    unfinished_sql = "SELECT count(*) FROM procrastinate_jobs WHERE status <> 'succeeded'"

    async def install(self, url: str) -> None:
        app, _ = _app(url)
        async with app.open_async():
            await app.schema_manager.apply_schema_async()


def system(name: str, token: str) -> System:
    return ProcrastinateSystem(name, token)


def _app(url: str, handler: Optional[Callable[..., Any]] = None) -> tuple[procrastinate.App, Any]:
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))

    async def noop(context: Any, **payload: Any) -> None:
        pass

    task = app.task(name=TASK, queue=QUEUE_NAME, pass_context=True)(handler or noop)
    return app, task


async def open_producer(target: Target, name: str) -> Any:
    app, task = _app(target.url)
    await app.open_async()
    return app, task


async def enqueue(handle: Any, payloads: list[dict[str, Any]]) -> list[int]:
    task = handle[1]
    if len(payloads) == 1:
        return [await task.defer_async(**payloads[0])]
    return list(await task.batch_defer_async(*payloads))


async def close_producer(handle: Any) -> None:
    await handle[0].close_async()


async def open_consumer(target: Target, name: str, batch: int, processed: Callable[[int], None],
                        completed: Callable[[list[int]], None]) -> Any:
    async def handle(context: Any, **payload: Any) -> None:
        processed(int(context.job.id))

    app, _ = _app(target.url, handle)
    await app.open_async()
    finish = app.job_manager.finish_job

    async def finish_and_record(job: Any, status: Any, delete_job: bool) -> None:
        await finish(job=job, status=status, delete_job=delete_job)
        if status == procrastinate.jobs.Status.SUCCEEDED:
            completed([int(job.id)])

    app.job_manager.finish_job = finish_and_record
    return app, batch, name


async def consume(handle: Any, producers_done: Any) -> dict:
    app, batch, name = handle
    options = dict(queues=[QUEUE_NAME], concurrency=min(batch, CONCURRENCY_CAP), name=name,
                   install_signal_handlers=False)
    if producers_done is None:
        await app.run_worker_async(wait=False, **options)
    else:
        worker = asyncio.create_task(app.run_worker_async(wait=True, **options))

        async def nothing_todo() -> bool:
            row = await app.connector.execute_query_one_async(
                "SELECT count(*) AS n FROM procrastinate_jobs WHERE status = 'todo'")
            return row["n"] == 0

        await stop_when_done(producers_done, nothing_todo, worker.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await worker
    await app.close_async()
    return {}
