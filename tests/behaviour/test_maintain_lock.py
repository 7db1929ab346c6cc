"""PostgreSQL: a role with no rights on the queue cannot stop maintenance.

maintain runs one at a time per queue. It used to take an advisory lock on a key anyone could
compute (a hash of the queue's name), and advisory locks need no grant: any login of the database
could hold that key and make every maintain return skipped. maintain now locks a table qgen owns
(SHARE UPDATE EXCLUSIVE, without waiting), which takes UPDATE, DELETE or TRUNCATE on that table:
the owner role, a superuser, or (through VACUUM) the database owner.

PostgreSQL only: SQL Server's maintain takes an applock (sp_getapplock), not this test's subject.
"""

from __future__ import annotations

import contextlib
import threading

import pytest

from qgen.client import error_kind
from tests.behaviour.helpers import BEHAVE, call_sql
from tests.support.backends import quote
from tests.support.run import named

QUEUES = ["wm", "kept"]   # with a watermark table, and (archive) without one


@pytest.fixture
def nobody(use_spec):
    """A login of the test database with no grant of any kind on qgen's schema."""
    env = use_spec(BEHAVE)
    if env.dialect != "postgres":
        pytest.skip("PostgreSQL's advisory locks are what anyone could take")
    role = named("qgen_nobody")
    env.backend.run_script(f"DROP ROLE IF EXISTS {quote('postgres', role)}; CREATE ROLE {quote('postgres', role)} LOGIN")
    conn = env.backend.connect(autocommit=False, login=(role, ""))
    try:
        yield env, conn
    finally:
        with contextlib.suppress(Exception):
            conn.close()
        env.backend.run_script(f"DROP ROLE IF EXISTS {quote('postgres', role)}")


@pytest.mark.parametrize("queue", QUEUES)
def test_a_role_without_grants_cannot_make_maintain_skip(nobody, queue):
    env, conn = nobody
    table = env.name(queue)
    watermark = env.name(queue, "watermark_table") if env.spec.queues[queue].watermark.enabled else None
    # The key maintain took before: a hash of the queue's qualified name, which anyone can compute.
    assert conn.execute("SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))",
                        (f"qgen.maintain:{table}",)).fetchone()[0]
    # What a qgen-owned lock would need: refused to a role without rights.
    for target in [t for t in (table, watermark) if t]:
        conn.execute("SAVEPOINT try_lock")
        with pytest.raises(Exception) as caught:
            conn.execute(f"LOCK TABLE {target} IN SHARE UPDATE EXCLUSIVE MODE NOWAIT")
        assert error_kind("postgres", caught.value) == "denied", caught.value
        conn.execute("ROLLBACK TO SAVEPOINT try_lock")
    try:
        result = env.client(queue).maintain()
        assert not result.skipped, "a role with no rights on the queue stopped maintenance"
    finally:
        conn.rollback()


@pytest.mark.parametrize("queue", QUEUES)
def test_maintain_still_runs_one_at_a_time(use_spec, queue):
    env = use_spec(BEHAVE)
    holder = env.connect(autocommit=False)
    holder.cursor().execute(call_sql(env, queue, "maintain"))   # its transaction stays open
    try:
        outcome = {}
        caller = threading.Thread(target=lambda: outcome.setdefault("result", env.client(queue).maintain()))
        caller.start()
        caller.join(timeout=20)
        assert not caller.is_alive(), "the second maintain waited for the first"
        assert outcome["result"].skipped
    finally:
        holder.rollback()
    assert not env.client(queue).maintain().skipped
