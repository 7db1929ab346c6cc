"""maintain: one call reaps expired leases, corrects the watermark and purges
finished jobs, one bounded batch each; one runs at a time per queue, and any worker may run it."""

from __future__ import annotations

import threading

import pytest

from tests.behaviour.helpers import BEHAVE, EX001, EX002, FEAT, TWIN, call_sql, denied

DAY = 86400


def test_maintain_reaps_corrects_and_purges_in_bounded_batches(use_spec):
    env = use_spec(BEHAVE)  # retrying: lease 1m, retention 7d
    queue = env.client("retrying")
    queue.enqueue_many([{"n": n} for n in range(1, 8)])
    held = queue.dequeue(batch_size=3)                 # 1..3: their worker dies
    dead, = queue.dequeue(batch_size=1)                # 4: dead-lettered long ago
    assert queue.fail(dead, "poison", retry=False) == "dead"
    env.backdate("retrying", "dead_at", 8 * DAY, kind="dead_letter_table")
    env.backdate("retrying", "lease_expires_at", 120, ids=[j.id for j in held])
    env.set_watermark("retrying", 1000)                # hides every pending job

    first = queue.maintain(batch_size=2)
    assert (first.skipped, first.released, first.dead_lettered, first.dead, first.more) == (False, 2, 0, 1, True)
    # reap lowered the watermark to the first job it released; the correction then put it the slack
    # (50) below the lowest unclaimed job, never below 0
    assert (first.old_watermark, first.new_watermark) == (1, 0)
    second = queue.maintain(batch_size=2)
    assert (second.released, second.dead, second.more) == (1, 0, False)
    assert queue.maintain() == (False, 0, 0, 0, 0, 0, 0, 0, False)
    assert [j.id for j in queue.dequeue(batch_size=10)] == [1, 2, 3, 5, 6, 7]
    assert env.count("retrying", "dead_letter_table") == 0


def test_maintain_on_delete_queues_purges_and_corrects(use_spec):
    env = use_spec(EX002)  # claim: delete, archive, retention 365d, no watermark
    codes = env.client("card_codes")
    codes.enqueue_many([{"card_number": f"4000-{n}", "card_secret": "s"} for n in range(3)])
    with codes.transaction():
        sold = codes.dequeue(batch_size=2)
    env.backdate("card_codes", "completed_at", 400 * DAY, ids=[sold[0].id], kind="archive_table")
    assert codes.maintain() == (False, 0, 0, None, None, 1, 0, 0, False)
    assert env.count("card_codes", "archive_table") == 1

    env = use_spec(EX001)  # claim: delete, watermark
    testq = env.client("testq")
    testq.enqueue_many([{"filler": "x"} for _ in range(3)])
    env.set_watermark("testq", 500)
    result = testq.maintain()
    assert (result.old_watermark, result.new_watermark, result.released) == (500, 0, 0)


def test_one_maintain_at_a_time_per_queue(use_spec):
    """While one maintain's transaction is open, a second on the same queue returns at once with
    skipped; other queues, and a queue of the same name in another schema, are not held up."""
    env, twin = use_spec(FEAT), use_spec(TWIN)
    holder = env.connect(autocommit=False)
    holder.cursor().execute(call_sql(env, "jobs", "maintain"))   # its transaction stays open
    try:
        outcome = {}
        second = env.client("jobs")
        caller = threading.Thread(target=lambda: outcome.setdefault("result", second.maintain()))
        caller.start()
        caller.join(timeout=20)
        assert not caller.is_alive(), "the second maintain waited for the first"
        assert outcome["result"].skipped and outcome["result"] == (True, 0, 0, None, None, 0, 0, 0, False)
        assert not env.client("urgent").maintain().skipped, "another queue of the schema"
        assert not twin.client("jobs").maintain().skipped, "a queue of the same name in another schema"
    finally:
        holder.rollback()
    assert not env.client("jobs").maintain().skipped


@pytest.mark.babelfish_gap("B27", "sp_getapplock ignores @DbPrincipal there: the public lock blocks every principal's")
def test_a_user_with_no_maintenance_rights_cannot_stop_maintain(use_spec):
    """SQL Server: an application lock is taken as a principal,
    public by default, which every user of the database is a member of. A login that may not run
    maintain (a producer) takes maintain's lock name as public and keeps its transaction open;
    maintain, which takes the lock as the owner of qgen's objects, is not held up. (PostgreSQL:
    tests/behaviour/test_maintain_lock.py.)"""
    env = use_spec(FEAT)
    if env.dialect != "mssql":
        pytest.skip("sp_getapplock is SQL Server's; PostgreSQL's maintain lock: test_maintain_lock.py")
    with env.login("producer") as login:
        squatter = env.connect(autocommit=False, login=login)
        cursor = squatter.cursor()
        cursor.execute("SET NOCOUNT ON; DECLARE @r int; EXEC @r = sys.sp_getapplock "
                       f"@Resource = N'qgen.maintain:{env.name('jobs')}', @LockMode = 'Exclusive', "
                       "@LockOwner = 'Transaction', @LockTimeout = 0; SELECT @r;")
        assert cursor.fetchone()[0] == 0, "the squatter holds the lock name as public"
        try:
            assert not env.client("jobs").maintain().skipped, "a user with no rights stopped maintenance"
        finally:
            squatter.rollback()


def test_a_consumer_runs_maintain_but_not_purge_or_redrive(use_spec):
    env = use_spec(FEAT)
    owner = env.client("jobs")
    owner.enqueue(job_type="t", customer_id=1, amount=1)
    job, = owner.dequeue()
    env.backdate("jobs", "lease_expires_at", 120)
    with env.login("consumer") as login:
        consumer = env.client("jobs", login=login)
        assert consumer.maintain().released == 1
        for admin_only in (consumer.purge, consumer.purge_batch, lambda: consumer.redrive(all=True)):
            with denied(env):
                admin_only()


def test_maintain_reports_a_steps_own_error(use_spec):
    """A step that fails inside maintain (here reap, whose dead-lettering a DBA's trigger refuses)
    surfaces with its own error. SQL Server's maintain read each step with INSERT ... EXEC, inside
    which the step's ROLLBACK fails with error 3915: that was all the caller saw."""
    env = use_spec(BEHAVE)
    queue = env.client("once_archived")  # max_attempts 1: an expired lease is dead-lettered
    queue.enqueue(code="trigger-me")
    job, = queue.dequeue()
    env.backdate("once_archived", "lease_expires_at", 3600, ids=[job.id])
    dead = env.name("once_archived", "dead_letter_table")
    if env.dialect == "postgres":
        made = ["CREATE OR REPLACE FUNCTION public.qgen_test_refuse() RETURNS trigger LANGUAGE plpgsql AS "
                "$$ BEGIN RAISE EXCEPTION 'refused by the test trigger'; END $$",
                f"CREATE TRIGGER qgen_test_refuse BEFORE INSERT ON {dead} FOR EACH ROW EXECUTE FUNCTION public.qgen_test_refuse()"]
        undo = [f"DROP TRIGGER IF EXISTS qgen_test_refuse ON {dead}", "DROP FUNCTION IF EXISTS public.qgen_test_refuse()"]
    else:
        trigger = f"[{env.spec.schema}].[once_archived_test_refuse]"
        made = [f"CREATE TRIGGER {trigger} ON {dead} AFTER INSERT AS THROW 50100, N'refused by the test trigger', 1;"]
        undo = [f"DROP TRIGGER IF EXISTS {trigger}"]
    for sql in made:
        env.backend.run_script(sql)
    try:
        with pytest.raises(Exception) as failed:
            queue.maintain()
        assert "refused by the test trigger" in str(failed.value), failed.value
        assert "3915" not in str(failed.value)
    finally:
        for sql in undo:
            env.backend.run_script(sql)
    assert env.count("once_archived", "dead_letter_table") == 0, "the failed step's work was rolled back"
    assert queue.maintain().dead_lettered == 1


def _agent_step(env) -> str:
    """The T-SQL of schedule.sql's Agent job step (the @q$command string, unquoted), as Agent runs it."""
    from qgen.render.engine import render_spec

    schedule = render_spec(env.spec, "spec.yaml", "mssql").files()["schedule.sql"]
    start = schedule.index("DECLARE @q$command nvarchar(max) = N'") + len("DECLARE @q$command nvarchar(max) = N'")
    end = schedule.index("END;';", start) + len("END;")
    return schedule[start:end].replace("''", "'")


def test_the_agent_job_step_keeps_calling_maintain_while_it_reports_more(use_spec, dialect):
    """The Agent job ran one maintain per queue per 10 s whatever it reported, so a
    backlog of expired leases went back at one reap batch (max_batch_size) per 10 s, and in 004 reap
    is the only way an expired lease returns. The step now calls a queue's maintain again while it
    reports more (bounded). Babelfish has no Agent (B9): the step's T-SQL is run here directly, as
    Agent would run it, on more expired leases than one maintain releases."""
    if dialect != "mssql":
        pytest.skip("the Agent job is SQL Server's; pg_cron's schedule is tests/test_schedule.py's")
    env = use_spec(FEAT)
    batch = env.spec.queues["jobs"].max_batch_size
    backlog = batch + 10
    table, col = env.name("jobs"), env.col
    digits = "(VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9))"
    env.execute(
        f"INSERT INTO {table} ({col('job_type')}, {col('customer_id')}, {col('amount')}, {col('attempts')}, "
        f"{col('lease_token')}, {col('lease_expires_at')}) "
        f"SELECT N'agent', 700000 + n, 1, 1, NEWID(), DATEADD(minute, -5, SYSUTCDATETIME()) FROM "
        f"(SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d AS n FROM {digits} AS a(d) CROSS JOIN {digits} AS b(d) "
        f"CROSS JOIN {digits} AS c(d) CROSS JOIN {digits} AS e(d)) AS k WHERE n < {backlog}")
    expired = f"{col('lease_token')} IS NOT NULL AND {col('job_type')} = N'agent'"
    assert env.count("jobs", "table", expired) == backlog
    cursor = env.admin.cursor()
    cursor.execute(_agent_step(env))
    while cursor.nextset():
        pass
    assert env.count("jobs", "table", expired) == 0, "one run of the job released the whole backlog"

