"""Roles: producers only enqueue, consumers only work the queue, nobody touches a table directly."""

from __future__ import annotations


import pytest

from tests.behaviour.helpers import FEAT, assert_denied, denied


def table_statements(env):
    jobs, pending = env.name("jobs"), env.name("jobs", "pending_view")
    return {
        "select": f"SELECT count(*) FROM {jobs}",
        "update": f"UPDATE {jobs} SET {env.col('attempts')} = 0",
        "delete": f"DELETE FROM {jobs}",
        "outbox": f"DELETE FROM {env.name('jobs', 'outbox_table')}",
        "select_pending": f"SELECT count(*) FROM {pending}",
    }


def test_a_consumer_works_the_queue_but_cannot_touch_its_table(use_spec):
    env = use_spec(FEAT)
    owner = env.client("jobs")
    owner.enqueue(job_type="t", customer_id=1, amount=1)
    owner.enqueue(job_type="t", customer_id=2, amount=1)
    with env.login("consumer") as login:
        raw = env.connect(autocommit=True, login=login)
        for sql in table_statements(env).values():
            assert_denied(env, raw, sql)
        consumer = env.client("jobs", login=login)
        job, failing = consumer.dequeue(owner="consumer", batch_size=2)
        assert consumer.extend_lease(job) == 1
        assert consumer.complete(job, summary_text="done") == 1
        # fail is the consumer's too: a worker gives back what it could not do (here to the dead letters).
        assert consumer.fail(failing, "could not", retry=False) == "dead"
        with denied(env):
            consumer.enqueue(job_type="t", customer_id=2, amount=1)
        # A worker whose dequeue finds nothing corrects the watermark: consumers may (FEAT's jobs has one).
        assert consumer.watermark_correct() is not None
        for admin_only in (consumer.metrics, consumer.reap, consumer.purge, consumer.peek):
            with denied(env):
                admin_only()
    assert owner.metrics()["archived"] == 1
    assert env.count("jobs", "dead_letter_table") == 1


def test_a_producer_can_only_enqueue(use_spec):
    env = use_spec(FEAT)
    with env.login("producer") as login:
        raw = env.connect(autocommit=True, login=login)
        for sql in table_statements(env).values():
            assert_denied(env, raw, sql)
        producer = env.client("jobs", login=login)
        assert producer.enqueue(job_type="t", customer_id=1, amount=1).enqueued
        assert len(producer.enqueue_many([{"job_type": "t", "customer_id": n, "amount": 1} for n in (2, 3)])) == 2
        with denied(env):
            producer.dequeue()
        with denied(env):
            producer.metrics()
    assert env.client("jobs").metrics()["ready"] == 3


def test_an_admin_runs_maintenance_but_reads_only_the_pending_view(use_spec):
    env = use_spec(FEAT)
    env.client("jobs").enqueue(job_type="t", customer_id=1, amount=1)
    with env.login("admin") as login:
        raw = env.connect(autocommit=True, login=login)
        statements = table_statements(env)
        assert raw.cursor().execute(statements.pop("select_pending")).fetchall()[0][0] == 1
        for sql in statements.values():
            assert_denied(env, raw, sql)
        admin = env.client("jobs", login=login)
        assert admin.metrics()["ready"] == 1
        assert [p["customer_id"] for p in admin.peek()] == [1]
        assert admin.reap() == (0, 0)
        assert admin.purge() == (0, 0, 0)
        assert admin.watermark_correct().old == 0


def test_an_admin_runs_qgen_procedures_only_not_the_applications_in_the_same_schema(use_spec):
    """A schema qgen shares with an application (schema: dbo, or a shared one): the admin role runs
    qgen's own procedures, each granted by name, and not the application's, neither one there when
    the grants ran nor one added later. Before the fix SQL Server granted EXECUTE ON SCHEMA (every
    procedure, present and future) and PostgreSQL EXECUTE ON ALL ROUTINES IN SCHEMA (every one there
    when the grants ran)."""
    env = use_spec(FEAT)
    app = f"{env.col(env.spec.schema)}.{env.col('app_secret')}"
    if env.dialect == "postgres":
        # PostgreSQL lets PUBLIC execute a new function: an application that guards its own revokes that.
        env.backend.run_script(f"CREATE OR REPLACE FUNCTION {app}() RETURNS integer LANGUAGE sql AS 'SELECT 42';\n"
                               f"REVOKE ALL ON FUNCTION {app}() FROM PUBLIC;")
        call = f"SELECT {app}()"
    else:
        env.backend.run_script(f"CREATE OR ALTER PROCEDURE {app} AS SELECT 42 AS [answer];")
        call = f"EXEC {app}"
    # The grants run again (a later install or revision does), with the application's routine there.
    grants = next(item for item in env.installed.rendering.objects if item.obj.kind == "grants")
    env.backend.run_script(env.installed.rendering.session + grants.create)
    try:
        with env.login("admin") as login:
            raw = env.connect(autocommit=True, login=login)
            assert_denied(env, raw, call)
            admin = env.client("jobs", login=login)
            assert admin.metrics()["ready"] == 0, "qgen's own procedures still run"
    finally:
        env.backend.run_script(f"DROP {'FUNCTION' if env.dialect == 'postgres' else 'PROCEDURE'} {app};")


@pytest.mark.parametrize("role", ["producer", "consumer", "admin"])
def test_no_role_touches_a_queue_table(use_spec, role):
    """The refusals of the tests above, alone (they run on Babelfish, where those tests' procedure calls
    cannot: B21): no role reads, updates or deletes a queue's table or outbox directly; only the admin
    reads the pending view. On Babelfish a refusal is told as tests/behaviour/helpers.py says (B18)."""
    env = use_spec(FEAT)
    with env.login(role) as login:
        raw = env.connect(autocommit=True, login=login)
        statements = table_statements(env)
        pending = statements.pop("select_pending")
        for sql in statements.values():
            assert_denied(env, raw, sql)
        if role == "admin":
            assert raw.cursor().execute(pending).fetchall()[0][0] == 0
        else:
            assert_denied(env, raw, pending)
