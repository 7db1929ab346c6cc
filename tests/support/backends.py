"""The databases the behavioural tests run against, one per dialect, and a fresh queue per test.

PostgreSQL: the local server (tests/support/pg.py: 127.0.0.1:5432, or QGEN_TEST_PG_URL). Each test
session creates its own scratch database, installs each spec it needs there (every spec has its own
schema) from the rendered install.sql, and at the end runs each spec's uninstall.sql (roles belong to
the cluster, not the database: uninstalling drops them) before dropping the database. The roles are
this run's own (tests/support/run.py: the spec is rendered with <role>_<run token>), so that another
run of the suite on the same server never grants, uses or drops them.
The `backend` fixture is package-scoped (tests/behaviour is a package), so "the end" is when the
behavioural tests are done, before the rest of the session: tests/test_postgres_install.py checks that
an uninstall leaves no role behind, which grants still held by this database would prevent.

SQL Server: only when QGEN_TEST_MSSQL_URL is set, in SQLAlchemy's URL form

    mssql+pyodbc://USER:PASSWORD@HOST:1433/DATABASE?driver=FreeTDS&TDS_Version=7.4

(DATABASE is where the session connects first, e.g. master; every query key other than driver is
passed on to the ODBC connection string; driver defaults to FreeTDS, the driver Debian's tdsodbc
registers). The login needs CREATE DATABASE and, for the grants tests, CREATE LOGIN (sa in a
container will do). Each session creates its own database there, installs each spec by running the
batches of its install.sql (split on GO by qgen.dialects.mssql's split_batches), and drops the database
and the logins it made at the end. Without the variable every SQL Server test is skipped, with the
reason. Nothing is ever faked: a test runs against a real database or does not run.

Tests use the `use_spec` fixture: use_spec(path) -> QueueEnv, installed and emptied for this test
(tables truncated, identities restarted, watermarks back to 0), with connections closed afterwards.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import pytest

from qgen.client import QueueClient
from qgen.client.connection import mssql_connection_string as _odbc_string
from qgen.dialects.mssql import MssqlDatabase
from qgen.render.engine import Rendering, render_spec
from qgen.spec.model import Spec, object_name
from qgen.spec.load import load_spec
from tests.support.babelfish import (GAPS, REWRITTEN, chain_ownership, creates_procedure, is_babelfish, rewrite, server_ddl,
                                     send_datetimes_as_text)
from tests.support.run import named, run_spec

split_batches = MssqlDatabase().split_batches

MSSQL_URL_ENV = "QGEN_TEST_MSSQL_URL"
BABELFISH_LOCK_TIMEOUT_MS = 15000
MSSQL_MISSING = f"{MSSQL_URL_ENV} is not set: no SQL Server to test against"
DIALECTS = ("postgres", "mssql")

# The tables a queue may have, emptied between tests.
_TABLE_KINDS = ("table", "dead_letter_table", "archive_table", "outbox_table")

# What must exist before a spec is installed: example 000's worker calls a handler the user writes.
# This one records every call in four.handled and raises for reputation 13, so a test can see a
# failing handler fail its job.
BEFORE_INSTALL: dict[tuple[str, str], list[str]] = {
    ("000_flag_worker", "postgres"): ["""
CREATE SCHEMA IF NOT EXISTS four;
CREATE TABLE IF NOT EXISTS four.handled (job_id bigint NOT NULL, reputation integer NOT NULL);
CREATE OR REPLACE PROCEDURE four.count_users_with_reputation(id bigint, reputation integer)
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO four.handled (job_id, reputation) VALUES (id, reputation);
    IF reputation = 13 THEN
        RAISE EXCEPTION 'no users with unlucky reputation %', reputation;
    END IF;
END
$$;
"""],
    ("000_flag_worker", "mssql"): [
        "IF SCHEMA_ID(N'four') IS NULL EXEC(N'CREATE SCHEMA [four] AUTHORIZATION [dbo];');",
        "IF OBJECT_ID(N'four.handled', N'U') IS NULL "
        "CREATE TABLE [four].[handled] ([job_id] bigint NOT NULL, [reputation] int NOT NULL);",
        """CREATE OR ALTER PROCEDURE [four].[count_users_with_reputation] @id bigint, @reputation int
AS
BEGIN
    SET NOCOUNT ON;
    INSERT INTO [four].[handled] ([job_id], [reputation]) VALUES (@id, @reputation);
    IF @reputation = 13
        THROW 50100, N'no users with unlucky reputation 13', 1;
END;""",
    ],
    # The reference page's queue (tests/behaviour/test_reference_examples.py): its worker's handler does nothing.
    ("reference", "postgres"): ["""
CREATE SCHEMA IF NOT EXISTS qgref;
CREATE OR REPLACE PROCEDURE qgref.handle(id bigint, n integer) LANGUAGE plpgsql AS $$ BEGIN END $$;
"""],
    ("reference", "mssql"): [
        "IF SCHEMA_ID(N'qgref') IS NULL EXEC(N'CREATE SCHEMA [qgref] AUTHORIZATION [dbo];');",
        "CREATE OR ALTER PROCEDURE [qgref].[handle] @id bigint, @n int AS BEGIN SET NOCOUNT ON; END;",
    ],
}
# Extra tables a spec's tests write to, emptied with the queue's.
EXTRA_TABLES = {"000_flag_worker": [("four", "handled")]}


def quote(dialect: str, name: str) -> str:
    return '"' + name.replace('"', '""') + '"' if dialect == "postgres" else "[" + name.replace("]", "]]") + "]"


# ---------------------------------------------------------------------------------------------
# Backends: one database per session and dialect


class Backend:
    dialect: str
    babelfish = False  # the T-SQL engine is Babelfish, not SQL Server (tests/support/babelfish.py)

    def __init__(self) -> None:
        self._installed: dict[Path, "InstalledSpec"] = {}
        self._cleanup = contextlib.ExitStack()

    # Provided by each dialect
    def connect(self, autocommit: bool = False, login: Optional[tuple[str, str]] = None) -> Any: ...
    def run_script(self, script: str) -> None: ...
    def create_login(self, role: str) -> tuple[str, str]: ...
    def drop_login(self, login: tuple[str, str]) -> None: ...
    def _uninstall(self, installed: "InstalledSpec") -> None: ...

    def release(self, conn: Any, login: Optional[tuple[str, str]] = None) -> None:
        """A test is done with a connection connect() gave it."""
        with contextlib.suppress(Exception):
            conn.close()

    def install(self, path: Path) -> "InstalledSpec":
        path = Path(path).resolve()
        if path not in self._installed:
            spec = run_spec(load_spec(path))
            rendering = render_spec(spec, path.name, self.dialect)
            for script in BEFORE_INSTALL.get((path.stem, self.dialect), []):
                self.run_script(script)
            self.run_script(rendering.install)
            self._installed[path] = InstalledSpec(self, path, spec, rendering)
        return self._installed[path]

    def close(self) -> None:
        try:
            for installed in reversed(list(self._installed.values())):
                self._uninstall(installed)
        finally:
            self._cleanup.close()


class PostgresBackend(Backend):
    dialect = "postgres"

    def __init__(self) -> None:
        super().__init__()
        from tests.support.pg import scratch_database

        self.url = self._cleanup.enter_context(scratch_database("qgen_behaviour"))

    @property
    def database_url(self) -> str:
        """The URL of the session's database, as `qgen ... --url` takes it."""
        return self.url

    def connect(self, autocommit: bool = False, login: Optional[tuple[str, str]] = None) -> Any:
        import psycopg

        if login:
            return psycopg.connect(self.url, autocommit=autocommit, user=login[0], password=login[1])
        return psycopg.connect(self.url, autocommit=autocommit)

    def run_script(self, script: str) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("SET client_min_messages = warning")
            conn.execute(script)

    def _uninstall(self, installed: "InstalledSpec") -> None:
        # Roles belong to the cluster: uninstall drops them before the database goes (with the jobs
        # the tests left, which uninstall drops only when told to).
        self.run_script(installed.rendering.force_uninstall + installed.rendering.uninstall)

    def create_login(self, role: str) -> tuple[str, str]:
        name = named(f"qgen_bt_{uuid.uuid4().hex[:8]}")  # roles belong to the cluster: this run's token
        self.run_script(f"CREATE ROLE {quote('postgres', name)} LOGIN IN ROLE {quote('postgres', role)}")
        return name, ""  # trust authentication on 127.0.0.1

    def drop_login(self, login: tuple[str, str]) -> None:
        self.run_script(f"DROP ROLE IF EXISTS {quote('postgres', login[0])}")


def mssql_connection_string(url: str, database: Optional[str] = None) -> str:
    """An ODBC connection string for pyodbc from mssql+pyodbc://user:pass@host:port/db?driver=...&Key=value."""
    try:
        return _odbc_string(url, database)
    except ValueError:
        raise ValueError(f"{MSSQL_URL_ENV} must look like mssql+pyodbc://user:pass@host:1433/db?driver=FreeTDS&TDS_Version=7.4") from None


class MssqlBackend(Backend):
    dialect = "mssql"

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.database = f"qgen_behaviour_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        self._logins: list[str] = []
        # B23 (Babelfish): a session's first call of a procedure compiles it (about a second); later
        # calls take milliseconds. The owner's sessions a test leaves as it found them are kept here
        # and handed to the next test (release); anything else a test did to one closes it.
        self._idle: list[Any] = []  # their states stay in _fresh
        self._idle_lock = threading.Lock()
        self._fresh: dict[int, tuple] = {}
        with self._server() as conn:
            # Babelfish (tests/support/babelfish.py): the harness rewrites what it sends around its gaps.
            self.babelfish = is_babelfish(conn)
            with server_ddl(self.url, self.babelfish):
                conn.cursor().execute(f"CREATE DATABASE {quote('mssql', self.database)}")
        self._cleanup.callback(self._drop_database)

    @property
    def database_url(self) -> str:
        """The URL of the session's database, as `qgen ... --url` takes it (QGEN_TEST_MSSQL_URL names master)."""
        from sqlalchemy.engine import make_url

        return make_url(self.url).set(database=self.database).render_as_string(hide_password=False)

    def _server(self) -> Any:
        import pyodbc

        return contextlib.closing(pyodbc.connect(mssql_connection_string(self.url), autocommit=True))

    def _drop_database(self) -> None:
        with self._server() as conn:
            cursor = conn.cursor()
            name = quote("mssql", self.database)
            drop = (f"IF DB_ID(N'{self.database}') IS NOT NULL BEGIN "
                    f"ALTER DATABASE {name} SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE {name}; END")
            with server_ddl(self.url, self.babelfish):
                self._drop_when_unused(cursor, drop)
                for login in self._logins:
                    cursor.execute(self._drop_login_sql(login))

    def _drop_when_unused(self, cursor: Any, drop: str) -> None:
        """Run the DROP DATABASE batch. B13 on Babelfish: the rewrite KILLs the database's other
        sessions, and a KILLed session ends a moment later, so a DROP sent at once can still find it
        ("currently in use in another session", seen in CI at a load of 4). On Babelfish, try the batch
        again (KILL, DROP) for up to a bound no load reaches; then its error stands. (A session that
        ended stays listed in sys.dm_exec_sessions with a NULL session_id: no count of them can say
        when to stop, so the bound does.)"""
        import pyodbc

        give_up = time.monotonic() + 30
        while True:
            try:
                for sent in (rewrite(drop) if self.babelfish else [drop]):
                    cursor.execute(sent)
                return
            except pyodbc.Error:
                if not self.babelfish or time.monotonic() > give_up:
                    raise
                time.sleep(0.2)

    _STATE = ("SELECT @@TRANCOUNT, @@OPTIONS, @@LOCK_TIMEOUT, DB_NAME(), USER_NAME(), transaction_isolation_level "
              "FROM sys.dm_exec_sessions WHERE session_id = @@SPID")

    def _state(self, conn: Any) -> tuple:
        """What a test may leave changed on a session, read in autocommit mode (ODBC's implicit
        transactions would show in @@OPTIONS and keep the SELECT's transaction open)."""
        conn.autocommit = True
        cursor = conn.cursor()
        try:
            # A new session's row can be missing from sys.dm_exec_sessions for a moment on Babelfish
            # (seen at a machine load of 6): wait for it to appear, up to a bound no load reaches.
            give_up = time.monotonic() + 30
            while True:
                row = cursor.execute(self._STATE).fetchone()
                if row is not None:
                    return tuple(row)
                if time.monotonic() > give_up:
                    raise RuntimeError("the session's own row never appeared in sys.dm_exec_sessions")
                time.sleep(0.05)
        finally:
            cursor.close()

    def connect(self, autocommit: bool = False, login: Optional[tuple[str, str]] = None) -> Any:
        if self.babelfish and login is None:
            with self._idle_lock:
                reused = self._idle.pop() if self._idle else None
            if reused is not None:
                reused.autocommit = autocommit
                return reused
        conn = self._open(autocommit, login)
        if self.babelfish and login is None:
            self._fresh[id(conn)] = self._state(conn)
            conn.autocommit = autocommit
        return conn

    def release(self, conn: Any, login: Optional[tuple[str, str]] = None) -> None:
        """A test is done with conn: kept for the next test if it is in the state it was opened in
        (no transaction, the same SET options, lock timeout, database, user and isolation level),
        else closed. B23: on Babelfish only."""
        fresh = self._fresh.pop(id(conn), None) if login is None else None
        if fresh is not None:
            try:
                conn.rollback()
                conn.cursor().execute("SET NOCOUNT OFF")  # what every qgen call sets
                if self._state(conn) == fresh:
                    with self._idle_lock:
                        self._idle.append(conn)
                        self._fresh[id(conn)] = fresh
                    return
            except Exception:  # noqa: BLE001 - a killed or broken session is closed, not reused
                pass
        with contextlib.suppress(Exception):
            conn.close()

    def close(self) -> None:
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                conn.close()
        super().close()

    def _open(self, autocommit: bool, login: Optional[tuple[str, str]]) -> Any:
        import pyodbc

        text = mssql_connection_string(self.url, self.database)
        if login:
            text = re.sub(r";(UID|PWD)=(\{(?:[^}]|\}\})*\}|[^;]*)", "", ";" + text).lstrip(";")
            text += f";UID={login[0]};PWD={login[1]}"
        conn = pyodbc.connect(text, autocommit=autocommit)
        if self.babelfish:
            # B10: hints are ignored, so a session waits where SQL Server's READPAST would skip; a test
            # that relies on skipping must fail, not hang the run.
            conn.cursor().execute(f"SET LOCK_TIMEOUT {BABELFISH_LOCK_TIMEOUT_MS}")
        return conn

    def run_script(self, script: str) -> None:
        conn = self.connect(autocommit=True)
        try:
            cursor = conn.cursor()
            created_procedures = False
            for batch in split_batches(script):
                for sent in (rewrite(batch) if self.babelfish else [batch]):
                    cursor.execute(sent)
                    while cursor.nextset():
                        pass
                created_procedures = created_procedures or creates_procedure(batch)
            cursor.close()
            if self.babelfish and created_procedures:
                chain_ownership(conn, self.url)  # B21
        finally:
            self.release(conn)

    def _uninstall(self, installed: "InstalledSpec") -> None:
        pass  # everything, database roles included, goes with the database

    def create_login(self, role: str) -> tuple[str, str]:
        name, password = f"qgen_bt_{uuid.uuid4().hex[:12]}", "Qg!" + uuid.uuid4().hex
        with self._server() as conn:
            create = f"CREATE LOGIN {quote('mssql', name)} WITH PASSWORD = N'{password}', CHECK_POLICY = OFF"
            with server_ddl(self.url, self.babelfish):
                for sent in (rewrite(create) if self.babelfish else [create]):
                    conn.cursor().execute(sent)
        self._logins.append(name)
        self.run_script(f"CREATE USER {quote('mssql', name)} FOR LOGIN {quote('mssql', name)};\n"
                        f"ALTER ROLE {quote('mssql', role)} ADD MEMBER {quote('mssql', name)};")
        return name, password

    def drop_login(self, login: tuple[str, str]) -> None:
        self.run_script(f"IF DATABASE_PRINCIPAL_ID(N'{login[0]}') IS NOT NULL DROP USER {quote('mssql', login[0])};")
        with self._server() as conn, server_ddl(self.url, self.babelfish):
            conn.cursor().execute(self._drop_login_sql(login[0]))
        self._logins.remove(login[0])

    @staticmethod
    def _drop_login_sql(name: str) -> str:
        # A login still connected (a pooled connection) cannot be dropped: end its sessions first.
        return (f"DECLARE @kill nvarchar(max) = N''; SELECT @kill += N'KILL ' + CAST(session_id AS nvarchar(10)) + N';' "
                f"FROM sys.dm_exec_sessions WHERE login_name = N'{name}'; EXEC(@kill); "
                f"IF SUSER_ID(N'{name}') IS NOT NULL DROP LOGIN {quote('mssql', name)};")


# ---------------------------------------------------------------------------------------------
# One installed spec, and a test's view of it


class InstalledSpec:
    def __init__(self, backend: Backend, path: Path, spec: Spec, rendering: Rendering):
        self.backend, self.path, self.spec, self.rendering = backend, path, spec, rendering

    def reset(self) -> None:
        """Empty every queue of the spec: tables truncated, ids restarting at 1, watermarks at 0."""
        d = self.backend.dialect
        names = [(self.spec.schema, obj.obj.name) for obj in self.rendering.objects
                 if obj.obj.kind in _TABLE_KINDS and obj.obj.queue]
        names += EXTRA_TABLES.get(self.path.stem, [])
        tables = [f"{quote(d, s)}.{quote(d, n)}" for s, n in names]
        watermarks = [f"{quote(d, self.spec.schema)}.{quote(d, obj.obj.name)}" for obj in self.rendering.objects
                      if obj.obj.kind == "watermark_table"]
        # A priority queue's claim marks (PostgreSQL): emptied too, or marks above the restarted ids hide jobs.
        marks = [f"{quote(d, self.spec.schema)}.{quote(d, obj.obj.name)}" for obj in self.rendering.objects
                 if obj.obj.kind == "priority_marks"]
        # Each queue's control row (pause, resume): back to running, as install leaves it.
        controls = [f"{quote(d, self.spec.schema)}.{quote(d, obj.obj.name)}" for obj in self.rendering.objects
                    if obj.obj.kind == "control_table"]
        paused = {"postgres": "FALSE", "mssql": "0"}[d]
        if d == "postgres":
            script = f"TRUNCATE {', '.join(tables + watermarks + marks)} RESTART IDENTITY;\n"
            script += "".join(f"INSERT INTO {w} (id) VALUES (0);\n" for w in watermarks)
            script += "".join(f"INSERT INTO {w} (one_row) VALUES (TRUE);\n" for w in marks)
        else:
            script = "".join(f"TRUNCATE TABLE {t};\n" for t in tables)
            script += "".join(f"DELETE FROM {w};\nINSERT INTO {w} ([id]) VALUES (0);\n" for w in watermarks)
        script += "".join(f"DELETE FROM {c};\nINSERT INTO {c} (paused) VALUES ({paused});\n" for c in controls)
        self.backend.run_script(script)


class QueueEnv:
    """A test's handle on an installed, emptied spec: clients, raw connections and inspection SQL.

    SQL given to sql()/scalar() uses ? placeholders on both databases."""

    def __init__(self, installed: InstalledSpec):
        self.installed = installed
        self.backend = installed.backend
        self.dialect = installed.backend.dialect
        self.spec = installed.spec
        self._connections: list[Any] = []
        self._admin: Any = None

    # Connections and clients
    def connect(self, autocommit: bool = False, login: Optional[tuple[str, str]] = None) -> Any:
        conn = self.backend.connect(autocommit=autocommit, login=login)
        self._connections.append((conn, login))
        return conn

    def client(self, queue: Optional[str] = None, *, autocommit: bool = False,
               login: Optional[tuple[str, str]] = None, **kwargs: Any) -> QueueClient:
        if self.backend.babelfish and "batch_via" not in kwargs:
            # B12: Microsoft's driver cannot send Babelfish a TVP; enqueue_many goes as JSON instead.
            REWRITTEN["B12"] += 1
            kwargs["batch_via"] = "json"
        client = QueueClient(self.connect(autocommit=autocommit, login=login), self.spec,
                             queue or next(iter(self.spec.queues)), **kwargs)
        if self.backend.babelfish:
            send_datetimes_as_text(client)  # B14
        return client

    @contextlib.contextmanager
    def login(self, role_kind: str) -> Iterator[tuple[str, str]]:
        """A login that is a member of the spec's producer/consumer/admin role, dropped afterwards."""
        role = getattr(self.spec.grants, role_kind) or f"{self.spec.schema}_{role_kind}"
        login = self.backend.create_login(role)
        try:
            yield login
        finally:
            for conn, used in self._connections:
                if used == login:
                    with contextlib.suppress(Exception):
                        conn.close()
            self.backend.drop_login(login)

    def close(self) -> None:
        for conn, login in self._connections + ([(self._admin, None)] if self._admin is not None else []):
            self.backend.release(conn, login)
        self._connections, self._admin = [], None

    # Inspection and arrangement, as the owner
    @property
    def admin(self) -> Any:
        if self._admin is None:
            self._admin = self.backend.connect(autocommit=True)
        return self._admin

    def _run(self, query: str, params: tuple) -> tuple[list[tuple], int]:
        if self.dialect == "postgres":
            query = query.replace("?", "%s")
        cursor = self.admin.cursor()
        try:
            cursor.execute(query, params) if params else cursor.execute(query)
            rows = cursor.fetchall() if cursor.description is not None else []
            return [tuple(r) for r in rows], cursor.rowcount
        finally:
            cursor.close()

    def sql(self, query: str, *params: Any) -> list[tuple]:
        """Run one statement as the owner (autocommit); its rows."""
        return self._run(query, params)[0]

    def execute(self, query: str, *params: Any) -> int:
        """Run one statement as the owner (autocommit); the number of rows it changed."""
        return self._run(query, params)[1]

    def scalar(self, query: str, *params: Any) -> Any:
        rows = self.sql(query, *params)
        return rows[0][0] if rows else None

    def name(self, queue: str, kind: str = "table") -> str:
        """The quoted, schema-qualified name of one of a queue's objects."""
        return f"{quote(self.dialect, self.spec.schema)}.{quote(self.dialect, object_name(self.spec, queue, kind))}"

    def col(self, name: str) -> str:
        return quote(self.dialect, name)

    @property
    def now(self) -> str:
        return "now()" if self.dialect == "postgres" else "SYSUTCDATETIME()"

    def seconds_from_now(self, expression: str) -> str:
        """SQL for (expression - now) in seconds, fractional."""
        if self.dialect == "postgres":
            return f"extract(epoch FROM ({expression} - now()))::float8"
        return f"CAST(DATEDIFF_BIG(millisecond, SYSUTCDATETIME(), {expression}) AS float) / 1000.0"

    def backdate(self, queue: str, column: str, seconds: int, *, ids: Optional[list[int]] = None,
                 kind: str = "table", due_bound: bool = True) -> int:
        """Move a time column of some rows (all when ids is None) back by seconds; returns how many.
        due_bound=False leaves the due index's bound where it is (it takes the watermark row's lock,
        which an open transaction's enqueue may hold)."""
        c = self.col(column)
        shifted = (f"{c} - make_interval(secs => {int(seconds)})" if self.dialect == "postgres"
                   else f"DATEADD(second, -{int(seconds)}, {c})")
        where = f" WHERE {self.col('id')} IN ({', '.join(str(int(i)) for i in ids)})" if ids else ""
        moved = self.execute(f"UPDATE {self.name(queue, kind)} SET {c} = {shifted}{where}")
        if self.dialect == "postgres" and column == "available_at" and kind == "table" and due_bound:
            # Time passes for the due index's bound too: no deferred job may be
            # due before it, and a due time moved back by hand would wait for the rescan.
            watermark = self.name(queue, "watermark_table")
            if self.scalar("SELECT to_regclass(?) IS NOT NULL", watermark):
                self.execute(f"UPDATE {watermark} SET \"due_from\" = \"due_from\" - make_interval(secs => {int(seconds)})")
        return moved

    def watermark(self, queue: str) -> int:
        return int(self.scalar(f"SELECT {self.col('id')} FROM {self.name(queue, 'watermark_table')}"))

    def set_watermark(self, queue: str, value: int, *, rescan_due: bool = False) -> None:
        """Put the watermark at value. It counts as corrected now, so a dequeue's rescan leaves it
        alone for watermark.rescan seconds, unless rescan_due."""
        corrected = "'-infinity'" if self.dialect == "postgres" else "'0001-01-01'"
        self.execute(f"UPDATE {self.name(queue, 'watermark_table')} SET {self.col('id')} = ?, "
                     f"{self.col('corrected_at')} = {corrected if rescan_due else self.now}", value)

    def count(self, queue: str, kind: str = "table", where: str = "", *params: Any) -> int:
        return int(self.scalar(f"SELECT count(*) FROM {self.name(queue, kind)}" + (f" WHERE {where}" if where else ""),
                               *params))


# ---------------------------------------------------------------------------------------------
# Fixtures (tests/behaviour/conftest.py imports these)


@pytest.fixture(scope="package", params=DIALECTS)
def backend(request) -> Iterator[Backend]:
    """One database per dialect for the package's tests; SQL Server only with QGEN_TEST_MSSQL_URL."""
    from tests.conftest import require

    if request.param == "mssql":
        url = os.environ.get(MSSQL_URL_ENV)
        if not url:
            pytest.skip(MSSQL_MISSING)
        made: Backend = MssqlBackend(url)
    else:
        from tests.support.pg import server_problem

        require(server_problem())
        made = PostgresBackend()
    try:
        yield made
    finally:
        made.close()


@pytest.fixture(scope="module")
def mssql_server() -> Iterator[MssqlBackend]:
    """A database of the module's own on the T-SQL engine QGEN_TEST_MSSQL_URL names (SQL Server, or
    Babelfish in CI), dropped at the end; without the variable the module's tests skip, saying why.
    For tests of the install scripts and drivers themselves (tests/test_tsql_*.py); the behavioural
    suites take the `backend` fixture instead."""
    url = os.environ.get(MSSQL_URL_ENV)
    if not url:
        pytest.skip(MSSQL_MISSING)
    made = MssqlBackend(url)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture(autouse=True)
def babelfish_gap(request) -> None:
    """A test marked @pytest.mark.babelfish_gap("Bn", "why"[, only=[param ids]]) skips on Babelfish (its
    SQL Server half only; with only=, just those parameter sets), naming the gap (tests/support/babelfish.py, GAPS.md); on a real SQL Server it runs."""
    markers = list(request.node.iter_markers("babelfish_gap"))
    if not markers or "backend" not in request.fixturenames:
        return
    if not getattr(request.getfixturevalue("backend"), "babelfish", False):
        return
    callspec = getattr(request.node, "callspec", None)
    for marker in markers:
        only = marker.kwargs.get("only")  # just these parameter sets (substrings of the test's id)
        if only and not (callspec and any(o in callspec.id for o in only)):
            continue
        gap, why = marker.args
        pytest.skip(f"Babelfish gap {gap} ({GAPS[gap]}): {why}; runs on a real SQL Server (QGEN_TEST_MSSQL_URL)")


@pytest.fixture
def dialect(backend: Backend) -> str:
    return backend.dialect


@pytest.fixture
def use_spec(backend: Backend) -> Iterator[Callable[[Path], QueueEnv]]:
    envs: list[QueueEnv] = []

    def make(path: Path) -> QueueEnv:
        installed = backend.install(path)
        installed.reset()
        env = QueueEnv(installed)
        envs.append(env)
        return env

    yield make
    for env in envs:
        env.close()
