"""pause and resume (issue 29): while a queue is paused every claim returns no job, enqueues go on and
leases already granted run to their end; both are idempotent, count from their commit, and never
make a claim wait. Run on every queue shape a claim takes a different path through (lease with a
watermark: PostgreSQL's in-place claim; priority; job types; delete mode, with and without dedupe)."""

from __future__ import annotations

import threading
import time

import pytest

from qgen.client import LeaseLost
from tests.behaviour.helpers import BEHAVE, EX000, EX002, FEAT, FEATD, assert_denied, call_sql
from tests.behaviour.test_priority_marks import PRIO
from tests.behaviour.test_wakeup import WAKE, Worker, connecting_client

# (spec, queue, the payload of job n): one of each claim path.
SHAPES = {
    "lease+watermark": (BEHAVE, "wm", lambda n: {"n": n}),
    "lease+archive": (BEHAVE, "kept", lambda n: {"n": n}),
    "priority lease": (PRIO, "pl", lambda n: {"n": n}),
    "priority delete": (PRIO, "pd", lambda n: {"n": n}),
    "job types": (FEAT, "jobs", lambda n: {"job_type": "t", "customer_id": n, "amount": 1}),
    "delete, job types, scheduling": (FEATD, "mail", lambda n: {"job_type": "t", "address": f"{n}@example.org"}),
    "delete, dedupe ever (002)": (EX002, None, None),
}


def _claim(client, delete: bool, **kwargs):
    if not delete:
        return client.dequeue(**kwargs)
    with client.transaction():
        return client.dequeue(**kwargs)


def _shape(use_spec, name):
    spec, queue, payload = SHAPES[name]
    env = use_spec(spec)
    queue = queue or next(iter(env.spec.queues))
    client = env.client(queue)
    delete = env.spec.queues[queue].claim == "delete"
    counter = iter(range(1, 10**6))
    if payload is None:  # 002: a card code
        column = next(iter(env.spec.queues[queue].payload))

        def enqueue():
            return client.enqueue(**{column: f"CODE-{next(counter):08d}"}, **_extra(env, queue))
    else:
        def enqueue():
            return client.enqueue(**payload(next(counter)))
    return env, queue, client, delete, enqueue


def _extra(env, queue):
    """Required payload columns beside 002's code column, filled in."""
    columns = list(env.spec.queues[queue].payload.items())[1:]
    return {name: "x" if c.type.kind == "string" else 1 for name, c in columns if not c.nullable}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_paused_queue_claims_nothing_takes_enqueues_and_resumes(use_spec, shape):
    env, queue, client, delete, enqueue = _shape(use_spec, shape)
    first = enqueue().id
    assert client.pause() is True
    assert client.pause() is False, "pause is idempotent: a second call changes nothing and says so"
    assert client.paused() is True and client.metrics()["paused"] in (True, 1)
    assert _claim(client, delete, batch_size=5) == [], "a paused queue hands out no job"
    second = enqueue().id
    assert client.metrics()["ready"] == 2, "enqueues go on while paused"
    assert _claim(env.client(queue), delete, batch_size=5) == [], "from another session too"
    assert client.resume() is True
    assert client.resume() is False
    assert client.paused() is False
    taken = _claim(client, delete, batch_size=5)
    assert sorted(j.id for j in taken) == sorted([first, second])


@pytest.mark.parametrize("spec,queue", [(BEHAVE, "wm"), (PRIO, "pl"), (BEHAVE, "retrying")])
def test_leases_granted_before_a_pause_run_to_their_end(use_spec, spec, queue):
    env = use_spec(spec)
    client = env.client(queue)
    client.enqueue_many([{"n": n} for n in range(4)])
    done, failed, released, extended = client.dequeue(batch_size=4)
    client.pause()
    assert client.extend_lease(extended) == 1
    client.complete(done)
    assert client.fail(failed, "boom", retry=False) == "dead" if env.spec.queues[queue].dead_letter else True
    assert client.release(released) == 1
    assert client.dequeue(batch_size=4) == [], "the released job waits for the resume"
    client.complete(extended)
    with pytest.raises(LeaseLost):
        client.complete(done)                       # the token fence holds while paused
    client.resume()
    assert [j.id for j in client.dequeue(batch_size=4)] == [released.id]


@pytest.mark.parametrize("spec,queue", [(BEHAVE, "wm"), (BEHAVE, "kept"), (PRIO, "pl")])
def test_a_dequeue_that_completes_a_lease_while_paused_completes_it_and_claims_nothing(use_spec, spec, queue):
    env = use_spec(spec)
    client = env.client(queue)
    client.enqueue_many([{"n": n} for n in range(6)])
    batch = client.dequeue(batch_size=3)
    client.pause()
    assert client.dequeue(batch_size=3, complete=batch[0]) == []
    metrics = client.metrics()
    assert (metrics["in_flight"], metrics["ready"]) == (0, 3), "the lease was completed, nothing claimed"
    with pytest.raises(LeaseLost):
        client.dequeue(batch_size=3, complete=batch[0])   # completed already: a paused claim still says so


def test_the_in_database_worker_stops_on_a_paused_queue(use_spec):
    env = use_spec(EX000)
    queue = env.client()
    queue.enqueue_many([{"reputation": r} for r in (1, 2)])
    queue.pause()
    assert queue.run_procedure_worker() == 0
    queue.resume()
    assert queue.run_procedure_worker() == 2


def test_a_waiting_worker_claims_soon_after_a_resume(use_spec):
    """SQL Server: the worker's dequeue waits (@wait_ms) and keeps waiting while paused, claiming at
    its next attempt after the resume. PostgreSQL: the worker waits on LISTEN, and resume notifies."""
    env = use_spec(WAKE)
    admin = env.client("woken")
    admin.pause()
    job = admin.enqueue(n=1).id
    with Worker(connecting_client(env, "woken"), poll_interval=30) as worker:
        time.sleep(2.0)
        assert worker.handled == [], "paused: the waiting worker took nothing"
        resumed = time.monotonic()
        admin.resume()
        assert worker.handled_at(job, 15) - resumed < 8, "woken by the resume, not by its 30 s poll"


def _claim_beside_an_open(env, kind: str) -> int:
    """How many jobs a claim takes while another session holds a pause or resume open; the claim must
    not wait for it either way."""
    changer, claimer = env.client("wm"), env.client("wm")
    if kind == "resume":
        changer.pause()
    outcome: list = []
    with changer.transaction():
        assert getattr(changer, kind)() is True
        thread = threading.Thread(target=lambda: outcome.append(claimer.dequeue(batch_size=1)))
        thread.start()
        thread.join(20)
        assert not thread.is_alive(), f"a claim waited on a {kind} another transaction holds open"
    return len(outcome[0])


@pytest.mark.parametrize("kind", ["pause", "resume"])
def test_a_claim_never_waits_on_an_open_pause_or_resume(use_spec, kind, dialect):
    """PostgreSQL reads the committed row: an open pause holds nothing yet, an open resume lets nothing
    go yet. SQL Server skips a row another transaction holds (READPAST) and reads it as paused: an open
    pause holds the claims already, an open resume not yet. Babelfish reads as PostgreSQL does (table
    hints ignored: B10), so there the SQL Server rule is held to the rendered T-SQL by
    tests/behaviour/test_pause_review.py and run by this test on SQL Server."""
    env = use_spec(BEHAVE)
    env.client("wm").enqueue_many([{"n": n} for n in range(4)])
    sql_server = dialect == "mssql" and not env.backend.babelfish
    taken = _claim_beside_an_open(env, kind)
    if kind == "pause":
        assert taken == (0 if sql_server else 1)
    else:
        assert taken == 0, "an uncommitted resume lets no claim go"
    client = env.client("wm")
    assert client.paused() is (kind == "pause"), "from its commit, it counts"
    assert len(client.dequeue(batch_size=1)) == (0 if kind == "pause" else 1)


def test_a_rolled_back_pause_leaves_the_queue_running(use_spec):
    env = use_spec(BEHAVE)
    client = env.client("wm")
    client.enqueue(n=1)
    with pytest.raises(RuntimeError):
        with client.transaction():
            client.pause()
            raise RuntimeError("the caller's work failed")
    assert client.paused() is False
    assert len(client.dequeue()) == 1


def test_a_missing_control_row_reads_as_paused_and_resume_puts_it_back(use_spec):
    """The safe side: a control row deleted by hand (or not readable) holds the claims, as metrics says;
    resume puts the row back, running, and pause puts it back paused."""
    env = use_spec(BEHAVE)
    client = env.client("wm")
    client.enqueue(n=1)
    env.sql(f"DELETE FROM {env.name('wm', 'control_table')}")
    assert client.paused() is True
    assert client.dequeue() == []
    assert client.pause() is False, "it read as paused already; the row is back, paused"
    assert client.dequeue() == []
    env.sql(f"DELETE FROM {env.name('wm', 'control_table')}")
    assert client.resume() is True
    assert len(client.dequeue()) == 1


def test_who_paused_is_recorded_and_only_the_admin_role_may(use_spec):
    env = use_spec(BEHAVE)
    with env.login("admin") as admin:
        assert env.client("wm", login=admin).pause() is True
        row = env.sql(f"SELECT {env.col('changed_by')} FROM {env.name('wm', 'control_table')}")
        assert row[0][0] == admin[0]
        for role in ("consumer", "producer"):
            with env.login(role) as login:
                for kind in ("pause", "resume"):
                    conn = env.connect(login=login)
                    assert_denied(env, conn, call_sql(env, "wm", kind))
        assert env.client("wm", login=admin).resume() is True
