"""Workers that look after the queue themselves: every worker process holding
leases is killed with SIGKILL, fresh workers start, and no reaper runs anywhere: only run_worker's
built-in maintain (every MAINTAIN_EVERY seconds) releases the dead workers' jobs. Every job is
completed exactly once (the workers' ledgers), and the jobs the dead held are done within their
lease plus one maintenance interval (plus a margin for the work itself)."""

from __future__ import annotations

import signal
import time

from tests.behaviour.helpers import EX004
from tests.concurrency import procs
from tests.concurrency.harness import Fleet, target
from tests.concurrency.test_lease_workers import QUEUE, assert_exactly_once, ledger, prefill, processed, table_state

VICTIMS, FRESH = 4, 3
TOTAL, BATCH = 400, 25
LEASE, MAINTAIN_EVERY = 2, 1.0
MARGIN = 3.0  # claiming and completing 400 jobs, and the processes' own scheduling, on a shared machine


def test_fresh_workers_recover_the_jobs_of_killed_workers_without_a_reaper(use_spec, tmp_path):
    env = use_spec(EX004)
    enqueued = prefill(env.client(QUEUE), TOTAL)
    fleet = Fleet(str(tmp_path))
    try:
        stop = fleet.event()
        where = target(env, QUEUE)
        # Each victim blocks in its handler at the first job of its first batch (its heartbeat keeps
        # the lease alive) until it is killed.
        victims = [fleet.start(procs.lease_worker, f"victim{n}", where, batch_size=BATCH, lease_seconds=LEASE,
                               stop=stop, block_at=(1, 0)) for n in range(VICTIMS)]
        fleet.wait_for("ready", VICTIMS, timeout=120)
        fleet.go.set()
        blocked = fleet.wait_for("blocked", VICTIMS, timeout=60)
        assert {pid for _, pid, _, _ in blocked} == {v.pid for v in victims}
        held = sorted(r[0] for r in env.sql(
            f"SELECT {env.col('id')} FROM {env.name(QUEUE)} WHERE {env.col('lease_token')} IS NOT NULL"))
        assert len(held) == VICTIMS * BATCH
        for victim in victims:
            fleet.kill(victim)
        killed_at = time.monotonic()
        for victim in victims:
            victim.join(10)
            assert victim.exitcode == -signal.SIGKILL

        for n in range(FRESH):
            fleet.start(procs.lease_worker, f"fresh{n}", where, batch_size=BATCH, lease_seconds=LEASE, stop=stop,
                        maintain_every=MAINTAIN_EVERY)
        fleet.wait_for("ready", VICTIMS + FRESH, timeout=120)
        ready_at = time.monotonic()
        # The leases run out LEASE seconds after the victims' last heartbeat (at the latest when they
        # were killed); a fresh worker maintains at once and then every MAINTAIN_EVERY seconds.
        deadline = max(killed_at + LEASE, ready_at) + MAINTAIN_EVERY + MARGIN
        held_done = lambda: env.count(QUEUE, "table", f"{processed(env)} AND {env.col('id')} IN "  # noqa: E731
                                      f"({', '.join(str(i) for i in held)})")
        while held_done() < len(held):
            assert time.monotonic() < deadline, (f"{held_done()} of the {len(held)} jobs the killed workers held "
                                                 f"done {time.monotonic() - killed_at:.1f} s after the kill: {table_state(env)}")
            time.sleep(0.05)
        recovered = time.monotonic() - killed_at
        while env.count(QUEUE, "table", processed(env)) < TOTAL:
            assert time.monotonic() < deadline + 30, f"not drained: {table_state(env)}"
            time.sleep(0.1)
        fleet.set(stop)
        fleet.wait_for("done", FRESH, timeout=60)
        fleet.join()
    finally:
        fleet.close()

    completed = ledger(tmp_path, ".completed")
    assert_exactly_once(completed, enqueued)
    assert not any(completed.get(f"victim{n}") for n in range(VICTIMS))
    stats = fleet.stats()
    # Each held job came back once: released by maintain's reap, or (PostgreSQL) taken over by a
    # claim once its lease had run out.
    assert sum(s["reaped"] for s in stats.values()) <= len(held), stats
    assert sum(s["maintenance_runs"] for s in stats.values()) >= 1
    assert table_state(env) == {"rows": TOTAL, "processed": TOTAL, "leased": 0, "max_attempts": 2, "dead": 0}
    redelivered = sorted(r[0] for r in env.sql(f"SELECT {env.col('id')} FROM {env.name(QUEUE)} WHERE {env.col('attempts')} > 1"))
    assert redelivered == held
    print(f"\n[{env.dialect}] {VICTIMS} workers holding {len(held)} jobs killed; {FRESH} fresh workers (maintain every "
          f"{MAINTAIN_EVERY} s, lease {LEASE} s, no reaper) were ready {ready_at - killed_at:.1f} s after the kill and had "
          f"completed every held job {recovered:.1f} s after it; maintain calls: "
          f"{sum(s['maintenance_runs'] for s in stats.values())} run, {sum(s['maintenance_skipped'] for s in stats.values())} skipped")
