"""Review (DBA): a SQLAlchemy URL carrying an ODBC connection string in odbc_connect= (which Alembic's env.py
takes, and which the redaction rule handles as a form qgen takes) is mangled by the commands' and the client's
connector: the embedded string is pasted in as a key, and SERVER defaults to 127.0.0.1,1433."""

from __future__ import annotations

from urllib.parse import quote_plus

from qgen.dialects.mssql.odbc import mssql_connection_string

ODBC = "DRIVER={FreeTDS};SERVER=db.example.com,14330;DATABASE=app;UID=app;PWD=pw;Encrypt=no"


def test_odbc_connect_url_reaches_pyodbc_as_its_connection_string():
    built = mssql_connection_string("mssql+pyodbc:///?odbc_connect=" + quote_plus(ODBC))
    assert "odbc_connect" not in built, built
    assert "SERVER=db.example.com,14330" in built and "127.0.0.1" not in built, built


def test_worker_with_a_malformed_sql_server_url_is_one_line_not_a_traceback(tmp_path, monkeypatch, capsys):
    """qgen worker: '1 when the database cannot be reached (said at once, not retried)'; a SQL Server URL
    whose port is not a number escapes qgen.cli.dburl.connect as a raw ValueError traceback (qgen status
    says it in one line)."""
    from qgen.cli import main as qgen_main
    from tests.conftest import ROOT

    (tmp_path / "hmod.py").write_text("def h(job):\n    pass\n")
    monkeypatch.chdir(tmp_path)
    code = qgen_main(["worker", str(ROOT / "examples" / "004_rainfall.yaml"), "rainfall_events", "--handler", "hmod:h",
                      "--url", "mssql+pyodbc://sa:pw@127.0.0.1:notaport/db"])
    assert code == 1
