"""What a revision does to the tables that hold jobs or results: they are never re-created. Payload
(and outbox) columns are added (nullable) or dropped (when --allow-drop says so), storage parameters
and qgen's own columns change in place; anything else is refused, saying what to do instead. Every
line of SQL comes from templates/<dialect>/ (add_column, drop_column, drop_table_if_empty,
table_storage, deferred_column)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Mapping

from jinja2 import TemplateNotFound

from qgen import dialects as dialect_registry
from qgen.spec.catalog import DbObject
from qgen.migrations.manifest import Previous, StoredObject
from qgen.migrations.steps import DialectPlan, Steps, body
from qgen.render.engine import Column, Rendering, make_environment, render_spec
from qgen.spec.model import Spec

# Tables that hold jobs or results: never dropped or re-created by a revision that follows another.
DATA_TABLES = ("table", "dead_letter_table", "archive_table", "outbox_table")
# Tables that hold an operator's state (pause: the control row): never re-created by a revision that
# follows another either, whatever their SQL became (a deploy during an incident must not resume a
# paused queue). Their create is idempotent (IF NOT EXISTS); a change to their columns needs an
# in-place step of its own (an upgrade block), as the watermark's corrected_at had.
STATE_TABLES = ("control_table",)
# Queue options that shape a table's own columns: changing one is refused, and named in the refusal.
TABLE_SHAPING = ("claim", "ordering", "scheduling", "audit", "on_complete", "job_type")


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
        changes[queue_name] = {group: _column_diff(_columns(before), _columns(after), path, prefix, allow_drop, used,
                                                   problems)
                               for group, (before, after, path, prefix) in groups.items()}
    return changes, problems


@dataclass
class ColumnDiff:
    added: list[Column] = field(default_factory=list)
    dropped: list[Column] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # columns whose change is a problem of the plan, said there


def _columns(mapping: Mapping[str, Any] | None) -> dict[str, Column]:
    return {name: Column(name, col.type, col.nullable) for name, col in (mapping or {}).items()}


def _column_diff(before: dict[str, Column], after: dict[str, Column], path: str, flag_prefix: str,
                 allow_drop: set[str], used: set[str], problems: list[str]) -> ColumnDiff:
    """One group of columns (a queue's payload, its outbox's): added, dropped (allowed), or refused."""
    diff = ColumnDiff()
    for name, col in after.items():
        if name not in before:
            if col.nullable:
                diff.added.append(col)
            else:
                diff.refused.append(name)
                problems.append(f"{path}.{name}: a new column must be nullable: the jobs already queued have no value "
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
    return diff


def bridge_spec(prev: Spec, new: Spec) -> Spec:
    """The previous spec with each queue's payload (and outbox columns) taken from the new one. Its
    tables render exactly like the new spec's when columns are all that changed in them."""
    queues = {}
    for name, queue in prev.queues.items():
        target = new.queues.get(name)
        if target is None:
            queues[name] = queue
            continue
        update: dict[str, Any] = {"payload": target.payload}
        if queue.outbox and target.outbox and queue.outbox.columns is not None and target.outbox.columns is not None:
            update["outbox"] = queue.outbox.model_copy(update={"columns": target.outbox.columns})
        queues[name] = queue.model_copy(update=update)
    # The SQL Server version a table targets only sets options of its key; a table keeps the ones it has.
    return prev.model_copy(update={"queues": queues, "sqlserver_version": new.sqlserver_version})

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

def plan_kept_tables(dialect: str, spec: Spec, rendering: Rendering, previous: Previous, old_by_key: dict,
                      changes: dict, plan: DialectPlan, steps: Steps) -> None:
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
        stored, before, bridge, after = (body(old_by_key[key].create), body(prev_now[key].create),
                                         body(bridged[key].create), body(item.create))
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
        if body(retargeted[key].create) == bridge:
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
                steps: Steps) -> bool:
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
                  steps: Steps) -> bool:
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


def _column_steps(dialect: str, spec: Spec, obj: DbObject, diff: ColumnDiff, plan: DialectPlan, steps: Steps) -> None:
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

def _short_diff(a: str, b: str, a_name: str, b_name: str, limit: int = 30) -> str:
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), a_name, b_name, lineterm="", n=1))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "".join(f"    {line}\n" for line in lines)


def _table_refusal(table: str, obj: DbObject, prev: Spec, new: Spec, old: StoredObject, bridge: str, after: str, dialect: str) -> str:
    reasons = []
    if old.name != obj.name:
        reasons.append(f"it is renamed (was {old.name})")
    old_q, new_q = prev.queues.get(obj.queue or ""), new.queues.get(obj.queue or "")
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
