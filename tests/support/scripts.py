"""A rendered script run as an operator's client runs it when not told to stop at the first error.

sqlcmd without -b, and SSMS, send every GO batch: an error is printed and the next batch is sent, in
the same session (whatever transaction the failed batch rolled back is gone, and the batches after
it run in autocommit). psql without ON_ERROR_STOP sends every statement the same way: inside a
BEGIN ... COMMIT block the statements after a failure are refused ("current transaction is
aborted") and the COMMIT ends it as a ROLLBACK; outside one each statement commits by itself.

run_batches sends T-SQL batches like sqlcmd (Babelfish's rewrites applied, tests/support/babelfish.py);
pg_statements cuts a PostgreSQL script into the statements psql would send, and run_psql runs
them with the real psql, ON_ERROR_STOP off. catalog() is what a script may change, to compare
before and after.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from typing import Any, Callable, Optional

from tests.support.babelfish import NOEXEC_KEY, rewrite

_DOLLAR = re.compile(r"\$([A-Za-z_][A-Za-z_0-9]*)?\$")


def pg_statements(script: str) -> list[str]:
    """The statements of a PostgreSQL script in order, each with the comments before it; a psql
    meta-command line (a backslash first) is a statement of its own."""
    statements: list[str] = []
    start = i = 0
    n = len(script)
    while i < n:
        c = script[i]
        if c == "-" and script.startswith("--", i):
            i = script.find("\n", i) if script.find("\n", i) >= 0 else n
        elif c == "/" and script.startswith("/*", i):
            i = script.index("*/", i) + 2
        elif c in "'\"":
            i = script.index(c, i + 1) + 1
            while i < n and script[i] == c:  # a doubled quote inside
                i = script.index(c, i + 1) + 1
        elif c == "$" and (m := _DOLLAR.match(script, i)):
            i = script.index(m.group(0), m.end()) + len(m.group(0))
        elif c == ";" or (c == "\\" and (i == 0 or script[i - 1] == "\n")):
            end = (script.find("\n", i) if c == "\\" else i + 1)
            end = n if end < 0 else end
            statements.append(script[start:end].strip("\n"))
            start = i = end
        else:
            i += 1
    if script[start:].strip() and any(line.strip() and not line.strip().startswith("--")
                                      for line in script[start:].splitlines()):
        statements.append(script[start:].strip("\n"))
    return [s for s in statements if s.strip()]


def is_code(statement: str) -> bool:
    return any(line.strip() and not line.strip().startswith("--") for line in statement.splitlines())


def failing(dialect: str, unit: str, index: int) -> str:
    """The unit as it fails: an error instead of its work (a COMMIT that fails rolls back)."""
    if dialect == "mssql":
        return f"THROW 50999, N'qgen test: batch {index} failed', 1;"
    raised = f"DO $inject$ BEGIN RAISE EXCEPTION 'qgen test: statement {index} failed'; END $inject$;"
    code = " ".join(line for line in unit.splitlines() if not line.strip().startswith("--")).strip().upper()
    if code == "COMMIT;":
        return "ROLLBACK;\n" + raised
    if code == "BEGIN;":
        return "BEGIN;\n" + raised  # BEGIN itself cannot fail: the part's first statement does
    return raised


def run_psql(url: str, statements: list[str], before: str = "") -> str:
    """Run the statements with psql -f, ON_ERROR_STOP off (psql's default); returns its stderr."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql") as f:
        f.write(before + "\n".join(statements) + "\n")
        f.flush()
        done = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=0", "-d", url, "-f", f.name],
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr  # psql without ON_ERROR_STOP exits 0 after SQL errors
    return done.stderr


def run_batches(conn: Any, batches: list[str], babelfish: bool,
                before: Optional[Callable[[int], None]] = None) -> list[tuple[int, str]]:
    """Send each batch on conn (autocommit) as sqlcmd without -b does: an error is recorded and the
    next batch is sent (before(index), if given, is called before each). Returns the errors as
    (batch index, message)."""
    import pyodbc

    errors: list[tuple[int, str]] = []
    cursor = conn.cursor()
    noexec = False  # B7: Babelfish ignores SET NOEXEC ON; its rewrite records it, and it is kept here
    for index, batch in enumerate(batches):
        if before is not None:
            before(index)
        if noexec and not _NOEXEC_OFF.search(batch):
            continue  # SQL Server compiles the batch and executes none of it
        try:
            for sent in (rewrite(batch) if babelfish else [batch]):
                cursor.execute(sent)
                while cursor.nextset():
                    pass
        except pyodbc.Error as exc:
            errors.append((index, str(exc)))
            try:
                while cursor.nextset():
                    pass
            except pyodbc.Error as more:
                errors.append((index, str(more)))
        if babelfish and _NOEXEC_ON.search(batch):
            noexec = cursor.execute(f"SELECT CAST(SESSION_CONTEXT(N'{NOEXEC_KEY}') AS int)").fetchone()[0] == 1
        elif babelfish and _NOEXEC_OFF.search(batch):
            noexec = False
    cursor.close()
    return errors


_NOEXEC_ON = re.compile(r"\bSET NOEXEC ON\b", re.IGNORECASE)
_NOEXEC_OFF = re.compile(r"\bSET NOEXEC OFF\b", re.IGNORECASE)


MSSQL_CATALOG = """
SELECT N'object ' + [o].[name] + N' ' + RTRIM([o].[type]) FROM sys.objects AS [o]
WHERE [o].[schema_id] = SCHEMA_ID(?) AND [o].[parent_object_id] = 0 AND [o].[type] <> 'TT'
UNION ALL SELECT N'type ' + [t].[name] FROM sys.types AS [t] WHERE [t].[schema_id] = SCHEMA_ID(?)
UNION ALL SELECT N'schema ' + [s].[name] FROM sys.schemas AS [s] WHERE [s].[name] = ?
UNION ALL SELECT N'role ' + [p].[name] FROM sys.database_principals AS [p] WHERE [p].[name] IN (?, ?, ?)
"""

PG_CATALOG = """
SELECT 'relation ' || c.relname || ' ' || c.relkind::text FROM pg_class c WHERE c.relnamespace = to_regnamespace(%(s)s)
UNION ALL SELECT 'routine ' || p.proname FROM pg_proc p WHERE p.pronamespace = to_regnamespace(%(s)s)
UNION ALL SELECT 'type ' || t.typname FROM pg_type t WHERE t.typnamespace = to_regnamespace(%(s)s) AND t.typtype <> 'b'
UNION ALL SELECT 'schema ' || n.nspname FROM pg_namespace n WHERE n.nspname = %(s)s
UNION ALL SELECT 'role ' || r.rolname FROM pg_roles r WHERE r.rolname = ANY(%(roles)s)
UNION ALL SELECT 'grant ' || n.nspname || ' ' || a.privilege_type || ' ' || a.grantee::regrole::text
    FROM pg_namespace n CROSS JOIN LATERAL aclexplode(n.nspacl) a WHERE n.nspname = %(s)s
"""


def catalog(dialect: str, conn: Any, schema: str, roles: list[str]) -> frozenset[str]:
    """What a qgen script of this schema creates or drops: the schema's objects and types, the
    schema, the roles (PostgreSQL: and the grants on the schema). SQL Server: top-level objects
    only (a constraint or a table type's object may carry a generated name, new at each install)."""
    if dialect == "mssql":
        cursor = conn.cursor()
        rows = cursor.execute(MSSQL_CATALOG, schema, schema, schema, *roles[:3]).fetchall()
        cursor.close()
    else:
        rows = conn.execute(PG_CATALOG, {"s": schema, "roles": roles}).fetchall()
    return frozenset(row[0] for row in rows)


MSSQL_SHAPES = """
SELECT N'column ' + [o].[name] + N'.' + [c].[name] + N' ' + TYPE_NAME([c].[user_type_id])
FROM sys.columns AS [c] INNER JOIN sys.objects AS [o] ON [o].[object_id] = [c].[object_id]
WHERE [o].[schema_id] = SCHEMA_ID(?) AND [o].[type] IN ('U', 'V')
UNION ALL SELECT N'type column ' + [t].[name] + N'.' + [c].[name] + N' ' + TYPE_NAME([c].[user_type_id])
FROM sys.table_types AS [t] INNER JOIN sys.columns AS [c] ON [c].[object_id] = [t].[type_table_object_id]
WHERE [t].[schema_id] = SCHEMA_ID(?)
"""
MSSQL_MODULES = """
SELECT [o].[name], [m].[definition] FROM sys.sql_modules AS [m] INNER JOIN sys.objects AS [o] ON [o].[object_id] = [m].[object_id]
WHERE [o].[schema_id] = SCHEMA_ID(?)
"""
PG_SHAPES = """
SELECT 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
WHERE c.relnamespace = to_regnamespace(%(s)s) AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL SELECT 'routine ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc) FROM pg_proc p
WHERE p.pronamespace = to_regnamespace(%(s)s)
"""


def shapes(dialect: str, conn: Any, schema: str) -> frozenset[str]:
    """Besides catalog(): every column of the schema's tables, views and table types, and each
    module's text (a digest of it), so that two versions of a spec (a column added, procedures
    replaced) differ here; and the Alembic revision the database is stamped at."""
    import hashlib

    if dialect == "mssql":
        cursor = conn.cursor()
        rows = [r[0] for r in cursor.execute(MSSQL_SHAPES, schema, schema).fetchall()]
        rows += [f"module {name} {hashlib.sha256(text.encode()).hexdigest()[:16]}"
                 for name, text in cursor.execute(MSSQL_MODULES, schema).fetchall()]
        versions = cursor.execute("SELECT [version_num] FROM [dbo].[alembic_version]").fetchall() \
            if cursor.execute("SELECT OBJECT_ID(N'dbo.alembic_version')").fetchone()[0] else []
        cursor.close()
    else:
        rows = [r[0] for r in conn.execute(PG_SHAPES, {"s": schema}).fetchall()]
        versions = conn.execute("SELECT version_num FROM alembic_version").fetchall() \
            if conn.execute("SELECT to_regclass('alembic_version')").fetchone()[0] else []
    return frozenset(rows + [f"revision {v[0]}" for v in versions])
