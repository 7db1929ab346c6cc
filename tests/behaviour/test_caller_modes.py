"""Caller modes: every procedure, both databases, called in each mode a client's session can
be in, each asserting what docs/api.md ("The caller's session mode") promises.

The procedures are the catalog's (qgen.spec.catalog.queue_objects, the routine kinds), taken from a few
subject queues that between them have every kind: a procedure added to the catalog is called here in
every mode, and fails until it has a recipe below saying how to give it something to do.

Modes: autocommit; autocommit off (SQL Server: SET IMPLICIT_TRANSACTIONS ON, no transaction until the
first data statement, as Microsoft's JDBC driver with setAutoCommit(false) runs; PostgreSQL: psycopg
with autocommit off, inside a transaction from the first statement); inside the caller's BEGIN
TRANSACTION at READ COMMITTED, REPEATABLE READ, SERIALIZABLE and SNAPSHOT (SQL Server), and at READ
COMMITTED with READ_COMMITTED_SNAPSHOT on; a pooled session that a previous user left at another
isolation level and other options. The outcomes:
- commits: the call's work is committed when it returns; no transaction is left open;
- joins: the call's work is in the caller's transaction, which is still open when it returns
  (@@TRANCOUNT 1 / psycopg INTRANS: one COMMIT ends it), and the caller's ROLLBACK takes it back;
- refused: the documented code (error kind "refused"), nothing changed.
Before the fix every SQL Server procedure set IMPLICIT_TRANSACTIONS OFF: in the autocommit-off mode
its work committed by itself, and the caller's ROLLBACK left it in place (enqueue's job stayed)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from qgen.spec.catalog import ROUTINE_KINDS, queue_objects
from qgen.client import error_kind
from qgen.spec.load import load_spec
from tests.behaviour.helpers import BEHAVE, EX000
from tests.support.babelfish import GAPS
from tests.support.backends import EXTRA_TABLES, QueueEnv

LEVELS = {"read_committed": "READ COMMITTED", "repeatable_read": "REPEATABLE READ",
          "serializable": "SERIALIZABLE", "snapshot": "SNAPSHOT", "rcsi": "READ COMMITTED"}
MODES = ("autocommit", "implicit", *LEVELS, "pooled")
# What a previous user of a pooled session left behind (a connection pool's reset keeps the
# isolation level: sp_reset_connection before SQL Server 2014, and PostgreSQL's session settings).
POOLED = {
    "mssql": "SET TRANSACTION ISOLATION LEVEL {level}; SET XACT_ABORT OFF; SET NOCOUNT OFF; SET ANSI_WARNINGS OFF; "
             "SET ARITHABORT OFF; SET CONCAT_NULL_YIELDS_NULL OFF; SET LOCK_TIMEOUT 20000; SET DATEFORMAT dmy; "
             "CREATE TABLE #left_over (a int);",
    "postgres": "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE; SET search_path = pg_temp, public; "
                "SET lock_timeout = '20s'; SET TIME ZONE 'Asia/Kolkata'; CREATE TEMP TABLE left_over (a int);",
}
_TABLE_KINDS = ("table", "dead_letter_table", "archive_table", "outbox_table", "watermark_table", "control_table")


# ---------------------------------------------------------------------------------------------
# Recipes: how to give each procedure something to do, and what it is promised to do per mode


@dataclass(frozen=True)
class Recipe:
    arrange: Callable[[QueueEnv, Any], dict[str, Any]]  # (env, client) -> the call's arguments
    effect: bool = True            # it changes a table (metrics and peek only read)
    commits_itself: bool = False   # refused in every mode where the caller's transaction holds it
    autocommit_refused: bool = False
    dialects: tuple[str, ...] = ("postgres", "mssql")
    # Modes where the call legitimately changes nothing (PostgreSQL: a snapshot older than the
    # watermark row, docs/api.md "Isolation").
    no_effect: frozenset = field(default_factory=frozenset)
    # PostgreSQL modes in which it is refused (cancel: a REPEATABLE READ or SERIALIZABLE snapshot
    # would hide a job enqueued since, docs/api.md "cancel").
    refused_pg: frozenset = field(default_factory=frozenset)


def _one_job(env, client) -> dict[str, Any]:
    client.enqueue(n=1)
    return {"batch_size": 1}


def _leased(env, client) -> Any:
    client.enqueue(n=1)
    job, = client.dequeue(batch_size=1)
    return job


def _token(env, job) -> Any:
    return str(job.lease_token) if env.dialect == "mssql" else job.lease_token


def _expired(env, client) -> dict[str, Any]:
    job = _leased(env, client)
    env.backdate(client.queue_name, "lease_expires_at", 3600, ids=[job.id])
    return {}


def _finished(env, client) -> dict[str, Any]:
    client.enqueue_many([{"n": 1}, {"n": 2}])
    done, dead = client.dequeue(batch_size=2)
    client.complete(done)
    client.fail(dead, "for the dead letters", retry=False)
    return {"older_than_seconds": 0}


def _dead(env, client) -> dict[str, Any]:
    client.fail(_leased(env, client), "for the dead letters", retry=False)
    return {"redrive_all": True}


def _claimed_range(env, client) -> dict[str, Any]:
    """Every job claimed, the watermark at 0: a move from the highest id raises it (to slack below)."""
    top = env.spec.queues[client.queue_name].watermark.slack + 20
    client.enqueue_many([{"n": n} for n in range(top)])
    client.dequeue(batch_size=top)
    env.set_watermark(client.queue_name, 0)
    return {"claimed_from": top}


def _ids(env, ids: list[int]) -> Any:
    """An id list as the dialect's procedure takes it: PostgreSQL bigint[], SQL Server a JSON array."""
    return json.dumps(ids) if env.dialect == "mssql" else ids


def _batch(env, client) -> dict[str, Any]:
    return {"jobs": [{"ordinal": 1, "n": 7}]}


# PostgreSQL at REPEATABLE READ or SERIALIZABLE (the pooled session's left-over level too) never
# raises the watermark (docs/api.md, "Isolation").
STRICT_PG = frozenset({"repeatable_read", "serializable", "pooled"})
RECIPES: dict[str, Recipe] = {
    "enqueue": Recipe(lambda env, c: {"n": 7}),
    "enqueue_batch": Recipe(_batch),
    "enqueue_json": Recipe(lambda env, c: {"jobs": json.dumps([{"n": 7}])}, dialects=("mssql",)),
    "dequeue:lease": Recipe(_one_job),
    "dequeue:delete": Recipe(_one_job, autocommit_refused=True),
    "dequeue:wait": Recipe(lambda env, c: {**_one_job(env, c), "wait_ms": 200}, commits_itself=True, dialects=("mssql",)),
    "complete": Recipe(lambda env, c: (lambda j: {"lease_token": _token(env, j), "id": j.id})(_leased(env, c))),
    "fail": Recipe(lambda env, c: (lambda j: {"lease_token": _token(env, j), "id": j.id, "error": "x"})(_leased(env, c))),
    "extend_lease": Recipe(lambda env, c: (lambda j: {"lease_token": _token(env, j), "lease_seconds": 900, "id": j.id})(
        _leased(env, c))),
    "reap": Recipe(_expired),
    "maintain": Recipe(_expired),
    "purge_batch": Recipe(_finished),
    "purge": Recipe(_finished, commits_itself=True),
    "redrive": Recipe(_dead),
    "watermark_move": Recipe(_claimed_range, no_effect=STRICT_PG),
    "watermark_correct": Recipe(lambda env, c: (c.enqueue(n=1), env.set_watermark(c.queue_name, 0), {})[-1], no_effect=STRICT_PG),
    "metrics": Recipe(lambda env, c: {}, effect=False),
    "peek": Recipe(lambda env, c: {}, effect=False),
    "worker": Recipe(lambda env, c: (c.enqueue(reputation=1), {"max_items": 1})[-1], commits_itself=True),
}
# Read-only inspection (issue 25): they change nothing in any mode.
RECIPES.update({
    "dead_letters": Recipe(lambda env, c: (_dead(env, c), {"limit": 10})[-1], effect=False),
    "job": Recipe(lambda env, c: {"job_id": c.enqueue(n=1).id}, effect=False),
})
RECIPES["release"] = Recipe(lambda env, c: (lambda j: {"lease_token": _token(env, j), "id": j.id})(_leased(env, c)))
# Job control (issue 29): each writes the queue's control row; resume needs a paused queue.
RECIPES["pause"] = Recipe(lambda env, c: {})
RECIPES["resume"] = Recipe(lambda env, c: (c.pause(), {})[-1])
RECIPES["cancel"] = Recipe(lambda env, c: {"ids": _ids(env, [c.enqueue(n=1).id])}, refused_pg=STRICT_PG)
# The recipes of one kind, by what the queue is (a delete-mode claim follows another rule).
VARIANTS: dict[str, Callable[[Any], list[str]]] = {
    "dequeue": lambda q: ["dequeue:lease", "dequeue:wait"] if q.claim == "lease" else ["dequeue:delete"],
}
# Queues that between them have every routine kind (each call is made on the first that has it).
SUBJECTS = ((BEHAVE, "kept"), (BEHAVE, "busyd"), (EX000, "four_queue"))


def catalog_calls() -> list[tuple[str, Path, str]]:
    """(recipe name, spec, queue) for every routine kind the catalog gives the subject queues, on
    either database."""
    calls: dict[str, tuple[str, Path, str]] = {}
    for path, queue_name in SUBJECTS:
        spec = load_spec(path)
        queue = spec.queues[queue_name]
        for dialect in ("postgres", "mssql"):
            for obj in queue_objects(spec, queue_name, dialect):
                if obj.kind in ROUTINE_KINDS:
                    for name in VARIANTS.get(obj.kind, lambda q, k=obj.kind: [k])(queue):
                        calls.setdefault(name, (name, path, queue_name))
    return sorted(calls.values())


CALLS = catalog_calls()


def test_the_subject_queues_have_every_routine_kind_and_every_call_a_recipe():
    kinds = {name.split(":")[0] for name, _, _ in CALLS}
    assert kinds == set(ROUTINE_KINDS), f"no subject queue has {sorted(set(ROUTINE_KINDS) - kinds)}: add one to SUBJECTS"
    assert not [name for name, _, _ in CALLS if name not in RECIPES], "a catalog procedure has no recipe here"


# ---------------------------------------------------------------------------------------------
# The caller


def snapshot(env: QueueEnv, queue: str, cursor: Any = None) -> list:
    """Every row of the queue's tables (and the handler's, for example 000), as the given cursor
    (the caller's, inside its transaction) or the owner sees them."""
    rendering = env.installed.rendering
    names = [env.name(queue, o.obj.kind) for o in rendering.objects if o.obj.queue == queue and o.obj.kind in _TABLE_KINDS]
    names += [f"{env.col(s)}.{env.col(t)}" for s, t in EXTRA_TABLES.get(env.installed.path.stem, [])]
    rows = []
    for name in names:
        # PostgreSQL: each row as its text ('-infinity' has no Python datetime).
        select = f"SELECT [t]::text FROM {name} AS [t]".replace("[t]", "t") if env.dialect == "postgres" else f"SELECT * FROM {name}"
        if cursor is None:
            got = env.sql(select)
        else:
            cursor.execute(select)
            got = [tuple(r) for r in cursor.fetchall()]
        rows.append(sorted(map(repr, got)))
    return rows


def open_caller(env: QueueEnv, mode: str) -> Any:
    if env.dialect == "postgres":
        conn = env.connect(autocommit=mode != "implicit")
        if mode == "pooled":
            conn.execute(POOLED["postgres"])
        elif mode in LEVELS:
            conn.execute(f"BEGIN ISOLATION LEVEL {LEVELS[mode]}")
        return conn
    conn = env.connect(autocommit=True)
    cursor = conn.cursor()
    if mode == "implicit":
        cursor.execute("SET IMPLICIT_TRANSACTIONS ON")
    elif mode == "pooled":
        # B17: Babelfish refuses SERIALIZABLE; its previous user read uncommitted instead.
        cursor.execute(POOLED["mssql"].format(level="READ UNCOMMITTED" if env.backend.babelfish else "SERIALIZABLE"))
    elif mode in LEVELS:
        cursor.execute(f"SET TRANSACTION ISOLATION LEVEL {LEVELS[mode]}")
        cursor.execute("BEGIN TRANSACTION")
    return conn


def pg_statement(env: QueueEnv, routine: str, kind: str, args: dict[str, Any]) -> tuple[str, list]:
    """A PostgreSQL routine's call by named arguments (CALL for a procedure), and its values."""
    values = [json.dumps(v) if k == "jobs" else v for k, v in args.items()]
    text = ", ".join(f"{env.col(k)} => %s" for k in args)
    return (f"CALL {routine}({text})" if kind in ("purge", "worker") else f"SELECT * FROM {routine}({text})"), values


def call(env: QueueEnv, conn: Any, queue: str, name: str, args: dict[str, Any]) -> Any:
    """Runs the procedure on the caller's connection; the cursor, every result read."""
    kind = name.split(":")[0]
    routine = env.name(queue, kind)
    cursor = conn.cursor()
    if env.dialect == "postgres":
        cursor.execute(*pg_statement(env, routine, kind, args))
        return cursor
    if kind == "enqueue_batch":  # the table type filled in the same batch (a TVP from T-SQL)
        rows = ", ".join("(" + ", ".join(str(v) for v in job.values()) + ")" for job in args["jobs"])
        columns = ", ".join(env.col(c) for c in args["jobs"][0])
        cursor.execute(f"DECLARE @b {env.name(queue, 'batch_type')}; INSERT INTO @b ({columns}) VALUES {rows}; "
                       f"EXEC {routine} @jobs = @b;")
    else:
        cursor.execute(f"EXEC {routine} " + ", ".join(f"@{k} = ?" for k in args), list(args.values()))
    while cursor.nextset():
        pass
    return cursor


def transaction_state(env: QueueEnv, conn: Any) -> str:
    """'none', 'open' (one level: one COMMIT ends it), 'nested' (more than one) or 'failed'."""
    if env.dialect == "postgres":
        from psycopg.pq import TransactionStatus

        status = conn.info.transaction_status
        return {TransactionStatus.IDLE: "none", TransactionStatus.INTRANS: "open"}.get(status, "failed")
    cursor = conn.cursor()
    cursor.execute("SELECT @@TRANCOUNT")  # selects from no table: opens no implicit transaction
    count = cursor.fetchone()[0]
    return {0: "none", 1: "open"}.get(count, "nested")


def expected(recipe: Recipe, mode: str, dialect: str = "mssql") -> str:
    joined = mode not in ("autocommit", "pooled")
    if (joined and recipe.commits_itself) or (not joined and recipe.autocommit_refused):
        return "refused"
    if dialect == "postgres" and mode in recipe.refused_pg:
        return "refused"
    return "joins" if joined else "commits"


def end_caller(env: QueueEnv, conn: Any) -> None:
    """Roll back whatever the caller holds and give the session back as it was opened (Babelfish's
    harness reuses a session found as it was opened, B23)."""
    if env.dialect == "postgres":
        conn.rollback()
        return
    cursor = conn.cursor()
    cursor.execute("IF @@TRANCOUNT > 0 ROLLBACK")
    cursor.execute("SET IMPLICIT_TRANSACTIONS OFF; SET TRANSACTION ISOLATION LEVEL READ COMMITTED")


# ---------------------------------------------------------------------------------------------
# The test


@pytest.fixture
def mode_env(request, use_spec, backend):
    """The spec installed, and the database in the mode's state: SNAPSHOT allowed, or RCSI on."""
    mode = request.node.callspec.params["mode"]
    _name, path, _queue = request.node.callspec.params["subject"]
    env = use_spec(path)
    if env.dialect == "postgres":
        if mode == "snapshot":
            pytest.skip("PostgreSQL's REPEATABLE READ is snapshot isolation: the repeatable_read case covers it")
        if mode == "rcsi":
            pytest.skip("PostgreSQL's READ COMMITTED reads a snapshot per statement: the read_committed case covers it")
    if env.dialect == "mssql" and mode == "snapshot":
        env.execute("ALTER DATABASE CURRENT SET ALLOW_SNAPSHOT_ISOLATION ON")  # as test_hostile_session_isolation
    if env.dialect == "mssql" and mode == "rcsi":
        # Needs this session alone in the database: the others (none of this test's yet) are ended.
        env.execute("ALTER DATABASE CURRENT SET READ_COMMITTED_SNAPSHOT ON WITH ROLLBACK IMMEDIATE")
        request.addfinalizer(lambda: env.execute("ALTER DATABASE CURRENT SET READ_COMMITTED_SNAPSHOT OFF WITH ROLLBACK IMMEDIATE"))
    return env


@pytest.mark.babelfish_gap("B17", "REPEATABLE READ and SERIALIZABLE are refused there", only=["repeatable_read", "serializable"])
@pytest.mark.babelfish_gap("B13", "ALTER DATABASE ... SET cannot turn SNAPSHOT or READ_COMMITTED_SNAPSHOT on", only=["snapshot", "rcsi"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("subject", CALLS, ids=[c[0] for c in CALLS])
def test_a_procedure_in_each_caller_mode_commits_joins_or_refuses_as_documented(mode_env, subject, mode):
    env, (name, _path, queue) = mode_env, subject
    recipe = RECIPES[name]
    if env.dialect not in recipe.dialects:
        pytest.skip(f"{name} is SQL Server's only")
    args = recipe.arrange(env, env.client(queue))
    before = snapshot(env, queue)
    outcome = expected(recipe, mode, env.dialect)
    effect = recipe.effect and not (env.dialect == "postgres" and mode in recipe.no_effect)
    conn = open_caller(env, mode)
    try:
        if outcome == "refused":
            with pytest.raises(Exception) as caught:
                call(env, conn, queue, name, args)
            assert error_kind(env.dialect, caught.value) == "refused", caught.value
            assert transaction_state(env, conn) in ("none", "failed"), "a refused call left a transaction open"
            end_caller(env, conn)
            assert snapshot(env, queue) == before, "a refused call changed something"
            return
        call(env, conn, queue, name, args)
        state = transaction_state(env, conn)
        if outcome == "commits":
            assert state == "none", f"{name} in {mode} mode returned inside a transaction ({state})"
            assert (snapshot(env, queue) != before) == effect, f"{name} in {mode} mode did not commit its work"
            return
        assert state == "open", f"{name} returned to a caller in {mode} mode with its transaction {state}, not open once"
        if effect:
            assert snapshot(env, queue, conn.cursor()) != before, f"{name} did nothing in the caller's transaction"
        end_caller(env, conn)
        assert snapshot(env, queue) == before, f"{name}'s work escaped the caller's transaction in {mode} mode: its ROLLBACK left it"
    finally:
        end_caller(env, conn)


# ---------------------------------------------------------------------------------------------
# Prepared and unprepared: the same call sent each way a driver sends it


# PostgreSQL: psycopg's extended protocol with an unnamed statement (prepare=False), and a statement
# prepared on the server first (prepare=True, as psycopg does by itself from a statement's 6th run).
# SQL Server: pyodbc with parameters (SQLPrepare + SQLExecute: sp_prepexec), the values written into
# the batch (SQLExecDirect: a plain batch, as sqlcmd or a client without parameters sends it), and
# the ODBC call escape {CALL ...} (an RPC of the procedure itself, as JDBC's CallableStatement sends).
SENDINGS = {"postgres": ("unprepared", "prepared"), "mssql": ("prepared", "direct", "call_escape")}


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    return "N'" + str(value).replace("'", "''") + "'"


def send(env: QueueEnv, conn: Any, queue: str, name: str, args: dict[str, Any], sending: str) -> tuple:
    """The call sent as `sending` on the caller's connection (autocommit); its first result set's
    column names and row count (every result read)."""
    kind = name.split(":")[0]
    routine = env.name(queue, kind)
    cursor = conn.cursor()
    if env.dialect == "postgres":
        cursor.execute(*pg_statement(env, routine, kind, args), prepare=sending == "prepared")
        columns = tuple(c.name for c in cursor.description or ())
        rows = len(cursor.fetchall()) if cursor.description else 0
        return columns, rows
    if kind == "enqueue_batch":  # the table type filled in the same batch (a TVP from T-SQL)
        jobs = args["jobs"]
        columns_in = ", ".join(env.col(c) for c in jobs[0])
        if sending == "direct":
            rows_in = ", ".join("(" + ", ".join(_literal(v) for v in job.values()) + ")" for job in jobs)
            cursor.execute(f"DECLARE @b {env.name(queue, 'batch_type')}; INSERT INTO @b ({columns_in}) VALUES {rows_in}; "
                           f"EXEC {routine} @jobs = @b;")
        else:
            rows_in = ", ".join("(" + ", ".join("?" for _ in job) + ")" for job in jobs)
            cursor.execute(f"DECLARE @b {env.name(queue, 'batch_type')}; INSERT INTO @b ({columns_in}) VALUES {rows_in}; "
                           f"EXEC {routine} @jobs = @b;", [v for job in jobs for v in job.values()])
    elif sending == "prepared":
        cursor.execute(f"EXEC {routine} " + ", ".join(f"@{k} = ?" for k in args), list(args.values()))
    elif sending == "direct":
        cursor.execute(f"EXEC {routine} " + ", ".join(f"@{k} = {_literal(v)}" for k, v in args.items()))
    else:
        # The procedure's parameters in their declared order, up to the last one given; one not given
        # is left empty ({CALL p(?, , ?)}: its default).
        declared = [r[0].lstrip("@") for r in cursor.execute(
            "SELECT [name] FROM sys.all_parameters WHERE [object_id] = OBJECT_ID(?) ORDER BY [parameter_id]", routine).fetchall()]
        last = max((declared.index(k) for k in args), default=-1)
        slots = ", ".join("?" if p in args else "" for p in declared[:last + 1])
        cursor.execute(f"{{CALL {routine} ({slots})}}" if last >= 0 else f"{{CALL {routine}}}",
                       [args[p] for p in declared[:last + 1] if p in args])
    columns, rows = (), 0
    while True:  # the first result set that has columns (the batch's INSERT counts its rows first)
        if cursor.description and not columns:
            columns, rows = tuple(c[0] for c in cursor.description), len(cursor.fetchall())
        if not cursor.nextset():
            break
    return columns, rows


def server_prepared(env: QueueEnv, conn: Any) -> int:
    """How many statements the caller's session has prepared through the protocol (PostgreSQL)."""
    return conn.execute("SELECT count(*) FROM pg_prepared_statements WHERE NOT from_sql").fetchone()[0]


@pytest.mark.parametrize("subject", CALLS, ids=[c[0] for c in CALLS])
def test_a_procedure_does_the_same_called_prepared_and_unprepared(use_spec, subject):
    """Each sending from the same state (the queue emptied, the recipe's arrangement made again):
    the same result columns and row count, the same change to each table (rows added or removed,
    changed or not), committed, no transaction left open. In autocommit (a delete-mode claim, which
    refuses it, in the caller's transaction, committed): the other modes are the test above's, and
    how a statement is sent does not change what a transaction does."""
    name, path, queue = subject
    env = use_spec(path)
    recipe = RECIPES[name]
    if env.dialect not in recipe.dialects:
        pytest.skip(f"{name} is SQL Server's only")
    seen: dict[str, tuple] = {}
    skipped: list[str] = []
    for sending in SENDINGS[env.dialect]:
        if sending == "call_escape" and name == "enqueue_batch":
            continue  # a table type goes as a table-valued parameter there, not a value pyodbc binds by itself
        if sending == "call_escape" and env.backend.babelfish:
            skipped.append(f"Babelfish gap B36 ({GAPS['B36']}): {name} sent as {{CALL ...}} runs on a real SQL Server "
                           "(QGEN_TEST_MSSQL_URL)")
            continue
        if seen:
            env.installed.reset()
        args = recipe.arrange(env, env.client(queue))
        before = snapshot(env, queue)
        # A call refused in autocommit (a delete-mode claim) is made in the caller's transaction, committed.
        conn = open_caller(env, "read_committed" if recipe.autocommit_refused else "autocommit")
        try:
            result = send(env, conn, queue, name, args, sending)
            if sending == "prepared" and env.dialect == "postgres":
                assert server_prepared(env, conn) >= 1, "prepare=True prepared nothing on the server"
            if recipe.autocommit_refused:
                conn.commit() if env.dialect == "postgres" else conn.cursor().execute("COMMIT TRANSACTION")
            state = transaction_state(env, conn)
        finally:
            end_caller(env, conn)
        after = snapshot(env, queue)
        changes = tuple((len(a) - len(b), a != b) for a, b in zip(after, before))
        assert state == "none", f"{name} sent {sending} returned inside a transaction ({state})"
        assert (after != before) == recipe.effect, f"{name} sent {sending}: changed {changes}, expected a change: {recipe.effect}"
        seen[sending] = (result, changes)
    first, *others = seen
    for sending in others:
        assert seen[sending] == seen[first], f"{name}: sent {sending} {seen[sending]}, sent {first} {seen[first]}"
    if skipped:
        pytest.skip("; ".join(skipped) + f" (compared as {', '.join(seen)}: the same)")
