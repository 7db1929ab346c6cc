"""Clients and workers that survive the database: a lost connection is replaced, what is safe to
retry is retried, and a retry never finishes a job twice.

Two ways to lose a connection, both live on PostgreSQL:
- a proxy (tests/support/proxy.py) cuts one call's connection at a chosen moment: before the server
  sees the request, or after it committed and before its answer arrives. The complete's outbox row
  is the database's own witness that the job was completed once;
- a PostgreSQL of the test's own (tests/support/throwaway_pg.py) is restarted twice (fast, then
  immediate) while producer and worker threads run; nobody helps them, and the ledger they keep
  says every job was enqueued once and completed once.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
import urllib.parse
import uuid

import psycopg
import pytest

from qgen.client import CannotReconnect, ConnectionLost, OutcomeUnknown, QueueClient
from qgen.render.engine import render_spec
from qgen.spec.load import load_spec_text
from qgen.client.worker import NO_RESULT, run_worker
from tests.support.pg import ADMIN_URL, scratch_database
from tests.support.proxy import CuttingProxy
from tests.support.run import run_spec

SPEC = """\
schema: {schema}
grants: {{enabled: false}}
queues:
  jobs:          # the outbox row complete writes witnesses each completion
    payload:
      n: bigint
    lease: 30s
    outbox:
      columns:
        note: {{type: text, nullable: true}}
  plain:         # no dedupe key: an enqueue that may have committed cannot be retried
    payload:
      n: bigint
  keyed:         # a dedupe key that returns the existing job: an enqueue may be retried
    payload:
      n: bigint
    dedupe: n
    on_complete: mark
    lease: 10s
"""


def make_spec(schema: str):
    # this run's own owner role: roles belong to the cluster, which other runs may share
    return run_spec(load_spec_text(SPEC.format(schema=schema), "reconnect.yaml"))


def install(url: str, spec) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET client_min_messages = warning")
        conn.execute(render_spec(spec, "reconnect.yaml", "postgres").install)


@pytest.fixture(scope="module")
def installed(postgres_server):
    spec = make_spec("qgen_reconnect")
    rendering = render_spec(spec, "reconnect.yaml", "postgres")
    with scratch_database("qgen_reconnect") as url:
        install(url, spec)
        try:
            yield url, spec
        finally:  # the owner role belongs to the cluster: leave none behind
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("SET client_min_messages = warning")
                conn.execute(rendering.force_uninstall + rendering.uninstall)


@pytest.fixture
def proxied(installed):
    url, spec = installed
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("TRUNCATE qgen_reconnect.jobs, qgen_reconnect.jobs_outbox, qgen_reconnect.plain, "
                     "qgen_reconnect.keyed RESTART IDENTITY")
    server = urllib.parse.urlsplit(ADMIN_URL)
    with CuttingProxy(server.hostname or "127.0.0.1", server.port or 5432) as proxy:
        yield proxy, proxy.url(url), url, spec


def one(url: str, query: str, *args):
    with psycopg.connect(url) as conn:
        return conn.execute(query, args).fetchone()


def test_a_complete_whose_answer_was_lost_is_done_once_and_reported_done(proxied, caplog):
    proxy, through, url, spec = proxied
    client = QueueClient(through, spec, "jobs", reconnect_backoff=0.01)
    job_id = client.enqueue(n=1).id
    job, = client.dequeue()
    proxy.cut_after_answer()  # the complete commits; its answer never arrives
    with caplog.at_level(logging.INFO, logger="qgen.client"):
        assert client.complete(job, note="done") == 1
    assert proxy.cuts == 1 and client.reconnects == 1
    assert one(url, "SELECT count(*) FROM qgen_reconnect.jobs WHERE id = %s", job_id) == (0,)
    assert one(url, "SELECT count(*) FROM qgen_reconnect.jobs_outbox WHERE source_id = %s", job_id) == (1,)
    messages = [r.getMessage() for r in caplog.records if r.name == "qgen.client"]
    assert any("connection lost during complete" in m for m in messages)
    assert any("had committed" in m for m in messages)


def test_a_complete_that_never_reached_the_server_is_sent_again(proxied):
    proxy, through, url, spec = proxied
    client = QueueClient(through, spec, "jobs", reconnect_backoff=0.01)
    job_id = client.enqueue(n=2).id
    job, = client.dequeue()
    proxy.cut_before_request()
    assert client.complete(job, note="done") == 1
    assert proxy.cuts == 1 and client.reconnects == 1
    assert one(url, "SELECT count(*) FROM qgen_reconnect.jobs_outbox WHERE source_id = %s", job_id) == (1,)


def test_a_lost_complete_after_the_lease_may_have_expired_is_reported_unknown_not_repeated(proxied):
    proxy, through, url, spec = proxied
    client = QueueClient(through, spec, "jobs", reconnect_backoff=0.01)
    job_id = client.enqueue(n=3).id
    job, = client.dequeue(lease_seconds=1)  # too short for the client to be sure it still holds
    proxy.cut_after_answer()
    with pytest.raises(OutcomeUnknown):
        client.complete(job, note="done")
    assert one(url, "SELECT count(*) FROM qgen_reconnect.jobs_outbox WHERE source_id = %s", job_id) == (1,)


def test_a_claim_that_completed_the_last_batch_and_lost_its_answer(proxied):
    proxy, through, url, spec = proxied
    client = QueueClient(through, spec, "plain", reconnect_backoff=0.01)  # no outbox: a whole lease completes at once
    ids = [client.enqueue(n=n).id for n in range(10, 14)]
    first = client.dequeue(batch_size=2)
    assert [j.id for j in first] == ids[:2]
    proxy.cut_after_answer()  # completes the first two and claims the other two: the answer is lost
    assert client.dequeue(batch_size=2, complete=first[0], lease_seconds=2) == []
    assert one(url, "SELECT count(*) FROM qgen_reconnect.plain WHERE id = ANY(%s)", ids[:2]) == (0,)
    # the lost claim's jobs stay leased until the lease expires; then reap gives them back
    leased = one(url, "SELECT count(*) FROM qgen_reconnect.plain WHERE lease_token IS NOT NULL")
    assert leased == (2,)
    time.sleep(2.2)
    assert client.reap().released == 2
    again = client.dequeue(batch_size=2)
    assert [(j.id, j.attempts) for j in again] == [(ids[2], 2), (ids[3], 2)]


def test_an_enqueue_that_may_have_committed_is_not_repeated_without_a_dedupe_key(proxied):
    proxy, through, url, spec = proxied
    plain = QueueClient(through, spec, "plain", reconnect_backoff=0.01)
    proxy.cut_after_answer()
    with pytest.raises(ConnectionLost, match="could enqueue the job twice"):
        plain.enqueue(n=1)
    assert one(url, "SELECT count(*) FROM qgen_reconnect.plain") == (1,)
    assert plain.enqueue(n=2).enqueued  # the next call has a new connection
    keyed = QueueClient(through, spec, "keyed", reconnect_backoff=0.01)
    proxy.cut_after_answer()
    retried = keyed.enqueue(n=1)  # the dedupe key makes the retry return the job the lost call queued
    assert retried.enqueued is False
    assert one(url, "SELECT count(*), min(id) FROM qgen_reconnect.keyed") == (1, retried.id)


def test_a_client_given_a_ready_connection_says_it_cannot_reconnect(proxied):
    proxy, through, url, spec = proxied
    client = QueueClient(psycopg.connect(through, autocommit=True), spec, "jobs")
    client.enqueue(n=5)
    client.dequeue()
    proxy.cut_before_request()
    with pytest.raises(ConnectionLost, match="no way to make a new connection"):
        client.metrics()


# ---------------------------------------------------------------------------------------------
# The database restarts under load


JOBS = 400


def test_workers_keep_going_through_database_restarts(throwaway_postgres, caplog):
    server = throwaway_postgres
    with psycopg.connect(server.url(), autocommit=True) as admin:
        admin.execute("CREATE DATABASE load")
    url = server.url("load")
    spec = make_spec(f"qgen_restart_{uuid.uuid4().hex[:6]}")
    install(url, spec)

    def client() -> QueueClient:
        return QueueClient(url, spec, "keyed", reconnect_timeout=60, reconnect_backoff=0.05, reconnect_backoff_max=1)

    lock = threading.Lock()
    enqueued: collections.Counter = collections.Counter()
    completed: collections.Counter = collections.Counter()
    outcomes: collections.Counter = collections.Counter()
    stop = threading.Event()
    errors: list[BaseException] = []

    def guarded(work):
        def run():
            try:
                work()
            except BaseException as exc:  # the test fails with it below
                errors.append(exc)
        return run

    def produce():
        producer = client()
        for n in range(1, JOBS + 1):
            result = producer.enqueue(n=n)
            with lock:
                enqueued[result.id] += 1
            time.sleep(0.01)

    def on_done(job, outcome):
        with lock:
            outcomes[outcome] += 1
            if outcome == "completed":
                completed[job.id] += 1

    stats = []

    def work():
        stats.append(run_worker(client(), lambda job: time.sleep(0.002), stop_when_empty=False, poll_interval=0.05,
                                stop=stop, on_done=on_done))

    def reap():  # until the queue maintains itself: release the leases of claims whose answer was lost
        reaper = client()
        while not stop.wait(0.5):
            try:
                reaper.reap()
            except ConnectionLost:
                pass

    threads = [threading.Thread(target=guarded(f), daemon=True) for f in [produce, reap] + [work] * 3]
    with caplog.at_level(logging.INFO, logger="qgen"):
        for t in threads:
            t.start()
        time.sleep(1.5)
        server.restart("fast")
        time.sleep(1.5)
        server.restart("immediate")
        give_up = time.monotonic() + 120
        while time.monotonic() < give_up and not errors:
            with lock:
                if len(enqueued) == JOBS and sum(completed.values()) >= JOBS:
                    break
            time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join(60)
    assert not errors, errors
    assert server.restarts == 2
    assert sum(enqueued.values()) == JOBS and len(enqueued) == JOBS, "every job enqueued once"
    lost = set(enqueued) - set(completed)
    duplicated = {i: n for i, n in completed.items() if n > 1}
    assert (len(lost), len(duplicated)) == (0, 0), (lost, duplicated, outcomes)
    assert set(completed) == set(enqueued)
    with psycopg.connect(url) as conn:
        assert conn.execute(f'SELECT count(*), count(*) FILTER (WHERE processed) FROM "{spec.schema}".keyed'
                            ).fetchone() == (JOBS, JOBS)
    assert sum(s.reconnects for s in stats) >= 3, "every worker lost its connection and made another"
    messages = [r.getMessage() for r in caplog.records]
    assert any("connection lost during" in m for m in messages)
    assert any("connected again" in m for m in messages)


def test_a_worker_on_a_ready_connection_stops_with_a_typed_error_when_the_server_ends_its_session(installed):
    """The server ends the worker's session (pg_terminate_backend: what a restart does to it). A client
    given a ready connection cannot make another: run_worker raises CannotReconnect at once instead of
    logging "trying again" forever."""
    url, spec = installed
    connection = psycopg.connect(url, autocommit=True)
    client = QueueClient(connection, spec, "jobs")
    client.enqueue(n=40)
    stop = threading.Event()
    outcome: list = []
    handled: list = []

    def work():
        try:
            # the queue has an outbox: the handler hands nothing on, and says so (NO_RESULT)
            outcome.append(run_worker(client, lambda job: (handled.append(job), NO_RESULT)[1], stop_when_empty=False,
                                      poll_interval=0.05,
                                      maintain_every=None, stop=stop))
        except BaseException as exc:  # the assertion below names it
            outcome.append(exc)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    deadline = time.monotonic() + 10
    while not handled and time.monotonic() < deadline:
        time.sleep(0.05)
    assert handled, "the worker handled the queued job"
    with psycopg.connect(url, autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", (connection.info.backend_pid,)).fetchone() == (True,)
    worker.join(10)
    still_running = worker.is_alive()
    stop.set()  # old behaviour: it was still looping; end it so the test run goes on
    worker.join(10)
    assert not still_running, "run_worker kept looping after its only connection was gone"
    assert len(outcome) == 1 and isinstance(outcome[0], CannotReconnect), outcome
    assert isinstance(outcome[0], ConnectionLost)  # callers catching ConnectionLost still see it
    assert "no way to make a new connection" in str(outcome[0])
