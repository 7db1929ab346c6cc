"""SQL Server errors are classified by the error number pyodbc reports for each diagnostic record,
not by numbers found anywhere in the message (issue 10, item 12). The point is parsing the driver's
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
    # Issue 15, item 17: a value the server quotes in a second record, shaped like a record's end.
    # 2601 is a duplicate key (issue 18: in the error table, as PostgreSQL's 23505); the quoted 50001,
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
