"""The Babelfish harness's own rules (tests/support/babelfish.py), where they decide what a SQL Server
test shows there: no database needed.

B21's emulation of ownership chaining makes a procedure SECURITY DEFINER only where SQL Server would
chain it and answer the same; a procedure it leaves alone runs with its caller's rights, so a test
of it fails on Babelfish instead of passing for the wrong reason."""

from __future__ import annotations

import pytest

from qgen.dialects.mssql import MssqlDatabase
from qgen.render.engine import render_spec
from qgen.spec.load import load_spec
from tests.conftest import EXAMPLES
from tests.support.babelfish import REWRITTEN, RUNS_AS_OWNER, SENT_FINGERPRINTS, chained, creates_procedure, rewrite

module_fingerprints = MssqlDatabase().module_fingerprints
split_batches = MssqlDatabase().split_batches


@pytest.fixture(autouse=True)
def _uncounted():
    """The rewrites run here on text alone: the end-of-run count of rewrites sent to Babelfish stays
    what the SQL Server tests sent."""
    before, sent = REWRITTEN.copy(), SENT_FINGERPRINTS.copy()
    yield
    REWRITTEN.clear()
    REWRITTEN.update(before)
    SENT_FINGERPRINTS.clear()
    SENT_FINGERPRINTS.update(sent)


@pytest.mark.parametrize("body", [
    "CREATE PROCEDURE dbo.p AS BEGIN DECLARE @s nvarchar(99) = N'SELECT 1 FROM dbo.t'; EXEC (@s); END",
    "CREATE PROCEDURE dbo.p AS EXEC sys.sp_executesql N'SELECT 1 FROM dbo.t';",
    "CREATE PROCEDURE dbo.p AS INSERT INTO dbo.t (who) VALUES (USER_NAME());",
    "CREATE PROCEDURE dbo.p AS SELECT CURRENT_USER;",
    # USER, without parentheses, is USER_NAME(): under SECURITY DEFINER Babelfish answers dbo (live).
    "CREATE PROCEDURE dbo.p AS INSERT INTO dbo.t (who) VALUES (USER);",
    "CREATE PROCEDURE dbo.p AS IF IS_ROLEMEMBER(N'r') = 1 SELECT 1;",
    # SQL Server's chain covers SELECT, INSERT, UPDATE, DELETE and EXECUTE, not what needs ALTER.
    "CREATE PROCEDURE dbo.p AS TRUNCATE TABLE dbo.t;",
    "CREATE PROCEDURE dbo.p AS BEGIN SET IDENTITY_INSERT [dbo].[t] ON; INSERT INTO dbo.t (id) VALUES (1); END",
    "CREATE PROCEDURE dbo.p AS DBCC CHECKIDENT (N'dbo.t', RESEED, 0);",
    "CREATE PROCEDURE dbo.p AS ALTER INDEX ALL ON dbo.t REBUILD;",
    "CREATE PROCEDURE dbo.p AS UPDATE STATISTICS dbo.t;",
    # Run as the owner, SQL Server answers the owner's login; SECURITY DEFINER the caller's (live).
    f"CREATE PROCEDURE dbo.p\n{RUNS_AS_OWNER}\nAS INSERT INTO dbo.t (who) VALUES (SUSER_SNAME());",
])
def test_a_procedure_sql_server_would_not_chain_or_would_answer_differently_is_left_to_its_callers_rights(body):
    assert not chained(body)


@pytest.mark.parametrize("body", [
    "CREATE PROCEDURE dbo.p AS BEGIN EXEC dbo.q @x = 1; SELECT count(*) FROM dbo.t; END",
    "CREATE PROCEDURE dbo.p AS INSERT INTO dbo.t (who) VALUES (ORIGINAL_LOGIN()); -- not USER_NAME()",
    "CREATE PROCEDURE dbo.p AS SELECT N'EXEC (@s) and USER_NAME() in a string';",
    # A login's own names, which Babelfish answers the same under SECURITY DEFINER (checked live).
    "CREATE PROCEDURE dbo.p AS SELECT SUSER_SNAME(), SUSER_NAME(), SYSTEM_USER, [user] FROM dbo.t;",
    f"CREATE PROCEDURE dbo.p\n{RUNS_AS_OWNER}\nAS SELECT USER_NAME();",
    # EXECUTE AS OWNER: SQL Server runs the dynamic batch as the owner too, as SECURITY DEFINER does.
    f"CREATE PROCEDURE dbo.p\n{RUNS_AS_OWNER}\nAS EXEC sys.sp_executesql N'SELECT 1 FROM dbo.t';",
    "CREATE PROCEDURE dbo.p AS BEGIN CREATE TABLE #t (id int); TRUNCATE TABLE  #t; UPDATE dbo.t SET n = 1; END",
])
def test_a_procedure_sql_server_chains_is_emulated(body):
    assert chained(body)


def test_execute_as_owner_leaves_the_mark_the_chain_reads():
    created = rewrite("CREATE PROCEDURE dbo.p\nWITH EXECUTE AS OWNER\nAS\nSELECT USER_NAME();")
    assert len(created) == 1 and RUNS_AS_OWNER in created[0] and "WITH EXECUTE" not in created[0].replace(RUNS_AS_OWNER, "")
    assert chained(created[0])


@pytest.mark.parametrize("spec_path", EXAMPLES, ids=lambda p: p.stem)
def test_every_procedure_qgen_renders_is_chained_on_babelfish(spec_path):
    """qgen's roles are granted EXECUTE alone: on Babelfish every one of its procedures must run as its
    owner (B21), or the grants tests would fail there for the harness's sake, not the product's."""
    install = render_spec(load_spec(spec_path), spec_path.name, "mssql").install
    procedures = [sent for batch in split_batches(install) if creates_procedure(batch) for sent in rewrite(batch)
                  if creates_procedure(sent)]
    assert procedures
    assert [p.split("\n", 3)[:3] for p in procedures if not chained(p)] == []


@pytest.mark.parametrize("spec_path", EXAMPLES, ids=lambda p: p.stem)
def test_verify_compares_each_module_with_the_text_the_harness_sent_for_it(spec_path):
    """B24: once an install's batches went through the harness, verify's list holds, for every module,
    the fingerprint Babelfish computes over the text sent for it (none left as rendered, which could
    only differ there), and a module never sent keeps its rendered fingerprint (so verify names it)."""
    rendering = render_spec(load_spec(spec_path), spec_path.name, "mssql")
    rendered = module_fingerprints(rendering.install)
    verify = next(item.create for item in rendering.objects if item.obj.kind == "verify")
    SENT_FINGERPRINTS.clear()
    before = rewrite(verify)
    assert all(fingerprint in before[0] for fingerprint in rendered.values())
    for batch in split_batches(rendering.install):
        rewrite(batch)
    after, = rewrite(verify)
    assert [name for name, fingerprint in rendered.items() if fingerprint in after] == []
    assert len(SENT_FINGERPRINTS) == len(rendered)


def test_an_applock_not_granted_reads_as_sql_server_answers_it():
    """B27: the -999 Babelfish answers for a lock another session holds becomes SQL Server's -1 right
    after the call (the caller's own test of -1 then runs), not inside its argument list."""
    sent, = rewrite("BEGIN\n    EXEC @q$lock = sys.sp_getapplock\n        @Resource = N'x;y', @LockMode = 'Exclusive', "
                    "@LockTimeout = 0, @DbPrincipal = @p;\n    IF @q$lock = -1 SET @skipped = 1;\nEND")
    assert "@DbPrincipal = @p; IF @q$lock = -999 SET @q$lock = -1;\n    IF @q$lock = -1" in sent


def test_a_database_with_sessions_still_in_it_is_dropped(request):
    """Teardown drops a test database that other sessions are still in (a pool a test did not dispose,
    a connection a failing test left open): B13's KILL ends them a moment later, and the DROP waits for
    that instead of failing the run ("currently in use in another session", CI at a load of 4)."""
    import os

    import pyodbc

    from tests.support.backends import MSSQL_URL_ENV, MssqlBackend, mssql_connection_string

    url = os.environ.get(MSSQL_URL_ENV)
    if not url:
        pytest.skip("needs a T-SQL engine (QGEN_TEST_MSSQL_URL)")
    backend = MssqlBackend(url)
    left_open = []
    try:
        base = mssql_connection_string(url)
        for _ in range(6):
            conn = pyodbc.connect(base, autocommit=True)
            conn.cursor().execute(f"USE [{backend.database}]")
            left_open.append(conn)
    finally:
        backend.close()
    check = pyodbc.connect(mssql_connection_string(url), autocommit=True)
    try:
        assert check.cursor().execute("SELECT DB_ID(?)", backend.database).fetchone()[0] is None
    finally:
        check.close()
        for conn in left_open:
            try:
                conn.close()
            except pyodbc.Error:
                pass   # KILLed: the server ended it
