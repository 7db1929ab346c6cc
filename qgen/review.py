"""The review page of a spec (REVIEW.md beside the rendered SQL) and of a revision.

Python gathers facts; templates/review/*.md.j2 says them in words. The facts come from the spec,
the catalog (qgen.catalog: which objects a queue has and what each depends on) and the rendered SQL
itself, read back by the dialect (qgen.dialects: routines with their parameters, indexes with their
keys, the privileges the grants script gives). So "who may call what" is what the grants the
templates render say, not a second list kept here, and a signature is the one the script declares.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import jinja2

from qgen import __version__
from qgen import dialects as dialect_registry
from qgen.catalog import queue_objects
from qgen.render import Rendering, templates_dir
from qgen.spec import OBJECT_KINDS, Spec, object_name, role_name, wakeup_channel

PAGE_NAME = "REVIEW.md"
# Objects that hold rows, and what they hold (the page's table of tables).
TABLE_KINDS = {
    "table": "the jobs: pending, scheduled and in flight{finished}",
    "watermark_table": "one row: the id below which claims do not look",
    "dead_letter_table": "jobs that ran out of attempts (redrive puts them back)",
    "archive_table": "completed jobs, until purge removes them after the retention",
    "outbox_table": "the result rows complete writes, in the completing transaction",
}
ROLES = ("producer", "consumer", "admin")
# What `qgen status` prints per queue (qgen.ops.status_row's keys; tests/test_review.py holds the two
# together), and what each tells an operator to watch for.
STATUS_FIELDS = (
    ("pending", "ready + scheduled jobs; a steady climb means producers outrun the workers"),
    ("ready", "claimable now"),
    ("scheduled", "waiting for their time (delayed, or backing off after a failure)"),
    ("in_flight", "claimed under a lease not yet expired"),
    ("expired", "leases that ran out: a worker died or is too slow; maintain (or the next claim) releases them"),
    ("oldest_pending_age_seconds", "how long the oldest claimable job has waited: the queue's latency"),
    ("dead", "dead letters: jobs that failed every attempt; look at last_error, then redrive"),
    ("completed_last_minute", "throughput (recorded only with on_complete: mark or archive)"),
    ("archived", "rows in the archive"),
    ("processed", "processed rows kept (on_complete: mark)"),
    ("watermark", "where claims start"),
    ("watermark_lag", "pending jobs below the watermark when negative (maintain's correction brings them back)"),
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


@dataclass
class DialectFacts:
    name: str
    title: str
    tables: list[SimpleNamespace] = field(default_factory=list)
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
            facts.tables.append(SimpleNamespace(name=obj.name, queue=obj.queue, kind=obj.kind, holds=holds))
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


def queue_facts(spec: Spec, queue_name: str) -> SimpleNamespace:
    """What the page says of a queue in words: its options, and which kinds of object it has."""
    queue = spec.queues[queue_name]
    kinds = {obj.kind for obj in queue_objects(spec, queue_name)}
    names = SimpleNamespace(**{kind: object_name(spec, queue_name, kind) for kind in OBJECT_KINDS})
    return SimpleNamespace(name=queue_name, spec=queue, has=kinds, names=names, channel=wakeup_channel(spec, queue_name),
                           downstream=queue.outbox.queue if queue.outbox is not None else None)


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
        roles=SimpleNamespace(**{r: role_name(spec, r) for r in ROLES}),
        queues=[queue_facts(spec, name) for name in spec.queues],
        dialects=[dialect_facts(spec, rendering) for rendering in renderings],
        status_fields=STATUS_FIELDS,
    )


def page_path(spec_path: Path, output: str | None, root: Path | None = None) -> Path:
    """Where `qgen render` writes the page: beside the dialect folders (generated/<spec stem>/)."""
    folder = Path(output) if output else (root or Path.cwd()) / "generated" / spec_path.stem
    return folder / PAGE_NAME
