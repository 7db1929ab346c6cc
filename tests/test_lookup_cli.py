"""qgen dead and qgen job against a real PostgreSQL (issue 25): what they print, --json, their exit
codes, and clear errors (no traceback) for an argument out of range, a queue without dead letters, a
queue not installed and a database that cannot be reached."""

from __future__ import annotations

import json

import pytest

from tests.test_ops_cli import OTHER, SPEC, db, installed, qgen  # noqa: F401 - the fixtures are used by name


def bury(jobs, customer: int, error: str) -> int:
    jobs.enqueue(job_type="t", customer_id=customer, amount=1)
    job, = jobs.dequeue(batch_size=1)
    assert jobs.fail(job, error, retry=False) == "dead"
    return job.id


def test_dead_lists_newest_first_with_errors_and_the_redrive_command(db):  # noqa: F811
    url, jobs = db
    first = bury(jobs, 1, "card declined")
    second = bury(jobs, 2, "a long error\nover two lines " + "x" * 200)
    done = qgen("dead", SPEC, "--url", url)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "feat.jobs: 2 dead letters, newest first"
    assert [h.strip() for h in lines[1].split("|")[1:5]] == ["id", "attempts", "dead at", "last error"]
    rows = [line.split("|") for line in lines[3:5]]
    assert [int(r[1]) for r in rows] == [second, first]
    assert rows[0][4].strip().startswith("a long error over two lines xxx") and rows[0][4].strip().endswith("...")
    assert len(rows[0][4].strip()) == 100 and rows[1][4].strip() == "card declined"
    assert lines[5] == f"put them back: qgen redrive {SPEC} jobs --ids ID,ID... (or --all)"
    assert "urgent" not in done.stdout, "a queue without dead letters is not listed"
    one = qgen("dead", SPEC, "--url", url, "--limit", "1")
    assert one.stdout.splitlines()[0] == "feat.jobs: 1 dead letter, newest first (the newest 1: --limit shows more)"


def test_dead_json_has_every_column_and_the_payload(db):  # noqa: F811
    url, jobs = db
    dead = bury(jobs, 9, "boom")
    done = qgen("dead", SPEC, "--url", url, "--queue", "jobs", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["limit"] == 100 and [q["queue"] for q in out["queues"]] == ["feat.jobs"]
    letter, = out["queues"][0]["dead_letters"]
    assert (letter["id"], letter["attempts"], letter["last_error"], letter["job_type"]) == (dead, 1, "boom", "t")
    assert letter["payload"]["customer_id"] == 9 and letter["payload"]["amount"] == "1.00"
    assert letter["dead_at"].endswith("+00:00")
    assert "UTC |" in qgen("dead", SPEC, "--url", url).stdout.splitlines()[3], "the table's times are UTC"


def test_dead_with_nothing_dead_says_so(db):  # noqa: F811
    url, _ = db
    done = qgen("dead", SPEC, "--url", url)
    assert (done.returncode, done.stdout) == (0, "feat.jobs: no dead letters\n\n")


@pytest.mark.parametrize(("args", "message"), [
    (["--limit", "0"], "argument --limit: 0: accepted: 1 to 1000 rows per queue"),
    (["--limit", "1001"], "argument --limit: 1001: accepted: 1 to 1000 rows per queue"),
    (["--limit", "ten"], "argument --limit: 'ten': accepted: a whole number of rows from 1 to 1000"),
    (["--queue", "urgent"], "queue urgent has no dead-letter table"),
    (["--queue", "nope"], "'nope' is not a queue of"),
])
def test_dead_refuses_bad_arguments_before_connecting(args, message):
    done = qgen("dead", SPEC, "--url", "postgresql://nobody@127.0.0.1:1/none", *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_job_says_where_a_job_is(db):  # noqa: F811
    url, jobs = db
    queued = jobs.enqueue(job_type="t", customer_id=1, amount=1).id
    done = qgen("job", SPEC, "jobs", queued, "--url", url)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"feat.jobs job {queued}: queued"
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["enqueued at", "due at", "attempts"]
    jobs.dequeue(owner="box-1")
    leased = qgen("job", SPEC, "jobs", queued, "--url", url, "--json")
    state = json.loads(leased.stdout)
    assert (state["queue"], state["id"], state["state"], state["lease_owner"], state["attempts"]) == \
        ("feat.jobs", queued, "in_flight", "box-1", 1)
    dead = bury(jobs, 2, "no such customer")
    shown = qgen("job", SPEC, "jobs", dead, "--url", url).stdout.splitlines()
    assert shown[0] == f"feat.jobs job {dead}: dead" and "  last error:    no such customer" in shown
    missing = qgen("job", SPEC, "jobs", 10**12, "--url", url)
    assert missing.returncode == 0 and missing.stdout.splitlines() == [
        f"feat.jobs job {10**12}: not found",
        "  never enqueued, or purged from the archive, purged from the dead letters, or redriven under a new id"]


@pytest.mark.parametrize(("args", "message"), [
    (["jobs", "0"], "argument ID: 0: accepted: a job id, a whole number from 1 to 9223372036854775807"),
    (["jobs", "x1"], "argument ID: 'x1': accepted: a job id, a whole number from 1 up"),
    (["jobs", str(2**63)], "accepted: a job id, a whole number from 1 to 9223372036854775807"),
    (["nope", "1"], "'nope' is not a queue of"),
])
def test_job_refuses_bad_arguments_before_connecting(args, message):
    done = qgen("job", SPEC, *args, "--url", "postgresql://nobody@127.0.0.1:1/none")
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_dead_and_job_on_a_spec_not_installed_or_a_database_away_say_so(db):  # noqa: F811
    url, _ = db
    for args in (["dead", OTHER, "--url", url], ["job", OTHER, "testq", "1", "--url", url]):
        if args[0] == "dead":   # 001's queue is a delete queue without dead letters
            done = qgen(*args)
            assert done.returncode == 2 and "has a dead-letter table" in done.stderr
            continue
        done = qgen(*args)
        assert done.returncode == 1 and "ghosts.testq: not installed in this database (ghosts.testq_job" in done.stderr
        assert "Traceback" not in done.stderr
    for args in (["dead", SPEC], ["job", SPEC, "jobs", "1"]):
        away = qgen(*args, "--url", "postgresql://nobody@127.0.0.1:1/none")
        assert away.returncode == 1 and "Traceback" not in away.stderr and away.stderr.startswith(f"qgen {args[0]}: ")
