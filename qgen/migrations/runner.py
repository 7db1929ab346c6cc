"""What a revision module's upgrade() and downgrade() run (run_revision): the files its manifest lists
for the connection's database, in order, under a lock timeout, tried again while another session holds
a lock (LockPolicy); `alembic upgrade --sql` prints them instead."""

from __future__ import annotations

import logging
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from qgen import dialects as dialect_registry
from qgen.migrations import RevisionRefused, has_sql
from qgen.migrations.manifest import Manifest
from qgen.render.engine import make_environment
from qgen.dialects.urls import UnknownDatabase, database_of

# A child of Alembic's logger: what a downgrade keeps and drops shows where Alembic's own lines do.
_LOG = logging.getLogger("alembic.runtime.qgen")


def run_revision(module_file: str, direction: str) -> None:
    """Run the files manifest.json lists for this direction and the connection's database, in order.
    T-SQL is cut into batches on GO (qgen.dialects.mssql); a PostgreSQL script runs whole. Online, the
    revision runs under a savepoint with a lock timeout (LockPolicy): when a lock it needs is not
    granted in time it rolls back to the savepoint, releasing every lock it took, waits and tries
    again; after the last attempt it raises RevisionLockTimeout naming who held the lock."""
    from alembic import op

    folder = Path(module_file).with_suffix("")
    manifest = Manifest.read(folder)
    context = op.get_context()
    name = _database(manifest, (context.dialect if context.as_sql else op.get_bind().dialect).name)
    dialect = dialect_registry.get(name)
    if direction == "downgrade":
        _say_what_downgrade_does(manifest, name, context)
    files = manifest.dialects[name].upgrade if direction == "upgrade" else manifest.dialects[name].downgrade
    batches = [(relative, batch) for relative in files
               for batch in dialect.split_batches((folder / relative).read_text(encoding="utf-8")) if has_sql(batch)]
    policy = LockPolicy.from_alembic()
    locks = _lock_sql(name, manifest.schema, policy)
    if context.as_sql:
        _print_script(context, dialect, batches, locks)
    else:
        _run_with_lock_retries(op.get_bind(), dialect, manifest, batches, locks, policy)


def _database(manifest: Manifest, sqlalchemy_name: str) -> str:
    """The qgen dialect of the database Alembic runs on (SQLAlchemy's name for it), when the revision has its SQL."""
    try:
        name = database_of(sqlalchemy_name)
    except UnknownDatabase:
        name = None
    if name is None or name not in manifest.dialects:
        raise RuntimeError(f"qgen revision {manifest.revision} has SQL for {', '.join(manifest.dialects)}, "
                           f"not for this {sqlalchemy_name} database")
    return name


def _print_script(context: Any, dialect: Any, batches: list[tuple[str, str]], locks: dict[str, str]) -> None:
    """alembic upgrade --sql: the script instead of running it (with the timeout, without retries). Run by
    hand, by a client that goes on after an error: offline_guard (SQL Server) before each batch, and
    before Alembic's stamp, stops the rest once a failure rolled the revision back."""
    separator = "\n" + dialect.batch_separator.rstrip("\n") if dialect.batch_separator else ""
    guard = locks["offline_guard"]
    parts = [locks["timeout"]] + [batch for _, batch in batches] + [locks["reset"]]
    script = [locks["offline_begin"]] + [part for batch in parts for part in (guard, batch)] + [guard]
    for batch in script:
        if has_sql(batch):
            context.impl.static_output(batch.rstrip("\n") + separator)


@dataclass(frozen=True)
class LockPolicy:
    """How a revision waits for its locks: each attempt waits at most timeout_ms for any one lock
    (PostgreSQL's lock_timeout, SQL Server's LOCK_TIMEOUT); after a timeout it rolls back to its
    savepoint and tries again after a pause (pause_s, doubled each time, up to pause_max_s), at most
    attempts times in all. Alembic's -x options set them: -x qgen_lock_timeout_ms=2000
    -x qgen_lock_attempts=20 (or the environment variables QGEN_LOCK_TIMEOUT_MS, QGEN_LOCK_ATTEMPTS)."""

    timeout_ms: int = 1000
    attempts: int = 10
    pause_s: float = 0.5
    pause_max_s: float = 15.0

    OPTIONS: ClassVar[dict[str, str]] = {"qgen_lock_timeout_ms": "timeout_ms", "qgen_lock_attempts": "attempts"}

    @classmethod
    def from_alembic(cls) -> "LockPolicy":
        """The policy the running Alembic command asks for (its -x options), else the environment's."""
        from alembic import context

        given = {key: os.environ.get(key.upper()) for key in cls.OPTIONS}
        given.update({k: v for k, v in context.get_x_argument(as_dictionary=True).items() if k in cls.OPTIONS})
        values: dict[str, int] = {}
        for key, value in given.items():
            if value in (None, ""):
                continue
            try:
                number = int(str(value))
            except ValueError:
                number = 0
            if number < 1:
                raise RevisionRefused([f"-x {key}={value}: a whole number of at least 1 is accepted "
                                       f"(the default is {getattr(cls, cls.OPTIONS[key])})"])
            values[cls.OPTIONS[key]] = number
        return cls(**values)  # type: ignore[arg-type]

    def pause(self, attempt: int) -> float:
        """Seconds to wait after the attempt-th timeout (jittered, so two blocked revisions part)."""
        delay = min(self.pause_max_s, self.pause_s * 2 ** (attempt - 1))
        return random.uniform(delay / 2, delay)


class RevisionLockTimeout(Exception):
    """A revision gave up: a lock it needs stayed held by another session through every attempt. It
    rolled back everything it did (nothing is half done); the message names who held the lock."""


def _lock_sql(dialect: str, schema: str, policy: LockPolicy) -> dict[str, str]:
    """The dialect's revision_locks template's blocks: timeout, reset (may be empty) and holders; for
    `alembic upgrade --sql`, offline_begin and offline_guard (may be empty)."""
    env = make_environment(dialect)
    template = env.get_template(f"{dialect}/revision_locks.sql.j2")
    context = template.new_context({"schema": schema, "timeout_ms": policy.timeout_ms})
    return {block: "".join(template.blocks[block](context)).strip("\n") + "\n" if block in template.blocks else ""
            for block in ("timeout", "reset", "holders", "offline_begin", "offline_guard")}


def _run_with_lock_retries(bind: Any, dialect: Any, manifest: Manifest, batches: list[tuple[str, str]],
                           locks: dict[str, str], policy: LockPolicy) -> None:
    """Run the batches under a savepoint and the lock timeout; on a lock timeout roll back to the
    savepoint (every lock the attempt took is released, so the claims queued behind it go on), wait,
    and try again; after the last attempt raise RevisionLockTimeout."""
    from sqlalchemy import event

    drain = dialect.errors_in_later_results
    if drain:
        event.listen(bind, "after_cursor_execute", _read_every_result)
    try:
        for attempt in range(1, policy.attempts + 1):
            waited = _attempt(bind, dialect, manifest, batches, locks, policy)
            if waited is None:
                return
            at, held = waited
            said = (f"qgen revision {manifest.revision} ({manifest.schema}): attempt {attempt} of {policy.attempts} "
                    f"waited {policy.timeout_ms} ms for a lock ({at}) and was rolled back; held by: {held}")
            if attempt == policy.attempts:
                raise RevisionLockTimeout(
                    said + ". Nothing of the revision was applied. End those sessions' transactions (or run the "
                    "revision when they are over), or give it more time: -x qgen_lock_timeout_ms=N -x qgen_lock_attempts=N")
            _LOG.warning(said + "; trying again")
            time.sleep(policy.pause(attempt))
    finally:
        if drain:
            event.remove(bind, "after_cursor_execute", _read_every_result)


def _attempt(bind: Any, dialect: Any, manifest: Manifest, batches: list[tuple[str, str]], locks: dict[str, str],
             policy: LockPolicy) -> tuple[str | None, str] | None:
    """One attempt under a savepoint: None when every batch ran; after a lock timeout, rolled back to the
    savepoint: the file whose batch waited and who held the lock. Any other error is raised."""
    savepoint = bind.begin_nested()
    at = None  # the file whose batch waited
    try:
        _execute(bind, locks["timeout"])
        for relative, batch in batches:
            at = relative
            _execute(bind, batch)
        _execute(bind, locks["reset"])
        savepoint.commit()
        return None
    except Exception as exc:  # DBAPIError; a T-SQL error read from a later result comes as the driver's own
        timed_out = dialect.error_kind(getattr(exc, "orig", None) or exc) == "lock_timeout"
        try:
            savepoint.rollback()
        except Exception as lost:  # the server ended the whole transaction with the error: no retry in it
            if not timed_out:
                raise exc from lost
            raise RevisionLockTimeout(
                f"qgen revision {manifest.revision} ({manifest.schema}): waited {policy.timeout_ms} ms for "
                f"a lock ({at}); the server rolled back the whole transaction with the timeout, so it is not "
                "tried again in it. Nothing of the revision was applied: run it again when the sessions "
                "holding the schema's objects are done") from exc
        if not timed_out:
            raise
    held = _holders(bind, locks)
    _execute(bind, locks["reset"])
    return at, held


def _execute(bind: Any, sql: str) -> None:
    if has_sql(sql):
        bind.exec_driver_sql(sql, execution_options={"no_parameters": True})


def _holders(bind: Any, locks: dict[str, str]) -> str:
    """The sessions that held a lock on the schema's objects while the revision waited, as one line."""
    from sqlalchemy.exc import DBAPIError

    savepoint = bind.begin_nested()
    try:
        rows = bind.exec_driver_sql(locks["holders"], execution_options={"no_parameters": True}).fetchall()
        savepoint.commit()
    except DBAPIError as exc:  # a server that does not show its locks (Babelfish has no sys.dm_tran_locks)
        savepoint.rollback()
        return f"unknown (the server did not say: {type(exc.orig).__name__})"
    if not rows:
        return "no session holds one now (the holder ended meanwhile)"
    sessions: dict[int, list] = {}
    for pid, mode, obj, application, state, seconds, query in rows:
        sessions.setdefault(pid, [f"pid {pid} ({application or 'no application name'}, {state}, transaction open "
                                  f"{seconds} s, last query: {' '.join(str(query or '').split())[:120]!r})"]).append(f"{mode} on {obj}")
    return "; ".join(f"{parts[0]} holding {', '.join(parts[1:])}" for parts in sessions.values())


def _read_every_result(conn: Any, cursor: Any, statement: Any, parameters: Any, context: Any, executemany: Any) -> None:
    """A T-SQL batch answers with one result per statement, and pyodbc raises a batch's error only
    when it reaches the result that carries it: through FreeTDS a THROW after a statement that counted
    rows (install's refusal, 50022, after its SELECT @q$refused = ...; verify's 50020) is in a later
    result, and without reading on the revision went on and was stamped as applied."""
    while cursor.nextset():
        pass


def _say_what_downgrade_does(manifest: Manifest, dialect: str, context: Any) -> None:
    """Before a downgrade runs: what it keeps and what it drops, on Alembic's log (as its own "Running
    downgrade" line), or as comments at the top of `alembic downgrade --sql`'s script."""
    notes = manifest.dialects[dialect].downgrade_notes
    if notes is None:  # a revision an older qgen wrote
        notes = ("drops every object of schema " + manifest.schema + ", tables and the jobs in them included"
                 if manifest.follows is None else "restores the previous revision's objects; tables keep their jobs",)
    lines = [f"qgen: downgrade of revision {manifest.revision} ({manifest.schema}) {note}" for note in notes]
    if context.as_sql:
        context.impl.static_output("".join(f"-- {line}\n" for line in lines).rstrip("\n"))
    else:
        level = logging.WARNING if manifest.follows is None else logging.INFO  # the teardown loses jobs
        for line in lines:
            _LOG.log(level, line)
