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
    _check_url(text)
    scheme = text.split("://", 1)[0].lower() if "://" in text else text.lower()
    if scheme in SCHEMES:
        return SCHEMES[scheme]
    if "://" not in text and re.match(r"(?i)driver\s*=", text):
        return "mssql"
    if "://" not in text and "=" in text:
        return "postgres"
    raise UnknownDatabase(f"{redacted(target)!r} is not a database URL qgen knows; accepted: {ACCEPTED}")


# The keys whose values are secrets: a password, ODBC's PWD, libpq's sslpassword (the passphrase of
# the client's SSL key).
SECRET_KEYS = ("password", "pwd", "sslpassword")
_PASSWORD_KEY = r"(?i)(\b(?:sslpassword|password|pwd)\s*=\s*)"
# A DSN's unquoted value: to the next " key=" (libpq would stop at the space and stumble on the rest,
# which is still the password the user meant).
_DSN_BARE = r"(?:(?!\s+[A-Za-z_]\w*\s*=).)*"
def _pair_value(text: str) -> str:
    """The pattern of one key=value pair's value: {braced} (ODBC), 'quoted' (libpq), or bare to the
    next ; (an ODBC string) or the next " key=" (a DSN)."""
    bare = r"[^;]*" if ";" in text else _DSN_BARE
    return r"(?:\{(?:[^}]|\}\})*\}?|'(?:[^'\\]|\\.)*'?|" + bare + ")"


_STRAY_PERCENT = r"%(?![0-9A-Fa-f]{2})"


def _secret_key(key: str) -> bool:
    """Whether a query key names a secret: as the driver reads it, %-decoded (libpq reads pass%77ord as
    password)."""
    return unquote_plus(key).strip().lower() in SECRET_KEYS


def _split_url(text: str) -> tuple[str, str, str]:
    """A URL's user info, host[:port] and query (its password may hold ?, / or an unescaped @)."""
    rest = text.split("://", 1)[1]
    query = rest.find("?")
    at = rest.rfind("@", 0, query if query >= 0 else len(rest))
    user_info = rest[:at] if at >= 0 else ""
    after = rest[at + 1:] if at >= 0 else rest
    where, _, query_text = after.partition("?")
    return user_info, re.split(r"[/#]", where, maxsplit=1)[0], query_text


def _check_url(text: str) -> None:
    """What a driver would refuse with a secret in its message, or with a traceback, is refused here,
    saying what is accepted: an @ or a stray % in a URL's user info, a stray % in a secret query
    value (libpq quotes the whole token), a port that is no number from 1 to 65535."""
    if "://" not in text:
        return
    user_info, where, query = _split_url(text)
    if "@" in user_info:
        raise UnknownDatabase(f"{redacted(text)!r}: its user name or password holds an @; accepted: @ written as %40 "
                              "there (quote_plus in Python), or a libpq DSN / ODBC connection string")
    secrets = [value for key, _, value in (item.partition("=") for item in query.split("&"))
               if _secret_key(key)]
    if any(re.search(_STRAY_PERCENT, part) for part in [user_info, *secrets]):
        raise UnknownDatabase(f"{redacted(text)!r}: its user name or password holds a % that is not an escape; "
                              "accepted: % written as %25 there (quote_plus in Python)")
    if where.count("[") != where.count("]"):
        raise UnknownDatabase(f"{redacted(text)!r}: its host has an unclosed [; accepted: [IPv6 address] or a host name")
    host_port = where.rsplit("]", 1)[-1]  # [IPv6]:port
    if ":" in host_port:
        port = host_port.rsplit(":", 1)[1]
        if port and not (port.isdigit() and 1 <= int(port) <= 65535):
            raise UnknownDatabase(f"{redacted(text)!r}: its port {port!r} is not a port; accepted: a number from 1 to "
                                  "65535 (or none, for the default)")
    from sqlalchemy.engine import make_url

    try:
        make_url(text)
    except Exception:  # noqa: BLE001 (its message may quote the password: not shown)
        raise UnknownDatabase(f"{redacted(text)!r} is not a URL qgen can read; accepted: {ACCEPTED}") from None


def secrets_of(target: str) -> list[str]:
    """The secret values in a URL, DSN or connection string, as written and %-decoded: a driver's
    message may quote one (libpq: 'invalid percent-encoded token: "..."')."""
    text = str(target)
    found: list[str] = []
    if "://" in text:
        user_info, _, query = _split_url(text)
        if ":" in user_info:
            found.append(user_info.split(":", 1)[1])
        for key, _, value in (item.partition("=") for item in query.split("&")):
            if _secret_key(key):
                found.append(value)
            elif re.search(_PASSWORD_KEY, unquote_plus(value)):
                found += secrets_of(unquote_plus(value))
    else:
        for match in re.finditer(_PASSWORD_KEY + "(" + _pair_value(text) + ")", text):
            found.append(match.group(2).strip("{}'"))
    return [s for value in found for s in {value, unquote_plus(value)} if len(s) >= 3]


def hidden_in(message: str, target: str) -> str:
    """A driver's or a library's message about target, with target's secrets hidden wherever it
    quotes them."""
    shown = redacted(message)
    for secret in sorted(secrets_of(target), key=len, reverse=True):
        shown = shown.replace(secret, "***")
    return shown


def redacted(target: str) -> str:
    """The URL, DSN or connection string with every password in it hidden, for messages: a URL's
    user:password@ (to the last @ before its query, so an unescaped @ in the password is hidden
    too), a password=/pwd= query key and a connection string inside one (odbc_connect=), and the
    password=/PWD= key of a libpq DSN ('quoted') or of an ODBC connection string ({braced})."""
    text = str(target)
    return _redacted_url(text) if "://" in text else _redacted_pairs(text)


def _redacted_url(text: str) -> str:
    head = re.match(r"(?s)(\s*[A-Za-z][\w+.-]*://[^:/@?#]*:)(.*)", text)
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
        if _secret_key(key):
            value = "***"
        elif re.search(_PASSWORD_KEY, unquote_plus(value)):  # a connection string inside (odbc_connect=)
            value = quote_plus(_redacted_pairs(unquote_plus(value))).replace(quote_plus("***"), "***")
        items.append(key + equals + value)
    return base + mark + "&".join(items)


def _redacted_pairs(text: str) -> str:
    """key=value pairs: an ODBC connection string (;-separated, {braced} values) or a libpq DSN
    (space-separated, 'quoted' values)."""
    value = _pair_value(text)
    return re.sub(_PASSWORD_KEY + value, r"\1***", text)
