"""The SQL Server client's drivers: Microsoft's ODBC Driver 18 (qgen[mssql], loaded by path) is the
one a URL without driver= gets, and it is known to send table-valued parameters; FreeTDS, the
fallback, is known not to, and a queue works through it end to end (the batch goes as JSON).
The live half runs on the server QGEN_TEST_MSSQL_URL names (Babelfish in CI)."""

from __future__ import annotations

import contextlib
import os

import pytest

from qgen.client import QueueClient
from qgen.client.connection import mssql_connection_string, tvp_capable
from qgen.dialects.mssql.odbc import FREETDS, MICROSOFT_ODBC, microsoft_odbc_path, odbc_driver
from tests.conftest import EXAMPLES
from tests.support.backends import mssql_server as server  # noqa: F401 (a fixture)

RAINFALL = next(p for p in EXAMPLES if p.stem == "004_rainfall")


def test_a_url_without_a_driver_gets_microsofts_by_path_with_the_port_in_server():
    path = microsoft_odbc_path()
    assert path and os.path.isfile(path), "qgen[mssql] installs mssql-python-odbc"
    text = mssql_connection_string("mssql+pyodbc://u:p@db.example:1444/app?Encrypt=no")
    assert text.startswith("DRIVER={" + path + "};SERVER=db.example,1444;DATABASE=app;")
    freetds = mssql_connection_string("mssql+pyodbc://u:p@db.example:1444/app?driver=FreeTDS&TDS_Version=7.4")
    assert freetds.startswith("DRIVER={FreeTDS};SERVER=db.example;PORT=1444;DATABASE=app;")


@pytest.mark.parametrize("name, driver", [
    ("libmsodbcsql-18.6.so.2.1", MICROSOFT_ODBC), ("msodbcsql18.dll", MICROSOFT_ODBC),
    ("ODBC Driver 18 for SQL Server", MICROSOFT_ODBC), ("{ODBC Driver 17 for SQL Server}", MICROSOFT_ODBC),
    ("libtdsodbc.so", FREETDS), ("FreeTDS", FREETDS), ("/usr/lib/x86_64-linux-gnu/odbc/libtdsodbc.so", FREETDS),
])
def test_each_driver_is_known_with_what_it_can_do(name, driver):
    assert odbc_driver(name) is driver
    assert tvp_capable(name) is driver.sends_table_valued_parameters


def test_an_unknown_driver_is_not_trusted_with_a_tvp():
    assert not tvp_capable("sqlsrv32.dll") and not odbc_driver("sqlsrv32.dll").port_in_server


def test_the_tests_connect_through_microsofts_driver(server):
    import pyodbc

    with contextlib.closing(server.connect(autocommit=True)) as conn:
        name = conn.getinfo(pyodbc.SQL_DRIVER_NAME)
    if "driver=" not in server.url.lower():
        assert odbc_driver(name) is MICROSOFT_ODBC, name


def test_a_queue_works_through_freetds(server):
    """Smoke test of the fallback: enqueue_many (as JSON: FreeTDS sends no TVP), dequeue, complete."""
    import pyodbc
    from sqlalchemy.engine import make_url

    installed = server.install(RAINFALL)
    installed.reset()
    url = make_url(server.url)
    query = {k: v for k, v in url.query.items() if k.lower() not in ("driver", "encrypt", "trustservercertificate")}
    freetds_url = url.set(query={**query, "driver": "FreeTDS", "TDS_Version": "7.4"}).render_as_string(hide_password=False)
    conn = pyodbc.connect(mssql_connection_string(freetds_url, server.database), autocommit=True)
    try:
        assert odbc_driver(conn.getinfo(pyodbc.SQL_DRIVER_NAME)) is FREETDS
        client = QueueClient(conn, installed.spec, "rainfall_events")
        assert client._session.driver.batch_as_json(client._session.connected)
        results = client.enqueue_many([{"rainfall_id": 1}, {"rainfall_id": 2}])
        assert [r.ordinal for r in results] == [1, 2] and all(r.enqueued for r in results)
        jobs = client.dequeue(batch_size=5)
        assert sorted(j.payload["rainfall_id"] for j in jobs) == [1, 2]
        assert all(client.complete(job, no_result=True) == 1 for job in jobs)
        assert client.metrics()["processed"] == 2
    finally:
        conn.close()


def test_a_decimal_column_gets_a_decimal_whatever_number_is_given(server):
    """A TVP column takes one Python type (pyodbc types it by its first row): enqueue_many with
    amount 1234.5 in one job and 0 in the next raised "Expected Decimal but got int" before any SQL
    was sent, through Microsoft's driver, on every SQL Server."""
    from decimal import Decimal

    from tests.conftest import COVERAGE_SPECS

    feat = next(p for p in COVERAGE_SPECS if p.stem == "features_lease")
    installed = server.install(feat)
    with contextlib.closing(server.connect(autocommit=True)) as conn:
        client = QueueClient(conn, installed.spec, "jobs")
        values = [client._shape.value_in("amount", v) for v in (Decimal("1234.5"), 0, 2.5)]
    assert [type(v) for v in values] == [Decimal] * 3 and values[1:] == [Decimal(0), Decimal("2.5")]


def test_a_batch_goes_as_a_table_valued_parameter_through_python_tds(server):
    """enqueue_batch takes its jobs as a table-valued parameter. Microsoft's driver cannot send one to
    Babelfish (gap B12), so that path runs there through python-tds, which sends TVPs that Babelfish
    and SQL Server take: the jobs in ordinal order, one id each, ids rising with the ordinals.
    (qgen's client speaks pyodbc only; python-tds here calls the procedure itself.)"""
    from sqlalchemy.engine import make_url

    from qgen.spec.model import object_name
    from tests.conftest import require

    try:
        import pytds
    except ImportError:
        require("python-tds is not installed (a test dependency): pip install -e '.[test]'")

    installed = server.install(RAINFALL)
    installed.reset()
    spec, queue = installed.spec, "rainfall_events"
    url = make_url(server.url)
    batch_type = f"{spec.schema}.{object_name(spec, queue, 'batch_type')}"
    procedure = f"[{spec.schema}].[{object_name(spec, queue, 'enqueue_batch')}]"
    with contextlib.closing(pytds.connect(dsn=url.host or "127.0.0.1", port=url.port or 1433, database=server.database,
                                          user=url.username, password=url.password, autocommit=True)) as conn:
        cursor = conn.cursor()
        jobs = pytds.TableValuedParam(type_name=batch_type, rows=[(1, 30), (2, 10), (3, 20)])
        cursor.execute(f"EXEC {procedure} @jobs = %s", (jobs,))
        results = [tuple(row) for row in cursor.fetchall()]
        assert [r[0] for r in results] == [1, 2, 3] and all(r[2] for r in results), results
        assert [r[1] for r in results] == sorted(r[1] for r in results)
        cursor.execute(f"SELECT [id], [rainfall_id] FROM [{spec.schema}].[{object_name(spec, queue, 'table')}] ORDER BY [id]")
        assert [tuple(row) for row in cursor.fetchall()] == [(r[1], n) for r, n in zip(results, (30, 10, 20))]
