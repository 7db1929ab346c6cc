"""redrive: dead-lettered jobs go back into the queue as new jobs, once."""

from __future__ import annotations

import threading
import time

import pytest

from qgen.spec.model import object_name
from tests.behaviour.helpers import BEHAVE, EX004, FEAT


def bury(queue, count, **payload):
    """Enqueue `count` jobs and dead-letter them; their ids (the dead-letter table keeps the id)."""
    ids = []
    for n in range(count):
        queue.enqueue(**{k: (v(n) if callable(v) else v) for k, v in payload.items()})
        job, = queue.dequeue(batch_size=1)
        assert queue.fail(job, f"poison {n}", retry=False) == "dead"
        ids.append(job.id)
    return ids


def test_redrive_puts_a_dead_job_back_once(use_spec):
    env = use_spec(BEHAVE)  # retrying: 4 attempts
    queue = env.client("retrying")
    a, b = bury(queue, 2, n=lambda n: 10 + n)
    assert queue.redrive([a]) == (1, 0)
    assert queue.redrive([a]) == (0, 0), "a second redrive of the same job moves nothing"
    assert env.count("retrying", "dead_letter_table") == 1
    job, = queue.dequeue(batch_size=5)
    assert (job.payload, job.attempts) == ({"n": 10}, 1), "a new job: attempts start again"
    assert job.id not in (a, b), "redriven jobs get a new id, above the watermark"
    last_error = env.scalar(f"SELECT {env.col('last_error')} FROM {env.name('retrying')} WHERE {env.col('id')} = ?", job.id)
    assert last_error == "poison 0", "the error it died of is kept"


def test_redrive_all_in_batches(use_spec):
    env = use_spec(BEHAVE)
    queue = env.client("retrying")
    bury(queue, 5, n=lambda n: n)
    assert queue.redrive(all=True, batch_size=2) == (5, 0)
    assert env.count("retrying", "dead_letter_table") == 0
    assert sorted(j.payload["n"] for j in queue.dequeue(batch_size=10)) == [0, 1, 2, 3, 4]
    assert queue.redrive(all=True) == (0, 0)


def test_redrive_skips_a_job_whose_dedupe_key_is_queued_again(use_spec):
    env = use_spec(FEAT)  # dedupe on (customer_id, job_type), on_duplicate: error
    jobs = env.client("jobs")
    dup, lone = bury(jobs, 2, job_type="t", customer_id=lambda n: 100 + n, amount=1)
    jobs.enqueue(job_type="t", customer_id=100, amount=2)     # the same item, queued again
    assert jobs.redrive([dup, lone]) == (1, 1)
    assert env.sql(f"SELECT {env.col('id')} FROM {env.name('jobs', 'dead_letter_table')}") == [(dup,)], \
        "the skipped job stays dead, to be redriven once its key is free"


def test_a_rolled_back_redrive_moves_nothing(use_spec):
    """The insert into the queue and the delete from the dead letters are one transaction."""
    env = use_spec(BEHAVE)
    queue = env.client("retrying")
    dead, = bury(queue, 1, n=7)
    with pytest.raises(RuntimeError):
        with queue.transaction():
            assert queue.redrive([dead]) == (1, 0)
            raise RuntimeError("the caller changes its mind")
    assert env.count("retrying", "dead_letter_table") == 1
    assert env.count("retrying") == 0


@pytest.mark.babelfish_gap("B10", "the second redrive waits on the first's lock of the dead row: SQL Server's locking (on "
                           "Babelfish it passed only while each session's first call compiled for a second, B23, "
                           "so the two never raced; racing, both move the job)")
def test_two_redrives_of_one_job_move_it_once(use_spec):
    env = use_spec(BEHAVE)
    first, second = env.client("retrying"), env.client("retrying")
    dead, = bury(first, 1, n=7)
    outcome = {}
    with first.transaction():
        assert first.redrive([dead]) == (1, 0)
        racer = threading.Thread(target=lambda: outcome.setdefault("second", second.redrive([dead])))
        racer.start()
        time.sleep(0.3)   # the second waits on the first's lock on the dead row
        assert racer.is_alive()
    racer.join(timeout=20)
    assert outcome["second"] == (0, 0)
    assert env.count("retrying") == 1 and env.count("retrying", "dead_letter_table") == 0


def test_redrive_needs_ids_or_all(use_spec):
    env = use_spec(BEHAVE)
    with pytest.raises(TypeError):
        env.client("retrying").redrive()


def test_redrive_by_ids_finds_the_dead_letters_by_an_index_on_the_job_id(use_spec):
    """redrive(ids) selects dead letters by job id under UPDLOCK (SQL Server): without an index keyed
    on the id it scanned, and locked its way through, every dead letter. The dead-letter table has
    one, and a redrive by ids still works with it."""
    env = use_spec(EX004)
    table = object_name(env.spec, "rainfall_events", "dead_letter_table")
    if env.dialect == "postgres":
        keyed = env.scalar("SELECT count(*) FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid "
                           "JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_attribute a ON a.attrelid = t.oid "
                           "AND a.attnum = i.indkey[0] WHERE n.nspname = ? AND t.relname = ? AND a.attname = 'id'",
                           env.spec.schema, table)
    else:
        keyed = env.scalar("SELECT count(*) FROM sys.index_columns ic JOIN sys.columns c ON c.object_id = ic.object_id "
                           "AND c.column_id = ic.column_id WHERE ic.object_id = OBJECT_ID(?) AND ic.key_ordinal = 1 "
                           "AND c.name = N'id'", f"{env.spec.schema}.{table}")
    assert keyed == 1
    events = env.client("rainfall_events")
    first, second = (events.enqueue(rainfall_id=n).id for n in (1, 2))
    for job in events.dequeue(batch_size=2):
        events.fail(job, "boom", retry=False)
    assert events.redrive([second]) == (1, 0)
    assert env.count("rainfall_events", "dead_letter_table") == 1
