"""Review (DBA): qgen worker's stop when --grace runs out."""

from __future__ import annotations

import signal
import time

from tests.test_worker_cli import SLOW, T, db, finish, handler_module, installed, rows, start_worker, wait_for  # noqa: F401


def test_grace_expiry_still_hands_back_the_jobs_of_the_batch_never_started(db, tmp_path):
    """docs: 'A handler still running --grace seconds after the signal is not waited for: the process
    exits 1, and that job stays leased'. The other jobs of its batch never started: they must be
    released (attempt not counted), not left leased for reap to count (and dead-letter on a last attempt)."""
    url, tasks, conn = db
    tasks.enqueue_many([{"n": n} for n in range(5)])
    process = start_worker(tmp_path, url, handler_module(tmp_path, SLOW.replace("1.5", "60")) + ":handle",
                           "--batch-size", "5", "--grace", "1s")
    wait_for(lambda: any(tmp_path.glob("started-*")), "the first job started", process=process)
    process.send_signal(signal.SIGTERM)
    code, err = finish(process, timeout=20)
    assert code == 1, err
    assert len(list(tmp_path.glob("started-*"))) == 1
    leased = rows(conn, f'SELECT count(*) FROM {T} WHERE "lease_token" IS NOT NULL')[0][0]
    assert leased == 1, f"{leased} jobs left leased; only the one in the stuck handler should be"


def test_the_worker_start_line_hides_an_sslpassword(db, tmp_path):
    """libpq's sslpassword (the client key's passphrase) is a secret: `qgen worker` logs the URL on every
    start (to a log aggregator with --json), and the one redaction rule leaves sslpassword= in it."""
    url, tasks, conn = db
    secret = "Hunter2-keypass"
    with_key = url + ("&" if "?" in url else "?") + f"sslpassword={secret}&sslmode=disable"
    process = start_worker(tmp_path, with_key, handler_module(tmp_path, SLOW) + ":handle", "--json")
    time.sleep(3)
    process.send_signal(signal.SIGTERM)
    code, err = finish(process, timeout=20)
    assert code == 0, err
    assert '"event": "start"' in err
    assert secret not in err, [line for line in err.splitlines() if secret in line]


def test_grace_expiry_dead_letters_an_unstarted_job_on_its_last_attempt(db, tmp_path):
    """docs/operations.md: '...their claim does not count as an attempt (a job on its last attempt is not
    dead-lettered by a deploy)'. A deploy whose stop outlasts --grace (one slow handler) leaves the batch's
    unstarted jobs leased: reap then dead-letters the one on its last attempt, which never ran that attempt."""
    url, tasks, conn = db
    tasks.enqueue_many([{"n": n} for n in range(3)])                     # max_attempts 3
    conn.execute(f'UPDATE {T} SET "attempts" = 2 WHERE "id" = 3')        # two attempts already failed
    process = start_worker(tmp_path, url, handler_module(tmp_path, SLOW.replace("1.5", "60")) + ":handle",
                           "--batch-size", "3", "--grace", "1s")
    wait_for(lambda: any(tmp_path.glob("started-*")), "the first job started", process=process)
    process.send_signal(signal.SIGTERM)
    code, err = finish(process, timeout=20)
    assert code == 1, err
    assert not (tmp_path / "started-2").exists(), "job 3 (n=2) never started"
    conn.execute(f'UPDATE {T} SET "lease_expires_at" = now() - interval \'1 hour\' WHERE "lease_token" IS NOT NULL')
    tasks.reap()
    assert rows(conn, 'SELECT count(*) FROM "wcli"."tasks_dead" WHERE "id" = 3') == [(0,)], \
        "job 3 was dead-lettered by the deploy without running its last attempt"
