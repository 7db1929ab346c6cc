"""Which database a URL or connection string names: the one place qgen decides it (the client's
connection_factory, the commands' --url, Alembic's env.py, a running revision and the bench ask here).

    postgresql://USER:PASS@HOST:5432/DB (also postgres://, postgresql+psycopg://)  -> postgres
    a libpq DSN: host=HOST dbname=DB ...                                          -> postgres
    mssql+pyodbc://USER:PASS@HOST:1433/DB[?driver=...] (also mssql://)            -> mssql
    an ODBC connection string: DRIVER={...};SERVER=...                            -> mssql

A URL's scheme alone (SQLAlchemy's dialect name, all a running Alembic knows of its database) counts
as its URL. Anything else is UnknownDatabase, naming the forms accepted (the password hidden).
"""

from __future__ import annotations

import re

# A URL's scheme (SQLAlchemy's drivername: dialect[+driver]) -> the qgen dialect of its database.
SCHEMES = {
    "postgresql": "postgres", "postgres": "postgres", "postgresql+psycopg": "postgres",
    "mssql": "mssql", "mssql+pyodbc": "mssql",
}
ACCEPTED = ("postgresql://USER@HOST:PORT/DB (or postgres://, postgresql+psycopg://), a libpq DSN (host=... dbname=...), "
            "mssql+pyodbc://USER:PASS@HOST:PORT/DB?driver=FreeTDS (or mssql://), "
            "or an ODBC connection string (DRIVER=...;SERVER=...)")


class UnknownDatabase(ValueError):
    """A URL or connection string whose database qgen does not know."""


def database_of(target: str) -> str:
    """The qgen dialect ("postgres", "mssql") of the database a URL, a DSN or a URL's scheme names."""
    text = target.strip()
    scheme = text.split("://", 1)[0].lower() if "://" in text else text.lower()
    if scheme in SCHEMES:
        return SCHEMES[scheme]
    if "://" not in text and re.match(r"(?i)driver\s*=", text):
        return "mssql"
    if "://" not in text and "=" in text:
        return "postgres"
    raise UnknownDatabase(f"{redacted(target)!r} is not a database URL qgen knows; accepted: {ACCEPTED}")


def redacted(target: str) -> str:
    """The URL or connection string with its password hidden, for messages."""
    target = re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", target)
    return re.sub(r"(?i)((?:PWD|password)\s*=\s*)[^;\s]*", r"\1***", target)
