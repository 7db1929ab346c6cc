"""The progress of long ops commands against a real PostgreSQL (issue 30, item 5): `qgen redrive` and
`qgen purge` say on stderr what their batches have done so far, `qgen maintain --every` says after each
round that it is alive and what it did since it started; stdout stays what it was (a script reads it)
and --quiet leaves the progress out."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time

import psycopg

from qgen.cli.progress import ProgressLine
from qgen.client import QueueClient, RedriveResult
from tests.conftest import ROOT
from tests.test_ops_cli import OTHER, SPEC, db, installed, qgen  # noqa: F401 - the fixtures are used by name

SECONDS = re.compile(r", \d+\.\ds$")                         # the elapsed time a progress line ends with


def dead_letters(jobs: QueueClient, count: int, first_customer: int = 1) -> list[int]:
    """count jobs failed for good: their dead-letter ids."""
    ids = []
    for customer in range(first_customer, first_customer + count):
        jobs.enqueue(job_type="t", customer_id=customer, amount=1)
        job, = jobs.dequeue(batch_size=1)
        jobs.fail(job, "poison", retry=False)
        ids.append(job.id)
    return ids


def progress_lines(stderr: str) -> list[str]:
    return [SECONDS.sub("", line) for line in stderr.splitlines()]


# ---------------------------------------------------------------------------------------------
# redrive


def test_redrive_all_in_batches_shows_progress_on_stderr_and_keeps_stdout(db):
    """5 dead letters, batches of 2, one of them left dead (its dedupe key is queued again): the first
    batch's line and the last state on stderr (a pipe: a line at most every 5 s, the last always),
    stdout exactly the summary it was."""
    url, jobs = db
    ids = dead_letters(jobs, 5)
    jobs.enqueue(job_type="t", customer_id=2, amount=1)   # the second dead job's key is queued again
    done = qgen("redrive", SPEC, "jobs", "--all", "--batch-size", 2, "--url", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "feat.jobs: redriven 4 dead jobs; 1 left dead: their dedupe key is queued again\n"
    lines = progress_lines(done.stderr)   # a machine slow enough to take 5 s over a batch adds one between
    assert [lines[0], lines[-1]] == [
        f"feat.jobs: redrive: 1 moved, 1 left dead (dedupe key queued again), last id {ids[1]}, 1 batch",
        f"feat.jobs: redrive: 4 moved, 1 left dead (dedupe key queued again), last id {ids[4]}, 3 batches",
    ] and len(lines) in (2, 3), done.stderr


def test_the_client_reports_every_redrive_batch(db):
    """What the progress line is made of: after each call, the totals so far and the last id it looked at."""
    _, jobs = db
    ids = dead_letters(jobs, 5)
    seen: list[tuple[RedriveResult, int]] = []
    assert jobs.redrive(all=True, batch_size=2, on_batch=lambda so_far, last: seen.append((so_far, last))) == (5, 0)
    assert seen == [(RedriveResult(2, 0), ids[1]), (RedriveResult(4, 0), ids[3]), (RedriveResult(5, 0), ids[4])]
    again = dead_letters(jobs, 3, first_customer=10)
    seen.clear()
    assert jobs.redrive(again, batch_size=2, on_batch=lambda so_far, last: seen.append((so_far, last))) == (3, 0)
    assert seen == [(RedriveResult(2, 0), again[1]), (RedriveResult(3, 0), again[2])]


def test_redrive_quiet_and_nothing_to_redrive_write_no_progress(db):
    url, jobs = db
    dead_letters(jobs, 3)
    quiet = qgen("redrive", SPEC, "jobs", "--all", "--batch-size", 2, "--url", url, "--quiet")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "feat.jobs: redriven 3 dead jobs\n", "")
    nothing = qgen("redrive", SPEC, "jobs", "--all", "--url", url)
    assert (nothing.returncode, nothing.stdout, nothing.stderr) == (0, "feat.jobs: redriven 0 dead jobs\n", "")


def test_redrive_on_a_terminal_redraws_one_line(db):
    """stderr a terminal (a pty), stdout a pipe: the progress is one line redrawn with \\r and ended
    with a newline; stdout is the summary alone."""
    import pty

    url, jobs = db
    dead_letters(jobs, 5)
    leader, follower = pty.openpty()
    try:
        process = subprocess.run([sys.executable, "-m", "qgen.cli", "redrive", str(SPEC), "jobs", "--all",
                                  "--batch-size", "2", "--url", url], cwd=ROOT, stdout=subprocess.PIPE,
                                 stderr=follower, text=True, timeout=60)
        os.close(follower)
        follower = -1
        terminal = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:   # the pty is closed and drained
                break
            if not chunk:
                break
            terminal += chunk
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert process.returncode == 0 and process.stdout == "feat.jobs: redriven 5 dead jobs\n"
    text = terminal.decode().replace("\r\n", "\n")   # the pty turns \n into \r\n
    assert text.startswith("\rfeat.jobs: redrive: ") and text.endswith("\n") and text.count("\n") == 1, repr(text)
    last = text.rstrip().rsplit("\r", 1)[-1]
    assert SECONDS.sub("", last.rstrip()).endswith("5 moved, 0 left dead (dedupe key queued again), last id 5, 3 batches"), \
        repr(text)


# ---------------------------------------------------------------------------------------------
# purge


def finished(jobs: QueueClient, archived: int, dead: int) -> None:
    for customer in range(100, 100 + archived):
        jobs.enqueue(job_type="t", customer_id=customer, amount=1)
        job, = jobs.dequeue(batch_size=1)
        jobs.complete(job, no_result=True)
    dead_letters(jobs, dead)


def counts(url: str) -> tuple[int, int]:
    with psycopg.connect(url) as conn:
        return (conn.execute('SELECT count(*) FROM "feat"."jobs_archive"').fetchone()[0],
                conn.execute('SELECT count(*) FROM "feat"."jobs_dead"').fetchone()[0])


def test_purge_deletes_in_batches_with_progress_on_stderr(db):
    url, jobs = db
    finished(jobs, archived=3, dead=5)
    kept = qgen("purge", SPEC, "--queue", "jobs", "--url", url, "--batch-size", 2)   # the retention, 1d: nothing is that old
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout == "feat.jobs: purged 0 archived, 0 processed, 0 dead (finished over 1d ago)\n"
    assert counts(url) == (3, 5)
    done = qgen("purge", SPEC, "--queue", "jobs", "--url", url, "--older-than", "0", "--batch-size", 2)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "feat.jobs: purged 3 archived, 0 processed, 5 dead (every finished job)\n"
    assert counts(url) == (0, 0)
    lines = progress_lines(done.stderr)
    assert len(lines) >= 2 and all(line.startswith("feat.jobs: purge: ") for line in lines), done.stderr
    first = re.fullmatch(r"feat\.jobs: purge: (\d+) archived, 0 processed, (\d+) dead deleted, 1 batch", lines[0])
    assert first and 0 < int(first[1]) + int(first[2]) <= 2 * 2, lines[0]  # at most batch_size from each table
    last = re.fullmatch(r"feat\.jobs: purge: 3 archived, 0 processed, 5 dead deleted, (\d+) batches", lines[-1])
    assert last and int(last[1]) >= 3, lines[-1]


def test_purge_every_queue_quiet_and_errors(db):
    """Without --queue every queue is purged, a line each; --quiet: nothing on stderr. A queue not
    installed: exit 1 with the reason; a bad --older-than: exit 2. Never a traceback."""
    url, jobs = db
    finished(jobs, archived=1, dead=0)
    done = qgen("purge", SPEC, "--url", url, "--older-than", "0s", "--quiet")
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.splitlines() == ["feat.jobs: purged 1 archived, 0 processed, 0 dead (every finished job)",
                                        "feat.urgent: purged 0 archived, 0 processed, 0 dead (every finished job)"]
    missing = qgen("purge", OTHER, "--url", url)
    assert missing.returncode == 1 and "ghosts.testq: not installed in this database" in missing.stderr, missing.stderr
    wrong = qgen("purge", SPEC, "--url", url, "--older-than", "soon")
    assert wrong.returncode == 2 and "is not a duration" in wrong.stderr
    unreachable = qgen("purge", SPEC, "--url", "postgresql://postgres@127.0.0.1:1/nowhere")
    assert unreachable.returncode == 1 and unreachable.stderr.count("cannot connect to") == 1, unreachable.stderr
    assert not [r for r in (done, missing, wrong, unreachable) if "Traceback" in r.stderr]


# ---------------------------------------------------------------------------------------------
# maintain --every


def test_maintain_every_says_each_round_on_stderr(db):
    """Round 1 releases an expired lease, round 2 has nothing to do: each says so after its queue
    lines, with when and the total since the start; stdout keeps one line per queue per round."""
    url, jobs = db
    jobs.enqueue(job_type="t", customer_id=1, amount=1)
    jobs.dequeue(lease_seconds=1)
    time.sleep(1.2)
    process = subprocess.Popen([sys.executable, "-m", "qgen.cli", "maintain", str(SPEC), "--url", url, "--queue", "jobs",
                                "--every", "1s"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        rounds = [process.stderr.readline(), process.stderr.readline()]
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0 and "Traceback" not in err, err
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00"
    assert re.fullmatch(rf"qgen maintain: round 1 at {stamp}: released 1, dead-lettered 0, purged 0; "
                        r"since start: released 1, dead-lettered 0, purged 0\n", rounds[0]), rounds
    assert re.fullmatch(rf"qgen maintain: round 2 at {stamp}: nothing to do; "
                        r"since start: released 1, dead-lettered 0, purged 0\n", rounds[1]), rounds
    lines = out.splitlines()
    assert lines[0].startswith("feat.jobs: released 1 expired leases") and \
        all(line.startswith("feat.jobs: released 0 expired leases") for line in lines[1:]), out


def test_maintain_every_quiet_and_once_write_nothing_on_stderr(db):
    url, _ = db
    once = qgen("maintain", SPEC, "--url", url)
    assert (once.returncode, once.stderr) == (0, "") and len(once.stdout.splitlines()) == 2
    process = subprocess.Popen([sys.executable, "-m", "qgen.cli", "maintain", str(SPEC), "--url", url, "--queue", "jobs",
                                "--every", "1s", "--quiet"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        first = [process.stdout.readline(), process.stdout.readline()]
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert all(line.startswith("feat.jobs: released 0") for line in first) and (process.returncode, err) == (0, "")


# ---------------------------------------------------------------------------------------------
# The line itself


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_on_a_terminal_and_in_a_log():
    """A terminal: one line redrawn (a shorter one blanks what the longer left), ended once; a log: a
    line per update past the interval and the last state, never the same state twice."""
    terminal = Terminal()
    line = ProgressLine(terminal, every=0)
    line.update("a longer state")
    line.update("short")
    line.finish()
    line.finish()
    assert SECONDS.sub("", terminal.getvalue().split("\r")[-1].rstrip()) == "short"
    assert terminal.getvalue().count("\n") == 1 and terminal.getvalue().startswith("\ra longer state, ")
    log = io.StringIO()
    line = ProgressLine(log, every=3600)
    for n in range(1, 5):
        line.update(f"{n} moved")
    line.finish()
    assert progress_lines(log.getvalue()) == ["1 moved", "4 moved"]
    log = io.StringIO()
    line = ProgressLine(log, every=0)
    line.update("1 moved")
    line.finish()
    assert progress_lines(log.getvalue()) == ["1 moved"]
    quiet = ProgressLine(None)
    quiet.update("x")
    quiet.finish()
