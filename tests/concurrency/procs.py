"""What the concurrency tests run in their child processes (multiprocessing, spawn start method).

Each child opens its own connection from a `Target` (dialect, driver connection string, spec path,
queue), reports ("ready", name) on the results queue, waits for `go`, does its work, and reports
("done", name, {...}) or ("error", name, traceback). Functions here are top-level so that spawn can
import them by name (tests.concurrency.procs.<function>).

The ledger: a worker appends the id of every job whose complete() returned to its own file
(`<name>.completed`, one id per line, O_APPEND), right after the call returned and before it takes
the next job. A completion cannot be recorded in the transaction of complete() (the procedure
commits it by itself), so the file is the next best thing: a worker killed between the two would
leave a job done but unrecorded, which the tests avoid by killing a worker only while its handler
blocks. Handler calls are recorded the same way in `<name>.handled`.
"""

from __future__ import annotations

import os
import time
import traceback
from dataclasses import asdict, dataclass, fields
from typing import Any, Optional

from qgen.client import QueueClient
from qgen.spec.load import load_spec
from qgen.client.worker import NO_RESULT, WorkerStats, run_worker


@dataclass(frozen=True)
class Target:
    dialect: str        # postgres | mssql
    conninfo: str       # a libpq URL (psycopg) or an ODBC connection string (pyodbc)
    spec_path: str
    queue: str


def connect(target: Target) -> Any:
    if target.dialect == "postgres":
        import psycopg

        return psycopg.connect(target.conninfo)
    import pyodbc

    return pyodbc.connect(target.conninfo, autocommit=True)


class LedgerClient(QueueClient):
    """A QueueClient that appends the id of every job it completed to a ledger file."""

    def __init__(self, *args: Any, ledger_fd: int, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.ledger_fd = ledger_fd

    def complete(self, job: Any, id: Optional[int] = None, **outbox: Any) -> int:
        count = super().complete(job, id, **outbox)
        os.write(self.ledger_fd, f"{job.id if id is None else id}\n".encode())
        return count


def _append(path: str) -> int:
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)


def _add(total: WorkerStats, part: WorkerStats) -> None:
    for f in fields(WorkerStats):
        value = getattr(part, f.name)
        setattr(total, f.name, (getattr(total, f.name) or value) if isinstance(value, bool) else getattr(total, f.name) + value)


def report_and_flush(results: Any, ledger_dir: str, name: str, report: tuple) -> None:
    """A child's last report before the test kills it: flushed, the results queue's shared write lock
    released, and then its .flushed file made (Fleet.kill waits for it)."""
    results.put(report)
    results.close()
    results.join_thread()
    open(os.path.join(ledger_dir, f"{name}.flushed"), "w").close()


class _SlowRelease:
    """A lock whose release comes a second late: the window in which a SIGKILL leaves it held."""

    def __init__(self, lock: Any):
        self._lock = lock

    def acquire(self, *args: Any) -> Any:
        return self._lock.acquire(*args)

    def release(self) -> None:
        time.sleep(1)
        self._lock.release()


def slow_reporter(target: Any, name: str, ledger_dir: str, results: Any, go: Any) -> None:
    """Reports ("blocked", ...) as a victim does, its queue's write lock released a second late; then
    sleeps until killed (tests/concurrency/test_fleet_kill.py)."""
    results._wlock = _SlowRelease(results._wlock)  # before the first put starts the feeder thread
    report_and_flush(results, ledger_dir, name, ("blocked", name, os.getpid(), None, None))
    time.sleep(3600)


def reporter(target: Any, name: str, ledger_dir: str, results: Any, go: Any) -> None:
    """Waits for go, then reports ("ready", name)."""
    go.wait()
    results.put(("ready", name))
    results.close()
    results.join_thread()


def lease_worker(target: Target, name: str, ledger_dir: str, results: Any, go: Any, *,
                 batch_size: int, lease_seconds: int, stop: Any = None, producer_done: Any = None,
                 block_at: Optional[tuple[int, int]] = None, maintain_every: Optional[float] = None) -> None:
    """Work the queue with qgen.client.run_worker until `stop` is set or, without `stop`, until
    the queue is empty after `producer_done` was set.

    block_at=(batch, index): the victim of the SIGKILL test. Its handler reports
    ("blocked", name, pid, lease_token, job_id) at the index-th job (0-based) of its batch-th
    non-empty batch (1-based) and then sleeps until it is killed; the run_worker heartbeat keeps
    its lease alive meanwhile, as it would for a worker stuck on a slow job.

    maintain_every: run_worker's built-in maintenance interval (None: off, as these tests reap with
    a reaper of their own unless they test the built-in one)."""
    try:
        completed_fd = _append(os.path.join(ledger_dir, f"{name}.completed"))
        handled_fd = _append(os.path.join(ledger_dir, f"{name}.handled"))
        client = LedgerClient(connect(target), load_spec(target.spec_path), target.queue, owner=name,
                              ledger_fd=completed_fd)
        state = {"token": None, "batch": 0, "index": -1}

        def handle(job: Any) -> Any:
            os.write(handled_fd, f"{job.id}\n".encode())
            if block_at is None:
                return NO_RESULT  # example 004's outbox: these jobs hand nothing on (ignored without an outbox)
            if job.lease_token != state["token"]:
                state.update(token=job.lease_token, batch=state["batch"] + 1, index=-1)
            state["index"] += 1
            if (state["batch"], state["index"]) == block_at:
                report_and_flush(results, ledger_dir, name, ("blocked", name, os.getpid(), str(job.lease_token), job.id))
                time.sleep(3600)  # killed with SIGKILL long before this returns
            return NO_RESULT

        results.put(("ready", name))
        go.wait()
        started = time.monotonic()
        total = WorkerStats()
        options = dict(batch_size=batch_size, lease_seconds=lease_seconds, maintain_every=maintain_every)
        if stop is not None:
            _add(total, run_worker(client, handle, stop_when_empty=False, stop=stop, poll_interval=0.05, **options))
        else:
            while True:
                last = producer_done.is_set()  # every job was committed before this run started
                _add(total, run_worker(client, handle, **options))
                if last:
                    break
                time.sleep(0.02)
        elapsed = time.monotonic() - started
        results.put(("done", name, {**asdict(total), "client_deadlock_retries": client.deadlock_retries,
                                    "seconds": elapsed}))
        client.connection.close()
    except BaseException:
        results.put(("error", name, traceback.format_exc()))
        raise


def producer(target: Target, name: str, ledger_dir: str, results: Any, go: Any, *, total: int, chunk: int,
             pause: float, done: Any) -> None:
    """Enqueue `total` jobs with enqueue_many, `chunk` at a time, `pause` seconds apart; write the ids
    it got to `<name>.enqueued`, then set `done`."""
    try:
        client = QueueClient(connect(target), load_spec(target.spec_path), target.queue)
        column = client.payload_columns[0]
        results.put(("ready", name))
        go.wait()
        started = time.monotonic()
        ids: list[int] = []
        base = 1_000_000
        for start in range(0, total, chunk):
            rows = client.enqueue_many([{column: base + n} for n in range(start, min(total, start + chunk))])
            assert all(r.enqueued for r in rows)
            ids.extend(r.id for r in rows)
            time.sleep(pause)
        elapsed = time.monotonic() - started
        with open(os.path.join(ledger_dir, f"{name}.enqueued"), "w") as f:
            f.write("".join(f"{i}\n" for i in ids))
        done.set()
        results.put(("done", name, {"enqueued": len(ids), "seconds": elapsed,
                                    "client_deadlock_retries": client.deadlock_retries}))
        client.connection.close()
    except BaseException:
        results.put(("error", name, traceback.format_exc()))
        raise


def read_ids(path: str) -> list[int]:
    with open(path) as f:
        return [int(line) for line in f if line.strip()]
