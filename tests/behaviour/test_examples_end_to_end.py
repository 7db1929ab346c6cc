"""Every example end to end (a generated test): each queue of each spec in examples/,
worked the way docs/client.md says a queue of its kind is worked, on both dialects, checking every
effect the spec documents. Parametrized from the specs themselves, so a new example is covered.

- lease queues: our own run_worker, with a handler that fails one job every time and hands each
  other job's result on when the queue has an outbox. Afterwards: the completed jobs deleted, marked
  processed or archived (on_complete); the poisoned job dead-lettered after max_attempts attempts
  with its error (or deleted, dead_letter: false); the outbox rows (outbox.columns: the outbox table,
  keyed by source_id; outbox.queue: the downstream queue); nothing ready or in flight. Where the
  spec renders an in-database worker (worker:), it drains more jobs with the same effects.
- delete queues: run_worker refuses them (QueueUsageError, with the way to work them); they are
  claimed inside a transaction, a rolled-back claim is claimed again, and each claimed job is
  deleted or archived (on_complete). With dedupe.scope: ever, a queued job whose key the archive
  already holds is never handed out: it goes to the dead letters with the reason.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from qgen.client import QueueUsageError
from qgen.spec.load import load_spec
from qgen.client.worker import run_worker
from tests.behaviour.helpers import ROOT

EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
CASES = [pytest.param(path, name, id=f"{path.stem}-{name}") for path in EXAMPLES for name in load_spec(path).queues]
POISON = "e2e: this job always fails"


def sample(column_type: Any, n: int) -> Any:
    """A value of a portable type, distinct per n (dedupe keys stay apart)."""
    kind = column_type.kind
    if kind in ("int", "bigint"):
        return 100 + n
    if kind == "string":
        return f"e2e-{n}"[: column_type.length]
    if kind == "text":
        return f"text {n}"
    if kind == "uuid":
        return uuid.UUID(int=n + 1)
    if kind == "bool":
        return n % 2 == 0
    if kind == "decimal":
        return Decimal(n % 10 ** max(1, column_type.precision - column_type.scale))
    if kind == "datetime":
        return dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=n)
    if kind == "json":
        return {"n": n}
    assert kind == "xml", kind
    return f"<n>{n}</n>"


def job_values(queue: Any, n: int) -> dict[str, Any]:
    values = {name: sample(col.type, n) for name, col in queue.payload.items()}
    if queue.job_type is not None:
        values["job_type"] = sample(queue.job_type.type, n)
    return values


def enqueue(client: Any, queue: Any, numbers: range) -> list[int]:
    ids = []
    for n in numbers:
        result = client.enqueue(**job_values(queue, n))
        assert result.enqueued
        ids.append(result.id)
    return ids


def outbox_columns(spec: Any, queue: Any) -> dict[str, Any]:
    if queue.outbox is None:
        return {}
    return dict(queue.outbox.columns) if queue.outbox.columns is not None else dict(spec.queues[queue.outbox.queue].payload)


def ids_in(env: Any, queue_name: str, kind: str = "table", where: str = "") -> set[int]:
    return {i for (i,) in env.sql(f"SELECT {env.col('id')} FROM {env.name(queue_name, kind)}" + (f" WHERE {where}" if where else ""))}


def assert_finished(env: Any, queue_name: str, queue: Any, ids: list[int]) -> None:
    """The jobs of `ids` are finished as on_complete says."""
    left = ids_in(env, queue_name)
    if queue.on_complete == "mark":
        processed = ids_in(env, queue_name, where=f"{env.col('processed')} = {'1' if env.dialect == 'mssql' else 'TRUE'}")
        assert set(ids) <= processed, "completed jobs are marked processed"
    else:
        assert not set(ids) & left, "completed jobs left the queue table"
    if queue.on_complete == "archive":
        assert set(ids) <= ids_in(env, queue_name, "archive_table"), "completed jobs are in the archive"


def run_to_the_end(env: Any, client: Any, queue_name: str, handler: Any) -> int:
    """run_worker until no job is left to retry: each round, the backoff of the failed job is
    moved into the past (its attempts are what is tested, not the wait). Returns jobs completed."""
    processed = 0
    for _ in range(env.spec.queues[queue_name].retry.max_attempts + 1):
        processed += run_worker(client, handler, maintain_every=None).processed
        env.backdate(queue_name, "available_at", 10 ** 7)
    return processed


def check_lease_queue(env: Any, queue_name: str) -> None:
    spec, queue = env.spec, env.spec.queues[queue_name]
    client = env.client(queue_name)
    ids = enqueue(client, queue, range(1, 5))
    poison, results = ids[0], {}
    columns = outbox_columns(spec, queue)

    def handler(job: Any) -> Any:
        if job.id == poison:
            raise RuntimeError(POISON)
        if not columns:
            return None
        results[job.id] = {name: sample(col.type, 1000 + job.id) for name, col in columns.items()}
        return results[job.id]

    assert run_to_the_end(env, client, queue_name, handler) == 3
    assert_finished(env, queue_name, queue, ids[1:])
    if queue.dead_letter:
        dead = env.sql(f"SELECT {env.col('id')}, {env.col('attempts')}, {env.col('last_error')} "
                       f"FROM {env.name(queue_name, 'dead_letter_table')}")
        assert [(i, a) for i, a, _ in dead] == [(poison, queue.retry.max_attempts)], "dead-lettered after max_attempts"
        assert POISON in dead[0][2]
    assert poison not in ids_in(env, queue_name), "the poisoned job left the queue"
    metrics = client.metrics()
    assert (metrics["ready"], metrics["in_flight"], metrics["scheduled"]) == (0, 0, 0)
    if columns:
        check_outbox(env, spec, queue_name, queue, results)
    if queue.worker is not None:
        more = enqueue(client, queue, range(5, 7))
        assert client.run_procedure_worker() == 2, "the in-database worker handles every job"
        assert_finished(env, queue_name, queue, more)


def check_outbox(env: Any, spec: Any, queue_name: str, queue: Any, results: dict[int, dict[str, Any]]) -> None:
    """Each completed job's result was handed on in its completion's transaction."""
    names = list(results[next(iter(results))])
    listed = ", ".join(env.col(n) for n in names)
    if queue.outbox.columns is not None:
        rows = env.sql(f"SELECT {env.col('source_id')}, {listed} FROM {env.name(queue_name, 'outbox_table')}")
        assert sorted(rows) == sorted((i, *[v[n] for n in names]) for i, v in results.items())
    else:
        target = queue.outbox.queue
        rows = env.sql(f"SELECT {listed} FROM {env.name(target)}")
        assert sorted(rows) == sorted(tuple(v[n] for n in names) for v in results.values()), \
            f"every result was enqueued into {target}"


def check_delete_queue(env: Any, queue_name: str) -> None:
    queue = env.spec.queues[queue_name]
    client = env.client(queue_name)
    with pytest.raises(QueueUsageError, match="transaction"):
        run_worker(client, lambda job: None)
    ids = enqueue(client, queue, range(1, 5))
    kept_back = set()
    if queue.dedupe is not None and queue.dedupe.scope == "ever" and queue.on_complete == "archive":
        # handed out before (a reload past enqueue): the archive already holds the first job's key
        c = env.col
        kept = ", ".join([c("id")] + [c(name) for name in kept_names(queue)] + [c("enqueued_at")])
        env.execute(f"INSERT INTO {env.name(queue_name, 'archive_table')} ({kept}, {c('completed_at')}) "
                    f"SELECT {c('id')} + 1000000, {kept.split(', ', 1)[1]}, {c('enqueued_at')} "
                    f"FROM {env.name(queue_name)} WHERE {c('id')} = ?", ids[0])
        kept_back = {ids[0]}
    try:
        with client.transaction():
            assert client.dequeue(), "a claim while jobs wait"
            raise RuntimeError("the handler failed: the claim is rolled back")
    except RuntimeError:
        pass
    handed: list[int] = []
    while True:
        with client.transaction():
            jobs = client.dequeue()
        if not jobs:
            break
        handed += [job.id for job in jobs]
    assert sorted(handed) == sorted(set(ids) - kept_back), "each job handed out once; a rolled-back claim again"
    assert not ids_in(env, queue_name), "claimed jobs leave the queue table"
    if queue.on_complete == "archive":
        assert set(handed) <= ids_in(env, queue_name, "archive_table")
    if kept_back:
        dead = env.sql(f"SELECT {env.col('id')}, {env.col('last_error')} FROM {env.name(queue_name, 'dead_letter_table')}")
        assert [i for i, _ in dead] == sorted(kept_back) and "archive already holds" in dead[0][1]
        assert client.metrics()["dead"] == len(kept_back)


def kept_names(queue: Any) -> list[str]:
    """The job's own columns as the archive keeps them: job type, payload, priority."""
    return (([queue.job_type.column] if queue.job_type is not None else []) + list(queue.payload)
            + (["priority"] if queue.ordering == "priority" else []))


@pytest.mark.parametrize(("path", "queue_name"), CASES)
def test_every_example_queue_end_to_end(use_spec, dialect, path: Path, queue_name: str):
    spec = load_spec(path)
    if dialect not in spec.dialects:
        pytest.skip(f"{path.name} renders no {dialect}")
    env = use_spec(path)
    if spec.queues[queue_name].claim == "lease":
        check_lease_queue(env, queue_name)
    else:
        check_delete_queue(env, queue_name)
