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
