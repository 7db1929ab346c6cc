"""A claim's cost stays flat whatever sits behind it, live on PostgreSQL.

Each test fills a scratch queue (the claim-cost bench's own setups, qgen/bench/claim_cost.py) with
ROWS rows of one kind the claims cannot take, then measures claims of batch 1 and 10 under EXPLAIN
(ANALYZE, BUFFERS): the median shared buffers per claim (the whole call) must stay within BOUND
times what the same claim costs with nothing behind it (plus SLACK pages for a mover's or a
rescan's visit). Without the fix each names, the cost grows with ROWS (numbers in BENCHMARKS.md).
The last test runs the bench command itself, tiny, and checks the shape of its report.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from qgen.bench.claim_cost import FACTORS, _Cell, _variant
from qgen.bench.database import BenchDatabase
from qgen.spec.load import load_spec
from tests.conftest import ROOT
from tests.support.pg import scratch_database
from tests.support.run import named

ROWS = 3000
BOUND, SLACK = 2.0, 4
# A held snapshot: what a claim may read more after 3,000 jobs failed once than after 1,000 (the
# watermark's every + slack ids of dead entries are there at both; without the due bound: about +490).
GROWTH = 150
SCHEMA = named("qgen_cc")
SPEC = ROOT / "examples" / "001_watermark.yaml"


@pytest.fixture(scope="module")
def db(postgres_server):
    with scratch_database("qgen_claim_cost") as url:
        yield BenchDatabase(url)


def cost(db: BenchDatabase, mode: str, factor: str, size: int) -> dict[int, float]:
    """Median buffers per claim, by batch size, with `size` rows of the factor behind the claims."""
    spec = _variant(load_spec(SPEC), "testq", SCHEMA, mode, factor)
    with db.scratch(spec, "claim-cost test", "testq", replace=True):
        cell = _Cell(db, spec, "testq", mode, factor)
        held = cell.setup(size)
        try:
            return {batch: cell.measure(batch, 5)["buffers"] for batch in (1, 10)}
        finally:
            if held is not None:
                held.rollback()
                held.close()
            cell.close()


def assert_flat(db: BenchDatabase, mode: str, factor: str, rows: int = ROWS) -> None:
    empty, loaded = cost(db, mode, factor, 0), cost(db, mode, factor, rows)
    for batch in (1, 10):
        assert loaded[batch] <= BOUND * empty[batch] + SLACK, (
            f"{factor}, {mode}, batch {batch}: {loaded[batch]} buffers per claim with {rows} rows behind it, "
            f"{empty[batch]} with none")


@pytest.mark.parametrize("mode", ["lease", "delete"])
def test_burned_ids_do_not_freeze_the_watermark(db, mode):
    # Every even id is a gap, so no claim of one job ever crosses a multiple of `every`: the
    # watermark used to stay at 0 and each claim walked every job claimed before it.
    assert_flat(db, mode, "burned ids")


def test_a_claim_of_many_ids_moves_the_watermark_past_all_of_them(db):
    # Jobs in flight, leased 1000 to a claim: the watermark used to follow the claim's lowest id,
    # a whole claim behind, and the next claims walked the batch still in flight.
    assert_flat(db, "lease", "in flight")


def test_unvacuumed_completed_jobs_stay_behind_the_watermark(db):
    assert_flat(db, "lease", "unvacuumed completed")
    assert_flat(db, "delete", "unvacuumed completed")


@pytest.mark.parametrize("mode", ["lease", "delete"])
def test_unvacuumed_completed_jobs_of_a_priority_queue_stay_behind_its_marks(db, mode):
    # A priority queue has no watermark: claims started at the head of the claim index and walked
    # the dead entries of every completed row until VACUUM (14 -> 990 buffers at 100k). Each
    # priority's mark (templates/postgres/priority_marks.sql.j2) is where its claims start now.
    # 20,000 rows: once their entries are marked dead a claim still reads every leaf page of them
    # (about 260 entries a page), which at 3,000 rows stays within the bound.
    assert_flat(db, mode, "priority, unvacuumed", rows=20_000)


def test_the_bench_reports_every_case(postgres_server, tmp_path):
    with scratch_database("qgen_claim_cost_cli") as url:
        out = tmp_path / "claim_cost.json"
        command = [sys.executable, "-m", "qgen.cli", "bench", str(SPEC), "--url", url, "--schema",
                   named("qgen_ccsmoke"), "--quiet", "--experiment", "claim-cost", "--sizes", "0,50",
                   "--factors", "delayed,backed-off", "--batches", "1", "--json", str(out)]
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert report["experiment"] == "claim-cost" and report["sizes"] == [0, 50]
    # backed-off has no delete-mode case: a delete-mode claim is never retried
    assert [(c["factor"], c["mode"], c["batch"]) for c in report["cases"]] == [
        ("delayed", "lease", 1), ("delayed", "delete", 1), ("backed-off", "lease", 1)]
    for case in report["cases"]:
        assert [p["size"] for p in case["points"]] == [0, 50]
        assert all(p["buffers"] > 0 and p["ms"] > 0 and p["jobs_per_claim"] == 1 for p in case["points"])
        assert case["within_target"] == (case["ratio"] <= report["target_ratio"])
    assert "buffers @50" in result.stdout and "cases within the target" in result.stdout
    assert set(c["factor"] for c in report["cases"]) <= set(FACTORS)


@pytest.mark.parametrize("mode", ["lease", "delete"])
def test_a_lagging_job_type_does_not_slow_the_others(db, mode):
    # Under the generic plan, a claim for one type used to walk, in id order, every job of a type
    # nobody claims that was queued before it.
    assert_flat(db, mode, "lagging type")


@pytest.mark.parametrize("mode", ["lease", "delete"])
def test_delayed_jobs_sit_off_the_claim_path(db, mode):
    # Jobs whose run_at is a day away, queued before the ready ones: they pinned the watermark
    # (still unclaimed) and every claim walked them.
    assert_flat(db, mode, "delayed")


def test_backed_off_jobs_sit_off_the_claim_path(db):
    # Failed jobs waiting out an hour's backoff: each fail lowered the watermark to its job, which
    # then held it there, and every claim walked every job behind it.
    assert_flat(db, "lease", "backed-off")


def test_reap_sees_an_expired_lease_behind_delayed_jobs(db):
    """reap looks at the first 10 x batch_size unfinished jobs in queue order (no index holds leases
    on an in-place queue). Delayed jobs used to fill that prefix: an expired lease behind them stayed
    leased until a claim reached it. They are not in the claim index reap walks any more."""
    import time

    from qgen.client import QueueClient

    spec = _variant(load_spec(SPEC), "testq", SCHEMA, "lease", "delayed")
    with db.scratch(spec, "claim-cost test", "testq", replace=True):
        cell = _Cell(db, spec, "testq", "lease", "delayed")
        try:
            cell.fill(100, delay=86_400)          # ids 1..100: a day away
            cell.fill(5)                          # ids 101..105: ready
            queue = QueueClient(db.connect(), spec, "testq")
            held = queue.dequeue(batch_size=5, lease_seconds=1)
            assert [j.id for j in held] == [101, 102, 103, 104, 105]
            time.sleep(1.5)                       # the worker died: its lease runs out
            assert tuple(queue.reap(batch_size=1)) == (1, 0), "the expired lease behind 100 delayed jobs is seen"
        finally:
            cell.close()


def _fail_once_then_complete(client, cell: _Cell, jobs: int) -> None:
    """`jobs` jobs enqueued, claimed, failed with a retry (backoff 0: due at once), claimed again
    from the due index and completed, ten at a time."""
    for _ in range(jobs // 10):
        cell.fill(10)
        for job in client.dequeue(batch_size=10, lease_seconds=60):
            client.fail(job, error="once", retry=True)
        for job in client.dequeue(batch_size=10, lease_seconds=60):
            client.complete(job)


def test_a_held_snapshot_does_not_make_claims_walk_the_work_done_since(db):
    """One REPEATABLE READ reader open while jobs fail once and then complete: a claim's buffers
    must not grow with the number of such jobs (1,000, then 3,000). Without a bound on the due
    index they did (26 -> 525 -> 1,018 buffers after 0, 1,000 and 3,000 here): each such job
    leaves a dead entry there that nothing may remove while the snapshot is held, and claims read
    the due index from its oldest entry. Claims start at due_from now (postgres__due_bound_move),
    which a dequeue that took a due job moves, once a second at most; before each measurement that
    limit is lifted and ten more jobs fail once, so the bound is moved past all the work done (as
    the next move a second later would). With it: 28 -> 247 -> 266; what is left is the claim
    index's dead entries within the watermark's every + slack ids (150), there at both points."""
    from qgen.bench.database import scratch_spec, variant_queue
    from qgen.client import QueueClient
    from qgen.spec.model import object_name

    body = variant_queue(load_spec(SPEC), "testq", "lease", 10)
    body.update(scheduling=True, max_batch_size=1000, retry={"max_attempts": 5, "backoff": {"base": 0, "factor": 1,
                                                                                            "max": 0}})
    spec = scratch_spec(load_spec(SPEC), SCHEMA, {"testq": body})
    with db.scratch(spec, "claim-cost test", "testq", replace=True):
        cell = _Cell(db, spec, "testq", "lease", "backed-off")
        client = QueueClient(db.connect(), spec, "testq")
        reader = db.connect(autocommit=False)
        try:
            cell.run(db.sql.no_autovacuum(spec.schema, cell.name["table"]))
            reader.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            reader.execute(f'SELECT count(*) FROM "{spec.schema}"."testq"').fetchone()  # the snapshot, held
            measured, done = {}, 0
            for total in (0, 1000, 3000):
                _fail_once_then_complete(client, cell, total - done)
                done = total
                # Ten more, the once-a-second limit lifted first: the claim that takes them again (due)
                # moves the bound past all the work done, as the next one a second later would.
                cell.run(f'UPDATE "{spec.schema}"."{object_name(spec, "testq", "watermark_table")}" '
                         'SET "due_moved_at" = \'-infinity\'')
                _fail_once_then_complete(client, cell, 10)
                cell.fill(20)  # ready jobs for the measured claims
                cell.run(db.sql.vacuum(spec.schema, cell.name["table"], analyze_only=True))  # as autovacuum would
                measured[total] = cell.measure(1, 5)["buffers"]
            assert measured[3000] <= measured[1000] + GROWTH, measured
        finally:
            reader.rollback()
            reader.close()
            client.connection.close()
            cell.close()


def test_jobs_past_expire_after_are_passed_once_not_walked_by_every_claim(db):
    """expire_after: jobs past it wait ahead of the ready ones until reap takes them away. No claim
    takes them, and the watermark may pass them (they are not stranded), so claims walk them once,
    not each time: without that, every claim read all of them until the next maintain. 100,000 of
    them: the planner then finds enqueued_at > now - expire_after selective, and sought the expire
    index for the claim (sorting every job not expired by id) until the test was written on the
    column's side (m.unexpired)."""
    assert_flat(db, "lease", "expired, not reaped", rows=100_000)
