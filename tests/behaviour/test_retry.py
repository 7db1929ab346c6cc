"""Failures: retried after an exponential backoff, then dead-lettered."""

from __future__ import annotations

import pytest

from qgen.client import error_kind
from tests.behaviour.helpers import BEHAVE, EX004, FEAT, call_sql


def seconds_until_available(env, queue, job_id):
    return env.scalar(f"SELECT {env.seconds_from_now(env.col('available_at'))} FROM {env.name(queue)} "
                      f"WHERE {env.col('id')} = ?", job_id)


def test_backoff_then_dead_letter(use_spec):
    env = use_spec(EX004)  # max_attempts 3; backoff base 30s, factor 2, max 10m
    events = env.client("rainfall_events")
    job_id = events.enqueue(rainfall_id=7).id
    for attempt, delay in ((1, 30), (2, 60)):
        job, = events.dequeue()
        assert (job.id, job.attempts) == (job_id, attempt)
        assert events.fail(job, f"error {attempt}") == "retry"
        wait = seconds_until_available(env, "rainfall_events", job_id)
        assert delay - 5 < wait <= delay, f"attempt {attempt}: available in {wait}s, expected {delay}s"
        row = env.sql(f"SELECT {env.col('last_error')}, {env.col('lease_token')} FROM {env.name('rainfall_events')}")
        assert row == [(f"error {attempt}", None)]
        assert events.dequeue() == [], "not claimable during the backoff"
        assert events.metrics()["scheduled"] == 1
        env.backdate("rainfall_events", "available_at", delay)  # the backoff passes

    job, = events.dequeue()
    assert job.attempts == 3
    assert events.fail(job, "error 3") == "dead"
    assert env.count("rainfall_events") == 0
    dead = env.sql(f"SELECT {env.col('id')}, {env.col('rainfall_id')}, {env.col('attempts')}, {env.col('last_error')} "
                   f"FROM {env.name('rainfall_events', 'dead_letter_table')}")
    assert dead == [(job_id, 7, 3, "error 3")]
    metrics = events.metrics()
    assert (metrics["dead"], metrics["ready"], metrics["scheduled"]) == (1, 0, 0)


def test_the_backoff_is_capped_at_its_max(use_spec):
    env = use_spec(BEHAVE)  # max_attempts 4; backoff 10s * 10^(n-1), at most 200s
    queue = env.client("retrying")
    job_id = queue.enqueue(n=1).id
    for attempt, delay in ((1, 10), (2, 100), (3, 200)):
        job, = queue.dequeue()
        assert job.attempts == attempt
        assert queue.fail(job, "again") == "retry"
        wait = seconds_until_available(env, "retrying", job_id)
        assert delay - 5 < wait <= delay, f"attempt {attempt}: available in {wait}s, expected {delay}s"
        env.backdate("retrying", "available_at", delay)
    job, = queue.dequeue()
    assert queue.fail(job, "last") == "dead"
    assert queue.metrics()["dead"] == 1


def test_fail_without_retry_dead_letters_at_once(use_spec):
    env = use_spec(EX004)
    events = env.client("rainfall_events")
    events.enqueue(rainfall_id=1)
    job, = events.dequeue()
    assert events.fail(job, "poison", retry=False) == "dead"
    assert events.metrics()["dead"] == 1
    assert env.scalar(f"SELECT {env.col('attempts')} FROM {env.name('rainfall_events', 'dead_letter_table')}") == 1


def test_without_a_dead_letter_table_the_job_is_dropped(use_spec):
    env = use_spec(FEAT)  # urgent: dead_letter: false
    urgent = env.client("urgent")
    urgent.enqueue(task="x")
    job, = urgent.dequeue()
    assert urgent.fail(job, "poison", retry=False) == "dead"
    assert env.count("urgent") == 0
    assert urgent.metrics()["dead"] == 0


@pytest.mark.parametrize("retry", [True, False])
def test_fail_keeps_a_long_error_to_4000_characters(use_spec, retry):
    env = use_spec(EX004)
    events = env.client("rainfall_events")
    events.enqueue(rainfall_id=1)
    job, = events.dequeue()
    events.fail(job, "x" * 5000, retry=retry)
    table = env.name("rainfall_events", "table" if retry else "dead_letter_table")
    assert env.scalar(f"SELECT {env.col('last_error')} FROM {table}") == "x" * 4000


def test_fail_with_retry_null_is_refused_and_dead_letters_nothing(use_spec):
    """retry NULL (an unset flag passed through) is refused (argument out of range), the job keeps its
    lease; before the fix it was read as "no retry" and the job was dead-lettered at once."""
    env = use_spec(EX004)
    events = env.client("rainfall_events")
    events.enqueue(rainfall_id=8)
    job, = events.dequeue()
    if env.dialect == "mssql":
        args = f"@lease_token = '{job.lease_token}', @id = {job.id}, @retry = NULL"
    else:
        args = f"lease_token => '{job.lease_token}', id => {job.id}, retry => NULL"
    with pytest.raises(Exception) as refused:
        env.sql(call_sql(env, "rainfall_events", "fail", args))
    assert error_kind(env.dialect, refused.value) == "invalid", refused.value
    assert env.count("rainfall_events", "dead_letter_table") == 0
    assert events.complete(job, rainfall_id=8, summary="still mine") == 1
