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

from typing import Any

from qgen import dialects
from qgen.dialects.urls import UnknownDatabase, database_of, hidden_in, redacted

URL_ENV = "QGEN_DATABASE_URL"
CONNECT_TIMEOUT = 10  # seconds: a command gives up on a server that does not answer


class DatabaseUnavailable(Exception):
    """The URL is not one qgen knows, its driver is missing, or the server refused the connection."""


def shown(url: str) -> str:
    """The URL with its password hidden, for messages (qgen.dialects.urls.redacted)."""
    return redacted(url)


def connect(url: str) -> Any:
    """An autocommit DB-API connection to the database the URL names, opened by its database's
    connector (qgen.dialects)."""
    url = url.strip()  # a URL pasted with a blank around it names the same database
    try:
        database = dialects.get(database_of(url))
    except UnknownDatabase as exc:
        raise DatabaseUnavailable(str(exc)) from None
    try:
        return database.connector(url, timeout=CONNECT_TIMEOUT)()
    except ImportError:
        raise DatabaseUnavailable(database.driver_needed) from None
    except UnknownDatabase as exc:
        raise DatabaseUnavailable(str(exc)) from None
    except Exception as exc:
        if type(exc).__module__.split(".")[0] != database.driver_module:
            raise
        answer = hidden_in(" ".join(str(exc).split()), url)
        raise DatabaseUnavailable(f"cannot connect to {redacted(url)}: {answer}") from None
