"""qgen maintain, status and redrive against a real PostgreSQL: what they print, their exit codes,
and clear errors (no traceback) for a wrong URL or a queue that is not installed."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from qgen.client import NotInstalled, QueueClient
from qgen.render.engine import render_spec
from qgen.spec.load import load_spec
from tests.conftest import ROOT
from tests.support.pg import run_script, scratch_database
from tests.support.run import run_spec

SPEC = ROOT / "tests" / "specs" / "features_lease.yaml"   # schema feat: jobs (archive, dead letters), urgent
OTHER = ROOT / "examples" / "001_watermark.yaml"            # never installed here


@pytest.fixture(scope="module")
def installed(postgres_server):
    spec = run_spec(load_spec(SPEC))  # roles of this run's own: they belong to the cluster
    rendering = render_spec(spec, SPEC.name, "postgres")
    with scratch_database("qgen_ops") as url:
        run_script(url, rendering.install)
        try:
            yield url, spec
        finally:
            run_script(url, rendering.force_uninstall + rendering.uninstall)  # roles are cluster-wide: leave none behind


@pytest.fixture
def db(installed):
    url, spec = installed
    run_script(url, 'TRUNCATE "feat"."jobs", "feat"."jobs_dead", "feat"."jobs_archive", "feat"."urgent" RESTART IDENTITY; '
                    'UPDATE "feat"."jobs_watermark" SET "id" = 0; UPDATE "feat"."jobs_control" SET "paused" = FALSE;')
    conn = psycopg.connect(url)
    yield url, QueueClient(conn, spec, "jobs")
    conn.close()


def qgen(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "qgen.cli", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def test_maintain_once_reaps_and_reports(db):
    url, jobs = db
    jobs.enqueue(job_type="t", customer_id=1, amount=1)
    jobs.dequeue(lease_seconds=1)
    time.sleep(1.2)
    done = qgen("maintain", SPEC, "--url", url, "--queue", "jobs")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("feat.jobs: released 1 expired leases, dead-lettered 0; watermark 0 -> 0;"), done.stdout
    assert len(jobs.dequeue()) == 1, "the reaped job is claimable again"
    everything = qgen("maintain", SPEC, "--url", url)
    assert everything.returncode == 0 and [line.split(":")[0] for line in everything.stdout.splitlines()] == \
        ["feat.jobs", "feat.urgent"]


def test_maintain_every_runs_until_sigterm(db):
    url, _ = db
    process = subprocess.Popen([sys.executable, "-m", "qgen.cli", "maintain", str(SPEC), "--url", url, "--queue", "jobs",
                                "--every", "1s"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline(), process.stdout.readline()]   # two rounds, a second apart
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert all(line.startswith("feat.jobs: released 0") for line in lines), lines
    assert process.returncode == 0, err
    assert "Traceback" not in err


@pytest.mark.parametrize("args, message", [
    (["--url", "postgresql://postgres@127.0.0.1:1/nowhere"], "cannot connect to postgresql://postgres@127.0.0.1:1/nowhere"),
    (["--url", "mysql://x/y"], "is not a database URL qgen knows"),
], ids=["unreachable", "unknown-scheme"])
def test_maintain_with_a_wrong_url_says_so(args, message):
    done = qgen("maintain", SPEC, *args)
    assert done.returncode == 1
    assert message in done.stderr and "Traceback" not in done.stderr


def test_commands_on_a_queue_that_is_not_installed_say_so(db):
    url, _ = db
    for command in (["maintain"], ["status"], ["redrive", "--all"]):
        done = qgen(*command[:1], OTHER, *(["testq"] if command[0] == "redrive" else []), *command[1:], "--url", url)
        if command[0] == "redrive":
            assert done.returncode == 2 and "has no dead-letter table" in done.stderr   # testq is a delete queue
            continue
        assert done.returncode == 1, done
        assert "ghosts.testq: not installed in this database (ghosts.testq_" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    unknown = qgen("maintain", SPEC, "--url", url, "--queue", "nope")
    assert unknown.returncode == 2 and "'nope' is not a queue" in unknown.stderr


def test_status_json_and_table(db):
    url, jobs = db
    for customer in range(1, 6):
        jobs.enqueue(job_type="t", customer_id=customer, amount=1)
    first, second, third = jobs.dequeue(batch_size=3)
    jobs.complete(first, no_result=True)  # an outbox queue: a job that hands nothing on says so
    jobs.fail(second, "poison", retry=False)
    done = qgen("status", SPEC, "--url", url, "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["queue"]: row for row in json.loads(done.stdout)["queues"]}
    assert {k: rows["feat.jobs"][k] for k in ("pending", "in_flight", "dead", "completed_last_minute", "watermark_lag")} \
        == {"pending": 2, "in_flight": 1, "dead": 1, "completed_last_minute": 1, "watermark_lag": 4}
    assert rows["feat.urgent"]["completed_last_minute"] is None, "on_complete: delete records no completion"
    table = qgen("status", SPEC, "--url", url, "--queue", "jobs")
    assert table.returncode == 0
    assert "| feat.jobs |       2 |         1 |" in table.stdout, table.stdout



def test_status_numbers_are_what_the_review_page_says_they_are(db):
    """in_flight counts an expired lease too, as the review page's words say (they said "not yet
    expired"); a delete queue's throughput is said to be untracked, not shown as a bare '-'."""
    from qgen.render.review import STATUS_FIELDS

    url, jobs = db
    jobs.enqueue(job_type="t", customer_id=1, amount=1)
    jobs.enqueue(job_type="t", customer_id=2, amount=1)
    jobs.dequeue(batch_size=1, lease_seconds=1)
    jobs.dequeue(batch_size=1, lease_seconds=300)
    time.sleep(1.2)
    done = qgen("status", SPEC, "--url", url, "--json")
    rows = {row["queue"]: row for row in json.loads(done.stdout)["queues"]}
    assert (rows["feat.jobs"]["in_flight"], rows["feat.jobs"]["expired"]) == (2, 1)
    words = dict(STATUS_FIELDS)
    assert "expired leases included" in words["in_flight"] and "not yet expired" not in words["in_flight"]
    assert rows["feat.urgent"]["completed_last_minute"] is None and "untracked" in words["completed_last_minute"]
    table = qgen("status", SPEC, "--url", url)
    urgent = next(line for line in table.stdout.splitlines() if line.startswith("| feat.urgent "))
    assert [cell.strip() for cell in urgent.strip("|").split("|")][6] == "untracked", urgent  # done last min
    assert "done last min: untracked with on_complete: delete" in table.stdout


def test_status_shows_the_oldest_open_snapshot_and_warns_past_the_threshold(db):
    """A session holding a snapshot open (a REPEATABLE READ report, pg_dump, a
    forgotten BEGIN) keeps every row version claims leave behind, so claims cost more the longer it
    stays: status names it (pid, transactions, seconds) and warns past --horizon-warn."""
    url, jobs = db
    jobs.enqueue(job_type="t", customer_id=1, amount=1)
    reader = psycopg.connect(url)
    try:
        reader.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        reader.execute("SELECT count(*) FROM feat.jobs").fetchone()   # the snapshot is taken here
        pid = reader.info.backend_pid
        time.sleep(1.1)   # a lower bound on its age, whatever the load
        done = qgen("status", SPEC, "--url", url, "--json", "--horizon-warn", "1s")
        assert done.returncode == 0, done.stderr
        snapshot = json.loads(done.stdout)["oldest_snapshot"]
        assert snapshot["pid"] == pid and snapshot["seconds"] >= 1.0 and snapshot["xid_age"] >= 0, snapshot
        assert f"warning: session pid {pid} has held a snapshot open for" in done.stderr, done.stderr
        table = qgen("status", SPEC, "--url", url, "--queue", "jobs")
        assert f"oldest open snapshot: session pid {pid}, held for " in table.stdout, table.stdout
        assert "warning" not in table.stderr, "under the default threshold (5 minutes): no warning"
    finally:
        reader.close()


def test_status_watch_refreshes_until_interrupted(db):
    url, _ = db
    process = subprocess.Popen([sys.executable, "-m", "qgen.cli", "status", str(SPEC), "--url", url, "--json",
                                "--watch", "0.2"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        snapshots = [json.loads(process.stdout.readline()) for _ in range(3)]
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert [len(s["queues"]) for s in snapshots] == [2, 2, 2]
    assert process.returncode == 0


def test_redrive_by_ids_and_all(db):
    url, jobs = db
    dead = []
    for customer in range(1, 4):
        jobs.enqueue(job_type="t", customer_id=customer, amount=1)
        job, = jobs.dequeue(batch_size=1)
        jobs.fail(job, "poison", retry=False)
        dead.append(job.id)
    one = qgen("redrive", SPEC, "jobs", "--ids", dead[0], "--url", url)
    assert (one.returncode, one.stdout) == (0, "feat.jobs: redriven 1 dead job\n"), one.stderr
    again = qgen("redrive", SPEC, "jobs", "--ids", dead[0], "--url", url)
    assert again.stdout == "feat.jobs: redriven 0 dead jobs\n"
    rest = qgen("redrive", SPEC, "jobs", "--all", "--url", url)
    assert rest.stdout == "feat.jobs: redriven 2 dead jobs\n"
    neither = qgen("redrive", SPEC, "jobs", "--url", url)
    assert neither.returncode == 2 and "one of the arguments --ids --all is required" in neither.stderr


def test_status_of_a_two_queue_spec_on_an_unreachable_server_says_so_once():
    """features_lease.yaml has two queues (jobs, urgent): the connection error is one message, not one
    per queue; maintain likewise."""
    for command in ("status", "maintain"):
        done = qgen(command, SPEC, "--url", "postgresql://postgres@127.0.0.1:1/nowhere")
        assert done.returncode == 1
        assert done.stderr.count("cannot connect to postgresql://postgres@127.0.0.1:1/nowhere") == 1, done.stderr
        assert "Traceback" not in done.stderr


def test_the_client_on_a_queue_not_installed_raises_not_installed(installed):
    """A wrong database (the schema is not there) and a spec newer than the database (a payload column
    the installed procedures do not take): NotInstalled, classified by SQLSTATE (3F000, 42883), saying
    to install the spec first; the driver's error is its cause."""
    url, spec = installed
    never = load_spec(OTHER)
    newer = spec.model_copy(deep=True)
    newer.queues["jobs"].payload["note"] = newer.queues["jobs"].payload["customer_id"].model_copy(
        update={"nullable": True})
    for other, queue, call in ((never, "testq", lambda c: c.enqueue(filler="x")),
                               (newer, "jobs", lambda c: c.enqueue(job_type="t", customer_id=1, amount=1, note=2))):
        with psycopg.connect(url) as conn:
            client = QueueClient(conn, other, queue)
            with pytest.raises(NotInstalled) as raised:
                call(client)
        assert "is not installed in this database" in str(raised.value)
        assert "install the spec first" in str(raised.value)
        assert isinstance(raised.value.__cause__, psycopg.Error)
        assert raised.value.__cause__.sqlstate in ("3F000", "42883")


def test_a_round_after_the_connection_was_lost_connects_again(installed, capsys):
    """`maintain --every` and `status --watch` keep one session across rounds. A connection the server
    dropped made the client raise CannotReconnect (a QueueError: the session was kept), and every later
    round raised it again, for ever. Which errors drop the session is the error table's: a lost
    connection does."""
    from qgen.cli.ops import Session, _call

    url, spec = installed
    session = Session(url, spec)
    assert _call(session, "jobs", "metrics", lambda c: c.metrics(), "status") is not None
    pid = session.connection.info.backend_pid
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    assert _call(session, "jobs", "metrics", lambda c: c.metrics(), "status") is None
    assert "connection was lost" in capsys.readouterr().err
    metrics = _call(session, "jobs", "metrics", lambda c: c.metrics(), "status")
    assert metrics is not None, capsys.readouterr().err
    session.reset()


def test_status_format_prometheus_on_an_unreachable_database_says_up_0():
    """An unreachable database is alertable: the exposition still comes (stdout,
    for a textfile collector), every queue's qgen_up 0 and no other figure; the reason once on
    stderr, exit 1, never a traceback."""
    from tests.support.prom_text import parse, value

    done = qgen("status", SPEC, "--url", "postgresql://postgres@127.0.0.1:1/nowhere", "--format", "prometheus")
    assert done.returncode == 1
    assert done.stderr.count("cannot connect to postgresql://postgres@127.0.0.1:1/nowhere") == 1, done.stderr
    assert "Traceback" not in done.stderr
    parsed = parse(done.stdout)
    assert [value(parsed, "qgen_up", queue=q, schema="feat") for q in ("jobs", "urgent")] == [0, 0]
    assert set(parsed) == {"qgen_up", "qgen_scrape_duration_seconds"}, done.stdout


def test_status_format_prometheus_of_a_queue_not_installed_says_up_0(db):
    from tests.support.prom_text import parse, value

    url, _ = db
    done = qgen("status", OTHER, "--url", url, "--format", "prometheus")
    assert done.returncode == 1 and "ghosts.testq: not installed in this database" in done.stderr, done.stderr
    assert value(parse(done.stdout), "qgen_up", queue="testq", schema="ghosts") == 0
    refused = qgen("status", SPEC, "--url", url, "--format", "prometheus", "--watch")
    assert refused.returncode == 2 and "--format prometheus prints once" in refused.stderr


def test_metrics_serves_until_sigterm_and_says_up_0_while_the_database_is_away(db):
    """`qgen metrics --port 0` says where it listens; /metrics answers; stopped by SIGTERM it exits 0.
    On an unreachable database it keeps serving, with qgen_up 0 (an exporter's convention: a
    scrape that fails is a figure, not an HTTP error)."""
    import urllib.request

    from tests.support.prom_text import parse, value

    url, jobs = db
    jobs.enqueue(job_type="t", customer_id=1, amount=1)
    for target, up in ((url, 1), ("postgresql://postgres@127.0.0.1:1/nowhere", 0)):
        process = subprocess.Popen([sys.executable, "-m", "qgen.cli", "metrics", str(SPEC), "--url", target,
                                    "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = process.stdout.readline()
            assert line.startswith("qgen metrics: serving http://127.0.0.1:"), line
            address = line.split()[3]
            with urllib.request.urlopen(address, timeout=60) as answer:
                parsed = parse(answer.read().decode("utf-8"))
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 0, err
        assert "Traceback" not in err
        assert value(parsed, "qgen_up", queue="jobs", schema="feat") == up
        assert value(parsed, "qgen_jobs_ready", queue="jobs", schema="feat") == (1 if up else None)
        if not up:
            assert "cannot connect to" in err
