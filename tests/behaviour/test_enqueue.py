"""Enqueueing: dedupe (return the existing id, or refuse), batches, and every portable type."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest

from qgen.client import DuplicateJob, InvalidArgument, QueueUsageError
from qgen.spec.locks import limits
from tests.behaviour.helpers import EX000, EX002, EX004, FEAT, db_now


def test_dedupe_return_existing(use_spec):
    env = use_spec(EX000)
    queue = env.client()
    first = queue.enqueue(reputation=5)
    assert first.enqueued is True
    again = queue.enqueue(reputation=5)
    assert again == (first.id, False)

    batch = queue.enqueue_many([{"reputation": 7}, {"reputation": 5}, {"reputation": 7}, {"reputation": 9}])
    assert [b.ordinal for b in batch] == [1, 2, 3, 4]
    seven, existing, seven_again, nine = batch
    assert seven.enqueued and nine.enqueued
    assert existing == (2, first.id, False)
    assert seven_again == (3, seven.id, False), "a key repeated in the batch gets the first one's id"
    assert len({first.id, seven.id, nine.id}) == 3
    assert env.count("four_queue") == 3

    # mark keeps a completed row, so its key stays taken
    job, = queue.dequeue()
    assert job.id == first.id
    queue.complete(job)
    assert queue.enqueue(reputation=5) == (first.id, False)


def test_dedupe_error(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    first = jobs.enqueue(job_type="invoice", customer_id=1, amount=Decimal("10.00"))
    with pytest.raises(DuplicateJob):
        jobs.enqueue(job_type="invoice", customer_id=1, amount=Decimal("99.00"))
    other_type = jobs.enqueue(job_type="refund", customer_id=1, amount=Decimal("10.00"))
    assert other_type.enqueued

    # a batch with a queued key, or a key repeated inside it, enqueues nothing
    with pytest.raises(DuplicateJob):
        jobs.enqueue_many([{"job_type": "invoice", "customer_id": 2, "amount": 1},
                           {"job_type": "invoice", "customer_id": 1, "amount": 1}])
    with pytest.raises(DuplicateJob):
        jobs.enqueue_many([{"job_type": "invoice", "customer_id": 3, "amount": 1},
                           {"job_type": "invoice", "customer_id": 3, "amount": 2}])
    assert env.count("jobs") == 2

    # archive moves the finished job out of the queue table: its key can be queued again
    claimed = jobs.dequeue()
    assert [j.id for j in claimed] == [first.id, other_type.id]
    jobs.complete(claimed[0], no_result=True)
    again = jobs.enqueue(job_type="invoice", customer_id=1, amount=Decimal("5.00"))
    assert again.enqueued and again.id > other_type.id


def test_dedupe_on_a_delete_queue(use_spec):
    env = use_spec(EX002)
    codes = env.client("card_codes")
    a = codes.enqueue(card_number="4000-1", card_secret="s1")
    assert codes.enqueue(card_number="4000-1", card_secret="other") == (a.id, False)
    with codes.transaction():
        assert [j.id for j in codes.dequeue()] == [a.id]
    # handed out and gone from the pool, but kept in the archive, which dedupe.scope: ever covers:
    # a re-imported code is not queued again (tests/behaviour/test_dedupe_scope.py)
    assert codes.enqueue(card_number="4000-1", card_secret="s2") == (a.id, False)


def test_enqueue_many_assigns_ids_in_list_order(use_spec):
    env = use_spec(EX004)
    events = env.client("rainfall_events")
    results = events.enqueue_many([{"rainfall_id": n} for n in (30, 10, 20)])
    assert [r.ordinal for r in results] == [1, 2, 3]
    assert [r.id for r in results] == sorted(r.id for r in results)
    claimed = events.dequeue()
    assert [(j.id, j.payload["rainfall_id"]) for j in claimed] == [(r.id, n) for r, n in zip(results, (30, 10, 20))]
    assert events.enqueue_many([]) == []


def round_trip(env, how, due):
    """Enqueue a job with every portable type (due as given) and one leaving every nullable column out;
    dequeue both; the first job's payload as it came back."""
    jobs = env.client("jobs")
    ref = uuid.uuid4()
    payload = {"customer_id": 2**40, "amount": Decimal("1234567890.12"), "note": "naïve ✓ text",
               "doc": {"a": [1, 2.5, None, "x"], "b": {"c": True}}, "due": due, "flag": False, "ref": ref}
    if how == "enqueue":
        jobs.enqueue(job_type="t", **payload)
    else:
        jobs.enqueue_many([{"job_type": "t", **payload}])
    jobs.enqueue(job_type="t", customer_id=1, amount=0)  # every nullable column left out
    first, second = jobs.dequeue()
    assert first.job_type == "t"
    assert second.payload == {"customer_id": 1, "amount": Decimal("0.00"), "note": None, "doc": None,
                              "due": None, "flag": None, "ref": None}
    return payload, first.payload


@pytest.mark.babelfish_gap("B15", "enqueue_many goes as JSON there (B12), and OPENJSON leaves the json value escaped "
                           "(the table's ISJSON check refuses it)", only=["enqueue_many"])
@pytest.mark.parametrize("how", ["enqueue", "enqueue_many"])
def test_every_portable_type_round_trips(use_spec, how):
    """Every portable type, a datetime among them (at a whole second: its fraction is the test below)."""
    sent, back = round_trip(use_spec(FEAT), how, dt.datetime(2031, 2, 3, 4, 5, 6, tzinfo=dt.timezone.utc))
    assert back == sent


@pytest.mark.babelfish_gap("B15", "enqueue_many goes as JSON there (B12), and OPENJSON leaves the json value escaped "
                           "(the table's ISJSON check refuses it)", only=["enqueue_many"])
@pytest.mark.parametrize("how", ["enqueue", "enqueue_many"])
def test_a_datetime_keeps_its_milliseconds(use_spec, how):
    sent, back = round_trip(use_spec(FEAT), how, dt.datetime(2031, 2, 3, 4, 5, 6, 789000, tzinfo=dt.timezone.utc))
    assert back == sent


def test_the_client_checks_a_job_against_the_spec(use_spec):
    env = use_spec(FEAT)
    jobs, urgent = env.client("jobs"), env.client("urgent")
    with pytest.raises(TypeError, match="unknown payload"):
        jobs.enqueue(job_type="t", customer_id=1, amount=1, colour="red")
    with pytest.raises(TypeError, match="missing payload"):
        jobs.enqueue(job_type="t", customer_id=1)
    with pytest.raises(TypeError, match="job_type"):
        jobs.enqueue(customer_id=1, amount=1)
    with pytest.raises(QueueUsageError, match="priority"):
        jobs.enqueue(job_type="t", customer_id=1, amount=1, priority=3)
    with pytest.raises(QueueUsageError, match="scheduling"):
        urgent.enqueue(task="x", run_at=dt.datetime.now(dt.timezone.utc))
    assert env.count("jobs") == 0 and env.count("urgent") == 0


@pytest.mark.babelfish_gap("B15", "the JSON entry's strings and json values", only=['json'])
@pytest.mark.babelfish_gap("B12", "a TVP through Microsoft's driver", only=['tvp'])
@pytest.mark.parametrize("via", ["json", "tvp"])
def test_enqueue_many_through_either_sql_server_entry(use_spec, dialect, via):
    """SQL Server takes a batch as a table-valued parameter (enqueue_batch) or as one JSON document
    (enqueue_json, for drivers such as FreeTDS that cannot send a TVP): the same jobs, ids, order,
    types, run_at and dedupe refusal either way. PostgreSQL's enqueue_batch takes JSON itself."""
    if dialect == "postgres":
        pytest.skip("PostgreSQL has one batch entry, enqueue_batch, which takes the jobs as jsonb")
    env = use_spec(FEAT)
    jobs = env.client("jobs", batch_via=via)
    session = env.client("jobs")._session
    if via == "tvp" and session.driver.batch_as_json(session.connected):
        pytest.skip("this ODBC driver cannot send a table-valued parameter (FreeTDS): the client sends JSON")
    ref = uuid.uuid4()
    due = dt.datetime(2031, 2, 3, 4, 5, 6, 789000, tzinfo=dt.timezone.utc)
    full = {"customer_id": 2**40, "amount": Decimal("1234567890.12"), "note": "naïve ✓ 'quoted' \"text\"",
            "doc": {"a": [1, 2.5, None, "x"], "b": {"c": True}}, "due": due, "flag": True, "ref": ref}
    later = db_now(env) + dt.timedelta(hours=1)
    results = jobs.enqueue_many([
        {"job_type": "t", **full},
        {"job_type": "t", "customer_id": 1, "amount": 0},
        {"job_type": "t", "customer_id": 2, "amount": 1, "run_at": later},
    ], enqueued_by="batcher")
    assert [r.ordinal for r in results] == [1, 2, 3] and all(r.enqueued for r in results)
    assert [r.id for r in results] == sorted(r.id for r in results)
    first, second = jobs.dequeue()  # the third is not due for an hour
    assert (first.id, first.job_type, first.payload) == (results[0].id, "t", full)
    assert second.payload["note"] is None and second.payload["doc"] is None
    assert env.scalar(f"SELECT {env.col('enqueued_by')} FROM {env.name('jobs')} WHERE {env.col('id')} = ?",
                      results[2].id) == "batcher"
    with pytest.raises(DuplicateJob):
        jobs.enqueue_many([{"job_type": "t", "customer_id": 7, "amount": 1},
                           {"job_type": "t", "customer_id": 7, "amount": 2}])
    assert env.count("jobs") == 3
    urgent = env.client("urgent", batch_via=via)
    urgent.enqueue_many([{"task": "low"}, {"task": "high", "priority": 9}])
    assert [j.payload["task"] for j in urgent.dequeue()] == ["high", "low"]


def test_a_batch_bigger_than_one_statement_may_write_is_split_and_stays_all_or_nothing(use_spec):
    """SQL Server: enqueue_batch and enqueue_json refuse more jobs than one INSERT may write without
    risking lock escalation on the queue table or its dedupe index (qgen/spec/locks.py), and the client
    splits a bigger batch into calls inside one transaction: ids still in list order, a key repeated
    across the parts found as in one batch."""
    env = use_spec(EX000)
    cap = limits(env.spec, "four_queue", "mssql").enqueue_rows
    assert 1000 < cap < 2500
    queue = env.client()
    jobs = [{"reputation": n} for n in range(2 * cap + 1)] + [{"reputation": 0}]
    results = queue.enqueue_many(jobs)
    assert [r.ordinal for r in results] == list(range(1, len(jobs) + 1))
    ids = [r.id for r in results[:-1]]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert results[-1] == (len(jobs), ids[0], False), "the key of job 1, repeated in the last part"
    assert env.count("four_queue") == 2 * cap + 1
    if env.dialect == "mssql":
        import json

        with pytest.raises(InvalidArgument, match=f"more than {cap} jobs"):
            queue._run("enqueue_json", [("jobs", json.dumps([{"reputation": -n} for n in range(1, cap + 2)]))], "rows")
        assert env.count("four_queue") == 2 * cap + 1


def test_enqueue_json_refuses_a_missing_or_misspelt_key_instead_of_writing_null(use_spec, dialect):
    """SQL Server's enqueue_json reads each column with a strict JSON path: a job whose nullable
    `note` is misspelt `note_` is refused (SQL Server's error 13608) and nothing is enqueued; lax
    paths wrote NULL for it silently. null for a key that is there is still NULL."""
    if dialect != "mssql":
        pytest.skip("enqueue_json is SQL Server's (PostgreSQL's enqueue_batch takes the JSON itself)")
    import json

    env = use_spec(FEAT)
    jobs = env.client("jobs")
    good = {"job_type": "t", "customer_id": 1, "amount": "1.00", "note": None, "doc": None, "due": None,
            "flag": None, "ref": None}
    with pytest.raises(Exception, match="13608|[Pp]roperty cannot be found|does not contain key"):  # SQL Server; Babelfish
        jobs._run("enqueue_json", [("jobs", json.dumps([good, {**{k: v for k, v in good.items() if k != "note"},
                                                               "customer_id": 2, "note_": "lost"}]))], "rows")
    assert env.count("jobs") == 0
    assert [bool(r["enqueued"]) for r in jobs._run("enqueue_json", [("jobs", json.dumps([good]))], "rows")] == [True]
    assert env.scalar(f"SELECT {env.col('note')} FROM {env.name('jobs')}") is None
