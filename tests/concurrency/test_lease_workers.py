"""Worker processes on a lease queue (example 004's rainfall_events: mark mode, so every job stays in
the table with its processed flag and attempts): every job is completed exactly once, while a
producer keeps enqueueing and when a worker is killed in the middle of a batch.

Each worker runs qgen.client.run_worker on a connection of its own and appends the id of every job
whose complete() returned to its own ledger file (tests/concurrency/procs.py). The ledgers, the
enqueued ids and the table must agree: no id completed twice, none lost. Throughput is printed
(`pytest -s`), never asserted."""

from __future__ import annotations

import collections
import signal
import threading
import time
import uuid
from pathlib import Path

from tests.behaviour.helpers import EX004
from tests.concurrency import procs
from tests.concurrency.harness import Fleet, target

QUEUE = "rainfall_events"
WORKERS = 8


def ledger(directory: Path, suffix: str) -> dict[str, list[int]]:
    return {p.name[: -len(suffix)]: procs.read_ids(str(p)) for p in sorted(directory.glob(f"*{suffix}"))}


def prefill(client, count: int, chunk: int = 2000) -> list[int]:
    ids: list[int] = []
    for start in range(0, count, chunk):
        ids += [r.id for r in client.enqueue_many([{"rainfall_id": n} for n in range(start, min(count, start + chunk))])]
    return ids


def processed(env) -> str:
    return env.col("processed") + (" = 1" if env.dialect == "mssql" else "")


def table_state(env) -> dict[str, int]:
    """What the queue table says: rows, processed, still leased, most attempts, dead letters."""
    table, col = env.name(QUEUE), env.col
    return {
        "rows": env.count(QUEUE),
        "processed": env.count(QUEUE, "table", processed(env)),
        "leased": env.count(QUEUE, "table", f"{col('lease_token')} IS NOT NULL"),
        "max_attempts": int(env.scalar(f"SELECT max({col('attempts')}) FROM {table}") or 0),
        "dead": env.count(QUEUE, "dead_letter_table"),
    }


def assert_exactly_once(completed: dict[str, list[int]], enqueued: list[int]) -> collections.Counter:
    """Every enqueued id completed by exactly one worker, exactly once; returns completions per worker."""
    assert len(set(enqueued)) == len(enqueued), "enqueue handed out an id twice"
    seen = collections.Counter(i for ids in completed.values() for i in ids)
    twice = sorted(i for i, n in seen.items() if n > 1)
    assert not twice, f"{len(twice)} jobs completed more than once, e.g. {twice[:10]}"
    lost = sorted(set(enqueued) - set(seen))
    assert not lost, f"{len(lost)} jobs enqueued but never completed, e.g. {lost[:10]}"
    extra = sorted(set(seen) - set(enqueued))
    assert not extra, f"{len(extra)} completed ids were never enqueued, e.g. {extra[:10]}"
    return collections.Counter({name: len(ids) for name, ids in completed.items()})


def test_eight_worker_processes_drain_50000_jobs_exactly_once_while_a_producer_enqueues(use_spec, tmp_path):
    """40,000 jobs queued before, 10,000 enqueued with enqueue_many in batches of 100 during the
    drain; 8 worker processes, batches of 25, a 30 s lease (no job should ever be claimed twice)."""
    env = use_spec(EX004)
    prefilled = prefill(env.client(QUEUE), 40_000)
    fleet = Fleet(str(tmp_path))
    try:
        done = fleet.event()
        where = target(env, QUEUE)
        fleet.start(procs.producer, "producer", where, total=10_000, chunk=100, pause=0.05, done=done)
        for n in range(WORKERS):
            fleet.start(procs.lease_worker, f"worker{n}", where, batch_size=25, lease_seconds=30, producer_done=done)
        fleet.wait_for("ready", WORKERS + 1, timeout=120)
        started = time.monotonic()
        fleet.go.set()
        fleet.wait_for("done", WORKERS + 1, timeout=240)
        elapsed = time.monotonic() - started
        fleet.join()
    finally:
        fleet.close()

    stats = fleet.stats()
    produced = procs.read_ids(str(tmp_path / "producer.enqueued"))
    assert len(produced) == 10_000
    enqueued = prefilled + produced
    per_worker = assert_exactly_once(ledger(tmp_path, ".completed"), enqueued)

    workers = {n: s for n, s in stats.items() if n != "producer"}
    assert sum(s["processed"] for s in workers.values()) == 50_000
    for name, s in workers.items():
        assert (s["failed"], s["lease_lost"], s["given_up"], s["dead_lettered"]) == (0, 0, 0, 0), (name, s)
        assert s["processed"] == per_worker[name], (name, s, per_worker[name])
    handled = collections.Counter(i for ids in ledger(tmp_path, ".handled").values() for i in ids)
    assert max(handled.values()) == 1 and len(handled) == 50_000, "a job was handed to a handler twice"
    assert table_state(env) == {"rows": 50_000, "processed": 50_000, "leased": 0, "max_attempts": 1, "dead": 0}
    assert sorted(r[0] for r in env.sql(f"SELECT {env.col('id')} FROM {env.name(QUEUE)}")) == sorted(enqueued)

    retries = sum(s["client_deadlock_retries"] for s in stats.values())
    batches = sum(s["batches"] for s in workers.values())
    print(f"\n[{env.dialect}] 50,000 jobs (40,000 queued + 10,000 enqueued during the drain) completed by "
          f"{WORKERS} worker processes in {elapsed:.1f} s: {50_000 / elapsed:,.0f} jobs/s, {batches} batches; "
          f"per worker {sorted(per_worker.values())}")
    print(f"[{env.dialect}] producer: 10,000 jobs in 100 enqueue_many calls over {stats['producer']['seconds']:.1f} s; "
          f"deadlock retries (all clients): {retries}")


def test_a_worker_killed_mid_batch_loses_no_job_and_its_jobs_are_completed_once_by_the_others(use_spec, tmp_path):
    """One of 8 workers blocks in its handler at the third job of its second batch (its lease kept
    alive by run_worker's heartbeat) and is killed with SIGKILL. Its lease (2 s) runs out, the reaper
    releases the jobs it still held, and the 7 others complete them: each exactly once, and those
    jobs, and only those, were delivered twice (attempts = 2)."""
    env = use_spec(EX004)
    total, batch_size = 4_000, 20
    enqueued = prefill(env.client(QUEUE), total)
    reaper = env.client(QUEUE)
    fleet = Fleet(str(tmp_path))
    reaped = {"released": 0, "dead_lettered": 0, "calls": 0}
    reaping = threading.Event()

    def reap_until_stopped() -> None:
        while not reaping.wait(0.25):
            released, dead = reaper.reap()
            reaped["released"] += released
            reaped["dead_lettered"] += dead
            reaped["calls"] += 1

    reaper_thread = threading.Thread(target=reap_until_stopped, name="reaper")
    try:
        stop = fleet.event()
        where = target(env, QUEUE)
        victim = fleet.start(procs.lease_worker, "victim", where, batch_size=batch_size, lease_seconds=2, stop=stop,
                             block_at=(2, 2))
        for n in range(WORKERS - 1):
            fleet.start(procs.lease_worker, f"worker{n}", where, batch_size=batch_size, lease_seconds=2, stop=stop)
        fleet.wait_for("ready", WORKERS, timeout=120)
        fleet.go.set()
        (name, pid, lease_token, blocked_id), = fleet.wait_for("blocked", 1, timeout=60)
        held = sorted(r[0] for r in env.sql(
            f"SELECT {env.col('id')} FROM {env.name(QUEUE)} WHERE {env.col('lease_token')} = ? AND NOT ({processed(env)})",
            uuid.UUID(lease_token)))
        assert pid == victim.pid and blocked_id in held
        fleet.kill(victim)
        killed_at = time.monotonic()
        victim.join(10)
        assert victim.exitcode == -signal.SIGKILL
        reaper_thread.start()
        give_up = time.monotonic() + 90
        while env.count(QUEUE, "table", processed(env)) < total:
            assert time.monotonic() < give_up, f"not drained after the kill: {table_state(env)}"
            time.sleep(0.2)
        recovered = time.monotonic() - killed_at
        fleet.set(stop)
        fleet.wait_for("done", WORKERS - 1, timeout=180)  # a guard, not a measure: 60 s ran out once at load 3
        fleet.join()
    finally:
        reaping.set()
        if reaper_thread.is_alive():
            reaper_thread.join(10)
        fleet.close()

    completed = ledger(tmp_path, ".completed")
    assert_exactly_once(completed, enqueued)
    assert not set(completed.get("victim", [])) & set(held), "the killed worker completed a job it held when killed"
    by_others = {i for n, ids in completed.items() if n != "victim" for i in ids}
    assert set(held) <= by_others
    stats = fleet.stats()
    assert all(s["failed"] == 0 and s["dead_lettered"] == 0 for s in stats.values()), stats
    assert table_state(env) == {"rows": total, "processed": total, "leased": 0, "max_attempts": 2, "dead": 0}
    redelivered = sorted(r[0] for r in env.sql(
        f"SELECT {env.col('id')} FROM {env.name(QUEUE)} WHERE {env.col('attempts')} > 1"))
    assert redelivered == held, "exactly the jobs the killed worker held were delivered again"
    # Released by the reaper, or (PostgreSQL, claims in place) taken over by a claim once expired.
    assert reaped["released"] <= len(held) and reaped["dead_lettered"] == 0, reaped
    retries = sum(s["client_deadlock_retries"] for s in stats.values()) + reaper.deadlock_retries
    print(f"\n[{env.dialect}] killed worker held {len(held)} of its batch of {batch_size} (it had completed "
          f"{len(completed.get('victim', []))} jobs); re-deliveries (attempts > 1): {len(redelivered)}; "
          f"reaper released {reaped['released']} in {reaped['calls']} calls; drained {recovered:.1f} s after the kill; "
          f"lease_lost seen by workers: {sum(s['lease_lost'] for s in stats.values())}; deadlock retries: {retries}")
