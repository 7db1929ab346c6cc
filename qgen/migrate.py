"""Alembic revisions for a spec: `qgen revision` writes them; their upgrade() and downgrade() run them.

A revision is immutable: the SQL it runs is rendered when it is made and kept next to it, in a folder
named like the revision's module (migrations/versions/<rev>_<slug>/):

    spec.yaml                    the spec, as it was
    manifest.json                per dialect: every object and the file that holds its SQL now, and the
                                 files upgrade and downgrade run, in order
    <dialect>/create/NN_x.sql    the create script of each object this revision writes, as `qgen render` does
    <dialect>/drop/NN_x.sql      its drop script, when that changed too
    <dialect>/change/, revert/   table changes (add or drop a column, storage) and their reversal
    REVIEW.md                    what changed in the spec, which objects that changes, what happens to data

The first revision of a schema writes and installs every object; downgrading past it drops them all,
tables and the jobs in them included: that is the teardown (its first file sets qgen.force_uninstall,
which uninstall's guard, the verify object's drop, requires before it lets a table with rows go).
Every file of a revision begins with the dialect's session block (templates/<dialect>/script.sql.j2).

A later revision for the same schema (one that follows it in the chain) holds only what changed, like
a commit: an object whose rendered SQL is the same is not written again; the manifest points at the
file of the revision that last wrote it ("../<rev>_<slug>/postgres/create/..."), and the upgrade does
not touch it. Its upgrade, without losing jobs:

- drops (with the previous version's own drop script) and creates again the objects whose SQL
  changed, and those that depend on one of them (a procedure that takes a table type created again);
  unchanged queues and unchanged objects are left alone;
- creates the objects the spec adds, drops those it removes;
- runs the grants again (GRANT only) when it created objects, which come without their grants;
- creates (runs) verify, install's closing check; its drop, uninstall's guard, runs only in the teardown;
- never re-creates tables that hold jobs or results (queue, dead-letter, archive, outbox): it adds
  the spec's new payload columns (which must be nullable) and drops columns only when
  `--allow-drop QUEUE.COLUMN` says so. When the templates now give such a table other storage
  parameters than the previous revision created it with (PostgreSQL's WITH (...): the dialect's
  table_storage) and nothing else, the revision sets them in place (table_storage.sql.j2). Any other
  change to such a table (a column's type, the claim mode, ...) is refused with what to do instead.

Installs that older qgen versions made need no cleanup of their own here: the previous revision's
drop scripts are the ones that older qgen wrote, so they drop exactly what it created (a function
under its old parameter list, purge as a function, an index over the lease).

Its downgrade drops the new code, reverses the column changes (an added column goes only while no
row has a value in it; a dropped one comes back empty and nullable), sets the storage parameters it
changed back, drops a table it added only while it is empty, and creates the earlier revision's
objects from the SQL kept in previous/.

Python decides what runs in which order; every line of SQL comes from templates/ (the object
templates, and add_column, drop_column, drop_table_if_empty and table_storage for table changes).

Any Alembic environment takes qgen revisions: the one `qgen init` writes (qgen/project/), or one the
user already has. Alembic names and chains the revision; its module comes from qgen/revision.py.mako
and calls run_revision, which needs nothing of env.py but a connection (online) or a dialect
(offline, --sql). An env.py that autogenerates across schemas leaves qgen's out (qgen_schemas).
"""

from __future__ import annotations

import datetime
import difflib
import itertools
import json
import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import TemplateNotFound

from qgen import __version__
from qgen import dialects as dialect_registry
from qgen.catalog import DbObject
from qgen.render import HEADER_MARK, Column, Rendering, make_environment, render_spec
from qgen.spec import Spec
from qgen.specload import SpecInvalid, load_spec, load_spec_text

MANIFEST = "manifest.json"
# A child of Alembic's logger: what a downgrade keeps and drops shows where Alembic's own lines do.
_LOG = logging.getLogger("alembic.runtime.qgen")
# The module of a qgen revision (Mako, as Alembic's script.py.mako).
REVISION_TEMPLATE = Path(__file__).parent / "revision.py.mako"
SPEC_FILE = "spec.yaml"
# The revision's review page: what changed in the spec, which objects that changes, what happens to data.
PAGE_FILE = "REVIEW.md"
# Tables that hold jobs or results: never dropped or re-created by a revision that follows another.
DATA_TABLES = ("table", "dead_letter_table", "archive_table", "outbox_table")
# Left alone while their SQL is unchanged; otherwise dropped and created like code. (The watermark
# table holds only a position: created again it starts at 0, which is always safe.)
KEPT_WHEN_UNCHANGED = ("schema", "roles", "claim_index", "claim_order_index", "dedupe_index", "lease_index",
                       "processed_index", "dead_letter_index", "archive_index", "watermark_table",
                       "priority_marks")
# Run by every revision that creates objects (install ends with it); their drop block is uninstall's
# guard against dropping tables with jobs, so only the teardown runs it, never a revision that follows.
CHECKS = ("verify",)
# Queue options that shape a table's own columns: changing one is refused, and named in the refusal.
TABLE_SHAPING = ("claim", "ordering", "scheduling", "audit", "on_complete", "job_type")
# SQLAlchemy's dialect names -> qgen's.
SQLALCHEMY_DIALECTS = {"postgresql": "postgres", "mssql": "mssql"}


class RevisionRefused(Exception):
    """The spec change cannot be made safely as a revision; each problem says what to do instead."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


# ---------------------------------------------------------------------------------------------
# Running a revision (called from the revision module's upgrade() and downgrade()).


def run_revision(module_file: str, direction: str) -> None:
    """Run the files manifest.json lists for this direction and the connection's database, in order.
    T-SQL is cut into batches on GO (qgen.dialects.mssql); a PostgreSQL script runs whole. Online, the
    revision runs under a savepoint with a lock timeout (LockPolicy): when a lock it needs is not
    granted in time it rolls back to the savepoint, releasing every lock it took, waits and tries
    again; after the last attempt it raises RevisionLockTimeout naming who held the lock."""
    from alembic import op

    folder = Path(module_file).with_suffix("")
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    context = op.get_context()
    sqlalchemy_name = (context.dialect if context.as_sql else op.get_bind().dialect).name
    name = SQLALCHEMY_DIALECTS.get(sqlalchemy_name)
    if name is None or name not in manifest["dialects"]:
        raise RuntimeError(
            f"qgen revision {manifest['revision']} has SQL for {', '.join(manifest['dialects'])}, "
            f"not for this {sqlalchemy_name} database")
    dialect = dialect_registry.get(name)
    if direction == "downgrade":
        _say_what_downgrade_does(manifest, name, context)
    batches = [(relative, batch) for relative in manifest["dialects"][name][direction]
               for batch in dialect.split_batches((folder / relative).read_text(encoding="utf-8")) if _has_sql(batch)]
    policy = LockPolicy.from_alembic()
    locks = _lock_sql(name, manifest["schema"], policy)
    if context.as_sql:  # alembic upgrade --sql: print the script instead (with the timeout, without retries)
        separator = "\n" + dialect.batch_separator.rstrip("\n") if dialect.batch_separator else ""
        # Run by hand, by a client that goes on after an error: offline_guard (SQL Server) before each
        # batch, and before Alembic's stamp, stops the rest once a failure rolled the revision back.
        guard = locks["offline_guard"]
        parts = [locks["timeout"]] + [batch for _, batch in batches] + [locks["reset"]]
        script = [locks["offline_begin"]] + [part for batch in parts for part in (guard, batch)] + [guard]
        for batch in script:
            if _has_sql(batch):
                context.impl.static_output(batch.rstrip("\n") + separator)
        return
    _run_with_lock_retries(op.get_bind(), dialect, manifest, batches, locks, policy)


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

    OPTIONS = {"qgen_lock_timeout_ms": "timeout_ms", "qgen_lock_attempts": "attempts"}

    @classmethod
    def from_alembic(cls) -> "LockPolicy":
        """The policy the running Alembic command asks for (its -x options), else the environment's."""
        from alembic import context

        given = {key: os.environ.get(key.upper()) for key in cls.OPTIONS}
        given.update({k: v for k, v in context.get_x_argument(as_dictionary=True).items() if k in cls.OPTIONS})
        values = {}
        for key, value in given.items():
            if value in (None, ""):
                continue
            try:
                number = int(value)
            except ValueError:
                number = 0
            if number < 1:
                raise RevisionRefused([f"-x {key}={value}: a whole number of at least 1 is accepted "
                                       f"(the default is {getattr(cls, cls.OPTIONS[key])})"])
            values[cls.OPTIONS[key]] = number
        return cls(**values)

    def pause(self, attempt: int) -> float:
        """Seconds to wait after the attempt-th timeout (jittered, so two blocked revisions part)."""
        import random

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


def _run_with_lock_retries(bind, dialect, manifest: dict, batches: list[tuple[str, str]], locks: dict[str, str],
                           policy: LockPolicy) -> None:
    """Run the batches under a savepoint and the lock timeout; on a lock timeout roll back to the
    savepoint (every lock the attempt took is released, so the claims queued behind it go on), wait,
    and try again; after the last attempt raise RevisionLockTimeout."""
    import time

    from sqlalchemy import event

    drain = dialect.errors_in_later_results
    if drain:
        event.listen(bind, "after_cursor_execute", _read_every_result)
    try:
        for attempt in range(1, policy.attempts + 1):
            savepoint = bind.begin_nested()
            at = None  # the file whose batch waited
            try:
                _execute(bind, locks["timeout"])
                for relative, batch in batches:
                    at = relative
                    _execute(bind, batch)
                _execute(bind, locks["reset"])
                savepoint.commit()
                return
            except Exception as exc:  # DBAPIError; a T-SQL error read from a later result comes as the driver's own
                timed_out = dialect.error_kind(getattr(exc, "orig", None) or exc) == "lock_timeout"
                try:
                    savepoint.rollback()
                except Exception as lost:  # the server ended the whole transaction with the error: no retry in it
                    if not timed_out:
                        raise exc from lost
                    raise RevisionLockTimeout(
                        f"qgen revision {manifest['revision']} ({manifest['schema']}): waited {policy.timeout_ms} ms for "
                        f"a lock ({at}); the server rolled back the whole transaction with the timeout, so it is not "
                        "tried again in it. Nothing of the revision was applied: run it again when the sessions "
                        "holding the schema's objects are done") from exc
                if not timed_out:
                    raise
                held = _holders(bind, locks)
                _execute(bind, locks["reset"])
            said = (f"qgen revision {manifest['revision']} ({manifest['schema']}): attempt {attempt} of {policy.attempts} "
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


def _execute(bind, sql: str) -> None:
    if _has_sql(sql):
        bind.exec_driver_sql(sql, execution_options={"no_parameters": True})


def _holders(bind, locks: dict[str, str]) -> str:
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


def _read_every_result(conn, cursor, statement, parameters, context, executemany) -> None:
    """A T-SQL batch answers with one result per statement, and pyodbc raises a batch's error only
    when it reaches the result that carries it: through FreeTDS a THROW after a statement that counted
    rows (install's refusal, 50022, after its SELECT @q$refused = ...; verify's 50020) is in a later
    result, and without reading on the revision went on and was stamped as applied."""
    while cursor.nextset():
        pass


def _say_what_downgrade_does(manifest: dict, dialect: str, context) -> None:
    """Before a downgrade runs: what it keeps and what it drops, on Alembic's log (as its own "Running
    downgrade" line), or as comments at the top of `alembic downgrade --sql`'s script."""
    notes = manifest["dialects"][dialect].get("downgrade_notes")
    if notes is None:  # a revision an older qgen wrote
        notes = ["drops every object of schema " + manifest["schema"] + ", tables and the jobs in them included"
                 if manifest.get("follows") is None else "restores the previous revision's objects; tables keep their jobs"]
    lines = [f"qgen: downgrade of revision {manifest['revision']} ({manifest['schema']}) {note}" for note in notes]
    if context.as_sql:
        context.impl.static_output("".join(f"-- {line}\n" for line in lines).rstrip("\n"))
    else:
        level = logging.WARNING if manifest.get("follows") is None else logging.INFO  # the teardown loses jobs
        for line in lines:
            _LOG.log(level, line)


def _has_sql(text: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("--") for line in text.splitlines())


def _body(text: str) -> str:
    """What two renderings are compared by: the script without its whole-line comments (the header
    names the spec file and qgen's version; a reworded comment changes nothing in the database)."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith("--"))


# ---------------------------------------------------------------------------------------------
# The revision before: its spec and the objects it stored.


@dataclass(frozen=True)
class StoredObject:
    key: str
    kind: str
    name: str
    queue: str | None
    filename: str
    create: str
    drop: str
    create_path: str        # where its SQL is kept (absolute): in that revision's folder or an earlier one's
    drop_path: str | None


@dataclass
class Previous:
    revision: str
    folder: Path
    manifest: dict
    spec: Spec

    def objects(self, dialect: str) -> list[StoredObject]:
        found = []
        for entry in self.manifest["dialects"][dialect]["objects"]:
            # Absolute: the next revision's manifest names them relative to its own folder.
            create_path = os.path.abspath(self.folder / entry["create"])
            drop_path = os.path.abspath(self.folder / entry["drop"]) if entry.get("drop") else None
            create = Path(create_path).read_text(encoding="utf-8")
            drop = Path(drop_path).read_text(encoding="utf-8") if drop_path else ""
            found.append(StoredObject(entry["key"], entry["kind"], entry["name"], entry["queue"],
                                      Path(entry["create"]).name, create, drop, create_path, drop_path))
        return found


def find_previous(script_dir, schema: str) -> Previous | None:
    """The latest qgen revision below the head that installs the same schema, if any."""
    for script in script_dir.walk_revisions():
        folder = Path(script.path).with_suffix("")
        if not (folder / MANIFEST).is_file():
            continue
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        if manifest.get("schema") != schema:
            continue
        try:
            spec = load_spec_text((folder / SPEC_FILE).read_text(encoding="utf-8"), str(folder / SPEC_FILE))
        except SpecInvalid as exc:
            raise RevisionRefused([f"the spec kept with revision {script.revision} ({folder / SPEC_FILE}) no longer "
                                   f"loads with this qgen, so the change cannot be worked out:\n{exc}"]) from None
        return Previous(script.revision, folder, manifest, spec)
    return None


def qgen_schemas(script_dir) -> set[str]:
    """The schemas the qgen revisions of an Alembic environment install. An env.py whose
    autogenerate compares more than the default schema (include_schemas=True) leaves them out, or
    autogenerate would offer to drop the queues it does not know:

        from qgen.migrate import qgen_schemas
        QUEUE_SCHEMAS = qgen_schemas(context.script)
        def include_name(name, type_, parent_names):
            return not (type_ == "schema" and name in QUEUE_SCHEMAS)
        context.configure(..., include_schemas=True, include_name=include_name)
    """
    found = set()
    for script in script_dir.walk_revisions():
        manifest = Path(script.path).with_suffix("") / MANIFEST
        if manifest.is_file():
            found.add(json.loads(manifest.read_text(encoding="utf-8"))["schema"])
    return found


# ---------------------------------------------------------------------------------------------
# What changes in the tables: payload (and outbox) columns added or dropped.


@dataclass
class ColumnDiff:
    added: list[Column] = field(default_factory=list)
    dropped: list[Column] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # columns whose change is a problem of the plan, said there


def _columns(mapping) -> dict[str, Column]:
    return {name: Column(name, col.type, col.nullable) for name, col in (mapping or {}).items()}


def column_changes(prev: Spec, new: Spec, allow_drop: set[str], used: set[str]) -> tuple[dict, list[str]]:
    """Per queue in both specs: {'payload': ColumnDiff, 'outbox': ColumnDiff}, and the problems."""
    changes: dict[str, dict[str, ColumnDiff]] = {}
    problems: list[str] = []
    for queue_name, queue in new.queues.items():
        old = prev.queues.get(queue_name)
        if old is None:
            continue
        groups = {"payload": (old.payload, queue.payload, f"queues.{queue_name}.payload", queue_name)}
        if old.outbox and queue.outbox and old.outbox.columns is not None and queue.outbox.columns is not None:
            groups["outbox"] = (old.outbox.columns, queue.outbox.columns, f"queues.{queue_name}.outbox.columns",
                                f"{queue_name}.outbox")
        changes[queue_name] = {}
        for group, (before, after, path, flag_prefix) in groups.items():
            before, after = _columns(before), _columns(after)
            diff = ColumnDiff()
            for name, col in after.items():
                if name not in before:
                    if col.nullable:
                        diff.added.append(col)
                    else:
                        diff.refused.append(name)
                        problems.append(
                            f"{path}.{name}: a new column must be nullable: the jobs already queued have no value "
                            f"for it. Write it as {{type: {col.type}, nullable: true}}.")
                elif (before[name].type, before[name].nullable) != (col.type, col.nullable):
                    was, now = before[name], col
                    diff.refused.append(name)
                    problems.append(
                        f"{path}.{name}: changed from {was.type}{' nullable' if was.nullable else ''} to "
                        f"{now.type}{' nullable' if now.nullable else ''}; qgen does not alter a column that holds "
                        f"jobs' data. Instead add a column under a new name (nullable), move producers to it, and "
                        f"once no job needs the old one remove it with --allow-drop {flag_prefix}.{name}.")
            for name, col in before.items():
                if name in after:
                    continue
                flag = f"{flag_prefix}.{name}"
                if flag in allow_drop:
                    used.add(flag)
                    diff.dropped.append(col)
                else:
                    diff.refused.append(name)
                    problems.append(
                        f"{path}.{name}: removed from the spec; dropping the column loses its values in every "
                        f"job still queued (and in the dead-letter and archive tables). Pass --allow-drop {flag} "
                        f"to drop it, or keep it in the spec.")
            changes[queue_name][group] = diff
    return changes, problems


def bridge_spec(prev: Spec, new: Spec) -> Spec:
    """The previous spec with each queue's payload (and outbox columns) taken from the new one. Its
    tables render exactly like the new spec's when columns are all that changed in them."""
    queues = {}
    for name, queue in prev.queues.items():
        target = new.queues.get(name)
        if target is None:
            queues[name] = queue
            continue
        update = {"payload": target.payload}
        if queue.outbox and target.outbox and queue.outbox.columns is not None and target.outbox.columns is not None:
            update["outbox"] = queue.outbox.model_copy(update={"columns": target.outbox.columns})
        queues[name] = queue.model_copy(update=update)
    # The SQL Server version a table targets only sets options of its key; a table keeps the ones it has.
    return prev.model_copy(update={"queues": queues, "sqlserver_version": new.sqlserver_version})


# ---------------------------------------------------------------------------------------------
# Table-change SQL, from templates/<dialect>/{add_column,drop_column,drop_table_if_empty}.sql.j2.


def render_change(dialect: str, spec: Spec, template_name: str, obj: DbObject, column: Column | None = None,
                  **variables) -> tuple[str, str]:
    """The template's create block (the upgrade step) and drop block (its reversal); variables are
    what the template needs besides obj, table and column (table_storage: storage and previous)."""
    env = make_environment(dialect)
    env.globals.update(spec=spec, schema=spec.schema, batch=dialect_registry.get(dialect).batch_separator)
    template = env.select_template([f"{dialect}/{template_name}.sql.j2", f"default/{template_name}.sql.j2"])
    context = template.new_context({"obj": obj, "table": obj.name, "column": column, **variables})
    for _ in template.root_render_func(context):
        pass
    blocks = []
    for block in ("create", "drop"):
        text = "".join(template.blocks[block](context)).strip("\n") if block in template.blocks else ""
        blocks.append(text + "\n" if text else "")
    return blocks[0], blocks[1]


# ---------------------------------------------------------------------------------------------
# Planning one dialect: which files run, in which order.


@dataclass
class DialectPlan:
    files: dict[str, str] = field(default_factory=dict)
    objects: list[dict] = field(default_factory=list)
    upgrade: list[str] = field(default_factory=list)
    downgrade: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    same_as_previous: bool = False  # every object renders the SQL the previous revision has
    # A revision that follows another: the objects it re-creates (key -> why), adds and removes, and
    # whether it runs the grants again; what its downgrade keeps and drops, in words.
    redone: dict[str, str] = field(default_factory=dict)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    regrant: bool = False
    downgrade_notes: list[str] = field(default_factory=list)


def _header(what: str, dialect: str, revision: str, label: str, session: str = "") -> str:
    """A revision's own file begins like every rendered file: the header, then the dialect's session."""
    return (f"{HEADER_MARK}{__version__}: {what}, for {dialect_registry.get(dialect).title}; "
            f"revision {revision} of {label}.\n") + session


def plan_dialect(dialect: str, revision: str, label: str, spec: Spec, rendering: Rendering,
                 previous: Previous | None, changes: dict, allow_drop: set[str], used: set[str]) -> DialectPlan:
    """Which files the revision holds for one database, and which of them (or of the revisions before
    it) its upgrade and downgrade run, in order."""
    if previous is None:
        return _plan_install(dialect, revision, label, spec, rendering)
    return _FollowOn(dialect, revision, label, spec, rendering, previous, allow_drop, used).make(changes)


def _plan_install(dialect: str, revision: str, label: str, spec: Spec, rendering: Rendering) -> DialectPlan:
    """The first revision of a schema: every object's create and drop file; upgrade creates them all,
    downgrade is the teardown."""
    plan = DialectPlan()
    for item in rendering.objects:
        create_path, drop_path = _write_object(plan, dialect, revision, label, spec, rendering, item)
        plan.objects.append(_entry(item.obj, create_path, drop_path))
        if _has_sql(item.create):
            plan.upgrade.append(create_path)
    # Downgrading past the first revision is the documented teardown: it drops the tables with
    # their jobs, so it tells uninstall's guard (the verify object's drop) that it may.
    if _has_sql(rendering.force_uninstall):
        path = f"{dialect}/drop/force_uninstall.sql"
        plan.files[path] = _header("lets the teardown drop tables that hold jobs", dialect, revision, label,
                                   rendering.session) + rendering.force_uninstall
        plan.downgrade.append(path)
    plan.downgrade += [entry["drop"] for entry in reversed(plan.objects) if entry["drop"]]
    # ... and it ends as uninstall.sql ends: on SQL Server the guard began a transaction that holds its
    # table locks through every drop, and uninstall's ending commits it. Without it the teardown's
    # drops stayed in an open transaction that the connection's close rolled back.
    ending = rendering.uninstall_end
    if _has_sql(ending):
        path = f"{dialect}/drop/uninstall_end.sql"
        plan.files[path] = _header("ends the teardown as uninstall.sql ends", dialect, revision, label,
                                   rendering.session) + ending
        plan.downgrade.append(path)
    plan.downgrade_notes.append(f"drops every object of schema {spec.schema}, tables and the jobs in them included "
                                "(the teardown)")
    return plan


def _write_object(plan: DialectPlan, dialect: str, revision: str, label: str, spec: Spec, rendering: Rendering,
                  item) -> tuple[str, str | None]:
    """An object's create file and drop file (None when its drop block is empty), kept in this revision."""
    create_path = f"{dialect}/create/{item.filename}"
    plan.files[create_path] = item.create
    if not _has_sql(item.drop):
        return create_path, None
    drop_path = f"{dialect}/drop/{item.filename}"
    what = f"drops {item.obj.kind} {spec.schema}.{item.obj.name}" if item.obj.queue else f"drops {item.obj.kind}"
    plan.files[drop_path] = _header(what, dialect, revision, label, rendering.session) + item.drop
    return create_path, drop_path


def _entry(obj: DbObject, create: str, drop: str | None) -> dict:
    return {"key": obj.key, "kind": obj.kind, "name": obj.name, "queue": obj.queue, "create": create, "drop": drop}


class _FollowOn:
    """A revision that follows an earlier one of the same schema. It holds files only for the objects
    whose SQL changes; an unchanged object's entry in its manifest points at the file of the revision
    that last wrote it. Its upgrade drops and creates only:
    - objects whose SQL changed (their previous version's drop, then their new create);
    - objects that depend on one of those (a procedure that takes a table type that is re-created);
    - objects the spec adds or removes.
    Tables that hold jobs are only ever altered (_plan_kept_tables). The grants are run again (GRANT
    only: nothing is revoked) when objects were re-created and the grants' own SQL is unchanged, as
    re-created objects come without their grants; verify, install's closing check, runs last in both
    directions."""

    def __init__(self, dialect: str, revision: str, label: str, spec: Spec, rendering: Rendering, previous: Previous,
                 allow_drop: set[str], used: set[str]):
        self.dialect, self.revision, self.label, self.spec = dialect, revision, label, spec
        self.rendering, self.previous, self.allow_drop, self.used = rendering, previous, allow_drop, used
        self.old = previous.objects(dialect)
        self.old_by_key = {o.key: o for o in self.old}
        self.new_by_key = {item.obj.key: item for item in rendering.objects}
        self.plan = DialectPlan()
        self.steps = _Steps(dialect, revision, label, rendering.session)

    def unchanged(self, key: str) -> bool:
        o, n = self.old_by_key[key], self.new_by_key[key]
        drop = self.rendering.session + n.drop if _has_sql(n.drop) else ""  # as its drop file holds it
        return _body(o.create) == _body(n.create) and _body(o.drop) == _body(drop)

    def redone(self) -> dict[str, str]:
        """The objects in both revisions that the upgrade drops and creates again, with why."""
        why = {}
        for item in self.rendering.objects:
            key, obj = item.obj.key, item.obj
            if key not in self.old_by_key or obj.kind in DATA_TABLES or obj.kind in CHECKS or obj.kind == "grants":
                continue
            if not self.unchanged(key):
                why[key] = "its SQL changed"
            else:
                deps = [dep for dep in obj.depends_on if dep in why]
                if deps:
                    why[key] = f"it depends on {', '.join(deps)}, which is created again"
        if "grants" in self.new_by_key and "grants" in self.old_by_key and not self.unchanged("grants"):
            why["grants"] = "its SQL changed"
        return why

    def make(self, changes: dict) -> DialectPlan:
        plan, old_by_key, new_by_key = self.plan, self.old_by_key, self.new_by_key
        redo = self.redone()
        added = [k for k in new_by_key if k not in old_by_key]
        removed = [o.key for o in self.old if o.key not in new_by_key]
        # Objects re-created come without their grants: GRANT them again (only when the grants' SQL is
        # the same: a changed grants object is dropped, revoking, and created like any other).
        created = [k for k in list(redo) + added if new_by_key[k].obj.kind not in CHECKS and k != "grants"]
        regrant = "grants" in new_by_key and "grants" in old_by_key and "grants" not in redo and bool(created)
        plan.redone, plan.added, plan.removed, plan.regrant = redo, added, removed, regrant
        located = self._locate()
        up_drops, up_creates, down_drops, down_creates = [], [], [], []
        for o in reversed(self.old):
            if o.kind in DATA_TABLES:
                if o.key not in new_by_key:
                    up_drops += self._drop_removed_table(o)
            elif o.key in redo or o.key in removed:
                up_drops += [o.drop_path] if o.drop_path else []
        for item in self.rendering.objects:
            key, kind = item.obj.key, item.obj.kind
            create, drop = located[key]
            if key in redo or key in added or kind in CHECKS or (kind == "grants" and regrant):
                if _has_sql(item.create) and not (kind in DATA_TABLES and key in old_by_key):
                    up_creates.append(create)
                if kind in DATA_TABLES and key in added:
                    plan.changes.append(f"create table {self.spec.schema}.{item.obj.name}")
            if kind in DATA_TABLES and key in added:
                down_drops.insert(0, self._drop_if_empty(item.obj))
            elif (key in redo or key in added) and drop:
                down_drops.insert(0, drop)
        for o in self.old:
            if o.kind in DATA_TABLES:
                if o.key not in new_by_key and o.name in self.allow_drop:
                    down_creates.append(o.create_path)
            elif o.key in redo or o.key in removed or o.kind in CHECKS or (o.kind == "grants" and regrant):
                down_creates += [o.create_path] if _has_sql(o.create) else []

        # Tables in both: only storage parameters and columns change, and only when nothing else about them did.
        _plan_kept_tables(self.dialect, self.spec, self.rendering, self.previous, old_by_key, changes, plan, self.steps)
        kept = [f"{self.spec.schema}.{o.name}" for o in self.old if o.kind in DATA_TABLES and o.key in new_by_key]
        if kept:
            plan.downgrade_notes.insert(0, f"keeps table{'s' if len(kept) > 1 else ''} {', '.join(kept)} and every row in "
                                        "them (jobs pending, leased, dead-lettered, archived)")
        for key in removed:
            o = old_by_key[key]
            if o.kind in DATA_TABLES and o.name in self.allow_drop:
                plan.downgrade_notes.append(f"creates table {self.previous.spec.schema}.{o.name} again, empty: the rows "
                                            "the upgrade dropped are lost")
        plan.files.update(self.steps.files)
        plan.upgrade = up_drops + self.steps.upgrade + up_creates
        plan.downgrade = down_drops + self.steps.downgrade + down_creates
        plan.same_as_previous = (not plan.changes and set(old_by_key) == set(new_by_key)
                                 and all(self.unchanged(k) for k in new_by_key))
        return plan

    def _locate(self) -> dict[str, tuple[str, str | None]]:
        """Per object of the new rendering: its create and drop file. Each is written into this revision
        when its SQL is new or changed; else it is the previous revision's (an absolute path, which the
        manifest stores relative to this revision's folder): a drop that names the same object is
        the same file, whatever its create became."""
        located = {}
        for item in self.rendering.objects:
            key, o = item.obj.key, self.old_by_key.get(item.obj.key)
            drop_now = self.rendering.session + item.drop if _has_sql(item.drop) else ""
            same_create = o is not None and _body(o.create) == _body(item.create)
            same_drop = o is not None and _body(o.drop) == _body(drop_now)
            if same_create and same_drop:
                located[key] = (o.create_path, o.drop_path)
            else:
                create, drop = _write_object(self.plan, self.dialect, self.revision, self.label, self.spec,
                                             self.rendering, item)
                if same_create:
                    del self.plan.files[create]
                    create = o.create_path
                if same_drop and drop is not None:
                    del self.plan.files[drop]
                    drop = o.drop_path
                located[key] = (create, drop)
            self.plan.objects.append(_entry(item.obj, *located[key]))
        return located

    def _drop_removed_table(self, o: StoredObject) -> list[str]:
        if o.name in self.allow_drop:
            self.used.add(o.name)
            self.plan.changes.append(f"drop table {self.previous.spec.schema}.{o.name} (allowed)")
            return [o.drop_path] if o.drop_path else []
        self.plan.problems.append(
            f"table {self.previous.spec.schema}.{o.name} ({o.kind.replace('_', ' ')} of queue {o.queue}) is no longer "
            f"in the spec; dropping it loses the rows it holds. Drain it first, then pass --allow-drop {o.name} "
            "to drop it; or keep it in the spec.")
        return []

    def _drop_if_empty(self, obj: DbObject) -> str:
        _, drop = render_change(self.dialect, self.spec, "drop_table_if_empty", obj)
        path = f"{self.dialect}/revert/{next(self.steps.number):02d}_{obj.name}_drop_if_empty.sql"
        self.plan.files[path] = _header(f"drops table {self.spec.schema}.{obj.name} if empty", self.dialect,
                                        self.revision, self.label, self.rendering.session) + drop
        self.plan.downgrade_notes.append(f"drops table {self.spec.schema}.{obj.name} only if it is empty; "
                                         "a table holding rows is kept with them")
        return path


class _Steps:
    """A revision's table changes: each one's file under change/ (upgrade runs them in the order they
    are added) and its reversal under revert/ (downgrade runs them in the opposite order)."""

    def __init__(self, dialect: str, revision: str, label: str, session: str):
        self.dialect, self.revision, self.label, self.session = dialect, revision, label, session
        self.number = itertools.count(1)  # numbers the change and revert files in the order upgrade runs them
        self.files: dict[str, str] = {}
        self.upgrade: list[str] = []
        self.downgrade: list[str] = []

    def add(self, name: str, up_title: str, up: str, down_title: str, down: str) -> None:
        stem = f"{next(self.number):02d}_{name}.sql"
        for folder, title, text in (("change", up_title, up), ("revert", down_title, down)):
            self.files[f"{self.dialect}/{folder}/{stem}"] = _header(title, self.dialect, self.revision, self.label,
                                                                   self.session) + text
        self.upgrade.append(f"{self.dialect}/change/{stem}")
        self.downgrade.insert(0, f"{self.dialect}/revert/{stem}")


def _plan_kept_tables(dialect: str, spec: Spec, rendering: Rendering, previous: Previous, old_by_key: dict,
                      changes: dict, plan: DialectPlan, steps: _Steps) -> None:
    """The tables of both revisions: their storage parameters and columns change in place, and only
    when nothing else about them changed; anything else is a problem of the plan."""
    prev_now = {i.obj.key: i for i in render_spec(previous.spec, "previous", dialect).objects}
    retargeted = prev_now  # the previous spec for the new SQL Server version: compared with the bridge
    if previous.spec.sqlserver_version != spec.sqlserver_version:
        retargeted = {i.obj.key: i for i in render_spec(
            previous.spec.model_copy(update={"sqlserver_version": spec.sqlserver_version}), "previous", dialect).objects}
        if dialect_registry.get(dialect).follows_sqlserver_version:
            plan.changes.append(f"sqlserver_version {previous.spec.sqlserver_version} -> {spec.sqlserver_version}: "
                                "tables already there keep the key options they were created with")
    bridged = {i.obj.key: i for i in render_spec(bridge_spec(previous.spec, spec), "bridge", dialect).objects}
    for item in rendering.objects:
        key, obj = item.obj.key, item.obj
        if obj.kind not in DATA_TABLES or key not in old_by_key:
            continue
        table = f"{spec.schema}.{obj.name}"
        stored, before, bridge, after = (_body(old_by_key[key].create), _body(prev_now[key].create),
                                         _body(bridged[key].create), _body(item.create))
        if stored != before and not _storage_step(dialect, spec, obj, stored, before, plan, steps) \
                and not _shape_step(dialect, spec, obj, stored, before, plan, steps):
            plan.problems.append(
                f"table {table}: the templates now render it differently from revision {previous.revision}, for the same "
                f"spec, so the table in the database is not what this qgen expects ({dialect}):\n"
                + _short_diff(stored, before, f"revision {previous.revision}", "now")
                + "qgen cannot work out that change; write an Alembic revision by hand that makes it.")
            continue
        if bridge != after:
            plan.problems.append(_table_refusal(table, obj, previous.spec, spec, old_by_key[key], bridge, after, dialect))
            continue
        if _body(retargeted[key].create) == bridge:
            continue
        group = "outbox" if obj.kind == "outbox_table" else "payload"
        diff = changes.get(obj.queue, {}).get(group)
        if diff is not None and diff.refused:
            continue  # the column refused is the reason the table differs, and the plan says so already
        if diff is None or not (diff.added or diff.dropped):
            plan.problems.append(f"table {table}: its SQL changes in a way qgen cannot name ({dialect}); "
                                 "write an Alembic revision by hand for it.")
            continue
        _column_steps(dialect, spec, obj, diff, plan, steps)


# Columns of their own that the templates give a queue table and an older qgen's table may lack,
# each with its change template (templates/<dialect>/<name>.sql.j2: create adds it, drop removes it).
OWN_COLUMNS = {"deferred": "deferred_column"}


def _shape_step(dialect: str, spec: Spec, obj: DbObject, stored: str, before: str, plan: DialectPlan,
                steps: _Steps) -> bool:
    """When what differs between the SQL the previous revision ran (stored) and what the templates
    render now for its spec (before) is only lines added, and those name one of qgen's own columns
    (OWN_COLUMNS) that the dialect has a change template for: the step that adds it in place, and
    its reversal. False otherwise (the revision is refused, saying so)."""
    diff = [line for line in difflib.ndiff(stored.splitlines(), before.splitlines()) if line[:2] in ("+ ", "- ")]
    if not diff or any(line.startswith("- ") for line in diff):
        return False
    code = [line[2:] for line in diff if not line[2:].lstrip().startswith("--")]  # comments aside
    added = {name for name in OWN_COLUMNS if any(f"[{name}]" in line or f'"{name}"' in line for line in code)}
    if not added or len(code) != len(added):
        return False
    table = f"{spec.schema}.{obj.name}"
    for name in sorted(added):
        try:
            up, down = render_change(dialect, spec, OWN_COLUMNS[name], obj)
        except TemplateNotFound:
            return False
        steps.add(f"{obj.name}_{name}", f"adds qgen's column {name} to table {table}", up,
                  f"drops qgen's column {name} from table {table}", down)
        plan.changes.append(f"add column {table}.{name} (qgen's own, which this qgen's templates keep: in place, "
                            "metadata only, every row 0)")
        plan.downgrade_notes.append(f"drops qgen's column {name} from table {table}; no job is touched")
    return True


def _storage_step(dialect: str, spec: Spec, obj: DbObject, stored: str, before: str, plan: DialectPlan,
                  steps: _Steps) -> bool:
    """When a table's storage parameters (the dialect's table_storage) are all that differs between the
    SQL the previous revision ran (stored) and what the templates render now for its spec (before):
    the step that sets the new ones in place, and its reversal, which sets the old ones back. False
    when the dialect has no such parameters or something else differs too."""
    database = dialect_registry.get(dialect)
    stored_split, before_split = database.table_storage(stored), database.table_storage(before)
    if stored_split is None or before_split is None:
        return False
    (stored_rest, was), (before_rest, wanted) = stored_split, before_split
    if stored_rest != before_rest:
        return False
    if was == wanted:  # written differently, the same parameters
        return True
    table = f"{spec.schema}.{obj.name}"
    up, down = render_change(dialect, spec, "table_storage", obj, storage=wanted, previous=was)
    steps.add(f"{obj.name}_storage", f"sets the storage parameters of table {table}", up,
              f"sets the storage parameters of table {table} back", down)
    said = [f"{name} = {value} (was {was.get(name, 'the default')})" for name, value in wanted.items()
            if was.get(name) != value] + [f"{name} reset (was {value})" for name, value in was.items() if name not in wanted]
    plan.downgrade_notes.append(f"sets the storage parameters of table {table} back; no row is touched")
    plan.changes.append(f"set storage of table {table}: {', '.join(said)} (in place: ALTER TABLE ... SET takes only a "
                        "SHARE UPDATE EXCLUSIVE lock, rewrites no row and affects the pages written from now on)")
    return True


def _column_steps(dialect: str, spec: Spec, obj: DbObject, diff: ColumnDiff, plan: DialectPlan, steps: _Steps) -> None:
    """The payload (or outbox) columns a revision adds to a table, or drops from it, and their reversal."""
    table = f"{spec.schema}.{obj.name}"
    kinds = (
        ("add_column", "add", diff.added, "adds column {}", "removes column {} if it holds no values",
         "add column {} ({}, nullable)"),
        ("drop_column", "drop", diff.dropped, "drops column {}", "adds column {} back, empty",
         "drop column {} (allowed)"),
    )
    for kind, verb, columns, up_title, down_title, summary in kinds:
        for col in columns:
            up, down = render_change(dialect, spec, kind, obj, col)
            column = f"{table}.{col.name}"
            steps.add(f"{obj.name}_{verb}_{col.name}", up_title.format(column), up, down_title.format(column), down)
            plan.changes.append(summary.format(column, col.type))
            plan.downgrade_notes.append(
                f"removes column {column} only while no row has a value in it; otherwise keeps it, values included"
                if verb == "add" else f"adds column {column} back, empty and nullable: the values the upgrade dropped are lost")


def _relative(path: str | None, folder: Path) -> str | None:
    """A file a manifest names, relative to the revision's folder: one of its own ("postgres/create/..."),
    or one an earlier revision kept ("../<rev>_<slug>/postgres/create/..."), as `qgen revision` found it."""
    if path is None or not os.path.isabs(path):
        return path
    return Path(os.path.relpath(path, folder)).as_posix()


def _manifest_json(manifest: dict) -> str:
    """Indented JSON, with each object and each step on a line of its own (reviewable in a diff)."""
    def dump(value, indent: str) -> str:
        inner = indent + "  "
        if isinstance(value, dict) and not (value and "key" in value and "kind" in value):
            items = [f"{inner}{json.dumps(k)}: {dump(v, inner)}" for k, v in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + indent + "}" if items else "{}"
        if isinstance(value, list) and value:
            return "[\n" + ",\n".join(inner + dump(v, inner) for v in value) + "\n" + indent + "]"
        return json.dumps(value)
    return dump(manifest, "") + "\n"


def _short_diff(a: str, b: str, a_name: str, b_name: str, limit: int = 30) -> str:
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), a_name, b_name, lineterm="", n=1))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "".join(f"    {line}\n" for line in lines)


def _table_refusal(table: str, obj: DbObject, prev: Spec, new: Spec, old: StoredObject, bridge: str, after: str, dialect: str) -> str:
    reasons = []
    if old.name != obj.name:
        reasons.append(f"it is renamed (was {old.name})")
    old_q, new_q = prev.queues.get(obj.queue), new.queues.get(obj.queue)
    if old_q is not None and new_q is not None:
        for option in TABLE_SHAPING:
            before, after_value = getattr(old_q, option), getattr(new_q, option)
            if before != after_value:
                show = lambda v: v.model_dump() if hasattr(v, "model_dump") else v  # noqa: E731
                reasons.append(f"queues.{obj.queue}.{option} changed from {show(before)} to {show(after_value)}")
    why = "; ".join(reasons) if reasons else "its columns change beyond added or dropped payload columns"
    return (f"table {table}: {why}. qgen changes a table that holds jobs only by adding nullable payload columns "
            f"(or dropping ones you allow); anything else would rebuild it and lose or rewrite queued jobs. "
            f"Instead: add a new queue with the new settings, point producers at it, let consumers drain the old "
            f"one, then remove the old queue in a later revision (--allow-drop for each of its tables). "
            f"The table would change like this ({dialect}):\n" + _short_diff(bridge, after, "table now", "table wanted"))


# ---------------------------------------------------------------------------------------------
# `qgen revision`.


@dataclass
class RevisionMade:
    path: Path
    folder: Path
    revision: str
    previous: str | None
    plans: dict[str, DialectPlan]


@dataclass
class PlannedRevision:
    """What `qgen revision` would write, worked out and checked, nothing written yet."""

    spec_path: Path
    spec: Spec
    spec_text: str
    revision: str
    previous: Previous | None
    plans: dict[str, DialectPlan]
    script_dir: object

    @property
    def table_changes(self) -> list[str]:
        return sorted({c for plan in self.plans.values() for c in plan.changes}, key=lambda c: (c.split()[0], c))

    def page(self, message: str, dry_run: bool = False) -> str:
        """The revision's review page (REVIEW.md in its folder; `qgen revision --dry-run` prints it)."""
        from qgen.review import revision_page

        return revision_page(self, message, dry_run)


def plan_revision(spec_path: str | Path, config_path: str | Path = "alembic.ini", dialect: str | None = None,
                  allow_drop: list[str] | tuple[str, ...] = ()) -> PlannedRevision:
    """Work out the revision `qgen revision` would write for the spec, and refuse it (RevisionRefused)
    when it cannot be made safely. Writes nothing. Raises RevisionRefused, SpecInvalid or
    alembic.util.CommandError."""
    from alembic import util as alembic_util
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    spec_path = Path(spec_path)
    spec = load_spec(spec_path)
    spec_text = spec_path.read_text(encoding="utf-8")
    dialects = list(spec.dialects) if dialect in (None, "all") else [dialect]
    if dialect not in (None, "all") and dialect not in spec.dialects:
        raise RevisionRefused([f"the spec renders for {', '.join(spec.dialects)}, not {dialect}"])
    config_path = Path(config_path)
    if not config_path.is_file():
        raise RevisionRefused([f"no Alembic configuration at {config_path}: run `qgen init` to make an Alembic "
                               "environment here, or pass -c PATH (the alembic.ini of your project's environment)"])
    script_dir = ScriptDirectory.from_config(Config(str(config_path)))
    script_dir.get_current_head()  # one head, or alembic's own error about several
    previous = find_previous(script_dir, spec.schema)
    problems: list[str] = []
    allowed, used = set(allow_drop), set()
    changes = {}
    if previous is not None:
        missing = [d for d in dialects if d not in previous.manifest["dialects"]]
        if missing:
            problems.append(f"revision {previous.revision} (schema {spec.schema}) has no SQL for {', '.join(missing)}; "
                            f"make this one with --dialect {' / '.join(previous.manifest['dialects'])}")
            dialects = [d for d in dialects if d not in missing]
        changes, found = column_changes(previous.spec, spec, allowed, used)
        problems += found
    revision = alembic_util.rev_id()
    plans = {}
    for name in dialects:
        rendering = render_spec(spec, spec_path.name, name)
        plans[name] = plan_dialect(name, revision, spec_path.name, spec, rendering, previous, changes, allowed, used)
        problems += [p for p in plans[name].problems if p not in problems]
    if previous is not None and plans and all(plan.same_as_previous for plan in plans.values()):
        problems.append(f"nothing changed since revision {previous.revision}: every object renders the SQL it "
                        "already has; no revision is needed.")
    for flag in sorted(allowed - used):
        problems.append(f"--allow-drop {flag}: this revision drops no such column or table "
                        "(columns are QUEUE.COLUMN, tables are their name in the schema)")
    if problems:
        raise RevisionRefused(problems)
    return PlannedRevision(spec_path, spec, spec_text, revision, previous, plans, script_dir)


def make_revision(spec_path: str | Path, message: str, config_path: str | Path = "alembic.ini",
                  dialect: str | None = None, allow_drop: list[str] | tuple[str, ...] = ()) -> RevisionMade:
    """Write an Alembic revision that installs the spec (first revision of its schema) or moves the
    database from the schema's previous qgen revision to this spec. Raises RevisionRefused, SpecInvalid,
    or alembic.util.CommandError; writes nothing then."""
    planned = plan_revision(spec_path, config_path, dialect, allow_drop)
    return write_revision(planned, message)


def _docs(planned: PlannedRevision) -> dict:
    """What the revision's module says of itself (qgen/revision.py.mako)."""
    spec, previous = planned.spec, planned.previous
    if previous is None:
        summary = (f"First qgen revision of schema {spec.schema}: downgrading past it drops every object it created, "
                   "tables and their jobs included.")
        upgrade_doc = "Create every object of the spec, in dependency order."
        downgrade_doc = "Drop every object, tables and their jobs included: the teardown."
    else:
        table_changes = planned.table_changes
        summary = (f"Follows qgen revision {previous.revision} of the same schema: replaces the objects that changed, "
                   "keeps the tables and their jobs" + ("; " + "; ".join(table_changes) if table_changes else "") + ".")
        upgrade_doc = (f"Create again only the objects whose SQL changed since revision {previous.revision} (and "
                       "those that depend on them), add and remove objects; change tables only as listed above.")
        downgrade_doc = (f"Restore revision {previous.revision}'s versions of those objects; tables keep their jobs "
                         "(an added column stays while it holds values).")
    return {"spec": str(planned.spec_path), "schema": spec.schema, "dialects": list(planned.plans), "summary": summary,
            "upgrade": upgrade_doc, "downgrade": downgrade_doc}


def write_revision(planned: PlannedRevision, message: str) -> RevisionMade:
    """Write the planned revision: its module (Alembic names, places and chains it) and its folder."""
    from alembic import util as alembic_util

    spec, previous, revision, plans = planned.spec, planned.previous, planned.revision, planned.plans
    qgen = _docs(planned)
    # Alembic names, places and chains the revision (its file template, version locations, head);
    # its module is then written from qgen's own template, whatever the environment's
    # script.py.mako says: an Alembic environment of the user's own takes qgen revisions as it is.
    script = planned.script_dir.generate_revision(revision, message, head="head", qgen=qgen)
    module = Path(script.path)
    folder = module.with_suffix("")
    try:
        alembic_util.template_to_file(
            str(REVISION_TEMPLATE), str(module), "utf-8", up_revision=script.revision,
            down_revision=script.down_revision, branch_labels=None, depends_on=None,
            create_date=datetime.datetime.now(), comma=alembic_util.format_as_comma, message=message, qgen=qgen)
        folder.mkdir()
        (folder / SPEC_FILE).write_text(planned.spec_text, encoding="utf-8", newline="\n")
        (folder / PAGE_FILE).write_text(planned.page(message), encoding="utf-8", newline="\n")
        manifest = {
            "qgen": __version__,
            "revision": revision,
            "message": message,
            "spec": str(planned.spec_path),
            "schema": spec.schema,
            "follows": previous.revision if previous else None,
            "changes": planned.table_changes,
            "dialects": {},
        }
        for name, plan in plans.items():
            for relative, text in plan.files.items():
                path = folder / relative
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8", newline="\n")
            here = lambda path: _relative(path, folder)  # noqa: E731
            manifest["dialects"][name] = {
                "objects": [{**entry, "create": here(entry["create"]), "drop": here(entry["drop"])} for entry in plan.objects],
                "upgrade": [here(p) for p in plan.upgrade],
                "downgrade": [here(p) for p in plan.downgrade],
                "downgrade_notes": plan.downgrade_notes,
            }
        (folder / MANIFEST).write_text(_manifest_json(manifest), encoding="utf-8", newline="\n")
    except BaseException:
        module.unlink(missing_ok=True)
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return RevisionMade(module, folder, revision, previous.revision if previous else None, plans)
