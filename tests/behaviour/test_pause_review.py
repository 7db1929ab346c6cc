"""Review of pause/resume (f6b36ae, eb20816): cases the change's own tests do not reach. Each test here
states what a DBA expects; a failing one is a finding of the review, not a flaky test."""

from __future__ import annotations

import psycopg
import pytest

from qgen.render.engine import render_spec
from qgen.spec.load import load_spec
from qgen.spec.model import object_name
from tests.behaviour.helpers import BEHAVE, EX000


def test_a_resume_whose_snapshot_predates_a_pause_does_not_say_not_paused(use_spec):
    """PostgreSQL REPEATABLE READ: resume's UPDATE ... WHERE paused reads the transaction's snapshot,
    taken before another session's pause committed. It matches no row and returns 0 ("not paused:
    nothing changed") while the queue stays paused. It must either resume the queue or fail (40001),
    never report a state the queue is not in."""
    env = use_spec(BEHAVE)
    if env.dialect != "postgres":
        pytest.skip("PostgreSQL's transaction snapshot")
    admin = env.client("wm")
    conn = env.connect()
    cursor = conn.cursor()
    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    cursor.execute("SELECT 1")                       # the snapshot is taken here
    assert admin.pause() is True                     # another session pauses and commits
    try:
        cursor.execute(f"SELECT {env.name('wm', 'resume')}()")
        said = cursor.fetchone()[0]
        conn.commit()
    except psycopg.errors.SerializationFailure:  # 40001: the client retries it; never a wrong answer
        conn.rollback()
        said = None
    try:
        assert not (said == 0 and admin.paused()), \
            "resume returned 0 (not paused) and the queue is still paused"
    finally:
        admin.resume()


def test_a_dba_grant_on_metrics_survives_upgrade_sql(use_spec):
    """upgrade.sql drops an older qgen's metrics (its result columns differ); install.sql creates the
    new one and grants it to the admin role only. A grant the DBA added (a monitoring role) is lost
    silently: the exporter fails with permission denied after the upgrade."""
    env = use_spec(BEHAVE)
    if env.dialect != "postgres":
        pytest.skip("PostgreSQL's upgrade.sql")
    metrics = env.name("wm", "metrics")
    monitor = env.spec.grants.producer              # stands in for a monitoring role
    rendering = render_spec(env.spec, "behaviour.yaml", "postgres")
    assert "paused" in rendering.upgrade
    # The metrics an older qgen installed: no "paused" column, granted to the monitoring role too.
    env.execute(f"DROP FUNCTION {metrics}")
    env.execute(f"CREATE FUNCTION {metrics}() RETURNS TABLE (ready bigint) LANGUAGE sql AS 'SELECT 0::bigint'")
    env.execute(f'GRANT EXECUTE ON FUNCTION {metrics}() TO "{monitor}"')
    try:
        env.backend.run_script(rendering.upgrade)
        env.backend.run_script(rendering.install)
        granted = env.scalar(f"SELECT has_function_privilege(?, '{metrics}()', 'EXECUTE')", monitor)
        assert granted, f"{monitor}'s EXECUTE on metrics was dropped with the old function and not given back"
    finally:
        env.execute(f'REVOKE EXECUTE ON FUNCTION {metrics}() FROM "{monitor}"')


@pytest.mark.parametrize("kind", ["dequeue", "worker", "metrics"])
def test_sql_server_reads_a_control_row_held_by_an_open_resume_as_paused(kind):
    """SQL Server (not Babelfish, which ignores table hints, B10): the claim reads the control row
    WITH (READPAST, READCOMMITTEDLOCK) and asks EXISTS (... WHERE [paused] = 1). A resume left open
    (or in flight, or rolled back later) holds an X lock on the row; READPAST skips it, EXISTS is
    false, and the claim hands out jobs from a queue whose committed state is paused. test_pause.py's
    "nor does an uncommitted resume let them go" asserts the opposite and passes only on Babelfish.
    The check must read a row it cannot lock as paused, e.g. NOT EXISTS (... WITH (READPAST,
    READCOMMITTEDLOCK) WHERE [paused] = 0) with the row always present (pause and resume both put
    it back)."""
    path = EX000 if kind == "worker" else BEHAVE
    spec = load_spec(path)
    rendering = render_spec(spec, path.name, "mssql")
    checked = 0
    for item in rendering.objects:
        if item.obj.kind != kind or not item.obj.queue:
            continue
        control = object_name(spec, item.obj.queue, "control_table")
        for line in item.create.splitlines():
            if control in line and "READPAST" in line:
                checked += 1
                assert not ("EXISTS" in line and "NOT EXISTS" not in line and "[paused] = 1" in line), \
                    f"{item.filename}: a control row locked by an open resume reads as running:\n{line.strip()}"
    assert checked


def test_upgrade_sql_refuses_before_changing_anything_when_a_view_uses_the_old_metrics(use_spec):
    """The old metrics cannot be dropped while a view of the DBA's uses it: upgrade.sql says which, with
    QG022, before it renames or drops anything (not half way, after the blocks before it ran)."""
    env = use_spec(BEHAVE)
    if env.dialect != "postgres":
        pytest.skip("PostgreSQL's upgrade.sql")
    metrics = env.name("wm", "metrics")
    view = f'"{env.spec.schema}"."dba_watch"'
    rendering = render_spec(env.spec, "behaviour.yaml", "postgres")
    env.execute(f"DROP FUNCTION {metrics}")
    env.execute(f"CREATE FUNCTION {metrics}() RETURNS TABLE (ready bigint) LANGUAGE sql AS 'SELECT 0::bigint'")
    env.execute(f"CREATE VIEW {view} AS SELECT * FROM {metrics}()")
    try:
        with pytest.raises(psycopg.Error) as refused:
            env.backend.run_script(rendering.upgrade)
        assert refused.value.sqlstate == "QG022" and "dba_watch" in str(refused.value), refused.value
        assert env.scalar(f"SELECT count(*) FROM {view}") == 1, "the old metrics and the view are untouched"
    finally:
        env.execute(f"DROP VIEW {view}")
        env.backend.run_script(rendering.upgrade)
        env.backend.run_script(rendering.install)
