"""Render a spec's objects through the templates; write them, or compare them with what is on disk.

Python here loads, orders and writes; every line of SQL comes from templates/:
- templates/<dialect>/<kind>.sql.j2, falling back to templates/default/<kind>.sql.j2, renders one
  object kind. Its `create` block is the object's install script, its `drop` block removes it.
- templates/<dialect>/script.sql.j2 (else templates/default/script.sql.j2, empty) holds what scripts
  need besides objects: its `session` block begins every file (each object's file, install.sql,
  uninstall.sql; SQL Server: the SET options filtered indexes need and procedures keep from the
  session creating them), `uninstall_begin`/`uninstall_end` wrap uninstall.sql, and `force_uninstall`
  lets an uninstall drop tables that still hold jobs.
- Macros are called as m.<name>(...): m dispatches to `<dialect>__<name>` in
  templates/<dialect>/macros.sql.j2, falling back to `default__<name>` in templates/default/macros.sql.j2
  (as dbt's adapter.dispatch does), so a difference between databases is found by grep.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from types import SimpleNamespace
from typing import Iterable, Optional

import jinja2

from qgen import __version__
from qgen.spec.locks import Limits, limits
from qgen import dialects as dialect_registry
from qgen.spec.contract import declared
from qgen.render.template_cache import CompiledTemplates
from qgen.dialects import Database
from qgen.spec.catalog import (
    ROUTINE_KINDS, DbObject, claims_in_place, has_dead_letters, keeps_duplicates, spec_objects, splits_deferred,
)
from qgen.spec.model import (
    DEAD_LETTERS_MAX, ERROR_MAX, LABEL_MAX, MAINTENANCE_BATCH, MAINTENANCE_BATCH_MAX, MAX_WAIT_MS, NAME_SUFFIX, OBJECT_KINDS, WAIT_STEP_MS, ColumnType, Dedupe,
    JobType, Queue, Spec, Watermark, object_name, role_name, wakeup_channel,
)


def templates_dir() -> Path:
    """templates/ ships inside the wheel as qgen/templates; a checkout keeps it at the repo root."""
    package = Path(__file__).parents[1]  # qgen/
    packaged = package / "templates"
    return packaged if packaged.is_dir() else package.parent / "templates"


class MacroDispatch:
    """m.<name>: the dialect's own macro if it has one, else the default one."""

    def __init__(self, env: jinja2.Environment, dialect: str):
        self._env, self._dialect = env, dialect

    @cached_property
    def _modules(self) -> list[tuple[str, object]]:
        found = []
        for prefix in (self._dialect, "default"):
            try:
                found.append((prefix, self._env.get_template(f"{prefix}/macros.sql.j2").module))
            except jinja2.TemplateNotFound:
                pass
        return found

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        for prefix, module in self._modules:
            macro = getattr(module, f"{prefix}__{name}", None)
            if macro is not None:
                return macro
        raise AttributeError(f"no macro {self._dialect}__{name} or default__{name}")


# Compiled templates, in memory and in the user's cache folder (qgen/render/template_cache.py).
_COMPILED = CompiledTemplates()


def make_environment(dialect: str, templates: Path | None = None) -> jinja2.Environment:
    env = jinja2.Environment(
        bytecode_cache=_COMPILED,
        loader=jinja2.FileSystemLoader(str(templates or templates_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.globals["m"] = MacroDispatch(env, dialect)
    env.globals["dialect"] = dialect_registry.get(dialect)
    return env


@dataclass(frozen=True)
class Column:
    name: str
    type: object
    nullable: bool


@dataclass(frozen=True)
class Roles:
    """The names of the spec's roles (`roles` in a template)."""

    producer: str
    consumer: str
    admin: str
    owner: str


@dataclass(frozen=True)
class Maintenance:
    """The maintenance procedures' batch size (`maintenance`): the default, and the most they accept."""

    batch_size: int
    max_batch_size: int


@dataclass(frozen=True)
class Wait:
    """A dequeue that waits for work (SQL Server's @wait_ms; `wait`): its bound, and its sleep between claims."""

    max_ms: int
    step_ms: int


@dataclass(frozen=True)
class OutboxQueue:
    """The downstream queue of the spec a queue's complete enqueues into (`q.outbox_queue`)."""

    name: str
    spec: Queue
    names: SimpleNamespace  # its object names, as QueueContext.names


@dataclass(frozen=True)
class QueueContext:
    """What a template knows of a queue (`q`): its options, resolved names and columns. The templates
    test these facts rather than derive them again from the spec."""

    name: str
    spec: Queue
    # Every object name of the queue, by kind (names.dequeue, names.watermark_table, ...: one
    # attribute per kind of qgen.spec.OBJECT_KINDS and NAME_SUFFIX).
    names: SimpleNamespace
    payload: list[Column]
    job_columns: list[Column]  # what a job carries from enqueue to dequeue: job type, payload, priority
    value_columns: list[Column]  # what a producer supplies besides priority and timing: job type and payload
    job_type_column: Optional[Column]
    job_type: Optional[JobType]
    dedupe: Optional[Dedupe]
    # dedupe.scope: ever: the tables whose rows still hold a finished job's key, besides the queue table.
    finished_tables: list[str]
    lease: bool  # claim: lease
    in_place: bool  # a claim leaves the leased row in place and writes no indexed column (qgen.spec.catalog)
    watermark: Optional[Watermark]
    outbox_columns: list[Column]  # the columns complete hands on: the outbox's own, or the downstream queue's payload
    outbox_queue: Optional[OutboxQueue]  # the downstream queue complete enqueues into; None: none, or an outbox table
    has_available_at: bool  # a column that exists only for some options: lease mode or scheduling
    limits: Limits  # rows per statement under SQL Server's lock escalation (qgen/spec/locks.py)
    splits_deferred: bool  # deferred jobs (available_at later than enqueued_at) stay off the claim path (qgen.spec.catalog)
    # PostgreSQL, where claims leave rows in place: claims start the due index at a remembered lower
    # bound of due times (the watermark row's due_from), not at its oldest entries, which a held
    # snapshot keeps alive.
    due_bound: bool
    mark: bool  # on_complete: mark
    archive: bool  # on_complete: archive
    dead_letters: bool  # a dead-letter table: exhausted jobs (lease mode), or the duplicates a delete-mode claim keeps back
    keeps_duplicates: bool
    audit: bool
    wakeup_channel: Optional[str]  # wakeup: notify: the channel enqueue notifies (None: the queue is polled only)


def _object_names(spec: Spec, queue_name: str) -> SimpleNamespace:
    """Every object name of a queue, by kind (names.dequeue, names.watermark_table, ...)."""
    return SimpleNamespace(**{kind: object_name(spec, queue_name, kind) for kind in set(OBJECT_KINDS) | set(NAME_SUFFIX)})


def _columns(columns: dict) -> list[Column]:
    return [Column(name, col.type, col.nullable) for name, col in columns.items()]


def _outbox(spec: Spec, queue: Queue) -> tuple[list[Column], Optional[OutboxQueue]]:
    """The columns complete hands on, and the downstream queue it enqueues into (None: an outbox
    table of the queue's own, or no outbox)."""
    if queue.outbox is None:
        return [], None
    if queue.outbox.columns is not None:
        return _columns(queue.outbox.columns), None
    target = queue.outbox.queue
    return (_columns(spec.queues[target].payload),
            OutboxQueue(name=target, spec=spec.queues[target], names=_object_names(spec, target)))


def queue_context(spec: Spec, queue_name: str, dialect: str) -> QueueContext:
    """The QueueContext of one queue of a spec, on one database."""
    queue = spec.queues[queue_name]
    payload = _columns(queue.payload)
    outbox_columns, outbox_queue = _outbox(spec, queue)
    names = _object_names(spec, queue_name)
    finished_tables = []
    if queue.dedupe is not None and queue.dedupe.scope == "ever":
        finished_tables = ([names.archive_table] if queue.on_complete == "archive" else []) + (
            [names.dead_letter_table] if queue.dead_letter else [])
    job_type = [Column(queue.job_type.column, queue.job_type.type, False)] if queue.job_type else []
    priority = [Column("priority", ColumnType(kind="int"), False)] if queue.ordering == "priority" else []
    return QueueContext(
        name=queue_name,
        spec=queue,
        names=names,
        payload=payload,
        job_columns=job_type + payload + priority,
        value_columns=job_type + payload,
        job_type_column=job_type[0] if job_type else None,
        job_type=queue.job_type,
        dedupe=queue.dedupe,
        finished_tables=finished_tables,
        lease=queue.claim == "lease",
        in_place=claims_in_place(queue, dialect),
        watermark=queue.watermark,
        outbox_columns=outbox_columns,
        outbox_queue=outbox_queue,
        has_available_at=queue.claim == "lease" or queue.scheduling,
        limits=limits(spec, queue_name, dialect),
        splits_deferred=splits_deferred(queue),
        due_bound=splits_deferred(queue) and claims_in_place(queue, dialect),
        mark=queue.on_complete == "mark",
        archive=queue.on_complete == "archive",
        dead_letters=has_dead_letters(queue),
        keeps_duplicates=keeps_duplicates(queue),
        audit=queue.audit,
        wakeup_channel=wakeup_channel(spec, queue_name),
    )


@dataclass(frozen=True)
class RenderedObject:
    obj: DbObject
    filename: str
    create: str   # the object's own file: header, session, create block
    drop: str     # its drop block
    section: str  # what install.sql holds of it: header and create block
    upgrade: str = ""  # its upgrade block: what install.sql over an older qgen's install needs first


@dataclass(frozen=True)
class ScriptParts:
    """The blocks of templates/<dialect>/script.sql.j2 (else default/script.sql.j2), "" when empty."""

    session: str  # begins every file
    uninstall_begin: str  # uninstall_begin and uninstall_end wrap uninstall.sql
    uninstall_end: str
    force_uninstall: str  # lets an uninstall that follows it in the same session drop tables that still hold jobs
    batch_guard: str  # begins every batch of uninstall.sql's drops


@dataclass(frozen=True)
class RenderedShapes:
    """What verify compares with what is installed (`rendered` in the verify template): each module's
    fingerprint and each index's shape, from the scripts rendered before it (empty where the
    database compares nothing)."""

    modules: dict[str, str]
    indexes: dict[tuple[str, str], str]


SCRIPT_PARTS = tuple(f.name for f in fields(ScriptParts))
PART_BLOCKS = ("uninstall_part_begin", "uninstall_part_end")


def _script_template(env: jinja2.Environment, dialect_name: str) -> jinja2.Template:
    return env.select_template([f"{dialect_name}/script.sql.j2", "default/script.sql.j2"])


def render_script_parts(env: jinja2.Environment, dialect_name: str) -> ScriptParts:
    """The blocks of templates/<dialect>/script.sql.j2 (else default/script.sql.j2)."""
    template = _script_template(env, dialect_name)
    return ScriptParts(*_blocks(template, {"q": None, "part": 0}, *SCRIPT_PARTS))


def uninstall_parts(rendered: list["RenderedObject"]) -> list[tuple[Optional[str], list["RenderedObject"]]]:
    """The drops of uninstall.sql after its check (the verify object's drop), in parts: each
    queue's drops (a queue before the queues it depends on, e.g. the downstream queue of its
    outbox), then the schema-wide drops (the grants' revokes, roles, schema). Each part is (queue or
    None, its objects in drop order); a dialect runs each part in a transaction of its own
    (uninstall_part_begin / _end), so one transaction never locks more than one queue's objects (a
    spec of hundreds of queues fits a server's lock table). The schema-wide drops that come before
    the queues' in reverse install order (the grants) go to the last part: a part that fails stops
    every later one, and what it leaves is whole queues, each still with its grants."""
    drops = [item for item in reversed(rendered) if item.drop.strip() and item.obj.kind != "verify"]
    queue_of = {item.obj.key: item.obj.queue for item in rendered}
    queues = list(dict.fromkeys(item.obj.queue for item in drops if item.obj.queue))
    # queue -> the queues it depends on (a dependency must be dropped after its dependents)
    needs = {q: {queue_of[d] for item in drops if item.obj.queue == q for d in item.obj.depends_on
                 if queue_of.get(d) not in (None, q)} for q in queues}
    order: list[str] = []
    visiting: set[str] = set()

    def place(queue: str) -> None:
        if queue in order or queue in visiting:
            return  # placed, or a cycle (two queues handing off to each other): either order drops
        visiting.add(queue)
        for other in queues:
            if queue in needs[other]:
                place(other)
        visiting.discard(queue)
        order.append(queue)

    for queue in queues:
        place(queue)
    first = next((i for i, item in enumerate(drops) if item.obj.queue), len(drops))
    last = max((i for i, item in enumerate(drops) if item.obj.queue), default=first - 1)
    parts: list[tuple[Optional[str], list[RenderedObject]]] = [
        (q, [item for item in drops if item.obj.queue == q]) for q in order]
    rest = drops[:first] + [item for item in drops[first:last + 1] if not item.obj.queue] + drops[last + 1:]
    if rest:
        parts.append((None, rest))
    return parts


def _render_uninstall(env: jinja2.Environment, dialect_name: str, base: dict, rendered: list["RenderedObject"],
                      parts: ScriptParts) -> str:
    """uninstall.sql's body: uninstall_begin, the check (verify's drop), each part in its own
    uninstall_part_begin / uninstall_part_end (rendered with q, its queue, and part, its number from
    1), uninstall_end. Where the dialect has a batch_guard block, every batch of the parts begins with
    it (SQL Server: the check's transaction spans the GO batches; a batch that finds it gone refuses)."""
    template = _script_template(env, dialect_name)
    check = "".join(item.drop for item in reversed(rendered) if item.obj.kind == "verify" and item.drop.strip())
    drops = ""
    for number, (queue, items) in enumerate(uninstall_parts(rendered), start=1):
        variables = {**base, "q": base["queues"].get(queue) if queue else None, "part": number}
        begin, end = _blocks(template, variables, *PART_BLOCKS)
        drops += begin + "".join(item.drop for item in items) + end
    if parts.batch_guard:
        dialect = dialect_registry.get(dialect_name)
        drops = "".join(f"{parts.batch_guard}{batch}\n{dialect.batch_separator}"
                        for batch in dialect.split_batches(drops))
    return parts.uninstall_begin + check + drops + parts.uninstall_end


@dataclass(frozen=True)
class Rendering:
    dialect: str
    objects: list[RenderedObject]
    install: str
    uninstall: str
    session: str  # what begins every file; a migration's own files begin with it too
    force_uninstall: str  # run first in the same session, uninstall drops tables that still hold jobs
    # Runs every queue's maintain from the database's own scheduler (not part of install.sql).
    schedule: str = ""
    # Run before install.sql over an install an older qgen made: the objects' upgrade blocks (what
    # the current objects replace: functions under an older parameter list, indexes over the lease,
    # a column a table lacked). A fresh install, and a qgen revision, never need it.
    upgrade: str = ""
    # How uninstall.sql ends (SQL Server: the COMMIT of the transaction its check began): a revision's
    # teardown, which runs the objects' drops one file each, ends with it too.
    uninstall_end: str = ""

    def files(self) -> dict[str, str]:
        files = {item.filename: item.create for item in self.objects}
        files["install.sql"] = self.install
        files["uninstall.sql"] = self.uninstall
        if self.schedule:
            files["schedule.sql"] = self.schedule
        if self.upgrade:
            files["upgrade.sql"] = self.upgrade
        return files


HEADER_MARK = "-- qgen "


def render_spec(spec: Spec, spec_label: str, dialect_name: str, templates: Path | None = None) -> Rendering:
    """Render every object of the spec for one dialect. spec_label names the spec in headers;
    templates overrides the template folder (tests use it to show a broken template is caught)."""
    dialect = dialect_registry.get(dialect_name)
    env = make_environment(dialect_name, templates)
    base = {
        "spec": spec,
        "schema": spec.schema,
        "roles": Roles(*(role_name(spec, f.name) for f in fields(Roles))),
        "queues": {name: queue_context(spec, name, dialect_name) for name in spec.queues},
        "batch": dialect.batch_separator,
        "maintenance": Maintenance(batch_size=MAINTENANCE_BATCH, max_batch_size=MAINTENANCE_BATCH_MAX),
        "wait": Wait(max_ms=MAX_WAIT_MS, step_ms=WAIT_STEP_MS),
        "objects": spec_objects(spec, dialect_name),  # every object, in dependency order (verify names them all)
        "routine_kinds": sorted(ROUTINE_KINDS),  # the kinds of object that are procedures / functions
        # A label parameter (owner, enqueued_by): its column's type, checked as a payload value is
        # (m.param_type, m.check_values); an error text is cut to error_max (fail).
        "label": ColumnType(kind="string", length=LABEL_MAX),
        "error_max": ERROR_MAX,
        # A procedure's parameters on this database, from the contract (m.parameters spells them).
        "procedure_parameters": lambda queue, kind: declared(spec, queue, kind, dialect_name),
        "dead_letters_max": DEAD_LETTERS_MAX,  # the most rows one dead_letters call lists
    }
    env.globals.update(base)  # imported macro modules see these too
    parts = render_script_parts(env, dialect_name)
    session = parts.session
    rendered: list[RenderedObject] = []
    for index, obj in enumerate(base["objects"]):
        template = env.select_template([f"{dialect_name}/{obj.kind}.sql.j2", f"default/{obj.kind}.sql.j2"])
        context = {**base, "obj": obj, "q": base["queues"].get(obj.queue)}
        if obj.kind == "verify":
            context["rendered"] = _rendered_shapes(dialect, [item.create for item in rendered])
        create, drop, upgrade = _blocks(template, context, "create", "drop", "upgrade")
        what = f"{obj.kind} {spec.schema}.{obj.name}" if obj.queue else f"{obj.kind} {obj.name}"
        if obj.kind in ("roles", "grants"):  # one file for the three roles, named after one of them
            roles = ", ".join(role_name(spec, r) for r in ("producer", "consumer", "admin"))
            what = f"roles {roles} ({dialect.role_scope})" if obj.kind == "roles" else f"grants to roles {roles}"
        header = (
            f"{HEADER_MARK}{__version__}: {what}, rendered for {dialect.title} from {spec_label}.\n"
            "-- Do not edit: change the spec or the templates, then run `qgen render`.\n"
        )
        filename = f"{index:02d}_{obj.key.replace('.', '_')}.sql"
        rendered.append(RenderedObject(obj, filename, header + session + create, drop, header + create, upgrade))
    script_header = (
        f"{HEADER_MARK}{__version__}: every object of {spec_label}, for {dialect.title}, in dependency order.\n"
        "-- Do not edit: change the spec or the templates, then run `qgen render`.\n"
    )
    install = script_header + session + "\n".join(item.section for item in rendered)
    uninstall = (script_header.replace("in dependency order", "removed in reverse dependency order") + session
                 + _render_uninstall(env, dialect_name, base, rendered, parts))
    schedule = _render_schedule(env, dialect_name, base, spec_label, dialect.title, session)
    upgrade = ""
    if any(_has_code(item.upgrade) for item in rendered):
        upgrade = (f"{HEADER_MARK}{__version__}: run before install.sql where an older qgen installed {spec_label}, for "
                   f"{dialect.title}: drops or adds what the objects of this version replace.\n"
                   "-- A fresh install and a qgen revision do not need it. Do not edit: change the spec or the templates, "
                   "then run `qgen render`.\n" + session + "".join(item.upgrade for item in rendered if _has_code(item.upgrade)))
    return Rendering(dialect_name, rendered, install, uninstall, session, parts.force_uninstall, schedule, upgrade,
                     uninstall_end=parts.uninstall_end)


def _has_code(text: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("--") for line in text.splitlines())


def _rendered_shapes(dialect: Database, creates: list[str]) -> RenderedShapes:
    script = "".join(creates)
    return RenderedShapes(modules=dialect.module_fingerprints(script), indexes=dialect.index_shapes(script))


def _render_schedule(env: jinja2.Environment, dialect_name: str, base: dict, spec_label: str, title: str,
                     session: str) -> str:
    """schedule.sql: the database's own scheduler (SQL Server Agent, pg_cron) running maintain."""
    try:
        template = env.select_template([f"{dialect_name}/schedule.sql.j2", "default/schedule.sql.j2"])
    except jinja2.TemplatesNotFound:
        return ""
    create, = _blocks(template, {**base, "obj": None, "q": None}, "create")
    header = (f"{HEADER_MARK}{__version__}: maintenance schedule for {spec_label}, for {title} (not part of install.sql).\n"
              "-- Do not edit: change the spec or the templates, then run `qgen render`.\n")
    return header + session + create


def _blocks(template: jinja2.Template, variables: dict, *names: str) -> list[str]:
    """The named blocks of a template, rendered with these variables."""
    context = template.new_context(variables)
    # Top-level {% set %} and {% macro %} run only in the root render: run it once so the blocks see them.
    for _ in template.root_render_func(context):
        pass
    return [_block(template, name, context) for name in names]


def _block(template: jinja2.Template, name: str, context: jinja2.runtime.Context) -> str:
    if name not in template.blocks:
        return ""
    text = "".join(template.blocks[name](context)).strip("\n")
    return text + "\n" if text else ""


def output_dir(spec_path: Path, dialect: str, root: Path | None = None) -> Path:
    """Default output folder: generated/<spec stem>/<dialect>/ (relative to root, default the cwd)."""
    return (root or Path.cwd()) / "generated" / spec_path.stem / dialect


def _owned_files(folder: Path) -> Iterable[Path]:
    """The .sql files qgen wrote into a folder: only those carry its header, so nothing else is touched."""
    if not folder.is_dir():
        return []
    return [p for p in folder.glob("*.sql") if p.read_text(encoding="utf-8", errors="replace").startswith(HEADER_MARK)]


def write_rendering(rendering: Rendering, folder: Path) -> list[str]:
    """Write every file, remove files of objects that no longer exist; returns what changed."""
    folder.mkdir(parents=True, exist_ok=True)
    files = rendering.files()
    changed = []
    for stale in _owned_files(folder):
        if stale.name not in files:
            stale.unlink()
            changed.append(f"removed {stale}")
    for name, text in files.items():
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8", newline="\n")
            changed.append(f"wrote {path}")
    return changed


def check_rendering(rendering: Rendering, folder: Path) -> list[str]:
    """Per-file unified diffs between what is on disk and what would be rendered (empty: up to date)."""
    files = rendering.files()
    diffs = []
    for stale in _owned_files(folder):
        if stale.name not in files:
            diffs.append(f"{stale}: on disk but no longer rendered (qgen render removes it)\n")
    for name, text in files.items():
        diffs += check_text(folder / name, text)
    return diffs


def check_text(path: Path, text: str) -> list[str]:
    """A unified diff between one file on disk and what would be written there (empty: up to date)."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if old == text:
        return []
    diff = difflib.unified_diff(
        old.splitlines(keepends=True), text.splitlines(keepends=True),
        fromfile=f"{path} (on disk)" if path.exists() else f"{path} (missing)", tofile=f"{path} (rendered)",
    )
    return ["".join(diff)]


def write_text(path: Path, text: str) -> bool:
    """Write one rendered file (the review page) unless it already holds the text; True when written."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")
    return True
