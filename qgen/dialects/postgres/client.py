"""PostgreSQL's client side (psycopg 3): functions called with SELECT, the worker with CALL, named
arguments (name => value), jsonb parameters, a wake-up LISTEN connection, SQLSTATEs (its error table in
errors.py)."""

from __future__ import annotations

import contextlib
import functools
import json
from typing import Any, Callable, Iterator, Optional, Sequence

from qgen.dialects.client import Batch, ClientSide, Params, json_default, unknown_host
from qgen.dialects.postgres.errors import ERRORS
from qgen.dialects.urls import UnknownDatabase, redacted

# psycopg's own dumps knows no Decimal, datetime or UUID inside a json value: the same serialiser
# as SQL Server's driver (json_default), so a payload is taken alike on both databases.
_DUMPS = functools.partial(json.dumps, default=json_default)


# PostgreSQL's keywords that are not unreserved (pg_get_keywords() catcode R, C or T, PostgreSQL 15): a
# parameter so named is written quoted in a call (limit => 10 is a syntax error; "limit" => 10 is not).
KEYWORDS = frozenset("""
all analyse analyze and any array as asc asymmetric authorization between bigint binary bit boolean both case cast
char character check coalesce collate collation column concurrently constraint create cross current_catalog
current_date current_role current_schema current_time current_timestamp current_user dec decimal default deferrable
desc distinct do else end except exists extract false fetch float for foreign freeze from full grant greatest group
grouping having ilike in initially inner inout int integer intersect interval into is isnull join lateral leading
least left like limit localtime localtimestamp national natural nchar none normalize not notnull null nullif numeric
offset on only or order out outer overlaps overlay placing position precision primary real references returning
right row select session_user setof similar smallint some substring symmetric table tablesample then time timestamp
to trailing treat trim true union unique user using values varchar variadic verbose when where window with
xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable
""".split())


def dsn_keys(dsn: str) -> dict[str, Any]:
    """A libpq DSN's keys; one libpq cannot read is refused without libpq's message, which quotes the
    fragment it stumbled on (part of a password written unquoted with a space, say)."""
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    try:
        return conninfo_to_dict(dsn)
    except ProgrammingError:
        raise UnknownDatabase(f"{redacted(dsn)!r} is not a libpq DSN qgen can read; accepted: key=value pairs separated "
                              "by spaces, a value holding a space or a quote in single quotes (password='a b')") from None


def libpq_target(target: str) -> str:
    """What libpq (psycopg.connect) takes for a URL or DSN qgen takes: SQLAlchemy's
    postgresql+psycopg:// scheme is not libpq's."""
    if target.startswith("postgresql+psycopg://"):
        return "postgresql://" + target[len("postgresql+psycopg://"):]
    return target


class PostgresClient(ClientSide):
    driver_module = "psycopg"
    id_list_literal = "ARRAY{}"  # an example's id list, [17, 18], as a bigint[]
    driver_needed = "PostgreSQL needs psycopg: pip install 'qgen-queues[postgres]'"
    errors = ERRORS

    def example_call(self, routine: str, args: Sequence[tuple[str, str]], shape: str,
                     table_type: Optional[str] = None) -> list[str]:
        named = ", ".join(f"{self.quote(name) if name in KEYWORDS else name} => {self.literal(value)}" for name, value in args)
        return ["-- PostgreSQL", f"CALL {routine}({named});" if shape == "call" else f"SELECT * FROM {routine}({named});"]

    def statement(self, routine: str, params: Params, shape: str) -> str:
        args = ", ".join(f"{self.quote(p)} => %s" for p, _ in params)
        if shape in ("rows", "tuples"):
            return f"SELECT * FROM {routine}({args})"
        if shape == "call":
            return f"CALL {routine}({args})"
        return f"SELECT {routine}({args})"

    def json_in(self, value: Any) -> Any:
        from psycopg.types.json import Jsonb

        return Jsonb(value, dumps=_DUMPS)

    def sqlalchemy_url(self, url: str) -> str:
        """A plain postgresql:// URL would make SQLAlchemy look for psycopg2; qgen uses psycopg 3. A
        libpq DSN (host=... dbname=...) becomes a URL whose query holds its keys."""
        if "://" not in url:  # its password where SQLAlchemy hides it (an earlier env.py prints the URL)
            from sqlalchemy.engine import URL

            keys = dsn_keys(url)
            one_host = str(keys.get("port", "")).isdigit() and "," not in str(keys.get("host", ""))
            host, port = (keys.pop("host", None), keys.pop("port", None)) if one_host else (None, None)
            return URL.create("postgresql+psycopg", username=keys.pop("user", None), password=keys.pop("password", None),
                              host=host, port=int(port) if port else None, database=keys.pop("dbname", None),
                              query=keys).render_as_string(hide_password=False)
        for plain in ("postgresql://", "postgres://"):
            if url.startswith(plain):
                return "postgresql+psycopg://" + url[len(plain):]
        return url

    def connector(self, target: str, timeout: Optional[int] = None) -> Callable[[], Any]:
        url = libpq_target(target)
        if "://" not in url:
            dsn_keys(url)  # refused here, not in libpq's words

        def connect_postgres() -> Any:
            import psycopg

            try:
                extra: dict[str, Any] = {"connect_timeout": timeout} if timeout else {}
                return psycopg.connect(url, autocommit=True, **extra)
            except psycopg.OperationalError as exc:
                if exc.sqlstate is None:  # libpq gives a startup error's code to nobody
                    hosts = str(psycopg.conninfo.conninfo_to_dict(url).get("host") or "").split(",")
                    exc.qgen_errno = unknown_host(hosts)  # type: ignore[attr-defined]
                    if exc.qgen_errno is None:  # type: ignore[attr-defined]
                        exc.qgen_sqlstate = startup_refusal(url, exc)  # type: ignore[attr-defined]
                raise

        return connect_postgres

    def session_limits(self, statement_ms: int, lock_ms: int) -> list[str]:
        return [f"SET statement_timeout = {int(statement_ms)}", f"SET lock_timeout = {int(lock_ms)}"]

    @contextlib.contextmanager
    def transaction(self, connection: Any) -> Iterator[None]:
        with connection.transaction():
            yield

    def batch_call(self, connection: Callable[[], Any], batch: Batch) -> tuple[str, list[tuple[str, Any]]]:
        """enqueue_batch takes the jobs as one jsonb array (read by jsonb_populate_recordset)."""
        from psycopg.types.json import Jsonb

        def jsonable(column: str, value: Any) -> Any:
            if value is None or batch.kinds.get(column) == "json" or isinstance(value, (bool, int, str, float)):
                return value
            return json_default(value)

        return "enqueue_batch", [("jobs", Jsonb(self.json_jobs(batch.records, jsonable), dumps=_DUMPS))]

    def forget_plans(self, connection: Any) -> None:
        """Drop the session's prepared statements, on the server and in psycopg's cache: psycopg
        clears its own when it runs DEALLOCATE ALL (not prepared itself: prepare=False)."""
        connection.execute("DEALLOCATE ALL", prepare=False)

    def codes(self, exc: BaseException) -> tuple[Optional[str], set[int]]:
        """The SQLSTATE (of a refused connection: the one startup_refusal found)."""
        return getattr(exc, "sqlstate", None) or getattr(exc, "qgen_sqlstate", None), set()

    def session_ended(self, exc: BaseException, state: Optional[str], connection: Any) -> bool:
        """psycopg reports a closed socket as an OperationalError without SQLSTATE, and marks a
        connection it found broken."""
        try:
            import psycopg
        except ImportError:  # pragma: no cover - a postgres client always has psycopg
            return False
        if state is None and isinstance(exc, psycopg.OperationalError):
            return True
        return isinstance(exc, psycopg.Error) and bool(getattr(connection, "broken", False))


# Databases every PostgreSQL cluster has, to ask from whether another one exists.
MAINTENANCE_DATABASES = ("postgres", "template1")


def startup_refusal(url: str, exc: Any) -> Optional[str]:
    """The SQLSTATE of a connection the server refused at startup, which libpq keeps to itself
    (psycopg's OperationalError carries none), found out without reading the message: None when the
    server did not answer (PQping: not running, or not reachable: an outage, retried) or when the
    reason cannot be told.
    - libpq's own flag: the server asked for a password and none was given: 28P01.
    - The same login to a maintenance database (postgres, template1) succeeds and pg_database has no
      row of the database's name: 3D000.
    - It fails there too after a password was sent (libpq's used-password flag on both): 28P01 (or a
      role's connection limit reached: rare, and then the caller retries the client).
    """
    import psycopg

    pgconn = getattr(exc, "pgconn", None)
    if pgconn is None or psycopg.pq.PGconn.ping(url.encode()) != psycopg.pq.Ping.OK:
        return None
    if pgconn.needs_password:
        return "28P01"
    database = (pgconn.db or b"").decode(errors="replace")
    for maintenance in MAINTENANCE_DATABASES:
        if maintenance == database:
            continue
        try:
            with psycopg.connect(url, dbname=maintenance, autocommit=True, connect_timeout=5) as probe:
                found = probe.execute("SELECT 1 FROM pg_catalog.pg_database WHERE datname = %s", (database,)).fetchone()
            return None if found else "3D000"
        except psycopg.OperationalError as refused:
            probed = getattr(refused, "pgconn", None)
            if probed is not None and probed.used_password and pgconn.used_password:
                return "28P01"
    return None
