"""qgen pause and qgen resume (issue 29) against a real PostgreSQL: what they print, that they are
idempotent, that qgen status and the Prometheus exposition show a paused queue, and clear errors (no
traceback) for an unknown queue, a queue not installed or a database away."""

from __future__ import annotations

from tests.test_ops_cli import OTHER, SPEC, db, installed, qgen  # noqa: F401 - the fixtures are used by name


def test_pause_and_resume_say_what_they_did_and_are_idempotent(db):  # noqa: F811
    url, jobs = db
    jobs.enqueue(job_type="t", customer_id=1, amount=1)
    paused = qgen("pause", SPEC, "jobs", "--url", url)
    assert (paused.returncode, paused.stderr) == (0, "")
    assert paused.stdout.startswith("feat.jobs: paused: claims return no job until `qgen resume`"), paused.stdout
    again = qgen("pause", SPEC, "jobs", "--url", url)
    assert (again.returncode, again.stdout) == (0, "feat.jobs: already paused: nothing changed\n")
    assert jobs.dequeue() == [], "the command paused the queue"
    status = qgen("status", SPEC, "--url", url, "--queue", "jobs")
    assert status.returncode == 0 and "PAUSED" in status.stdout, status.stdout
    exposition = qgen("status", SPEC, "--url", url, "--queue", "jobs", "--format", "prometheus")
    assert 'qgen_queue_paused{queue="jobs",schema="feat"} 1' in exposition.stdout, exposition.stdout
    resumed = qgen("resume", SPEC, "jobs", "--url", url)
    assert (resumed.returncode, resumed.stdout) == (0, "feat.jobs: resumed: claims take jobs again\n")
    assert (qgen("resume", SPEC, "jobs", "--url", url).stdout) == "feat.jobs: not paused: nothing changed\n"
    assert len(jobs.dequeue()) == 1
    status = qgen("status", SPEC, "--url", url, "--queue", "jobs")
    assert "PAUSED" not in status.stdout and "running" in status.stdout, status.stdout


def test_pause_refuses_an_unknown_queue_and_says_when_it_cannot_reach_the_queue(db):  # noqa: F811
    url, _ = db
    unknown = qgen("pause", SPEC, "nope", "--url", url)
    assert unknown.returncode == 2 and "'nope' is not a queue of" in unknown.stderr and "accepted: jobs" in unknown.stderr
    missing = qgen("pause", OTHER, "testq", "--url", url)
    assert missing.returncode == 1 and "not installed in this database" in missing.stderr, missing.stderr
    away = qgen("resume", SPEC, "jobs", "--url", "postgresql://postgres@127.0.0.1:1/nothing")
    assert away.returncode == 1 and "Traceback" not in away.stderr and away.stderr.strip(), away.stderr
    for result in (unknown, missing, away):
        assert "Traceback" not in result.stderr


def test_cancel_says_per_job_what_it_did(db):  # noqa: F811
    url, jobs = db
    held = jobs.enqueue(job_type="t", customer_id=1, amount=1).id
    waiting = jobs.enqueue(job_type="t", customer_id=2, amount=1).id
    assert [j.id for j in jobs.dequeue(batch_size=1)] == [held]
    done = qgen("cancel", SPEC, "jobs", "--ids", f"{waiting},{held},999", "--url", url)
    assert (done.returncode, done.stderr) == (3, ""), "exit 3: one job was not cancelled"
    assert done.stdout.splitlines() == [
        f"feat.jobs: job {held} cancelled while a worker held it (its complete and fail are refused)",
        f"feat.jobs: job {waiting} cancelled (it was waiting)",
        "feat.jobs: job 999 not in the queue (finished, dead, purged or never enqueued): nothing done",
        "feat.jobs: cancelled 2 of 3 jobs",
    ], done.stdout
    bad = qgen("cancel", SPEC, "jobs", "--ids", "x", "--url", url)
    assert bad.returncode == 2 and "accepted: ids separated by commas" in bad.stderr and "Traceback" not in bad.stderr
    for wrong in ("0", "3,-5"):
        bad = qgen("cancel", SPEC, "jobs", "--ids", wrong, "--url", url)
        assert bad.returncode == 2 and "accepted: ids from 1" in bad.stderr, bad.stderr
    everything = qgen("cancel", SPEC, "jobs", "--ids", str(jobs.enqueue(job_type="t", customer_id=3, amount=1).id), "--url", url)
    assert everything.returncode == 0 and everything.stdout.endswith("cancelled 1 of 1 job\n"), everything.stdout
