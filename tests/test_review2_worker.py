"""Review 2 (defects, not fixes): qgen worker's stop watch (qgen/client/worker.py _StopWatch) and --grace."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from qgen.client import worker as worker_module
from qgen.client.worker import NO_RESULT, run_worker
from tests.behaviour.helpers import BEHAVE
from tests.conftest import ROOT
from tests.support.backends import babelfish_gap, backend, dialect, use_spec  # noqa: F401  (fixtures)
from tests.test_worker_cli import SLOW, T, db, finish, handler_module, installed, rows, start_worker, wait_for  # noqa: F401


@pytest.mark.parametrize("grace", ["0", "0s"])
def test_a_short_grace_leaves_only_the_job_in_hand_leased(db, tmp_path, grace):
    """docs (qgen/cli/worker.py, operations.md): past --grace 'that job alone stays leased'. The stop watch
    releases the unstarted rest one job per call from a daemon thread; the main thread returns after --grace
    without waiting for it, so the process exits with some of the never-started jobs still leased (reap
    counts their attempt, a job on its last attempt is dead-lettered without running)."""
    url, tasks, conn = db
    tasks.enqueue_many([{"n": n} for n in range(10)])
    process = start_worker(tmp_path, url, handler_module(tmp_path, SLOW.replace("1.5", "60")) + ":handle",
                           "--batch-size", "10", "--grace", grace)
    wait_for(lambda: any(tmp_path.glob("started-*")), "the first job started", process=process)
    process.send_signal(signal.SIGTERM)
    code, err = finish(process, timeout=20)
    assert code == 1, err
    leased = rows(conn, f'SELECT count(*) FROM {T} WHERE "lease_token" IS NOT NULL')[0][0]
    assert leased == 1, f"{leased} jobs left leased after --grace {grace}; only the one in the stuck handler should be"


def test_a_stop_as_the_allotted_time_runs_out_loses_no_unstarted_job(use_spec, monkeypatch):
    """_WorkerRun.work: start(index) marks job `index` as started (next = index + 1); if the allotted time
    is over, hand_back_from(index) hands it back. A stop whose watch thread runs between the two hands back
    from index + 1 and sets handed_back, so hand_back_from(index) does nothing: job `index` never ran and is
    neither released nor finished; it stays leased until reap, which counts the attempt (max_attempts 1:
    dead-lettered without running). The window is opened here by a time_over that lets the watch act."""
    env = use_spec(BEHAVE)
    queue = env.client("once_archived")             # max_attempts 1
    ids = [r.id for r in queue.enqueue_many([{"code": f"c{n}"} for n in range(3)])]
    stop, handled = threading.Event(), []
    real_time_over = worker_module._WorkerRun.time_over

    def time_over(self):
        if handled and not stop.is_set():           # the check before the second job: time runs out just
            stop.set()                              # as the stop comes
            time.sleep(0.5)                         # (the watch thread polls every 0.1 s)
            return True
        return real_time_over(self)

    monkeypatch.setattr(worker_module._WorkerRun, "time_over", time_over)
    stats = run_worker(queue, lambda job: handled.append(job.id) or NO_RESULT, batch_size=3, allotted_seconds=60,
                       stop_when_empty=False, stop=stop, maintain_every=None, lease_seconds=30)
    assert handled == ids[:1]
    assert [queue.job(i).state for i in ids[1:]] == ["queued", "queued"], \
        "the two jobs never started are handed back (one stays in flight, its attempt counted by reap)"
    assert stats.released == 2, stats


def test_grace_expiry_on_each_database_leaves_only_the_job_in_hand_leased(use_spec, tmp_path):
    """As test_a_short_grace_leaves_only_the_job_in_hand_leased, on PostgreSQL and Babelfish, with a short --grace:
    the stuck handler's job alone stays leased (--grace 0 here; 1s passes)."""
    env = use_spec(ROOT / "tests" / "behaviour" / "specs" / "worker_cli.yaml")
    tasks = env.client("tasks")
    tasks.enqueue_many([{"n": n} for n in range(10)])
    leased = f"{env.col('lease_token')} IS NOT NULL"
    process = start_worker(tmp_path, env.backend.database_url, handler_module(tmp_path, SLOW.replace("1.5", "60"))
                           + ":handle", "--batch-size", "10", "--grace", "0")
    wait_for(lambda: any(tmp_path.glob("started-*")), "the first job started", limit=90, process=process)
    process.send_signal(signal.SIGTERM)
    code, err = finish(process, timeout=60)
    assert code == 1, err
    assert env.count("tasks", "table", leased) == 1, "only the job in the stuck handler stays leased"
