"""Which database objects a spec needs, and in what order they must be created.

This is the one place that knows what exists: a queue's options switch objects on and off here,
and each object names the objects it depends on. Templates only say how each object is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from qgen import dialects
from qgen.spec.model import Queue, Spec, object_name, role_name


@dataclass(frozen=True)
class DbObject:
    kind: str          # the template that renders it: templates/<dialect>/<kind>.sql.j2
    name: str          # its name in the database
    queue: str | None  # the queue it belongs to (None for schema-wide objects)
    depends_on: tuple[str, ...] = field(default=())  # keys of objects that must exist first

    @property
    def key(self) -> str:
        return f"{self.queue}.{self.kind}" if self.queue else self.kind


@dataclass(frozen=True)
class Kind:
    name: str
    # Whether a queue has this object, given whether its database claims leased rows in place
    # (qgen.dialects.Database.lease_claims_in_place).
    wanted: Callable[[Queue, bool], bool]
    depends_on: tuple[str, ...] = ()
    # The databases that have this kind of object (None: all). A kind one database needs and the
    # other does not is said here, once, instead of by an empty template.
    dialects: tuple[str, ...] | None = None


def _lease(queue: Queue, in_place: bool = False) -> bool:
    return queue.claim == "lease"


def _watermark(queue: Queue, in_place: bool = False) -> bool:
    return queue.watermark.enabled


def claims_in_place(queue: Queue, dialect: str | None) -> bool:
    """Whether this queue's claims leave a leased row in place (a HOT update on PostgreSQL; see
    qgen.dialects.Database.lease_claims_in_place): only a lease queue with a watermark. Without one
    (priority order, or watermark: false) nothing bounds where a claim starts, and a claim index
    that kept leased rows would make every claim step over all the jobs in flight: such a queue
    keeps an index of unleased rows and a lease index. The one place this is decided: the catalog,
    the templates (q.in_place) and the client (which parameters name jobs by id) all ask it."""
    return (queue.claim == "lease" and queue.watermark.enabled and dialect is not None
            and dialects.get(dialect).lease_claims_in_place)


def splits_deferred(queue: Queue) -> bool:
    """Whether a queue keeps deferred jobs (delayed at enqueue, or released with a backoff: their
    available_at is later than their enqueued_at) off its claim path: every fifo queue that has
    available_at. Its claim index leaves them out, the watermark passes them, and a second index,
    by available_at, hands them to claims once they are due; so a claim never walks jobs it may
    not take yet, however many wait. Priority queues keep them in their claim index (a due job
    must not jump a higher priority). The catalog, the templates (q.splits_deferred) ask it."""
    return queue.ordering == "fifo" and (queue.claim == "lease" or queue.scheduling)


def keeps_duplicates(queue: Queue) -> bool:
    """A delete-mode claim that archives under dedupe.scope: ever can meet a queued job whose key
    the archive already holds (a row loaded past enqueue: bcp, SSIS, a hand insert). It hands that
    job out to nobody: the job goes to a dead-letter table, with the reason as its last_error, and
    the claim takes another in its place."""
    return (queue.claim == "delete" and queue.on_complete == "archive" and queue.dedupe is not None
            and queue.dedupe.scope == "ever")


def has_dead_letters(queue: Queue, in_place: bool = False) -> bool:
    """The queue has a dead-letter table: jobs that used up their attempts (lease mode), or
    duplicates a delete-mode claim kept back (keeps_duplicates)."""
    return queue.dead_letter or keeps_duplicates(queue)


def _key_is_claim_order(queue: Queue, in_place: bool) -> bool:
    """A fifo queue whose claim index would be the primary key: a delete queue without scheduling
    holds only unclaimed rows, each available since its enqueue. The clustered primary key is the
    claim index then, and another index on id would only slow every write. Any queue with
    available_at has a claim index that leaves deferred jobs out (splits_deferred)."""
    if queue.ordering != "fifo" or splits_deferred(queue):
        return False  # the claim index leaves deferred jobs out: the primary key cannot
    return queue.claim == "delete"


def _lease_index(queue: Queue, in_place: bool) -> bool:
    """Tokens are looked up by index only where a claim moves the row out of the claim index."""
    return queue.claim == "lease" and not in_place


# Per-queue object kinds, in the order they are written when dependencies allow.
QUEUE_KINDS: tuple[Kind, ...] = (
    Kind("table", lambda q, p: True),
    # Keyed (job type, queue order): a claim for one sub-queue.
    Kind("claim_index", lambda q, p: q.job_type is not None or not _key_is_claim_order(q, p), ("table",)),
    # In queue order: a claim of a job-type queue without a job type.
    Kind("claim_order_index", lambda q, p: q.job_type is not None and not _key_is_claim_order(q, p), ("table",)),
    # With dedupe.scope: ever it also indexes the key in the archive and the dead letters.
    Kind("dedupe_index", lambda q, p: q.dedupe is not None, ("table", "dead_letter_table", "archive_table")),
    Kind("lease_index", _lease_index, ("table",)),
    # purge deletes by age: processed rows by processed_at, dead letters by dead_at, the archive by completed_at.
    Kind("processed_index", lambda q, p: q.on_complete == "mark", ("table",)),
    # expire_after: reap moves the jobs enqueued longer ago to the dead letters, found by enqueued_at.
    Kind("expire_index", lambda q, p: q.expire_after is not None, ("table",)),
    Kind("watermark_table", _watermark),
    # A priority queue's claim marks: per priority, the id below which claims do not look (see
    # templates/postgres/priority_marks.sql.j2). SQL Server's claim keeps its old shape.
    Kind("priority_marks", lambda q, p: q.ordering == "priority", dialects=("postgres",)),
    Kind("dead_letter_table", has_dead_letters),
    Kind("dead_letter_index", has_dead_letters, ("dead_letter_table",)),
    Kind("archive_table", lambda q, p: q.on_complete == "archive"),
    Kind("archive_index", lambda q, p: q.on_complete == "archive", ("archive_table",)),
    Kind("outbox_table", lambda q, p: q.outbox is not None and q.outbox.columns is not None),
    Kind("pending_view", lambda q, p: True, ("table",)),
    Kind("batch_type", lambda q, p: True),
    Kind("enqueue", lambda q, p: True, ("table", "dedupe_index")),
    Kind("enqueue_batch", lambda q, p: True, ("table", "batch_type", "dedupe_index")),
    # The same batch as one JSON document (OPENJSON), for drivers that cannot send a table-valued
    # parameter. PostgreSQL's enqueue_batch already takes the batch as jsonb: it has no such entry.
    Kind("enqueue_json", lambda q, p: True, ("table", "batch_type", "dedupe_index"), dialects=("mssql",)),
    Kind("watermark_move", _watermark, ("table", "watermark_table")),
    Kind("watermark_correct", _watermark, ("table", "watermark_table")),
    # One row: whether the queue is paused (pause, resume), which every claim reads first.
    Kind("control_table", lambda q, p: True),
    Kind("dequeue", lambda q, p: True, ("table", "claim_index", "claim_order_index", "watermark_table", "watermark_move",
                                     "archive_table", "dead_letter_table", "priority_marks", "control_table")),
    Kind("complete", _lease, ("table", "lease_index", "archive_table", "outbox_table", "watermark_table")),
    Kind("fail", _lease, ("table", "dead_letter_table", "watermark_table", "priority_marks")),
    Kind("extend_lease", _lease, ("table", "lease_index")),
    Kind("reap", _lease, ("table", "lease_index", "dead_letter_table", "watermark_table", "priority_marks",
                          "expire_index")),
    Kind("worker", lambda q, p: q.worker is not None, ("dequeue", "complete", "fail", "control_table")),
    Kind("metrics", lambda q, p: True, ("table", "watermark_table", "dead_letter_table", "archive_table",
                                     "control_table")),
    Kind("peek", lambda q, p: True, ("pending_view",)),
    Kind("purge_batch", lambda q, p: True, ("table", "dead_letter_table", "archive_table", "processed_index",
                                         "dead_letter_index", "archive_index")),
    Kind("purge", lambda q, p: True, ("purge_batch",)),
    # Reap (lease mode), correct the watermark and purge, one bounded batch each, one caller at a time.
    Kind("maintain", lambda q, p: True, ("purge_batch", "reap", "watermark_correct")),
    Kind("redrive", lambda q, p: q.claim == "lease" and q.dead_letter,
         ("table", "dead_letter_table", "dedupe_index")),
)


# Read-only inspection (issue 25), the admin role's: the dead letters, newest first, with their
# errors; one job's state by id, wherever it is (queue table, dead letters, archive).
QUEUE_KINDS += (
    Kind("dead_letters", has_dead_letters, ("dead_letter_table", "dead_letter_index")),
    Kind("job", lambda q, p: True, ("table", "dead_letter_table", "dead_letter_index", "archive_table")),
)

# A worker's hand-back of leased jobs it did not start, the attempt not counted (issue 25: a stopping
# worker). It changes what fail and reap change, in their lock order.
QUEUE_KINDS += (
    Kind("release", _lease, ("table", "lease_index", "watermark_table", "priority_marks")),
)

# Pause and resume (issue 29): an operator holds a queue's claims during an incident and lets them
# go again; enqueues go on, leases already granted run to their end. The admin role's.
QUEUE_KINDS += (
    Kind("pause", lambda q, p: True, ("control_table",)),
    Kind("resume", lambda q, p: True, ("control_table",)),
)

# Cancellation (issue 29): jobs that should not run leave the queue, into the dead letters (admin role).
QUEUE_KINDS += (
    Kind("cancel", lambda q, p: True, ("table", "dead_letter_table")),
)

# The kinds that are procedures (functions on PostgreSQL): what a role is granted EXECUTE on.
ROUTINE_KINDS = frozenset({
    "enqueue", "enqueue_batch", "enqueue_json", "dequeue", "complete", "fail", "extend_lease", "reap", "worker",
    "watermark_move", "watermark_correct", "metrics", "peek", "purge", "purge_batch", "maintain", "redrive",
})
ROUTINE_KINDS |= {"dead_letters", "job"}  # read-only inspection (issue 25)
ROUTINE_KINDS |= {"release"}  # a worker's hand-back (issue 25)
ROUTINE_KINDS |= {"pause", "resume", "cancel"}  # job control (issue 29)


def queue_objects(spec: Spec, queue_name: str, dialect: str | None = None) -> list[DbObject]:
    """The objects of one queue; with a dialect, only those that database has."""
    queue = spec.queues[queue_name]
    in_place = claims_in_place(queue, dialect)
    wanted = {kind.name for kind in QUEUE_KINDS if kind.wanted(queue, in_place)
              and (dialect is None or kind.dialects is None or dialect in kind.dialects)}
    objects = []
    for kind in QUEUE_KINDS:
        if kind.name not in wanted:
            continue
        depends = tuple(f"{queue_name}.{dep}" for dep in kind.depends_on if dep in wanted)
        if kind.name == "complete" and queue.outbox is not None and queue.outbox.queue is not None:
            depends += (f"{queue.outbox.queue}.table",)  # complete enqueues into the downstream queue
        objects.append(DbObject(kind.name, object_name(spec, queue_name, kind.name), queue_name, ("schema",) + depends))
    return objects


def spec_objects(spec: Spec, dialect: str | None = None) -> list[DbObject]:
    """Every object of the spec (for one database, when given), in an order where each comes after
    what it depends on."""
    objects = [DbObject("schema", spec.schema, None)]
    if spec.grants.enabled:
        objects.append(DbObject("roles", role_name(spec, "admin"), None))
    for queue_name in spec.queues:
        objects += queue_objects(spec, queue_name, dialect)
    if spec.grants.enabled:
        everything = tuple(obj.key for obj in objects if obj.queue)
        objects.append(DbObject("grants", role_name(spec, "consumer"), None, ("roles",) + everything))
    # Last: install ends by checking what it made (SQL Server: every module stored with the SET
    # options filtered indexes need); its drop block runs first in uninstall, and refuses to drop
    # tables that still hold jobs unless the caller forces it.
    objects.append(DbObject("verify", spec.schema, None, tuple(obj.key for obj in objects)))
    return dependency_order(objects)


def dependency_order(objects: list[DbObject]) -> list[DbObject]:
    """A stable topological sort: catalogue order, except where a dependency must come first."""
    by_key = {obj.key: obj for obj in objects}
    done: set[str] = set()
    visiting: set[str] = set()
    ordered: list[DbObject] = []

    def visit(obj: DbObject) -> None:
        if obj.key in done:
            return
        if obj.key in visiting:
            raise ValueError(f"dependency cycle through {obj.key}")
        visiting.add(obj.key)
        for dep in obj.depends_on:
            if dep in by_key:
                visit(by_key[dep])
        visiting.discard(obj.key)
        done.add(obj.key)
        ordered.append(obj)

    for obj in objects:
        visit(obj)
    return ordered
