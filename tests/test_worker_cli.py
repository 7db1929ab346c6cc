"""`qgen worker` as a process against a real PostgreSQL: a stop by SIGTERM finishes the job in hand,
releases the rest of the batch (ready, the attempt not counted) and exits 0 with no lease left; a
second signal exits at once and loses nothing; threads process every job exactly once; a --handler
that cannot be loaded is a clear error without a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psycopg
import pytest

from qgen.client import QueueClient
from qgen.render.engine import render_spec
from qgen.spec.load import load_spec
from tests.conftest import ROOT
from tests.support.pg import run_script, scratch_database
from tests.support.run import run_spec

SPEC = ROOT / "tests" / "behaviour" / "specs" / "worker_cli.yaml"   # schema wcli: tasks (lease, archive)
T = '"wcli"."tasks"'


@pytest.fixture(scope="module")
def installed(postgres_server):
    spec = run_spec(load_spec(SPEC))
    rendering = render_spec(spec, SPEC.name, "postgres")
    with scratch_database("qgen_worker") as url:
        run_script(url, rendering.install)
        try:
            yield url, spec
        finally:
            run_script(url, rendering.force_uninstall + rendering.uninstall)


@pytest.fixture
def db(installed):
    url, spec = installed
    run_script(url, 'TRUNCATE "wcli"."tasks", "wcli"."tasks_dead", "wcli"."tasks_archive" RESTART IDENTITY;')
    conn = psycopg.connect(url, autocommit=True)
    yield url, QueueClient(conn, spec, "tasks"), conn
    conn.close()


def rows(conn, sql: str) -> list[tuple]:
    return conn.execute(sql).fetchall()


def handler_module(folder: Path, body: str, name: str = "handlers") -> str:
    (folder / f"{name}.py").write_text(textwrap.dedent(body))
    return name


def start_worker(folder: Path, url: str, handler: str, *args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, "-m", "qgen.cli", "worker", str(SPEC), "tasks", "--url", url,
                             "--handler", handler, *args], cwd=folder, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for(check, what: str, limit: float = 30.0, process: subprocess.Popen | None = None) -> None:
    give_up = time.monotonic() + limit
    while not check():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the worker exited ({process.returncode}) before {what}: {process.stderr.read()}")
        if time.monotonic() > give_up:
            raise AssertionError(f"not within {limit}s: {what}")
        time.sleep(0.05)


def finish(process: subprocess.Popen, timeout: float = 30.0) -> tuple[int, str]:
    try:
        _, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, err


SLOW = """
    import pathlib, time

    def handle(job):
        pathlib.Path(f"started-{job.payload['n']}").touch()
        time.sleep(1.5)
"""


def test_sigterm_mid_batch_finishes_the_job_in_hand_and_releases_the_rest_uncounted(db, tmp_path):
    url, tasks, conn = db
    tasks.enqueue_many([{"n": n} for n in range(10)])
    process = start_worker(tmp_path, url, handler_module(tmp_path, SLOW) + ":handle", "--batch-size", "10")
    wait_for(lambda: any(tmp_path.glob("started-*")), "the first job started", process=process)
    assert rows(conn, f'SELECT count(*) FROM {T} WHERE "lease_token" IS NOT NULL') == [(10,)], "the batch is claimed"
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    code, err = finish(process)
    assert code == 0, err
    assert time.monotonic() - started < 10, "the stop waited for the job in hand only"
    assert "Traceback" not in err
    assert rows(conn, f'SELECT count(*) FROM {T} WHERE "lease_token" IS NOT NULL') == [(0,)], "no lease left behind"
    assert rows(conn, 'SELECT count(*) FROM "wcli"."tasks_archive"') == [(1,)], "the job in hand was completed"
    assert rows(conn, f'SELECT "attempts", count(*) FROM {T} GROUP BY "attempts"') == [(0, 9)], \
        "the nine not started are back with their claim not counted"
    assert len(list(tmp_path.glob("started-*"))) == 1
    metrics = tasks.metrics()
    assert (metrics["ready"], metrics["in_flight"], metrics["dead"]) == (9, 0, 0)
    lines = err.strip().splitlines()
    assert "started: queue wcli.tasks" in lines[0] and "SIGTERM: stopping" in err
    assert "stopped: processed 1, failed 0, dead lettered 0, released 9" in lines[-1], lines[-1]


def test_a_second_signal_exits_at_once_and_the_jobs_stay_leased_until_reaped(db, tmp_path):
    url, tasks, conn = db
    tasks.enqueue_many([{"n": n} for n in range(5)])
    process = start_worker(tmp_path, url, handler_module(tmp_path, SLOW.replace("1.5", "60")) + ":handle",
                           "--batch-size", "5")
    wait_for(lambda: any(tmp_path.glob("started-*")), "the first job started", process=process)
    process.send_signal(signal.SIGINT)
    time.sleep(0.5)
    assert process.poll() is None, "the first signal waits for the job in hand"
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    code, err = finish(process, timeout=10)
    assert time.monotonic() - started < 5
    assert code == 128 + signal.SIGTERM, err
    assert "SIGTERM again: exiting at once" in err and "Traceback" not in err
    # Nothing lost: the first signal released the four not started (their claim not counted); the job
    # in hand stays leased until its lease ends ...
    assert rows(conn, f'SELECT count(*), min("attempts"), max("attempts") FROM {T} WHERE "lease_token" IS NOT NULL') \
        == [(1, 1, 1)]
    assert rows(conn, f'SELECT count(*) FROM {T} WHERE "lease_token" IS NULL AND "attempts" = 0') == [(4,)]
    # ... then reap releases it.
    conn.execute(f'UPDATE {T} SET "lease_expires_at" = now() - interval \'1 hour\' WHERE "lease_token" IS NOT NULL')
    tasks.reap()
    assert tasks.metrics()["ready"] == 5


COUNTING = """
    import threading, time

    def handle(job):
        time.sleep(0.02)
        with open("done.txt", "a") as f:
            f.write(f"{job.payload['n']} {threading.current_thread().name}\\n")
        if job.payload["n"] == 7 and job.attempts == 1:
            raise RuntimeError("seven fails once")
"""


def test_threads_process_every_job_exactly_once_and_log_json_lines(db, tmp_path):
    url, tasks, conn = db
    tasks.enqueue_many([{"n": n} for n in range(80)])
    process = start_worker(tmp_path, url, handler_module(tmp_path, COUNTING) + ":handle", "--concurrency", "4",
                           "--batch-size", "5", "--json")
    archived = lambda: rows(conn, 'SELECT count(*) FROM "wcli"."tasks_archive"')[0][0]  # noqa: E731
    wait_for(lambda: archived() == 80, "every job archived", limit=60, process=process)
    process.send_signal(signal.SIGTERM)
    code, err = finish(process)
    assert code == 0, err
    done = [line.split() for line in (tmp_path / "done.txt").read_text().splitlines()]
    counts: dict[int, int] = {}
    for n, _ in done:
        counts[int(n)] = counts.get(int(n), 0) + 1
    assert counts == {n: 2 if n == 7 else 1 for n in range(80)}, "each job handled once (7: failed, then retried)"
    assert len({thread for _, thread in done}) > 1, "more than one thread took jobs"
    assert rows(conn, 'SELECT count(*), count(DISTINCT "n") FROM "wcli"."tasks_archive"') == [(80, 80)]
    assert rows(conn, f'SELECT count(*) FROM {T}') == [(0,)]
    events = [json.loads(line) for line in err.strip().splitlines()]   # every line is one JSON object
    assert events[0]["event"] == "start" and events[0]["concurrency"] == 4
    assert events[-1]["event"] == "stop" and events[-1]["processed"] == 80 and events[-1]["failed"] == 1
    failure, = [e for e in events if "seven fails once" in e["message"]]
    assert failure["level"] == "warning" and "RuntimeError: seven fails once" in failure["traceback"]


@pytest.mark.parametrize(("handler", "files", "said"), [
    ("nowhere:handle", {}, "no module named 'nowhere'"),
    ("handlers", {"handlers": "def handle(job): pass\n"}, "is not of the form package.module:function"),
    ("handlers:missing", {"handlers": "def handle(job): pass\n"}, "handlers has no 'missing'"),
    ("handlers:VALUE", {"handlers": "VALUE = 3\n"}, "VALUE is a int, not a function"),
    ("handlers:handle", {"handlers": "def handle(job) pass\n"}, "importing handlers failed"),
    ("handlers:handle", {"handlers": "import not_installed_anywhere\n"},
     "ModuleNotFoundError: No module named 'not_installed_anywhere'"),
    ("handlers:handle", {"handlers": "raise RuntimeError('no config')\n"}, "RuntimeError: no config"),
])
def test_a_bad_handler_is_a_clear_error_without_a_traceback(tmp_path, handler, files, said):
    for name, body in files.items():
        (tmp_path / f"{name}.py").write_text(body)
    process = start_worker(tmp_path, "postgresql://nobody@127.0.0.1:1/none", handler)
    code, err = finish(process)
    assert code == 2, err
    assert said in err and err.startswith("qgen worker: --handler") and "Traceback" not in err, err


@pytest.mark.parametrize(("args", "said"), [
    (["--concurrency", "0"], "--concurrency 0: accepted 1 to 64"),
    (["--batch-size", "100000"], "--batch-size 100000: accepted 1 to"),
])
def test_bad_arguments_are_clear_errors(tmp_path, args, said):
    process = start_worker(tmp_path, "postgresql://nobody@127.0.0.1:1/none", "handlers:handle", *args)
    code, err = finish(process)
    assert code == 2 and said in err and "Traceback" not in err, err


def test_a_database_that_cannot_be_reached_is_said_at_once(tmp_path):
    handler = handler_module(tmp_path, "def handle(job): pass\n") + ":handle"
    started = time.monotonic()
    code, err = finish(start_worker(tmp_path, "postgresql://nobody@127.0.0.1:1/none", handler))
    assert code == 1 and "cannot connect to" in err and "Traceback" not in err, err
    assert time.monotonic() - started < 15


def test_an_async_handler_is_run_to_completion_per_job(db, tmp_path):
    url, tasks, conn = db
    tasks.enqueue_many([{"n": n} for n in range(3)])
    handler = handler_module(tmp_path, """
        import asyncio, pathlib

        async def handle(job):
            await asyncio.sleep(0.01)
            pathlib.Path(f"done-{job.payload['n']}").touch()
    """) + ":handle"
    process = start_worker(tmp_path, url, handler)
    wait_for(lambda: rows(conn, 'SELECT count(*) FROM "wcli"."tasks_archive"') == [(3,)], "three archived",
             process=process)
    process.send_signal(signal.SIGTERM)
    code, err = finish(process)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.glob("done-*")) == ["done-0", "done-1", "done-2"]


def test_a_stop_where_release_is_not_installed_leaves_the_rest_leased_and_says_so(postgres_server, caplog):
    """A worker newer than its database (a rolling deploy, the revision not applied yet) finds no release
    procedure when it stops: the jobs not started stay leased until their lease ends (reap releases
    them), the stop goes on, and the log says why."""
    import logging
    import threading

    from qgen.client import run_worker

    spec = run_spec(load_spec(SPEC))
    rendering = render_spec(spec, SPEC.name, "postgres")
    with scratch_database("qgen_worker_old") as url:
        run_script(url, rendering.install)
        try:
            run_script(url, 'DROP FUNCTION "wcli"."tasks_release"')
            with psycopg.connect(url, autocommit=True) as conn:
                tasks = QueueClient(conn, spec, "tasks")
                tasks.enqueue_many([{"n": n} for n in range(5)])
                stop = threading.Event()

                def handle(job):
                    stop.set()

                caplog.set_level(logging.WARNING, logger="qgen.worker")
                stats = run_worker(tasks, handle, batch_size=5, stop=stop)
                assert (stats.processed, stats.released) == (1, 0)
                assert rows(conn, f'SELECT count(*) FROM {T} WHERE "lease_token" IS NOT NULL') == [(4,)]
                assert "4 unstarted job(s) not released" in caplog.text and "not installed" in caplog.text
        finally:
            run_script(url, rendering.force_uninstall + rendering.uninstall)
