"""`qgen status --format prometheus` and `qgen metrics`'s /metrics on each database,
parsed by a strict 0.0.4 parser (tests/support/prom_text.py), against a queue in a known state:
n ready, m delayed, k in flight (j of them with an expired lease), d dead."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest

from qgen.cli.ops import MetricsServer, Session
from qgen.cli.prometheus import CONTENT_TYPE
from tests.behaviour.helpers import FEAT, db_now
from tests.conftest import ROOT
from tests.support.prom_text import parse, value

READY, DELAYED, HELD, EXPIRED, DEAD = 2, 2, 3, 2, 2     # n, m, k - j, j, d
OLD = 1000                                            # the oldest ready job's age, seconds


def arrange(env) -> None:
    jobs = env.client("jobs")
    ids = [jobs.enqueue(job_type="t", customer_id=n, amount=1).id for n in range(1, 1 + READY + HELD + 1 + EXPIRED + DEAD)]
    for n in range(DELAYED):
        jobs.enqueue(job_type="t", customer_id=100 + n, amount=1, run_at=db_now(env) + dt.timedelta(hours=1))
    held = jobs.dequeue(batch_size=HELD + 1)
    jobs.complete(held[0], no_result=True)                          # archived: one completion this minute
    expiring = jobs.dequeue(batch_size=EXPIRED)
    for job in jobs.dequeue(batch_size=DEAD):
        jobs.fail(job, "poison", retry=False)
    # After the last claim (on PostgreSQL a claim takes over an expired lease itself).
    env.backdate("jobs", "lease_expires_at", 60, ids=[job.id for job in expiring])
    env.backdate("jobs", "enqueued_at", OLD, ids=[ids[-2]])


def check(text: str, schema: str) -> None:
    families = parse(text)
    jobs = {"queue": "jobs", "schema": schema}
    urgent = {"queue": "urgent", "schema": schema}
    expected = {"qgen_up": 1, "qgen_jobs_ready": READY, "qgen_jobs_scheduled": DELAYED,
                "qgen_jobs_in_flight": HELD + EXPIRED, "qgen_leases_expired": EXPIRED, "qgen_dead_letters": DEAD,
                "qgen_jobs_completed_last_minute": 1, "qgen_jobs_archived": 1, "qgen_jobs_processed": 0}
    assert {name: value(families, name, **jobs) for name in expected} == expected, text
    assert OLD <= value(families, "qgen_oldest_ready_age_seconds", **jobs) <= OLD + 60
    assert value(families, "qgen_up", **urgent) == 1 and value(families, "qgen_jobs_ready", **urgent) == 0
    # on_complete: delete records no completion: no sample, rather than a 0 that would read as "idle"
    assert value(families, "qgen_jobs_completed_last_minute", **urgent) is None
    assert {f.type for f in families.values()} == {"gauge"}, "nothing the procedure reports only grows"
    assert all(f.help for f in families.values())
    assert all(name.startswith("qgen_") for name in families)
    assert value(families, "qgen_scrape_duration_seconds", schema=schema) >= 0


def test_status_format_prometheus(use_spec):
    env = use_spec(FEAT)
    arrange(env)
    done = subprocess.run([sys.executable, "-m", "qgen.cli", "status", str(FEAT), "--url", env.backend.database_url,
                           "--format", "prometheus"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    check(done.stdout, env.spec.schema)


@pytest.fixture
def served(use_spec):
    """A metrics server for FEAT's database on a free port, stopped afterwards."""
    env = use_spec(FEAT)
    session = Session(env.backend.database_url, env.spec)
    server = MetricsServer(session, list(env.spec.queues), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield env, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join(timeout=60)
        server.server_close()
        session.reset()


def test_the_metrics_endpoint_serves_the_same(served):
    env, base = served
    arrange(env)
    with urllib.request.urlopen(f"{base}/metrics", timeout=120) as answer:
        assert answer.status == 200
        assert answer.headers["Content-Type"] == CONTENT_TYPE
        check(answer.read().decode("utf-8"), env.spec.schema)
    with pytest.raises(urllib.error.HTTPError) as other:
        urllib.request.urlopen(f"{base}/", timeout=60)
    assert other.value.code == 404
