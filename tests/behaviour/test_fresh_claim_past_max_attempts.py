"""A job that already used max_attempts claims (a revision lowered max_attempts, or a row an older
version left) and that no lease holds is claimed like any other: it is not a takeover, so it is not
dead-lettered by the claim as "lease expired on the last attempt", and its last_error is kept. Only
a real takeover of an expired lease on the last attempt is dead-lettered by the claim (see
test_takeover.py). Its next failure dead-letters it, with its own error."""

from __future__ import annotations

from tests.behaviour.helpers import BEHAVE

ERROR = "boom on the attempt before the revision"


def test_a_fresh_claim_past_max_attempts_is_handed_out_with_its_last_error(use_spec):
    env = use_spec(BEHAVE)
    client = env.client("wm")
    most = env.spec.queues["wm"].retry.max_attempts
    job_id = client.enqueue(n=1).id
    # As the row stands after a release under a higher max_attempts: no lease, attempts used up.
    env.execute(f"UPDATE {env.name('wm')} SET {env.col('attempts')} = ?, {env.col('last_error')} = ?", most, ERROR)
    claimed = client.dequeue(batch_size=1)
    assert [job.id for job in claimed] == [job_id], "a job no lease held was dead-lettered by its claim"
    assert claimed[0].attempts == most + 1
    assert env.count("wm", "dead_letter_table") == 0
    assert env.scalar(f"SELECT {env.col('last_error')} FROM {env.name('wm')}") == ERROR, "its last_error was overwritten"
    # Its failure now finds no attempt left: dead-lettered with the worker's own error.
    assert client.fail(claimed[0], "still failing") == "dead"
    assert env.scalar(f"SELECT {env.col('last_error')} FROM {env.name('wm', 'dead_letter_table')}") == "still failing"


def test_a_takeover_on_the_last_attempt_is_still_dead_lettered_next_to_a_fresh_claim(use_spec):
    """Both kinds in one batch: the expired lease on its last attempt goes to the dead letters, the
    fresh row past max_attempts is handed out."""
    env = use_spec(BEHAVE)
    client = env.client("wm")
    most = env.spec.queues["wm"].retry.max_attempts
    expired = client.enqueue(n=1).id
    fresh = client.enqueue(n=2).id
    job, = client.dequeue(batch_size=1)
    assert job.id == expired
    env.execute(f"UPDATE {env.name('wm')} SET {env.col('attempts')} = ?", most)
    env.backdate("wm", "lease_expires_at", 120, ids=[expired])
    if env.dialect == "mssql":
        assert client.reap() == (0, 1)   # SQL Server: reap, not a claim, ends an expired lease
    claimed = client.dequeue(batch_size=5)
    assert [j.id for j in claimed] == [fresh]
    assert env.sql(f"SELECT {env.col('id')}, {env.col('last_error')} FROM {env.name('wm', 'dead_letter_table')}") == [
        (expired, "qgen: lease expired on the last attempt")]
