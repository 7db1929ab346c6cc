"""Waiting for work instead of polling: PostgreSQL's wake-ups (`wakeup: notify`: enqueue
NOTIFYs at commit, the client LISTENs on a connection of its own) and SQL Server's waiting dequeue
(@wait_ms). A wake-up only shortens a wait: a missed one, or a lost LISTEN connection, leaves the job
to the next poll. Times are checked against generous bounds only (a 30 s poll interval, a job taken
within a few seconds)."""

from __future__ import annotations

import threading
import time

import pytest

from qgen.client import InvalidArgument, QueueClient, QueueUsageError
from qgen.spec.model import wakeup_channel
from qgen.client.worker import run_worker
from tests.behaviour.helpers import call_sql
from tests.conftest import ROOT

WAKE = ROOT / "tests" / "behaviour" / "specs" / "wakeup.yaml"
POSTGRES_ONLY = "PostgreSQL's wake-ups (LISTEN/NOTIFY); SQL Server's dequeue waits by itself"
MSSQL_ONLY = "SQL Server's waiting dequeue (@wait_ms); PostgreSQL's client waits on LISTEN instead"


def connecting_client(env, queue, connect=None, **options) -> QueueClient:
    """A client made from a connection factory, as a worker's is: it may open a second connection
    to LISTEN on (a client given one ready connection cannot)."""
    return QueueClient(connect or (lambda: env.connect(autocommit=True)), env.spec, queue, dialect=env.dialect,
                       **options)


class Worker:
    """run_worker in a thread, never stopping when the queue is empty; records when it handled what."""

    def __init__(self, client: QueueClient, **options):
        self.client, self.handled, self.stop = client, [], threading.Event()
        options = {"stop_when_empty": False, "maintain_every": None, **options}
        self.thread = threading.Thread(target=run_worker, daemon=True,
                                       args=(client, lambda job: self.handled.append((time.monotonic(), job.id))),
                                       kwargs={**options, "stop": self.stop})

    def __enter__(self) -> "Worker":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(40)
        assert not self.thread.is_alive(), "the worker did not stop"
        self.client.close()

    def handled_at(self, job_id: int, limit: float) -> float:
        give_up = time.monotonic() + limit
        while time.monotonic() < give_up:
            for at, handled in list(self.handled):
                if handled == job_id:
                    return at
            time.sleep(0.02)
        raise AssertionError(f"job {job_id} was not handled within {limit}s")


def until(condition, limit: float, what: str):
    give_up = time.monotonic() + limit
    while time.monotonic() < give_up:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what}: not within {limit}s")


def notifications(conn, seconds: float = 0.5) -> list[tuple[str, str]]:
    return [(n.channel, n.payload) for n in conn.notifies(timeout=seconds)]


def test_an_idle_worker_takes_a_job_long_before_its_poll_interval_is_over(use_spec):
    env = use_spec(WAKE)
    with Worker(connecting_client(env, "woken"), poll_interval=30) as worker:
        time.sleep(1.5)  # it claimed nothing and is waiting
        enqueued = time.monotonic()
        job = env.client("woken").enqueue(n=1).id
        assert worker.handled_at(job, 10) - enqueued < 5, "woken (or claimed by a waiting dequeue), not polled"


def test_a_queue_without_wakeups_is_still_polled(use_spec):
    env = use_spec(WAKE)
    polled = connecting_client(env, "polled")
    started = time.monotonic()
    assert polled.dequeue(wait=0.5) == [] and time.monotonic() - started >= 0.45
    assert polled.wait_for_jobs(0.1) is False
    with Worker(polled, poll_interval=0.5) as worker:
        job = env.client("polled").enqueue(n=1).id
        worker.handled_at(job, 10)


def test_a_delete_queue_waits_for_a_claim_that_commits_at_once(use_spec):
    env = use_spec(WAKE)
    taken, found = connecting_client(env, "taken"), []
    waiting = threading.Thread(target=lambda: found.extend(taken.dequeue(wait=20, at_most_once=True)))
    waiting.start()
    time.sleep(1.0)
    enqueued = time.monotonic()
    job = env.client("taken").enqueue(n=7).id
    waiting.join(20)
    assert [j.id for j in found] == [job] and time.monotonic() - enqueued < 5
    assert env.count("taken") == 0
    taken.close()


def test_waiting_is_refused_inside_a_transaction(use_spec):
    env = use_spec(WAKE)
    for queue in ("woken", "taken"):
        client = connecting_client(env, queue)
        with client.transaction():
            with pytest.raises(QueueUsageError, match="inside client.transaction"):
                client.dequeue(wait=1)
        client.close()


def test_sql_server_dequeue_refuses_a_wait_out_of_range_or_inside_a_transaction(use_spec, dialect):
    if dialect != "mssql":
        pytest.skip(MSSQL_ONLY)
    env = use_spec(WAKE)
    client = env.client("woken")
    # Well under a 30 s client command timeout (ADO.NET's default): 20000 at most.
    with pytest.raises(InvalidArgument, match="wait_ms is out of range"):
        client._run("dequeue", [("wait_ms", 20001)], "rows")
    with pytest.raises(InvalidArgument, match="wait_ms is out of range"):
        client._run("dequeue", [("wait_ms", 30000)], "rows")
    with pytest.raises(InvalidArgument):
        client._run("dequeue", [("wait_ms", -1)], "rows")
    env.client("woken").enqueue(n=1)
    conn = env.connect(autocommit=True)
    cursor = conn.cursor()
    cursor.execute("BEGIN TRANSACTION;")
    with pytest.raises(Exception, match="50005"):
        cursor.execute(call_sql(env, "woken", "dequeue", "@wait_ms = 100"))
    cursor.execute("IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;")
    assert env.count("woken", "table", f"{env.col('lease_token')} IS NULL") == 1


@pytest.mark.babelfish_gap("B20", "it inspects sys.dm_tran_session_transactions and sys.dm_tran_locks")
def test_a_waiting_sql_server_dequeue_holds_no_transaction_and_no_lock(use_spec, dialect):
    if dialect != "mssql":
        pytest.skip(MSSQL_ONLY)
    env = use_spec(WAKE)
    conn = env.connect(autocommit=True)
    spid = conn.cursor().execute("SELECT @@SPID").fetchone()[0]
    client, found = QueueClient(conn, env.spec, "woken"), []
    waiting = threading.Thread(target=lambda: found.extend(client.dequeue(wait=10)))
    waiting.start()
    time.sleep(1.0)  # inside the procedure: an attempt of about a millisecond every 50 ms, asleep between them
    busy = 0
    for _ in range(20):
        open_ = env.scalar("SELECT count(*) FROM sys.dm_tran_session_transactions WHERE session_id = ?", spid)
        locks = env.scalar("SELECT count(*) FROM sys.dm_tran_locks WHERE request_session_id = ? "
                           "AND resource_type NOT IN ('DATABASE', 'METADATA')", spid)
        busy += bool(open_ or locks)
        time.sleep(0.07)
    # a sample may meet an attempt; one that held its transaction through the sleep would meet all 20
    assert busy <= 5, f"{busy} of 20 samples found the waiting dequeue holding a transaction or locks"
    job = env.client("woken").enqueue(n=1).id
    waiting.join(15)
    assert [j.id for j in found] == [job]


def test_a_rolled_back_enqueue_wakes_nobody_and_a_commit_wakes_once(use_spec, dialect):
    if dialect != "postgres":
        pytest.skip(POSTGRES_ONLY)
    env = use_spec(WAKE)
    channel = wakeup_channel(env.spec, "woken")
    listen = env.connect(autocommit=True)
    listen.execute(f'LISTEN "{channel}"')
    client = env.client("woken")
    with pytest.raises(RuntimeError):
        with client.transaction():
            client.enqueue(n=1)
            raise RuntimeError("roll it back")
    assert notifications(listen) == []
    client.enqueue(n=2)
    assert notifications(listen) == [(channel, "")]
    client.enqueue_many([{"n": n} for n in range(3, 9)])
    with client.transaction():
        client.enqueue(n=9)
        client.enqueue(n=10)
    assert notifications(listen) == [(channel, "")] * 2, "one per transaction, however many jobs"
    env.client("polled").enqueue(n=1)
    assert notifications(listen) == []


def test_a_redriven_job_wakes_the_workers(use_spec, dialect):
    if dialect != "postgres":
        pytest.skip(POSTGRES_ONLY)
    env = use_spec(WAKE)
    client = env.client("woken")
    client.enqueue(n=1)
    assert client.fail(client.dequeue()[0], error="no", retry=False) == "dead"
    listen = env.connect(autocommit=True)
    listen.execute(f'LISTEN "{wakeup_channel(env.spec, "woken")}"')
    assert client.redrive(all=True).redriven == 1
    assert len(notifications(listen)) == 1


def test_a_worker_whose_listen_connection_is_killed_polls_and_listens_again(use_spec, dialect):
    if dialect != "postgres":
        pytest.skip(POSTGRES_ONLY)
    import psycopg

    env = use_spec(WAKE)
    refuse = threading.Event()

    def connect():
        if refuse.is_set():
            raise psycopg.OperationalError("connection refused by the test")
        return env.connect(autocommit=True)

    producer = env.client("woken")
    client = connecting_client(env, "woken", connect)
    with Worker(client, poll_interval=1.0) as worker:
        first = until(lambda: client._listener and client._listener.backend_pid, 10, "a LISTEN connection")
        refuse.set()  # it cannot come back for now
        env.execute("SELECT pg_terminate_backend(?)", first)
        job = producer.enqueue(n=1).id
        worker.handled_at(job, 10)  # found by polling
        assert client._listener.backend_pid is None
        refuse.clear()
        again = until(lambda: client._listener.backend_pid, 20, "a new LISTEN connection")
        assert again != first and client._listener.relistens == 1
        query = env.scalar("SELECT query FROM pg_stat_activity WHERE pid = ?", again)
        assert query == f'LISTEN "{wakeup_channel(env.spec, "woken")}"'
        worker.handled_at(producer.enqueue(n=2).id, 10)


def test_wait_for_jobs_on_its_own_is_woken_by_an_enqueue(use_spec, dialect):
    if dialect != "postgres":
        pytest.skip(POSTGRES_ONLY)
    env = use_spec(WAKE)
    client = connecting_client(env, "woken")
    threading.Timer(1.0, lambda: env.client("woken").enqueue(n=1)).start()
    started = time.monotonic()
    assert client.wait_for_jobs(20) is True  # its first wait makes the LISTEN connection, then waits on it
    assert time.monotonic() - started < 5
    assert [job.payload["n"] for job in client.dequeue()] == [1]
    client.close()
