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
from urllib.parse import quote_plus, unquote_plus

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
    _check_user_info(text)
    scheme = text.split("://", 1)[0].lower() if "://" in text else text.lower()
    if scheme in SCHEMES:
        return SCHEMES[scheme]
    if "://" not in text and re.match(r"(?i)driver\s*=", text):
        return "mssql"
    if "://" not in text and "=" in text:
        return "postgres"
    raise UnknownDatabase(f"{redacted(target)!r} is not a database URL qgen knows; accepted: {ACCEPTED}")


_PASSWORD_KEY = r"(?i)(\b(?:password|pwd)\s*=\s*)"


def _check_user_info(text: str) -> None:
    """A URL's user name and password must be %-escaped: an @ in them would hand the driver part of
    the password as the host name (and its error message would show it), a % not followed by two hex
    digits is refused by the driver with the password in its message."""
    if "://" not in text:
        return
    rest = text.split("://", 1)[1]
    query = rest.find("?")
    at = rest.rfind("@", 0, query if query >= 0 else len(rest))
    user_info = rest[:at] if at >= 0 else ""
    if "@" in user_info:
        raise UnknownDatabase(f"{redacted(text)!r}: its user name or password holds an @; accepted: @ written as %40 "
                              "there (quote_plus in Python), or a libpq DSN / ODBC connection string")
    if re.search(r"%(?![0-9A-Fa-f]{2})", user_info):
        raise UnknownDatabase(f"{redacted(text)!r}: its user name or password holds a % that is not an escape; "
                              "accepted: % written as %25 there (quote_plus in Python)")


def redacted(target: str) -> str:
    """The URL, DSN or connection string with every password in it hidden, for messages: a URL's
    user:password@ (to the last @ before its query, so an unescaped @ in the password is hidden
    too), a password=/pwd= query key and a connection string inside one (odbc_connect=), and the
    password=/PWD= key of a libpq DSN ('quoted') or of an ODBC connection string ({braced})."""
    text = str(target)
    return _redacted_url(text) if "://" in text else _redacted_pairs(text)


def _redacted_url(text: str) -> str:
    head = re.match(r"(?s)([A-Za-z][\w+.-]*://[^:/@?#]*:)(.*)", text)
    if head:
        rest = head.group(2)
        query = rest.find("?")
        at = rest.rfind("@", 0, query if query >= 0 else len(rest))
        if at < 0:
            at = rest.rfind("@")
        if at >= 0:
            text = head.group(1) + "***" + rest[at:]
    base, mark, query = text.partition("?")
    items = []
    for item in query.split("&") if mark else []:
        key, equals, value = item.partition("=")
        if key.strip().lower() in ("password", "pwd"):
            value = "***"
        elif re.search(_PASSWORD_KEY, unquote_plus(value)):  # a connection string inside (odbc_connect=)
            value = quote_plus(_redacted_pairs(unquote_plus(value))).replace(quote_plus("***"), "***")
        items.append(key + equals + value)
    return base + mark + "&".join(items)


def _redacted_pairs(text: str) -> str:
    """key=value pairs: an ODBC connection string (;-separated, {braced} values) or a libpq DSN
    (space-separated, 'quoted' values)."""
    bare = r"[^;]*" if ";" in text else r"\S*"
    value = r"(?:\{(?:[^}]|\}\})*\}?|'(?:[^'\\]|\\.)*'?|" + bare + ")"
    return re.sub(_PASSWORD_KEY + value, r"\1***", text)
