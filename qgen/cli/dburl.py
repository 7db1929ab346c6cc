"""Open a DB-API connection from a database URL, for the commands that run against a database
(qgen maintain, status, redrive): the forms qgen/dialects/urls.py knows, as Alembic, `qgen bench` and the
client take them.

    postgresql://USER:PASS@HOST:5432/DB  (also postgres://, postgresql+psycopg://, a libpq DSN): psycopg 3
    mssql+pyodbc://USER:PASS@HOST:1433/DB[?driver=...&Key=value] (also mssql://, an ODBC connection
        string): pyodbc; every query key other than driver goes into the ODBC connection string
        (without driver: Microsoft's ODBC Driver 18 that qgen[mssql] installs, loaded by path; else FreeTDS)

Errors come back as DatabaseUnavailable with a message for a person (the password hidden), never a
driver traceback.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from qgen.client.connection import mssql_connection_string
from qgen.dialects.urls import UnknownDatabase, database_of

URL_ENV = "QGEN_DATABASE_URL"


class DatabaseUnavailable(Exception):
    """The URL is not one qgen knows, its driver is missing, or the server refused the connection."""


def shown(url: str) -> str:
    """The URL with its password hidden, for messages."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return re.sub(r"(//[^:/@]+:)[^@]*@", r"\1***@", url)


def _postgres(url: str) -> Any:
    try:
        import psycopg
    except ImportError:
        raise DatabaseUnavailable("PostgreSQL needs psycopg: pip install 'qgen-queues[postgres]'") from None
    plain = re.sub(r"^[a-z0-9+]+://", "postgresql://", url, count=1)
    try:
        return psycopg.connect(plain, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise DatabaseUnavailable(f"cannot connect to {shown(url)}: {str(exc).strip()}") from None


def odbc_connection_string(url: str) -> str:
    """The ODBC connection string pyodbc takes, from an mssql+pyodbc:// URL (qgen/client/connection.py), or
    the connection string itself."""
    return mssql_connection_string(url) if "://" in url else url


def _mssql(url: str) -> Any:
    try:
        import pyodbc
    except ImportError:
        raise DatabaseUnavailable("SQL Server needs pyodbc: pip install 'qgen-queues[mssql]' (it brings Microsoft's "
                                  "ODBC Driver 18; or Debian's tdsodbc with driver=FreeTDS)") from None
    try:
        return pyodbc.connect(odbc_connection_string(url), autocommit=True, timeout=10)
    except pyodbc.Error as exc:
        raise DatabaseUnavailable(f"cannot connect to {shown(url)}: {exc}") from None


_CONNECTORS: dict[str, Callable[[str], Any]] = {"postgres": _postgres, "mssql": _mssql}


def connect(url: str) -> Any:
    """An autocommit DB-API connection to the database the URL names."""
    try:
        database = database_of(url)
    except UnknownDatabase as exc:
        raise DatabaseUnavailable(str(exc)) from None
    return _CONNECTORS[database](url)
