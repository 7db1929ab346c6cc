"""SQL Server errors are classified by the error number pyodbc reports for each diagnostic record,
not by numbers found anywhere in the message. The point is parsing the driver's
error, so the exceptions are built here in pyodbc's own format (errors.cpp: "[SQLSTATE] text
(native) (function)", then "; [SQLSTATE] text (native)" per further record) with FreeTDS's text."""

from __future__ import annotations

import pyodbc
import pytest

from qgen.client import error_kind


def driver_error(kind, *records, function="SQLExecDirectW"):
    """A pyodbc error as pyodbc builds it from (SQLSTATE, text, native error) records."""
    (state, text, native), *further = records
    message = f"[{state}] [FreeTDS][SQL Server]{text} ({native}) ({function})"
    message += "".join(f"; [{s}] [FreeTDS][SQL Server]{t} ({n})" for s, t, n in further)
    return kind(state, message)


CASES = {
    "lease lost": (driver_error(pyodbc.ProgrammingError, ("42000", "qgen: lease lost on s.q: the lease token does not hold this job.", 50001)), "lease_lost"),
    "duplicate": (driver_error(pyodbc.ProgrammingError, ("42000", "qgen: duplicate job on s.q: a job with this dedupe key (k) is already queued.", 50002)), "duplicate"),
    "denied": (driver_error(pyodbc.ProgrammingError, ("42000", "The EXECUTE permission was denied on the object 'q_purge', database 'd', schema 's'.", 229)), "denied"),
    "deadlock": (driver_error(pyodbc.OperationalError, ("40001", "Transaction (Process ID 57) was deadlocked on lock resources with another process and has been chosen as the deadlock victim. Rerun the transaction.", 1205)), "deadlock"),
    "not installed": (driver_error(pyodbc.ProgrammingError, ("42000", "Could not find stored procedure 's.q_enqueue'.", 2812)), "missing"),
    "installed from an older spec": (driver_error(pyodbc.ProgrammingError, ("42000", "@note is not a parameter for procedure q_enqueue.", 8145)), "missing"),
    "a handler quoting (2812)": (driver_error(pyodbc.ProgrammingError, ("42000", "handler: upstream said (2812)", 50100)), None),
    "a handler quoting (50001)": (driver_error(pyodbc.ProgrammingError, ("42000", "handler: upstream said (50001); giving up", 50100)), None),
    "a handler quoting a whole trailer": (driver_error(pyodbc.ProgrammingError, ("42000", "see (50001) (SQLExecDirectW); [42000] x", 50100)), None),
    "a handler quoting (1205) at the end of its text": (driver_error(pyodbc.ProgrammingError, ("42000", "retry after (1205)", 50100)), None),
    "lease lost in a further record": (driver_error(pyodbc.ProgrammingError, ("01000", "Warning: (50002)", 0), ("42000", "qgen: lease lost", 50001)), "lease_lost"),
    # A value the server quotes in a second record, shaped like a record's end.
    # 2601 is a duplicate key (in the error table, as PostgreSQL's 23505); the quoted 50001,
    # were it read, would make it lease_lost (the stronger kind).
    "a quoted key value in a second record": (driver_error(
        pyodbc.IntegrityError, ("01000", "Changed database context to 'd'.", 5701),
        ("23000", "Cannot insert duplicate key row in object 's.q' with unique index 'q_dedupe_ux'. "
                  "The duplicate key value is (x (50001); [42000] y).", 2601)), "duplicate"),
    "a quoted value shaped like a first record's end, in a later record": (driver_error(
        pyodbc.ProgrammingError, ("01000", "note", 0),
        ("22018", "Conversion failed when converting the nvarchar value 'a (1205) (SQLExecDirectW); [40001] b' "
                  "to data type int.", 245)), None),
    "a whole forged record quoted in the first of two": (driver_error(
        pyodbc.IntegrityError, ("23000", "The duplicate key value is (k (1205) (SQLExecDirectW); [40001] "
                                "[FreeTDS][SQL Server]deadlocked (1205)).", 2601),
        ("01000", "The statement has been terminated.", 3621)), None),
    "a deadlock reported after an informational record": (driver_error(
        pyodbc.OperationalError, ("01000", "Changed language setting to us_english.", 5703),
        ("40001", "Transaction (Process ID 57) was deadlocked on lock resources with another process and has been "
                  "chosen as the deadlock victim. Rerun the transaction.", 1205)), "deadlock"),
}


@pytest.mark.parametrize("case", CASES)
def test_sql_server_errors_are_classified_by_their_number(case):
    error, kind = CASES[case]
    assert error_kind("mssql", error) == kind, str(error)


def test_an_error_without_pyodbc_records_is_not_classified():
    assert error_kind("mssql", RuntimeError("lease lost (50001)")) is None


# ---------------------------------------------------------------------------------------------
# Connecting: a database that does not exist, a login refused or a host name that
# does not resolve is a configuration error, raised at the first attempt (ConnectionConfigError, by
# its code in the dialect's table), not waited out for reconnect_timeout as an outage is (before: 30 s
# and 16 warnings, then ConnectionLost). A server that does not answer still is an outage: retried.

import logging  # noqa: E402
import os  # noqa: E402
import uuid  # noqa: E402

from qgen.client import ConnectionConfigError, ConnectionLost, QueueClient  # noqa: E402
from qgen.spec.load import load_spec_text  # noqa: E402

SPEC = load_spec_text("schema: s\nqueues:\n  q:\n    payload:\n      a: int\n", "s.yaml")
UNKNOWN_HOST = "no-such-host.invalid"  # .invalid never resolves (RFC 6761)


def pg_url(**parts):
    from sqlalchemy.engine import make_url

    from tests.support.pg import ADMIN_URL

    return make_url(ADMIN_URL).set(**parts).render_as_string(hide_password=False)


def mssql_url(**parts):
    url = os.environ.get("QGEN_TEST_MSSQL_URL")
    if not url:
        pytest.skip("QGEN_TEST_MSSQL_URL is not set")
    from sqlalchemy.engine import make_url

    return make_url(url).set(**parts).render_as_string(hide_password=False)


MISCONFIGURED = {
    "postgres: no such database": (lambda: pg_url(database=f"qgen_none_{uuid.uuid4().hex[:8]}"), "the database does not exist"),
    "postgres: unknown host": (lambda: pg_url(host=UNKNOWN_HOST), "the host name is unknown"),
    "mssql: no such database": (lambda: mssql_url(database=f"qgen_none_{uuid.uuid4().hex[:8]}"), "the database does not exist"),
    "mssql: wrong password": (lambda: mssql_url(password="not-the-password"), "login failed"),
    # FreeTDS answers 20009 at once, as for a server that is down; Microsoft's driver waits its login timeout
    "mssql: unknown host": (lambda: mssql_url(host=UNKNOWN_HOST, query={"driver": "FreeTDS", "Encrypt": "no"}),
                            "the host name is unknown"),
}


@pytest.mark.parametrize("case", MISCONFIGURED)
def test_a_connection_that_cannot_work_as_configured_fails_at_the_first_attempt(case, caplog, postgres_server):
    url, says = MISCONFIGURED[case]
    target = url()
    with caplog.at_level(logging.WARNING, logger="qgen.client"):
        with pytest.raises(ConnectionConfigError, match=says) as refused:
            QueueClient(target, SPEC, "q", reconnect_timeout=5)
    assert not isinstance(refused.value, ConnectionLost)
    assert refused.value.__cause__ is not None, "the driver's error is the cause"
    assert [r for r in caplog.records if "connecting failed" in r.getMessage()] == [], "not one retry"


def test_a_server_that_does_not_answer_is_an_outage_and_retried(caplog, postgres_server):
    import socket

    with socket.socket() as free:  # a port nobody listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with caplog.at_level(logging.WARNING, logger="qgen.client"):
        with pytest.raises(ConnectionLost):
            QueueClient(pg_url(host="127.0.0.1", port=port), SPEC, "q", reconnect_timeout=0.5)
    assert [r for r in caplog.records if "connecting failed" in r.getMessage()], "retried until reconnect_timeout"


def test_after_a_loss_a_refused_connection_is_waited_out_as_the_loss_is(caplog, postgres_server):
    """A failover can refuse a login or a database for a while (Azure SQL's 4060 while a database
    moves): once a client has connected, a refusal is retried until reconnect_timeout, then
    ConnectionLost, as for any loss."""
    import psycopg

    from qgen import dialects

    missing = dialects.get("postgres").connector(pg_url(database=f"qgen_none_{uuid.uuid4().hex[:8]}"))
    made = []

    def factory():
        if made:
            return missing()  # the database went away
        made.append(psycopg.connect(pg_url(), autocommit=True))
        return made[0]

    client = QueueClient(factory, SPEC, "q", dialect="postgres", reconnect_timeout=0.5)
    made[0].close()
    with caplog.at_level(logging.WARNING, logger="qgen.client"):
        with pytest.raises(ConnectionLost):
            client.metrics()
    assert [r for r in caplog.records if "connecting failed" in r.getMessage()], "retried until reconnect_timeout"
