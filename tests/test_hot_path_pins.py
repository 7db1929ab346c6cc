"""The pages each hot statement reads, pinned, live on a PostgreSQL of the test's own.

A statement's shared buffers (pages hit or read) depend only on the plan and the state it runs
over, so on a quiet server of our own they are exact numbers, and a template change that makes a
hot statement read more pages shows here as a changed number, long before a benchmark's noise
would show it. Measured with pg_stat_statements (track = all, so the statements a procedure runs
inside it are counted too; it must be preloaded, so the shared server cannot have it): its
counters are reset before each call and read after it, on a connection of their own.

For each queue below (variants of examples/001_watermark.yaml), with 0 and then 20,000 finished
jobs behind the claims (enqueued by enqueue_batch over generate_series and finished by a
server-side claim loop of 200 per claim: the state the procedures leave, never vacuumed), a worker
claims (dequeue), completes (complete, the whole lease by id) and a producer enqueues (enqueue; at
batch 10 enqueue_batch of 10 jobs), at batch 1 and 10. Pinned per call: the median over the
measured calls (the claim without the watermark move it may make), and the watermark move's own
buffers (dequeue calls it once per `every` claimed ids).

Why a median and not every call: the calls of one run differ by a page or two as the claims cross
heap and index page boundaries, and the due index's bound is raised once a second by whichever
claim comes then. The median over many calls does not depend on which; between runs it is exact (TOLERANCE, 0 buffers), but
on the priority queue (see TOLERANCE). The watermark rescan (every 10 s by default) is put off to once an hour,
so that a slow machine does not make one fall among the measured calls.

When a pin fails: if the change is meant, measure it against main with scripts/bench_ab.sh (a
hot-path change carries an A/B), then replace PINS with the table the failure prints, and update
the table in BENCHMARKS.md ("Hot-path pages, pinned").
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from typing import Any, Callable, Optional

import pytest

from qgen.bench.database import BenchDatabase, scratch_spec, variant_queue
from qgen.bench.procs import sample_payload
from qgen.spec.catalog import claims_in_place
from qgen.client.queue import QueueClient
from qgen.spec.model import Spec, object_name
from qgen.spec.load import load_spec
from tests.conftest import ROOT, require

SPEC = ROOT / "examples" / "001_watermark.yaml"
SCHEMA = "pins"          # a server of the test's own: no run token needed
QUEUE = "testq"
BEHIND = (0, 20_000)     # finished jobs behind the claims
BATCHES = (1, 10)
FINISH_BATCH = 200       # jobs per claim of the loop that finishes the jobs behind
WARM = 5                 # calls before the measured ones: plans made and cached, catalogs read
# Measured calls per batch size: at batch 1, enough claims (every 100 + slack 50) that the
# watermark moves at least once among them.
CALLS = {1: 161, 10: 21}    # odd: a median is one of the calls
ENQUEUES = 20
READY = 1000             # jobs ready to claim (the warm-up at batch 1 claims up to every + slack of them)
RESCAN = 3600            # seconds: see variant()
# Buffers a median may differ from its pin. Exact, but on a queue whose claims do not leave rows
# in place (priority order): its lease index is keyed by the lease token, a random uuid, so where
# the claims' and completions' entries land in it, and when its pages split, differs from run to
# run (its batch-10 claim measured 117, 117.5 and 118 over runs of 20 calls).
TOLERANCE: dict[str, float] = {"lease, priority": 2}

# The queues: examples/001_watermark.yaml's payload and watermark (every 100, slack 50), as a
# lease queue (its claims leave rows in place), as itself (delete mode), with completed jobs marked
# or archived instead of deleted, and in priority order (no watermark: claim marks per priority).
VARIANTS: dict[str, dict[str, Any]] = {
    "lease, watermark": {"claim": "lease"},
    "delete, watermark": {"claim": "delete"},
    "lease, on_complete mark": {"claim": "lease", "on_complete": "mark"},
    "lease, on_complete archive": {"claim": "lease", "on_complete": "archive"},
    "lease, priority": {"claim": "lease", "ordering": "priority", "watermark": False},
}

# (variant, finished jobs behind, batch, statement): shared buffers per call (median).
# Statements: dequeue (the claim, without the watermark move), watermark move (dequeue's call of
# watermark_move, when it makes one), complete (the whole lease), enqueue (batch 1: enqueue;
# batch 10: enqueue_batch of 10 jobs).
PINS: dict[tuple[str, int, int, str], int] = {
    ('lease, watermark', 0, 1, 'complete'): 5,
    ('lease, watermark', 0, 1, 'dequeue'): 14,
    ('lease, watermark', 0, 1, 'enqueue'): 6,
    ('lease, watermark', 0, 1, 'watermark move'): 10,
    ('lease, watermark', 0, 10, 'complete'): 33,
    ('lease, watermark', 0, 10, 'dequeue'): 63,
    ('lease, watermark', 0, 10, 'enqueue'): 65,
    ('lease, watermark', 0, 10, 'watermark move'): 10,
    ('lease, watermark', 20000, 1, 'complete'): 5,
    ('lease, watermark', 20000, 1, 'dequeue'): 15,
    ('lease, watermark', 20000, 1, 'enqueue'): 6,
    ('lease, watermark', 20000, 1, 'watermark move'): 10,
    ('lease, watermark', 20000, 10, 'complete'): 33,
    ('lease, watermark', 20000, 10, 'dequeue'): 62,
    ('lease, watermark', 20000, 10, 'enqueue'): 65,
    ('lease, watermark', 20000, 10, 'watermark move'): 10,
    ('delete, watermark', 0, 1, 'dequeue'): 18,
    ('delete, watermark', 0, 1, 'enqueue'): 4,
    ('delete, watermark', 0, 1, 'watermark move'): 10,
    ('delete, watermark', 0, 10, 'dequeue'): 74,
    ('delete, watermark', 0, 10, 'enqueue'): 45,
    ('delete, watermark', 0, 10, 'watermark move'): 10,
    ('delete, watermark', 20000, 1, 'dequeue'): 19,
    ('delete, watermark', 20000, 1, 'enqueue'): 4,
    ('delete, watermark', 20000, 1, 'watermark move'): 10,
    ('delete, watermark', 20000, 10, 'dequeue'): 74,
    ('delete, watermark', 20000, 10, 'enqueue'): 45,
    ('delete, watermark', 20000, 10, 'watermark move'): 10,
    ('lease, on_complete mark', 0, 1, 'complete'): 10,
    ('lease, on_complete mark', 0, 1, 'dequeue'): 14,
    ('lease, on_complete mark', 0, 1, 'enqueue'): 6,
    ('lease, on_complete mark', 0, 1, 'watermark move'): 10,
    ('lease, on_complete mark', 0, 10, 'complete'): 93,
    ('lease, on_complete mark', 0, 10, 'dequeue'): 63,
    ('lease, on_complete mark', 0, 10, 'enqueue'): 65,
    ('lease, on_complete mark', 0, 10, 'watermark move'): 10,
    ('lease, on_complete mark', 20000, 1, 'complete'): 11,
    ('lease, on_complete mark', 20000, 1, 'dequeue'): 15,
    ('lease, on_complete mark', 20000, 1, 'enqueue'): 6,
    ('lease, on_complete mark', 20000, 1, 'watermark move'): 10,
    ('lease, on_complete mark', 20000, 10, 'complete'): 93,
    ('lease, on_complete mark', 20000, 10, 'dequeue'): 62,
    ('lease, on_complete mark', 20000, 10, 'enqueue'): 65,
    ('lease, on_complete mark', 20000, 10, 'watermark move'): 10,
    ('lease, on_complete archive', 0, 1, 'complete'): 10,
    ('lease, on_complete archive', 0, 1, 'dequeue'): 14,
    ('lease, on_complete archive', 0, 1, 'enqueue'): 6,
    ('lease, on_complete archive', 0, 1, 'watermark move'): 10,
    ('lease, on_complete archive', 0, 10, 'complete'): 104,
    ('lease, on_complete archive', 0, 10, 'dequeue'): 63,
    ('lease, on_complete archive', 0, 10, 'enqueue'): 65,
    ('lease, on_complete archive', 0, 10, 'watermark move'): 10,
    ('lease, on_complete archive', 20000, 1, 'complete'): 12,
    ('lease, on_complete archive', 20000, 1, 'dequeue'): 15,
    ('lease, on_complete archive', 20000, 1, 'enqueue'): 6,
    ('lease, on_complete archive', 20000, 1, 'watermark move'): 10,
    ('lease, on_complete archive', 20000, 10, 'complete'): 105,
    ('lease, on_complete archive', 20000, 10, 'dequeue'): 62,
    ('lease, on_complete archive', 20000, 10, 'enqueue'): 65,
    ('lease, on_complete archive', 20000, 10, 'watermark move'): 10,
    ('lease, priority', 0, 1, 'complete'): 3,
    ('lease, priority', 0, 1, 'dequeue'): 15,
    ('lease, priority', 0, 1, 'enqueue'): 6,
    ('lease, priority', 0, 10, 'complete'): 15,
    ('lease, priority', 0, 10, 'dequeue'): 117,
    ('lease, priority', 0, 10, 'enqueue'): 65,
    ('lease, priority', 20000, 1, 'complete'): 4,
    ('lease, priority', 20000, 1, 'dequeue'): 18,
    ('lease, priority', 20000, 1, 'enqueue'): 6,
    ('lease, priority', 20000, 10, 'complete'): 15,
    ('lease, priority', 20000, 10, 'dequeue'): 117,
    ('lease, priority', 20000, 10, 'enqueue'): 65,
}


@pytest.fixture(scope="module")
def server():
    from tests.support.throwaway_pg import ThrowawayPostgres, _bindir, problem

    require(problem())
    bindir = _bindir()
    library = bindir.parent / "lib" / "pg_stat_statements.so" if bindir else None
    require(None if library and library.is_file() else
            f"no pg_stat_statements beside the PostgreSQL server binaries ({library}): install the server's contrib "
            "modules (Debian: postgresql-contrib)")
    pg = ThrowawayPostgres(shared_preload_libraries="'pg_stat_statements'", autovacuum="off",
                           **{"pg_stat_statements.track": "all", "pg_stat_statements.max": 1000})
    try:
        pg.start()
        db = BenchDatabase(pg.url())
        db.execute("CREATE EXTENSION pg_stat_statements")
        yield db
    finally:
        pg.stop()


def variant(name: str) -> Spec:
    spec = load_spec(SPEC)
    body = variant_queue(spec, QUEUE, VARIANTS[name]["claim"], 1)
    body.update({k: v for k, v in VARIANTS[name].items() if k != "claim"})
    # No rescan while measured (below the watermark, or below a priority queue's marks; every 10 s
    # by default): on a slow machine one would fall on another call each run. Its cost is a
    # claim's every rescan seconds, not a job's.
    if body.get("watermark") is False:
        body["watermark"] = {"enabled": False}
    body["watermark"]["rescan"] = RESCAN
    body["max_batch_size"] = FINISH_BATCH
    return scratch_spec(spec, SCHEMA, {QUEUE: body})


@dataclass
class Stats:
    """pg_stat_statements, reset before a call and read after it, on a connection of its own."""

    conn: Any
    spec: Spec

    def around(self, into: dict[str, list[int]], statement: str, call: Callable[..., Any], *args: Any,
               **kwargs: Any) -> Any:
        """Run call(*args, **kwargs) (one procedure call of the client, with the BEGIN and COMMIT it may send) and
        append its buffers to into[statement]: everything it ran at the top level, less the
        watermark move (dequeue's nested call of watermark_move), appended to into["watermark
        move"] when it made one."""
        self.conn.execute("SELECT pg_stat_statements_reset()")
        result = call(*args, **kwargs)
        rows = self.conn.execute(
            "SELECT query, toplevel, shared_blks_hit + shared_blks_read FROM pg_stat_statements "
            "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND query NOT LIKE '%pg_stat_statements%'").fetchall()
        move_call = f'"{object_name(self.spec, QUEUE, "watermark_move")}"('
        total = sum(int(buffers) for _query, toplevel, buffers in rows if toplevel)
        moves = [int(buffers) for query, toplevel, buffers in rows if not toplevel and move_call in query]
        into.setdefault(statement, []).append(total - sum(moves))
        if moves:
            into.setdefault("watermark move", []).append(sum(moves))
        return result


def claim(worker: QueueClient, batch: int, lease: bool) -> list:
    """A worker's claim: lease mode commits it at once; delete mode inside a transaction, committed
    as the work is done (here at once)."""
    if lease:
        return worker.dequeue(batch_size=batch)
    with worker.transaction():
        return worker.dequeue(batch_size=batch)


def measure(db: BenchDatabase, name: str, behind: int) -> dict[tuple[int, str], list[int]]:
    """Buffers of each measured call, by (batch, statement)."""
    spec = variant(name)
    q = spec.queues[QUEUE]
    lease = q.claim == "lease"
    moves = q.watermark.enabled
    sql = db.sql
    measured: dict[tuple[int, str], list[int]] = {}
    with db.scratch(spec, "hot-path pins", QUEUE, replace=True):
        table = object_name(spec, QUEUE, "table")
        filler = db.connect()
        job = sample_payload(spec, QUEUE, 1)
        fill = sql.fill_jobs(SCHEMA, object_name(spec, QUEUE, "enqueue_batch"), None)

        def enqueue_bulk(n: int) -> None:
            for start in range(0, n, 10_000):
                filler.execute(fill, {"job": json.dumps(job, default=str), "n": min(10_000, n - start),
                                      "delay": None, "kind": None})
        filler.execute(sql.synchronous_commit(False))
        if behind:
            enqueue_bulk(behind)
            filler.execute(sql.claim_loop(SCHEMA, object_name(spec, QUEUE, "dequeue"),
                                          object_name(spec, QUEUE, "complete") if lease else None, lease,
                                          behind // FINISH_BATCH, FINISH_BATCH, claims_in_place(q, "postgres")))
        enqueue_bulk(READY)
        filler.execute(sql.vacuum(SCHEMA, table, analyze_only=True))  # statistics, as a live queue has
        filler.close()
        worker = QueueClient(db.connect(), spec, QUEUE)
        stats = Stats(db.connect(), spec)
        moved = not moves   # whether this session has made a watermark move
        try:
            for batch in BATCHES:
                calls: dict[str, list[int]] = {}
                # Warm up until the session has made a watermark move too (its first plans the
                # move's statements: at 20,000 finished behind, 47 pages more than a move reads).
                warm: dict[str, list[int]] = {}
                warmed = tries = 0
                while warmed < WARM + CALLS[batch]:
                    tries += 1
                    assert tries <= 2 * READY // 5, f"{name}: no watermark move in {tries} claims of {batch}"
                    into = calls if warmed >= WARM else warm
                    jobs = stats.around(into, "dequeue", claim, worker, batch, lease)
                    assert len(jobs) == batch, f"{name}: the queue ran dry ({len(jobs)} of {batch})"
                    if lease:
                        stats.around(into, "complete", worker.complete, jobs[0].lease_token)
                    moved = moved or "watermark move" in warm
                    if moved or warmed >= WARM:
                        warmed += 1
                for i in range(WARM + ENQUEUES):
                    into = calls if i >= WARM else {}
                    if batch == 1:
                        stats.around(into, "enqueue", worker.enqueue, **job)
                    else:
                        stats.around(into, "enqueue", worker.enqueue_many, [job] * batch)
                measured.update({(batch, statement): values for statement, values in calls.items()})
        finally:
            worker.close()
            stats.conn.close()
    return measured


def pin_table(measured: dict[tuple[str, int, int, str], int]) -> str:
    lines = ["PINS: dict[tuple[str, int, int, str], int] = {"]
    for key, value in sorted(measured.items(), key=lambda kv: (list(VARIANTS).index(kv[0][0]), *kv[0][1:])):
        lines.append(f"    {key!r}: {value!r},")
    lines.append("}")
    return "\n".join(lines)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_hot_statements_read_the_pinned_pages(server, name):
    calls: dict[tuple[str, int, int, str], list[int]] = {}
    for behind in BEHIND:
        for (batch, statement), values in measure(server, name, behind).items():
            calls[(name, behind, batch, statement)] = values
    measured = {key: statistics.median_low(values) for key, values in calls.items()}
    lease = VARIANTS[name]["claim"] == "lease"
    moves = VARIANTS[name].get("watermark", True) is not False
    expected = {(name, behind, batch, statement) for behind in BEHIND for batch in BATCHES
                for statement in ("dequeue", "enqueue") + (("complete",) if lease else ())}
    assert expected <= set(measured), f"{name}: not measured: {sorted(expected - set(measured))}"
    if moves:
        assert all((name, behind, batch, "watermark move") in calls for behind in BEHIND for batch in BATCHES), \
            f"{name}: the watermark never moved while measured: the pins would miss its move"
    wrong = []
    for key, value in sorted(measured.items()):
        pinned: Optional[int] = PINS.get(key)
        if pinned is None or abs(value - pinned) > TOLERANCE.get(name, 0):
            wrong.append(f"  {key[0]}, {key[1]:,} finished behind, batch {key[2]}: {key[3]} reads {value:g} "
                         f"buffers per call, pinned {pinned if pinned is not None else '(none)'}"
                         f"{' ± %g' % TOLERANCE[name] if name in TOLERANCE else ''} "
                         f"({len(calls[key])} calls: {min(calls[key])} to {max(calls[key])})")
    unmeasured = [key for key in PINS if key[0] == name and key not in measured]
    assert not wrong and not unmeasured, (
        "hot-path pages changed (shared buffers per call, median; tests/test_hot_path_pins.py):\n"
        + "\n".join(wrong) + ("\n  pinned but not measured: " + ", ".join(map(str, unmeasured)) if unmeasured else "")
        + "\nIf the change is meant: A/B it against main with scripts/bench_ab.sh (a hot-path change carries one), "
        "then set these pins in PINS (and the table in BENCHMARKS.md, 'Hot-path pages, pinned'):\n"
        + pin_table(measured))
