"""The review page of a spec (REVIEW.md beside the rendered SQL) and of a revision.

Python gathers facts; templates/review/*.md.j2 says them in words. The facts come from the spec,
the catalog (qgen.spec.catalog: which objects a queue has and what each depends on) and the rendered SQL
itself, read back by the dialect (qgen.dialects: routines with their parameters, indexes with their
keys, the privileges the grants script gives). So "who may call what" is what the grants the
templates render say, not a second list kept here, and a signature is the one the script declares.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Optional
from types import SimpleNamespace

import jinja2

from qgen import __version__
from qgen import dialects as dialect_registry
from qgen.spec.catalog import claims_in_place, queue_objects
from qgen.render.engine import Rendering, Roles, templates_dir
from qgen.spec.model import OBJECT_KINDS, Queue, Spec, object_name, role_name, wakeup_channel

PAGE_NAME = "REVIEW.md"
# Objects that hold rows, and what they hold (the page's table of tables).
TABLE_KINDS = {
    "table": "the jobs: pending, scheduled and in flight{finished}",
    "watermark_table": "one row: the id below which claims do not look",
    "priority_marks": "one row: per priority, the id below which claims do not look",
    "control_table": "one row: whether the queue is paused (pause, resume), read by every claim",
    "dead_letter_table": "jobs that ran out of attempts (redrive puts them back)",
    "archive_table": "completed jobs, until purge removes them after the retention",
    "outbox_table": "the result rows complete writes, in the completing transaction",
}
ROLES = ("producer", "consumer", "admin")
# What `qgen status` prints per queue (qgen.cli.ops.status_row's keys; tests/test_review.py holds the two
# together), and what each tells an operator to watch for.
STATUS_FIELDS = (
    ("pending", "ready + scheduled jobs; a steady climb means producers outrun the workers"),
    ("ready", "claimable now"),
    ("scheduled", "waiting for their time (delayed, or backing off after a failure)"),
    ("in_flight", "claimed under a lease, expired leases included (`expired` counts those again)"),
    ("expired", "leases that ran out: a worker died or is too slow; maintain (or the next claim) releases them"),
    ("oldest_pending_age_seconds", "how long the oldest claimable job has waited: the queue's latency"),
    ("dead", "dead letters: jobs that failed every attempt; look at last_error, then redrive"),
    ("completed_last_minute", "throughput, from the rows finished jobs leave (on_complete: mark or archive); "
                              "`untracked` (JSON null) with on_complete: delete, which leaves none"),
    ("archived", "rows in the archive"),
    ("processed", "processed rows kept (on_complete: mark)"),
    ("watermark", "where claims start"),
    ("watermark_lag", "pending jobs below the watermark when negative (maintain's correction brings them back)"),
    ("paused", "true while `qgen pause` holds the queue's claims (`PAUSED` in the table): jobs wait until `qgen resume`"),
)


@dataclass(frozen=True)
class ProcedureFact:
    kind: str                  # the catalog kind of the object that creates it (dequeue, ...)
    routine: dialect_registry.Routine
    callers: tuple[str, ...]   # roles the grants give EXECUTE on it


@dataclass(frozen=True)
class IndexFact:
    index: dialect_registry.Index
    kind: str                  # the catalog kind of the object that creates it (claim_index, table ...)
    serves: tuple[str, ...]    # routines whose objects depend on it


@dataclass(frozen=True)
class TableFact:
    name: str
    queue: Optional[str]
    kind: str                  # the catalog kind (table, archive_table, ...)
    holds: str                 # what its rows are, in words


@dataclass
class DialectFacts:
    name: str
    title: str
    tables: list[TableFact] = field(default_factory=list)
    indexes: list[IndexFact] = field(default_factory=list)
    procedures: list[ProcedureFact] = field(default_factory=list)
    other_grants: list[dialect_registry.Grant] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    schedule: bool = False
    files: int = 0


def _routine_names(rendering: Rendering, read) -> dict[str, list[str]]:
    """object key -> the routines its create script makes."""
    return {item.obj.key: [r.name for r in read(item.create)] for item in rendering.objects}


def dialect_facts(spec: Spec, rendering: Rendering) -> DialectFacts:
    """Tables, indexes, procedures and who may call them, as one dialect's rendered SQL has them."""
    dialect = dialect_registry.get(rendering.dialect)
    facts = DialectFacts(rendering.dialect, dialect.title, schedule=bool(rendering.schedule),
                         files=len(rendering.files()))
    grants = [g for item in rendering.objects if item.obj.kind == "grants" for g in dialect.grants(item.create)]
    facts.roles = [role_name(spec, r) for r in ROLES] if grants else []
    routines = _routine_names(rendering, dialect.routines)
    all_routines = {name for names in routines.values() for name in names}
    for item in rendering.objects:
        obj = item.obj
        if obj.kind in TABLE_KINDS:
            holds = TABLE_KINDS[obj.kind].format(finished={
                "mark": "; completed jobs stay, marked processed, until purge",
            }.get(spec.queues[obj.queue].on_complete, "") if obj.kind == "table" else "")
            facts.tables.append(TableFact(name=obj.name, queue=obj.queue, kind=obj.kind, holds=holds))
        serves = tuple(name for other in rendering.objects if obj.key in other.obj.depends_on
                       for name in routines[other.obj.key])
        facts.indexes += [IndexFact(index, obj.kind, serves if obj.kind not in TABLE_KINDS else ())
                          for index in dialect.indexes(item.create)]
        for routine in dialect.routines(item.create):
            callers = tuple(sorted({g.role for g in grants if g.privilege == "EXECUTE" and g.on in (routine.name, None)},
                                   key=lambda role: facts.roles.index(role) if role in facts.roles else 99))
            facts.procedures.append(ProcedureFact(obj.kind, routine, callers))
    facts.other_grants = [g for g in grants if g.on not in all_routines and g.on is not None]
    return facts


@dataclass(frozen=True)
class QueueFacts:
    """What the page says of a queue in words (`q` in review/spec.md.j2)."""

    name: str
    spec: Queue
    has: set[str]              # the kinds of object it has
    names: SimpleNamespace     # its object names, by kind (as qgen.render.QueueContext.names)
    channel: Optional[str]     # wakeup: notify's channel
    downstream: Optional[str]  # the queue of the spec its outbox enqueues into
    takeover: list[str]        # the databases where a claim takes over an expired lease itself (qgen.spec.catalog.claims_in_place)
    dequeue_waits: list[str]   # the databases where dequeue can wait for work (wait_for_work)


def queue_facts(spec: Spec, queue_name: str) -> QueueFacts:
    """What the page says of a queue in words: its options, and which kinds of object it has."""
    queue = spec.queues[queue_name]
    kinds = {obj.kind for obj in queue_objects(spec, queue_name)}
    names = SimpleNamespace(**{kind: object_name(spec, queue_name, kind) for kind in OBJECT_KINDS})
    dialects = [dialect_registry.get(d) for d in spec.dialects]
    return QueueFacts(
        name=queue_name, spec=queue, has=kinds, names=names, channel=wakeup_channel(spec, queue_name),
        downstream=queue.outbox.queue if queue.outbox is not None else None,
        takeover=[d.title for d in dialects if claims_in_place(queue, d.name)],
        dequeue_waits=[d.title for d in dialects if d.wait_for_work == "dequeue"],
    )


def _duration(seconds: int) -> str:
    """30 s, 5 min, 1 h 30 min, 7 days: as a reviewer reads it."""
    if seconds == 0:
        return "0 s"
    for unit, size in (("day", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        if seconds % size == 0:
            count = seconds // size
            return f"{count} {unit}{'s' if unit == 'day' and count != 1 else ''}"
    minutes, secs = divmod(seconds, 60)
    return f"{minutes} min {secs} s"


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
    env.filters["duration"] = _duration
    env.filters["code"] = lambda items: ", ".join(f"`{i}`" for i in items)
    return env


def spec_page(spec: Spec, spec_label: str, renderings: list[Rendering]) -> str:
    """The review page of a spec: per queue in words and as a lifecycle diagram, then per dialect its
    tables, indexes, procedures and grants; what to schedule and what to watch."""
    template = _environment().get_template("review/spec.md.j2")
    return template.render(
        version=__version__, label=spec_label, spec=spec, schema=spec.schema,
        roles=Roles(*(role_name(spec, f.name) for f in fields(Roles))),
        queues=[queue_facts(spec, name) for name in spec.queues],
        dialects=[dialect_facts(spec, rendering) for rendering in renderings],
        status_fields=STATUS_FIELDS,
    )


def page_path(spec_path: Path, output: str | None, root: Path | None = None) -> Path:
    """Where `qgen render` writes the page: beside the dialect folders (generated/<spec stem>/)."""
    folder = Path(output) if output else (root or Path.cwd()) / "generated" / spec_path.stem
    return folder / PAGE_NAME


# ---------------------------------------------------------------------------------------------
# A revision's page.


def _settings(value, path: str, duration: bool = False) -> dict[str, tuple[object, str]]:
    """Every setting of a spec (defaults included) as dotted path -> (its value, compared; the value as
    the spec writes it, shown): a lease the spec writes `2m` is shown `2m`, and `120s` there is no change."""
    from pydantic import BaseModel

    from qgen.spec.model import Column, ColumnType, duration_text, is_duration

    if duration and isinstance(value, int):
        return {path: (value, duration_text(value))}
    if isinstance(value, ColumnType):
        return {path: (str(value), str(value))}
    if isinstance(value, Column):  # a payload column is one setting: its type, and nullable
        shown = f"{value.type}{', nullable' if value.nullable else ''}"
        return {path: (shown, shown)}
    if isinstance(value, BaseModel):
        found = {}
        for name, info in type(value).model_fields.items():
            found.update(_settings(getattr(value, name), f"{path}.{info.alias or name}" if path else info.alias or name,
                                   is_duration(info)))
        return found
    if isinstance(value, dict):
        found = {}
        for key, item in value.items():
            found.update(_settings(item, f"{path}.{key}"))
        return found or {path: ("{}", "{}")}
    if isinstance(value, (list, tuple)):
        shown = "[" + ", ".join(str(v) for v in value) + "]"
    elif isinstance(value, bool):
        shown = "true" if value else "false"
    else:
        shown = "none" if value is None else str(value)
    return {path: (shown, shown)}


@dataclass(frozen=True)
class SpecChange:
    """One setting a revision changes (a queue added or removed is one): its dotted path, as the spec
    had it and as it has it now."""

    path: str
    before: str
    after: str


def spec_changes(before: Spec, after: Spec) -> list[SpecChange]:
    """What changed between two specs, setting by setting (a queue added or removed is one line)."""
    changes = []
    for name in before.queues.keys() - after.queues.keys():
        changes.append(SpecChange(path=f"queues.{name}", before="a queue", after="removed"))
    for name in after.queues.keys() - before.queues.keys():
        changes.append(SpecChange(path=f"queues.{name}", before="none", after="a new queue"))
    old = {k: v for k, v in _settings(before, "").items() if not _in_queue_of(k, after.queues.keys() ^ before.queues.keys())}
    new = {k: v for k, v in _settings(after, "").items() if not _in_queue_of(k, after.queues.keys() ^ before.queues.keys())}
    for path in sorted(old.keys() | new.keys()):
        was, now = old.get(path), new.get(path)
        if was is None or now is None or was[0] != now[0]:
            changes.append(SpecChange(path=path, before=was[1] if was else "none", after=now[1] if now else "removed"))
    return sorted(changes, key=lambda c: c.path)


def _in_queue_of(path: str, queues) -> bool:
    return any(path.startswith(f"queues.{q}.") for q in queues)


def _shown_path(path: str | None, previous) -> str | None:
    """A file a plan names, as a reviewer finds it: this revision's own path, or <revision folder>/path."""
    import os

    if path is None or not os.path.isabs(path):
        return path
    return "../" + Path(os.path.relpath(path, previous.folder.parent)).as_posix()


@dataclass(frozen=True)
class ShownObject:
    """An object a revision re-creates, adds or removes, as its page names it."""

    key: str
    kind: str
    name: str
    queue: Optional[str]
    why: str = ""  # why it is re-created


@dataclass(frozen=True)
class RevisionFacts:
    """What a revision does on one database (`d` in review/revision.md.j2)."""

    name: str
    title: str
    changes: list[str]
    redone: list[ShownObject]
    added: list[ShownObject]
    removed: list[ShownObject]
    regrant: bool              # it runs the grants again
    untouched: int             # objects it leaves as they are
    total: int
    upgrade: list[Optional[str]]    # the files its upgrade runs, in order
    downgrade: list[Optional[str]]
    downgrade_notes: list[str]
    written: int               # files it writes


def revision_dialect_facts(planned, name: str) -> RevisionFacts:
    plan, previous = planned.plans[name], planned.previous
    entries = {e.key: e for e in plan.objects}
    old = {o.key: o for o in previous.objects(name)} if previous else {}

    def shown(key: str, why: str = "") -> ShownObject:
        entry = entries.get(key) or old[key]
        return ShownObject(key=key, kind=entry.kind, name=entry.name, queue=entry.queue, why=why)

    import os

    run = set(plan.upgrade)
    untouched = [k for k, e in entries.items()
                 if all(p is None or os.path.isabs(p) for p in (e.create, e.drop)) and e.create not in run]
    return RevisionFacts(
        name=name, title=dialect_registry.get(name).title, changes=plan.changes,
        redone=[shown(k, why) for k, why in plan.redone.items()], added=[shown(k) for k in plan.added],
        removed=[shown(k) for k in plan.removed], regrant=plan.regrant,
        untouched=len(untouched),
        total=len(entries),
        upgrade=[_shown_path(p, previous) for p in plan.upgrade],
        downgrade=[_shown_path(p, previous) for p in plan.downgrade],
        downgrade_notes=plan.downgrade_notes,
        written=len(plan.files),
    )


def changed_queues(spec: Spec, changes: list[SpecChange], facts: list[RevisionFacts], first: bool) -> list[str]:
    """The queues of the spec a revision changes: every one in a first revision; else those with a
    setting changed (or new), and those with an object created again, added or removed (a newer qgen)."""
    if first:
        return list(spec.queues)
    named = {c.path.split(".")[1] for c in changes if c.path.startswith("queues.")}
    named |= {o.queue for d in facts for o in d.redone + d.added + d.removed if o.queue}
    return [name for name in spec.queues if name in named]


def revision_page(planned, message: str, dry_run: bool = False) -> str:
    """What a revision changes, in words: the spec settings, the objects per dialect, and the data; then
    what the queues it changes guarantee, and what to schedule and watch for them, in the words of the
    spec's own review page."""
    previous = planned.previous
    template = _environment().get_template("review/revision.md.j2")
    changes = spec_changes(previous.spec, planned.spec) if previous else []
    facts = [revision_dialect_facts(planned, name) for name in planned.plans]
    changed = changed_queues(planned.spec, changes, facts, previous is None)
    return template.render(
        version=__version__, message=message, revision=planned.revision, dry_run=dry_run,
        previous=previous.revision if previous else None, schema=planned.spec.schema, label=planned.spec_path.name,
        spec_changes=changes,
        queues=list(planned.spec.queues),
        dialects=facts,
        changed=[queue_facts(planned.spec, name) for name in changed],
        status_fields=STATUS_FIELDS,
    )
