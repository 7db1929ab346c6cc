"""dead_letters and job (issue 25): the admin role reads a queue's dead letters, newest first with the
error each died of, and one job's state by id wherever it is, through procedures, on both databases;
reading takes no lock a worker then waits on; a limit or an id out of range is refused with what is
accepted."""

from __future__ import annotations

import datetime as dt
import threading
from decimal import Decimal

import pytest

from qgen.client import InvalidArgument, QueueUsageError
from qgen.spec.catalog import queue_objects
from tests.behaviour.helpers import BEHAVE, FEAT, FEATD, db_now, denied
from tests.behaviour.test_redrive import bury


def test_dead_letters_newest_first_with_their_errors_at_most_limit(use_spec):
    env = use_spec(BEHAVE)
    queue = env.client("retrying")
    assert queue.dead_letters() == []
    ids = bury(queue, 3, n=lambda n: 10 + n)       # errors "poison 0", "poison 1", "poison 2"
    letters = queue.dead_letters()
    assert [d.id for d in letters] == ids[::-1], "newest first: in the order they were dead-lettered"
    assert [(d.payload, d.attempts, d.last_error) for d in letters] == [
        ({"n": 12}, 1, "poison 2"), ({"n": 11}, 1, "poison 1"), ({"n": 10}, 1, "poison 0")]
    assert all(d.dead_at.tzinfo is not None and d.enqueued_at <= d.dead_at for d in letters)
    assert [d.id for d in queue.dead_letters(limit=2)] == ids[:0:-1], "the newest two"
    queue.redrive([ids[1]])
    assert [d.id for d in queue.dead_letters()] == [ids[2], ids[0]], "a redriven job is no longer listed"


def test_dead_letters_carry_the_job_type_and_payload(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    jobs.enqueue(job_type="invoice", customer_id=7, amount=Decimal("12.50"), note="n")
    job, = jobs.dequeue()
    jobs.fail(job, "bank said no", retry=False)
    letter, = jobs.dead_letters()
    assert (letter.id, letter.job_type, letter.payload["customer_id"], str(letter.payload["amount"]),
            letter.payload["note"], letter.last_error) == (job.id, "invoice", 7, "12.50", "n", "bank said no")


@pytest.mark.parametrize("limit", [0, -1, 1001, 2**31])
def test_a_limit_out_of_range_is_refused_by_the_client_and_by_the_procedure(use_spec, limit):
    env = use_spec(BEHAVE)
    queue = env.client("retrying")
    with pytest.raises(InvalidArgument, match=rf"dead_letters.*limit is {limit}; accepted: an int from 1 to 1000"):
        queue.dead_letters(limit=limit)
    if abs(limit) < 2**31:
        arg = f"@limit = {limit}" if env.dialect == "mssql" else f'"limit" => {limit}'
        sql = f"EXEC {env.name('retrying', 'dead_letters')} {arg}" if env.dialect == "mssql" else \
            f"SELECT * FROM {env.name('retrying', 'dead_letters')}({arg})"
        with pytest.raises(Exception, match=rf"limit {limit} is out of range for qgbehave\.retrying_dead_letters; "
                                            r"accepted: 1 to 1000 rows"):
            env.sql(sql)
    with pytest.raises(InvalidArgument, match="limit is of type str"):
        queue.dead_letters(limit="10")  # type: ignore[arg-type]


def test_a_queue_without_dead_letters_has_no_dead_letters_procedure(use_spec):
    env = use_spec(FEAT)
    assert "dead_letters" not in {o.kind for o in queue_objects(env.spec, "urgent", env.dialect)}
    with pytest.raises(QueueUsageError, match="queue urgent has no dead-letter table"):
        env.client("urgent").dead_letters()


def test_job_follows_a_lease_job_through_every_state(use_spec):
    env = use_spec(BEHAVE)
    kept = env.client("kept")          # lease, archive
    first = kept.enqueue(n=1).id
    state = kept.job(first)
    assert (state.id, state.state, state.attempts, state.lease_owner, state.finished_at) == (first, "queued", 0, None, None)
    assert state.enqueued_at is not None and state.available_at is not None
    job, = kept.dequeue(owner="worker-7")
    state = kept.job(first)
    assert (state.state, state.attempts, state.lease_owner) == ("in_flight", 1, "worker-7")
    assert abs((state.lease_expires_at - job.lease_expires_at).total_seconds()) < 1
    assert kept.fail(job, "flaky") == "retry"
    state = kept.job(first)
    assert (state.state, state.last_error, state.lease_owner) == ("scheduled", "flaky", None), "backing off"
    assert state.available_at > db_now(env)
    env.backdate("kept", "available_at", 3600, ids=[first])
    assert kept.job(first).state == "queued", "due again"
    job, = kept.dequeue()
    env.backdate("kept", "lease_expires_at", 3600, ids=[first])
    expired = kept.job(first)
    assert expired.state == "in_flight" and expired.lease_expires_at < db_now(env), "an expired lease, not yet reaped"
    kept.reap()
    job, = kept.dequeue()
    assert kept.complete(job) == 1
    state = kept.job(first)
    assert (state.state, state.attempts, state.last_error) == ("archived", 3, None)
    assert state.finished_at is not None and state.finished_at >= state.enqueued_at
    assert kept.job(first + 1000).state == "not_found"
    assert not kept.job(first + 1000).found


def test_job_finds_dead_and_processed_jobs(use_spec):
    env = use_spec(BEHAVE)
    archived = env.client("once_archived")   # max_attempts 1: the first failure dead-letters
    archived.enqueue(code="a")
    job, = archived.dequeue()
    assert archived.fail(job, "out of luck") == "dead"
    dead = archived.job(job.id)
    assert (dead.state, dead.attempts, dead.last_error) == ("dead", 1, "out of luck")
    assert dead.finished_at is not None
    marked = env.client("once_marked")
    marked.enqueue(code="m")
    job, = marked.dequeue()
    marked.complete(job)
    done = marked.job(job.id)
    assert done.state == "processed" and done.finished_at is not None


def test_job_of_a_delete_queue_and_a_delayed_job(use_spec):
    env = use_spec(FEATD)
    queue_name = next(name for name, q in env.spec.queues.items() if q.scheduling)
    queue = env.client(queue_name)
    values = _values(env.spec.queues[queue_name])
    later = queue.enqueue(run_at=dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1), **values).id
    state = queue.job(later)
    assert (state.state, state.attempts, state.last_error) == ("scheduled", None, None)
    assert state.available_at > db_now(env)


def _values(queue):
    from tests.behaviour.test_examples_end_to_end import job_values

    return job_values(queue, 1)


@pytest.mark.parametrize("bad", [0, -5, 2**63, "7", 1.5, None, True])
def test_a_bad_id_is_refused_with_what_is_accepted(use_spec, bad):
    env = use_spec(BEHAVE)
    with pytest.raises(InvalidArgument, match=r"queue retrying, job: id .*accepted: an int from 1 to 9223372036854775807"):
        env.client("retrying").job(bad)


@pytest.mark.parametrize("bad", [0, -5, None])
def test_the_procedure_refuses_a_bad_id_itself(use_spec, bad):
    env = use_spec(BEHAVE)
    shown = "NULL" if bad is None else bad
    sql = (f"EXEC {env.name('retrying', 'job')} @job_id = {shown}" if env.dialect == "mssql"
           else f"SELECT * FROM {env.name('retrying', 'job')}(job_id => {shown})")
    with pytest.raises(Exception, match=rf"job_id {shown} is out of range for qgbehave\.retrying_job; accepted: a job id, 1 or more"):
        env.sql(sql)


def test_only_the_admin_role_reads_dead_letters_and_jobs(use_spec):
    env = use_spec(BEHAVE)
    owner = env.client("retrying")
    dead, = bury(owner, 1, n=1)
    with env.login("admin") as login:
        admin = env.client("retrying", login=login)
        assert [d.id for d in admin.dead_letters()] == [dead]
        assert admin.job(dead).state == "dead"
    for role in ("consumer", "producer"):
        with env.login(role) as login:
            other = env.client("retrying", login=login)
            with denied(env):
                other.dead_letters()
            with denied(env):
                other.job(dead)


def test_reading_inside_an_open_transaction_holds_nothing_a_worker_waits_on(use_spec):
    """An admin's transaction left open after dead_letters and job (an IMPLICIT_TRANSACTIONS session,
    a forgotten BEGIN) holds no lock on what they read: fail, complete, redrive and purge of those very
    rows go through at once."""
    env = use_spec(BEHAVE)
    worker = env.client("kept")
    worker.enqueue_many([{"n": 1}, {"n": 2}])
    first, second = worker.dequeue(batch_size=2)
    dead_queue = env.client("retrying")
    dead, = bury(dead_queue, 1, n=5)
    reader = env.client("kept")
    other_reader = env.client("retrying")
    with reader.transaction(), other_reader.transaction():
        assert reader.job(first.id).state == "in_flight"
        assert other_reader.job(dead).state == "dead" and [d.id for d in other_reader.dead_letters()] == [dead]
        done = threading.Event()

        def work() -> None:
            worker.complete(first)
            worker.fail(second, "no", retry=False)
            dead_queue.redrive([dead])
            done.set()

        thread = threading.Thread(target=work)
        thread.start()
        thread.join(20)
        assert done.is_set(), "a worker waited on the reader's open transaction"
    assert worker.job(first.id).state == "archived" and worker.job(second.id).state == "dead"
