"""One error table per dialect (qgen/dialects/postgres/errors.py, mssql/errors.py): every
code the templates raise is in its dialect's table, each code of a table is classified as its entry
says (PostgreSQL: each SQLSTATE raised for real on the live server; SQL Server: each number in
pyodbc's own message format, and qgen's own THROW numbers raised for real where QGEN_TEST_MSSQL_URL
names a server), the client raises the entry's QueueError for it, and error_kind and
connection_lost read the same table."""

from __future__ import annotations

import contextlib
import os
import re
import uuid

import psycopg
import pytest

from qgen import dialects
from qgen.client import error_kind
from qgen.client.connection import connection_lost
from qgen.dialects.error_codes import KINDS, queue_error
from tests.conftest import ROOT

TEMPLATES = ROOT / "templates"
POSTGRES = dialects.get("postgres").errors
MSSQL = dialects.get("mssql").errors


def template_codes(dialect: str) -> dict[str, set]:
    """{template file: the codes it raises}: THROW numbers and RAISERROR with a message text (error
    50000) in T-SQL; RAISE ... ERRCODE = 'code or condition name' in PL/pgSQL."""
    found: dict[str, set] = {}
    for path in sorted((TEMPLATES / dialect).glob("*.j2")):
        text = path.read_text()
        if dialect == "mssql":
            codes: set = {int(n) for n in re.findall(r"\bTHROW\s+([0-9]+)\s*,", text)}
            if re.search(r"\bRAISERROR\s*\(\s*N?'", text):
                codes.add(50000)
        else:
            codes = set(re.findall(r"ERRCODE\s*=\s*'([A-Za-z0-9_]+)'", text))
        if codes:
            found[path.name] = codes
    return found


def test_the_template_scan_finds_the_codes_it_should():
    assert {50001, 50002, 50003, 50005, 50020} <= set().union(*template_codes("mssql").values())
    assert {"QG001", "QG002", "QG003", "unique_violation"} <= set().union(*template_codes("postgres").values())


@pytest.mark.parametrize("dialect", ["mssql", "postgres"])
def test_every_code_the_templates_raise_is_in_the_dialects_table(dialect):
    table = dialects.get(dialect).errors
    conditions = table.conditions()
    missing = {name: sorted((c for c in codes if conditions.get(c, c) not in table), key=str)
               for name, codes in template_codes(dialect).items()}
    assert {k: v for k, v in missing.items() if v} == {}, f"codes the {dialect} templates raise, not in its error table"


def test_each_kind_has_one_exception_class():
    for table in (POSTGRES, MSSQL):
        for code, entry in table.codes.items():
            assert entry.kind in KINDS
            same = {e.raises for e in list(POSTGRES.codes.values()) + list(MSSQL.codes.values()) if e.kind == entry.kind}
            assert len(same) == 1, f"{code}: kind {entry.kind} raises {same}"


# ---------------------------------------------------------------------------------------------
# PostgreSQL: each SQLSTATE raised on the live server


def raised_on_postgres(admin, sqlstate: str) -> psycopg.Error:
    with pytest.raises(psycopg.Error) as caught:
        admin.execute(f"DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '{sqlstate}', MESSAGE = 'qgen test'; END $$")
    return caught.value


@pytest.fixture(scope="module")
def admin(postgres_server):
    from tests.support.pg import ADMIN_URL

    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        yield conn


# The table's int keys are getaddrinfo's error numbers (UNKNOWN_HOST), not SQLSTATEs: test_client_errors.py.
@pytest.mark.parametrize("sqlstate", sorted(c for c in POSTGRES.codes if isinstance(c, str)) + ["08006", "08003"])
def test_each_postgres_sqlstate_is_classified_as_its_table_says(admin, sqlstate):
    error = raised_on_postgres(admin, sqlstate)
    assert error.sqlstate == sqlstate
    entry = POSTGRES.entry(sqlstate)
    assert error_kind("postgres", error, admin) == entry.kind
    assert connection_lost("postgres", sqlstate, set(), error, admin) == (entry.kind == "connection")
    raised = queue_error(entry, error, retried=False)
    if entry.raises is None or entry.kind == "connection":
        assert raised is error  # the driver's own error goes on (the client retries, or reconnects)
    else:
        assert type(raised) is entry.raises and raised.__cause__ is error


def test_real_postgres_errors_are_classified(admin):
    """Errors the database raises by itself, not by RAISE: no such function, no such schema, a
    duplicate key, and a session killed by pg_terminate_backend."""
    with pytest.raises(psycopg.Error) as caught:
        admin.execute(f"SELECT qgen_no_such_function_{uuid.uuid4().hex[:8]}()")
    assert error_kind("postgres", caught.value) == "missing"
    with pytest.raises(psycopg.Error) as caught:
        admin.execute(f"CREATE TABLE qgen_no_such_schema_{uuid.uuid4().hex[:8]}.t (i int)")
    assert error_kind("postgres", caught.value) == "missing"
    with pytest.raises(psycopg.Error) as caught:
        admin.execute("CREATE TEMP TABLE qgen_dupes (i int PRIMARY KEY); INSERT INTO qgen_dupes VALUES (1), (1)")
    assert error_kind("postgres", caught.value) == "duplicate"
    from tests.support.pg import ADMIN_URL

    with psycopg.connect(ADMIN_URL, autocommit=True) as victim:
        admin.execute("SELECT pg_terminate_backend(%s)", [victim.info.backend_pid])
        with pytest.raises(psycopg.Error) as caught:
            victim.execute("SELECT 1")
        assert error_kind("postgres", caught.value, victim) == "connection"


# ---------------------------------------------------------------------------------------------
# SQL Server: each number in pyodbc's message format; qgen's own raised on a live server


def pyodbc_error(number: int, state: str = "42000"):
    import pyodbc

    return pyodbc.ProgrammingError(state, f"[{state}] [FreeTDS][SQL Server]qgen test ({number}) (SQLExecDirectW)")


@pytest.mark.parametrize("code", sorted(MSSQL.codes, key=str))
def test_each_sql_server_code_is_classified_as_its_table_says(code):
    entry = MSSQL.entry(code)
    error = pyodbc_error(code) if isinstance(code, int) else pyodbc_error(1, state=code)
    assert error_kind("mssql", error) == entry.kind
    native = {code} if isinstance(code, int) else {1}
    state = code if isinstance(code, str) else "42000"
    assert connection_lost("mssql", state, native, error) == (entry.kind == "connection")
    raised = queue_error(entry, error, retried=False)
    assert raised is error if entry.raises is None or entry.kind == "connection" else type(raised) is entry.raises


def test_a_sql_server_sqlstate_class_08_is_a_lost_connection():
    assert error_kind("mssql", pyodbc_error(0, state="08S01")) == "connection"


@pytest.fixture(scope="module")
def mssql():
    url = os.environ.get("QGEN_TEST_MSSQL_URL")
    if not url:
        pytest.skip("QGEN_TEST_MSSQL_URL is not set: no SQL Server to raise errors on")
    import pyodbc

    from qgen.client.connection import mssql_connection_string

    with contextlib.closing(pyodbc.connect(mssql_connection_string(url), autocommit=True)) as conn:
        yield conn


@pytest.mark.parametrize("number", sorted(c for c in MSSQL.codes if isinstance(c, int) and c > 50000))
def test_qgens_own_sql_server_errors_raised_for_real_are_classified(mssql, number):
    import pyodbc

    with pytest.raises(pyodbc.Error) as caught:
        mssql.cursor().execute(f"THROW {number}, N'qgen test', 1;")
    assert error_kind("mssql", caught.value) == MSSQL.entry(number).kind, str(caught.value)


def test_raiserror_with_a_message_is_classified(mssql):
    """RAISERROR with a message text: error 50000 (uninstall's guard)."""
    import pyodbc

    with pytest.raises(pyodbc.Error) as caught:
        mssql.cursor().execute("RAISERROR(N'%s', 16, 1, N'qgen test');")
    assert error_kind("mssql", caught.value) == "uninstall_refused", str(caught.value)


def test_a_procedure_that_is_not_there_is_missing(mssql):
    """EXEC of a procedure that does not exist: error 2812."""
    import pyodbc

    from tests.support.babelfish import is_babelfish

    if is_babelfish(mssql):
        pytest.skip("Babelfish gap B18 (its errors come as 33557097, not SQL Server's numbers): a missing procedure "
                    "too; runs on a real SQL Server (QGEN_TEST_MSSQL_URL)")
    with pytest.raises(pyodbc.Error) as caught:
        mssql.cursor().execute(f"EXEC dbo.qgen_no_such_procedure_{uuid.uuid4().hex[:8]};")
    assert error_kind("mssql", caught.value) == "missing", str(caught.value)
