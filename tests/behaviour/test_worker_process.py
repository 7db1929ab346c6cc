"""`qgen worker` as a process on each database (tests/test_worker_cli.py tries the rest of it on
PostgreSQL): SIGTERM mid-batch finishes the job in hand, releases the batch's jobs not started (ready,
their claim not counted) and exits 0 with no lease left behind."""

from __future__ import annotations

import signal
import time

from tests.conftest import ROOT
from tests.test_worker_cli import SLOW, finish, handler_module, start_worker, wait_for

SPEC = ROOT / "tests" / "behaviour" / "specs" / "worker_cli.yaml"   # schema wcli: tasks (lease, archive)


def test_sigterm_mid_batch_finishes_the_job_in_hand_and_releases_the_rest_uncounted(use_spec, tmp_path):
    env = use_spec(SPEC)
    tasks = env.client("tasks")
    tasks.enqueue_many([{"n": n} for n in range(10)])
    leased = f"{env.col('lease_token')} IS NOT NULL"
    process = start_worker(tmp_path, env.backend.database_url, handler_module(tmp_path, SLOW) + ":handle",
                           "--batch-size", "10")
    wait_for(lambda: any(tmp_path.glob("started-*")), "the first job started", limit=90, process=process)
    assert env.count("tasks", "table", leased) == 10, "the batch is claimed"
    process.send_signal(signal.SIGTERM)
    started = time.monotonic()
    code, err = finish(process, timeout=60)
    assert code == 0, err
    assert "Traceback" not in err
    assert time.monotonic() - started < 30, "the stop waited for the job in hand only"
    assert env.count("tasks", "table", leased) == 0, "no lease left behind"
    assert env.count("tasks", "archive_table") == 1, "the job in hand was completed"
    assert env.sql(f"SELECT {env.col('attempts')}, count(*) FROM {env.name('tasks')} GROUP BY {env.col('attempts')}") \
        == [(0, 9)], "the nine not started are back with their claim not counted"
    assert len(list(tmp_path.glob("started-*"))) == 1
    assert "stopped: processed 1, failed 0, dead lettered 0, released 9" in err.strip().splitlines()[-1], err
