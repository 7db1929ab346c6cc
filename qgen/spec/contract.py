"""The procedure contract as data: per procedure kind, its parameters in order (name, portable type,
default, output or not, the condition that includes it, meaning) and its result columns.

The templates render every procedure's parameter list from it (m.parameters, one macro per
dialect: how a type, a default or an output is spelled there), the client checks its calls against
it (qgen.client.values.QueueShape.parameters), docs/api.md's procedure reference is generated from
it (reference_markdown) and tests/behaviour holds the result columns to what a real call returns.
Nothing here is SQL: this module says what a parameter is, the templates say how it is written."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from qgen import dialects
from qgen.spec.catalog import claims_in_place
from qgen.spec.locks import limits
from qgen.spec.model import DEAD_LETTERS_MAX, ERROR_MAX, LABEL_MAX, MAINTENANCE_BATCH_MAX, ColumnType, Spec

# Types that are not one portable column type: the queue's own columns, expanded per queue, and
# what each database passes a list or a batch as (the dialect's m.parameters spells them).
JOB_TYPE = "job type"          # the queue's job-type column's type
VALUES = "values"              # one parameter per job-type and payload column, in that order
OUTBOX = "outbox columns"      # one parameter per outbox column (the downstream queue's payload)
ID_LIST = "id list"            # job ids: PostgreSQL bigint[], SQL Server a JSON array of numbers
JOB_BATCH = "job batch"        # enqueue_batch's jobs: SQL Server's table type, PostgreSQL a JSON array

INT = ColumnType(kind="int")
BIGINT = ColumnType(kind="bigint")
BOOL = ColumnType(kind="bool")
UUID = ColumnType(kind="uuid")
DATETIME = ColumnType(kind="datetime")
JSON = ColumnType(kind="json")
LABEL = ColumnType(kind="string", length=LABEL_MAX)   # owner, enqueued_by
ERROR = ColumnType(kind="string", length=ERROR_MAX)   # fail's error text (cut to the column, never refused)


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()  # a parameter without a default


@dataclass(frozen=True)
class FromSpec:
    """A default taken from the spec: "queue.<field>", "worker.<field>" (the queue's worker) or
    "limits.<field>" (qgen.spec.locks.Limits of the queue on the database)."""

    path: str


Default = Union[_Required, None, bool, int, FromSpec]  # None: NULL

# The conditions a parameter or a result column may depend on: a queue option or what the database
# can do (qgen/dialects). A parameter is present when every one of its conditions holds.
CONDITIONS = {
    "lease": "lease mode (`claim: lease`)",
    "delete_mode": "delete mode (`claim: delete`)",
    "job_type": "the queue has job types",
    "priority": "priority ordering",
    "scheduling": "scheduling",
    "available_at": "lease mode or scheduling",
    "audit": "audit",
    "outbox": "the queue has an outbox",
    "by_id": "PostgreSQL, a lease queue with a watermark (claims leave rows in place)",
    "step_outputs": "SQL Server (maintenance steps hand results back through OUTPUT parameters)",
    "waits_in_dequeue": "SQL Server (dequeue waits for work itself)",
    "inout_results": "PostgreSQL (a procedure hands its results back through INOUT parameters)",
}


@dataclass(frozen=True)
class Parameter:
    name: str
    type: Union[ColumnType, str]   # a portable column type, or one of the references above
    default: Default = REQUIRED
    when: tuple[str, ...] = ()     # every condition must hold (CONDITIONS)
    output: bool = False           # an OUTPUT (SQL Server) / INOUT (PostgreSQL) parameter
    by_name: bool = True           # False: a result a CALL hands back, which a caller does not pass
    meaning: str = ""


@dataclass(frozen=True)
class ResultColumn:
    name: str                      # a column; JOB_TYPE / "payload": the queue's own, expanded
    meaning: str
    when: tuple[str, ...] = ()


@dataclass(frozen=True)
class Procedure:
    kind: str
    summary: str
    parameters: tuple[Parameter, ...]
    results: tuple[ResultColumn, ...] = ()
    returns: str = ""              # what it returns besides rows of results ("" when it has results)
    example: tuple[tuple[str, str], ...] = ()   # (parameter, value) of an example call, values as written
    example_result: tuple[tuple[str, ...], ...] = ()  # rows of it, one value per result column
    sql_server_only: bool = False  # PostgreSQL has no such procedure (qgen.spec.catalog decides what is rendered)


PAYLOAD = "payload"

_STEP = ("step_outputs",)
_QUEUE_BATCH = FromSpec("queue.batch_size")
_LEASE = FromSpec("queue.lease")
_MAINTENANCE = FromSpec("limits.maintenance_batch")
_ENQUEUED_BY = Parameter("enqueued_by", LABEL, None, ("audit",), meaning="who enqueued (recorded in `enqueued_by`)")
_ENQUEUED = (ResultColumn("id", "the job's id"),
             ResultColumn("enqueued", "false (0) when dedupe found the job already queued and returned its id"))
_RESULT_SET = Parameter("result_set", BOOL, True, _STEP, meaning="false: hand back through the OUTPUT parameters only")
_JOB = (ResultColumn("id", "the job's id"), ResultColumn(JOB_TYPE, "its job type", ("job_type",)),
        ResultColumn(PAYLOAD, "its payload columns"), ResultColumn("priority", "its priority", ("priority",)))
_METRICS = (
    ("ready", "jobs claimable now"), ("scheduled", "jobs not yet due"), ("in_flight", "jobs under a lease"),
    ("expired", "leases past their expiry, not yet reaped"), ("processed", "jobs marked processed (`on_complete: mark`)"),
    ("dead", "dead letters"), ("archived", "archived jobs"), ("oldest_ready_age_seconds", "age of the oldest ready job"),
    ("watermark", "the watermark (ids below it are finished)"), ("lowest_pending_id", "the lowest pending id"),
    ("completed_last_minute", "jobs finished in the last minute (archive or mark)"),
    ("watermark_lag", "lowest pending id minus the watermark"),
    ("paused", "true (1) while the queue is paused: claims return nothing (pause, resume)"),
)

PROCEDURES: dict[str, Procedure] = {p.kind: p for p in (
    Procedure("enqueue", "Adds one job; returns its id.", (
        Parameter(VALUES, VALUES, meaning="the job-type and payload columns, by name; nullable ones default to NULL"),
        Parameter("priority", INT, 0, ("priority",), meaning="higher is claimed first"),
        Parameter("run_at", DATETIME, None, ("scheduling",), meaning="not claimable before this UTC time"),
        _ENQUEUED_BY,
    ), _ENQUEUED, example=(("n", "7"),), example_result=(("1", "true"),)),
    Procedure("enqueue_batch", "Adds many jobs in one call; one result row per input job.", (
        Parameter("jobs", JOB_BATCH, meaning="the jobs: SQL Server a table of the queue's batch type, PostgreSQL a "
                  "JSON array of objects; `ordinal`, then enqueue's columns"),
        _ENQUEUED_BY,
    ), (ResultColumn("ordinal", "the input job's position"),) + _ENQUEUED,
        example=(("jobs", "'[{\"n\": 7}, {\"n\": 8}]'"),), example_result=(("1", "1", "true"), ("2", "2", "true"))),
    Procedure("enqueue_json", "enqueue_batch for drivers that cannot send a table-valued parameter.", (
        Parameter("jobs", JSON, meaning="a JSON array of objects keyed by the batch type's columns"),
        _ENQUEUED_BY,
    ), (ResultColumn("ordinal", "the input job's position"),) + _ENQUEUED, sql_server_only=True,
        example=(("jobs", "N'[{\"ordinal\": 1, \"n\": 7}]'"),), example_result=(("1", "1", "1"),)),
    Procedure("dequeue", "Claims up to batch_size jobs in queue order and returns them.", (
        Parameter("owner", LABEL, None, meaning="who claims (recorded in lease mode)"),
        Parameter("batch_size", INT, _QUEUE_BATCH, meaning="the most jobs to claim (1 to max_batch_size)"),
        Parameter("job_type", JOB_TYPE, None, ("job_type",), meaning="claim only this job type"),
        Parameter("lease_seconds", INT, _LEASE, ("lease",), meaning="how long the lease lasts"),
        Parameter("complete_lease_token", UUID, None, ("lease",), meaning="first complete this lease's jobs"),
        Parameter("complete_ids", ID_LIST, None, ("lease", "by_id"), meaning="the ids of that lease's jobs"),
        Parameter("at_most_once", BOOL, False, ("delete_mode",),
                  meaning="allow a claim outside a transaction (the jobs are gone once it commits)"),
        Parameter("wait_ms", INT, 0, ("waits_in_dequeue",), meaning="wait up to this long for a job when none is there"),
    ), _JOB + (
        ResultColumn("attempts", "claims so far, this one included", ("lease",)),
        ResultColumn("lease_token", "the lease's token (complete, fail, extend_lease take it)", ("lease",)),
        ResultColumn("lease_expires_at", "when the lease runs out", ("lease",)),
        ResultColumn("enqueued_at", "when the job was enqueued", ("delete_mode",)),
    ), example=(("batch_size", "10"),),
        example_result=(("1", "7", "1", "6f1c3a52-8d1e-4d0b-9a55-2f0c4b7e9d10", "2026-01-01 12:00:30"),)),
    Procedure("complete", "Finishes a leased job, or every job of a lease; returns how many.", (
        Parameter("lease_token", UUID, meaning="the lease's token"),
        Parameter("id", BIGINT, None, meaning="the job (NULL: every job of the lease)"),
        Parameter("ids", ID_LIST, None, ("by_id",), meaning="the lease's jobs, when id is NULL (primary-key lookups)"),
        Parameter(OUTBOX, OUTBOX, None, ("outbox",), meaning="the values complete hands to the outbox"),
        Parameter("no_result", BOOL, False, ("outbox",), meaning="complete without writing to the outbox"),
    ), returns="the number of jobs completed", example=(("lease_token", "'6f1c3a52-8d1e-4d0b-9a55-2f0c4b7e9d10'"), ("id", "1"))),
    Procedure("fail", "A worker could not finish a job: retry it after a backoff, or dead-letter it.", (
        Parameter("lease_token", UUID, meaning="the lease's token"),
        Parameter("id", BIGINT, meaning="the job"),
        Parameter("error", ERROR, None, meaning="what went wrong (cut to 4000 characters)"),
        Parameter("retry", BOOL, True, meaning="false: no retry, dead-letter it now"),
    ), returns="0 when released for another try, 1 when dead-lettered (or deleted)",
        example=(("lease_token", "'6f1c3a52-8d1e-4d0b-9a55-2f0c4b7e9d10'"), ("id", "1"), ("error", "'timeout'"))),
    Procedure("extend_lease", "Extends a lease (one job, or all of its jobs); returns how many.", (
        Parameter("lease_token", UUID, meaning="the lease's token"),
        Parameter("lease_seconds", INT, _LEASE, meaning="the new lease, from now"),
        Parameter("id", BIGINT, None, meaning="the job (NULL: every job of the lease)"),
        Parameter("ids", ID_LIST, None, ("by_id",), meaning="the lease's jobs, when id is NULL"),
    ), returns="the number of jobs extended", example=(("lease_token", "'6f1c3a52-8d1e-4d0b-9a55-2f0c4b7e9d10'"),)),
    Procedure("reap", "Releases expired leases (dead-letters jobs with no attempt left); with expire_after, also "
              "takes away jobs past it.", (
        Parameter("batch_size", INT, FromSpec("queue.max_batch_size"), meaning="the most leases to release"),
        Parameter("released", INT, None, _STEP, output=True, meaning="jobs released"),
        Parameter("dead_lettered", INT, None, _STEP, output=True, meaning="jobs dead-lettered"),
        _RESULT_SET,
    ), (ResultColumn("released", "jobs released for another try"),
        ResultColumn("dead_lettered", "jobs dead-lettered: no attempt left, or past expire_after (last_error "
                     "'expired'; deleted where the queue keeps no dead letters)")),
        example=(), example_result=(("2", "0"),)),
    Procedure("worker", "Drains the queue from inside the database through the spec's handler.", (
        Parameter("max_items", INT, FromSpec("worker.max_items"), meaning="stop after this many jobs (0: no limit)"),
        Parameter("max_seconds", INT, FromSpec("worker.max_duration"), meaning="stop after this long (0: no limit)"),
        Parameter("owner", LABEL, None, meaning="the lease owner recorded"),
        Parameter("lease_seconds", INT, _LEASE, meaning="each job's lease"),
        Parameter("processed", INT, None, ("inout_results",), output=True, by_name=False, meaning="jobs processed"),
    ), returns="the number of jobs processed", example=(("max_items", "100"),)),
    Procedure("watermark_correct", "Raises the watermark to the lowest pending id.", (
        Parameter("old_watermark", BIGINT, None, _STEP, output=True, meaning="the watermark before"),
        Parameter("new_watermark", BIGINT, None, _STEP, output=True, meaning="the watermark after"),
        _RESULT_SET,
    ), (ResultColumn("old_watermark", "the watermark before"), ResultColumn("new_watermark", "the watermark after")),
        example_result=(("0", "41"),)),
    Procedure("metrics", "One row describing the queue now (counts scan the table: not for hot paths).", (),
              tuple(ResultColumn(n, m) for n, m in _METRICS),
              example_result=(("5", "1", "2", "0", "0", "1", "10", "42", "0", "3", "12", "3", "false"),)),
    Procedure("peek", "The next pending jobs, in queue order, without claiming them.", (
        Parameter("job_type", JOB_TYPE, None, ("job_type",), meaning="only this job type"),
        Parameter("limit", INT, 100, meaning="the most rows (0 or more)"),
    ), _JOB + (
        ResultColumn("available_at", "when it is due", ("available_at",)),
        ResultColumn("enqueued_at", "when it was enqueued"),
        ResultColumn("enqueued_by", "who enqueued it", ("audit",)),
        ResultColumn("attempts", "claims so far", ("lease",)),
        ResultColumn("last_error", "the last failure's error", ("lease",)),
    ), example=(("limit", "10"),)),
    Procedure("purge", "Deletes finished jobs older than the retention, batch by batch, committing each.", (
        Parameter("older_than_seconds", INT, FromSpec("queue.retention"), meaning="the age past which a finished job goes"),
        Parameter("batch_size", INT, _MAINTENANCE, meaning="rows per batch"),
        Parameter("archived", BIGINT, None, ("inout_results",), output=True, by_name=False, meaning="archive rows deleted"),
        Parameter("processed", BIGINT, None, ("inout_results",), output=True, by_name=False,
                  meaning="processed rows deleted"),
        Parameter("dead", BIGINT, None, ("inout_results",), output=True, by_name=False, meaning="dead letters deleted"),
    ), returns="the rows deleted from the archive, the processed rows and the dead letters"),
    Procedure("purge_batch", "One batch of purge, in the caller's transaction.", (
        Parameter("older_than_seconds", INT, FromSpec("queue.retention"), meaning="the age past which a finished job goes"),
        Parameter("batch_size", INT, _MAINTENANCE, meaning="the most rows to delete from each table"),
        Parameter("archived", INT, None, _STEP, output=True, meaning="archive rows deleted"),
        Parameter("processed", INT, None, _STEP, output=True, meaning="processed rows deleted"),
        Parameter("dead", INT, None, _STEP, output=True, meaning="dead letters deleted"),
        _RESULT_SET,
    ), (ResultColumn("archived", "archive rows deleted"), ResultColumn("processed", "processed rows deleted"),
        ResultColumn("dead", "dead letters deleted")), example_result=(("100", "0", "2"),)),
    Procedure("maintain", "Purges, reaps and corrects the watermark, one bounded batch each.", (
        Parameter("batch_size", INT, _MAINTENANCE, meaning="the most rows of each step"),
        Parameter("more", BOOL, None, _STEP, output=True, meaning="a step filled its batch: call again"),
        _RESULT_SET,
    ), returns="what each step did, and more"),
    Procedure("redrive", "Moves dead letters back into the queue.", (
        Parameter("ids", ID_LIST, None, meaning="the dead letters' job ids"),
        Parameter("redrive_all", BOOL, False, meaning="every dead letter, in batches (after_id onwards)"),
        Parameter("after_id", BIGINT, 0, meaning="with redrive_all: start after this id"),
        Parameter("batch_size", INT, _MAINTENANCE, meaning="the most dead letters to move"),
    ), (ResultColumn("redriven", "jobs moved back"), ResultColumn("skipped_duplicates", "jobs whose dedupe key is held"),
        ResultColumn("last_id", "the last id looked at (the next call's after_id)")),
        example=(("redrive_all", "true"),), example_result=(("3", "0", "17"),)),
)}

# Read-only inspection (issue 25): what the admin role reads of dead letters and of one job. Both
# read without holding a lock past the row being read (docs/api.md, "Dead letters and jobs by id").
JOB_STATES = ("queued", "scheduled", "in_flight", "processed", "archived", "dead", "not_found")
PROCEDURES.update({p.kind: p for p in (
    Procedure("dead_letters", "The dead letters, newest first, with the error each died of (reads only).", (
        Parameter("limit", INT, 100, meaning=f"the most rows (1 to {DEAD_LETTERS_MAX})"),
    ), (
        ResultColumn("id", "the job's id (what redrive takes)"), ResultColumn(JOB_TYPE, "its job type", ("job_type",)),
        ResultColumn(PAYLOAD, "its payload columns"), ResultColumn("priority", "its priority", ("priority",)),
        ResultColumn("enqueued_at", "when it was enqueued"),
        ResultColumn("attempts", "claims it had (0: a duplicate a delete-mode claim kept back)"),
        ResultColumn("dead_at", "when it was dead-lettered"), ResultColumn("last_error", "the error it died of"),
    ), example=(("limit", "10"),),
        example_result=(("17", "7", "2026-01-01 12:00:00", "5", "2026-01-01 12:09:10", "timeout"),)),
    Procedure("job", "One job's state by id, wherever it is: queue table, dead letters or archive (reads only).", (
        Parameter("job_id", BIGINT, meaning="the job's id (1 or more)"),
    ), (
        ResultColumn("id", "the id asked for"),
        ResultColumn("state", "one of " + ", ".join(JOB_STATES) + " (not_found: never enqueued, or finished "
                     "with `on_complete: delete`, purged, or redriven under a new id)"),
        ResultColumn("enqueued_at", "when it was enqueued"),
        ResultColumn("available_at", "when it is (or was) due", ("available_at",)),
        ResultColumn("attempts", "claims so far (NULL where the queue does not count them)"),
        ResultColumn("lease_owner", "who holds the lease (in_flight)", ("lease",)),
        ResultColumn("lease_expires_at", "when the lease runs out (in_flight; past: reap releases it)", ("lease",)),
        ResultColumn("last_error", "the last failure's error"),
        ResultColumn("finished_at", "when it was processed, archived or dead-lettered"),
    ), example=(("job_id", "17"),),
        example_result=(("17", "dead", "2026-01-01 12:00:00", "2026-01-01 12:08:40", "5", "NULL", "NULL", "timeout",
                         "2026-01-01 12:09:10"),)),
)})

# A stopping worker's hand-back (issue 25): the jobs of its batch it did not start go back to ready
# at once, their claim not counted as an attempt (fail counts it; reap waits for the lease).
PROCEDURES.update({p.kind: p for p in (
    Procedure("release", "Hands a lease's jobs (or one of them) back unstarted: ready now, the attempt not counted.", (
        Parameter("lease_token", UUID, meaning="the lease's token"),
        Parameter("id", BIGINT, None, meaning="the job (NULL: every job of the lease)"),
        Parameter("ids", ID_LIST, None, ("by_id",), meaning="the lease's jobs, when id is NULL (primary-key lookups)"),
    ), returns="the number of jobs released",
        example=(("lease_token", "'6f1c3a52-8d1e-4d0b-9a55-2f0c4b7e9d10'"), ("id", "1"))),
)})

# Job control (issue 29): an operator holds every claim of a queue and lets them go again. Enqueues go
# on; leases already granted run to their end (complete, fail, extend_lease, release, reap all work).
PROCEDURES.update({p.kind: p for p in (
    Procedure("pause", "Pauses the queue: from its commit, claims return no job (enqueues go on).", (),
              returns="1 when this call paused the queue, 0 when it was paused already",
              example=()),
    Procedure("resume", "Resumes a paused queue: claims take jobs again.", (),
              returns="1 when this call resumed the queue, 0 when it was not paused",
              example=()),
)})

# Cancellation (issue 29): a job that should not run leaves the queue at once, queued or in flight.
CANCEL_OUTCOMES = ("cancelled", "cancelled_in_flight", "held", "not_queued")
PROCEDURES.update({p.kind: p for p in (
    Procedure("cancel", "Cancels jobs by id: each leaves the queue at once, into the dead letters (last_error "
              "`cancelled`) or deleted where the queue keeps none; one row per id.", (
        Parameter("ids", ID_LIST, meaning=f"the jobs' ids (1 to {MAINTENANCE_BATCH_MAX} of them; less on SQL Server where a batch would escalate locks)"),
    ), (
        ResultColumn("id", "an id asked for, once each, in order"),
        ResultColumn("outcome", "cancelled (it was waiting: queued, delayed or backing off), cancelled_in_flight "
                     "(it held a lease: its worker's complete, fail and extend_lease now get lease lost), "
                     "held (delete mode: another open transaction holds it, a claim or another cancel; nothing done) or not_queued "
                     "(finished, dead, purged, never enqueued: nothing done)"),
    ), example=(("ids", "[17, 18]"),), example_result=(("17", "cancelled"), ("18", "not_queued"))),
)})

BATCH_LEAVES_OUT = ("enqueued_by",)  # enqueue's parameters a batch passes once for every job


@dataclass(frozen=True)
class Declared:
    """One parameter of one queue's procedure on one database: the contract's entry resolved (the
    queue's columns expanded, the default's value found). The templates spell it."""

    name: str
    type: Union[ColumnType, str]   # a ColumnType, or ID_LIST / JOB_BATCH
    required: bool
    default: Union[None, bool, int]  # None: NULL
    output: bool
    by_name: bool


def holds(spec: Spec, queue_name: str, dialect_name: str) -> frozenset[str]:
    """The CONDITIONS that hold for one queue on one database."""
    queue = spec.queues[queue_name]
    database = dialects.get(dialect_name)
    lease = queue.claim == "lease"
    found = {
        "lease": lease, "delete_mode": not lease, "job_type": queue.job_type is not None,
        "priority": queue.ordering == "priority", "scheduling": bool(queue.scheduling),
        "available_at": lease or bool(queue.scheduling), "audit": bool(queue.audit),
        "outbox": bool(outbox_columns(spec, queue_name)), "by_id": claims_in_place(queue, dialect_name),
        "step_outputs": database.step_outputs, "waits_in_dequeue": database.wait_for_work == "dequeue",
        "inout_results": database.inout_results,
    }
    return frozenset(name for name, true in found.items() if true)


def outbox_columns(spec: Spec, queue_name: str) -> list[tuple[str, ColumnType]]:
    """The values complete hands on: the outbox's own columns, or the downstream queue's payload."""
    outbox = spec.queues[queue_name].outbox
    if outbox is None:
        return []
    if outbox.columns is not None:
        columns = outbox.columns
    else:
        assert outbox.queue is not None  # an outbox names its columns or a queue (qgen.spec)
        columns = spec.queues[outbox.queue].payload
    return [(name, column.type) for name, column in columns.items()]


def _default(value: Default, spec: Spec, queue_name: str, dialect_name: str) -> Default:
    if not isinstance(value, FromSpec):
        return value
    where, field = value.path.split(".")
    queue = spec.queues[queue_name]
    source = {"queue": lambda: queue, "worker": lambda: queue.worker,
              "limits": lambda: limits(spec, queue_name, dialect_name)}[where]()
    return getattr(source, field)


def declared(spec: Spec, queue_name: str, kind: str, dialect_name: str) -> list[Declared]:
    """The parameters of one queue's `kind` procedure on one database, in order."""
    true = holds(spec, queue_name, dialect_name)
    queue = spec.queues[queue_name]
    found: list[Declared] = []
    for p in PROCEDURES[kind].parameters:
        if not all(c in true for c in p.when):
            continue
        if p.type == VALUES:
            columns = ([(queue.job_type.column, queue.job_type.type, False)] if queue.job_type else []) + [
                (name, c.type, c.nullable) for name, c in queue.payload.items()]
            found += [Declared(name, t, not nullable, None, False, True) for name, t, nullable in columns]
        elif p.type == OUTBOX:
            found += [Declared(name, t, False, None, False, True) for name, t in outbox_columns(spec, queue_name)]
        else:
            kind_type = queue.job_type.type if p.type == JOB_TYPE and queue.job_type else p.type
            default = _default(p.default, spec, queue_name, dialect_name)
            required = isinstance(default, _Required)
            found.append(Declared(p.name, kind_type, required, None if required else default,  # type: ignore[arg-type]
                                  p.output, p.by_name))
    return found


def result_columns(spec: Spec, queue_name: str, kind: str, dialect_name: str) -> list[str]:
    """The columns of the rows one queue's `kind` procedure returns, in order."""
    queue = spec.queues[queue_name]
    return _results(kind, holds(spec, queue_name, dialect_name), queue.job_type.column if queue.job_type else None,
                    list(queue.payload))


def _results(kind: str, true: frozenset[str], job_type: str | None, payload: list[str]) -> list[str]:
    names: list[str] = []
    for column in PROCEDURES[kind].results:
        if all(c in true for c in column.when):
            names += [job_type or ""] if column.name == JOB_TYPE else payload if column.name == PAYLOAD else [column.name]
    return names


# -- docs/api.md's procedure reference ------------------------------------------------------------
# The example queue: schema s, queue q, lease mode with a watermark, one payload column n int.
_EXAMPLE_HOLDS = frozenset({"lease", "available_at"})
_REFERENCES = {
    JOB_TYPE: "the job-type column's type", VALUES: "each column's type", OUTBOX: "each column's type",
    ID_LIST: "ids: PostgreSQL `bigint[]`, SQL Server a JSON array (`nvarchar(max)`)",
    JOB_BATCH: "SQL Server: table type `s.q_batch`; PostgreSQL: a JSON array (`jsonb`)",
}
_SOURCES = {"limits.maintenance_batch": "1000 (less where a batch would escalate locks)"}


def _type_text(t: Union[ColumnType, str]) -> str:
    if isinstance(t, str):
        return _REFERENCES[t]
    return f"{t.kind}({t.length})" if t.length else t.kind


def _default_text(p: Parameter) -> str:
    if p.type == VALUES:
        return "`NULL` when nullable, else required"
    if isinstance(p.default, _Required):
        return "required"
    if isinstance(p.default, FromSpec):
        return _SOURCES.get(p.default.path) or f"the spec's `{p.default.path.removeprefix('queue.')}`"
    if p.default is None:
        return "`NULL`"
    return f"`{str(p.default).lower()}`" if isinstance(p.default, bool) else f"`{p.default}`"


def _when_text(when: tuple[str, ...]) -> str:
    return "; ".join(CONDITIONS[c] for c in when) or "always"


def _shown_name(name: str) -> str:
    return {VALUES: "<job type and payload columns>", OUTBOX: "<outbox columns>"}.get(name, name)


def _plain_default(p: Parameter) -> str:
    """The default as the signature block shows it ("" when required)."""
    if p.type == VALUES:
        return " = NULL when nullable"
    if isinstance(p.default, _Required):
        return ""
    if isinstance(p.default, FromSpec):
        where, field = p.default.path.split(".")
        return " = " + {"queue": f"<spec {field}>", "worker": f"<spec worker.{field}>"}.get(where, "<maintenance batch>")
    return " = " + ("NULL" if p.default is None else str(p.default).lower())


def _signature(proc: Procedure) -> list[str]:
    lines = [f"s.q_{proc.kind}("]
    for i, p in enumerate(proc.parameters):
        shown = p.type if isinstance(p.type, str) else _type_text(p.type)
        entry = f"    {_shown_name(p.name)} {shown}{_plain_default(p)}{' OUTPUT' if p.output else ''}"
        entry += "," if i < len(proc.parameters) - 1 else ""
        lines.append(entry + (f"  -- when: {', '.join(p.when)}" if p.when else ""))
    return lines + [")"]


def _example(proc: Procedure) -> list[str]:
    shape = "call" if any(not p.by_name for p in proc.parameters) else "rows"  # a PostgreSQL procedure: CALL
    table_type = "s.q_batch" if any(p.type == JOB_BATCH for p in proc.parameters) else None
    lines = ["```sql"]
    if not proc.sql_server_only:
        lines += dialects.get("postgres").example_call(f"s.q_{proc.kind}", proc.example, shape)
    lines += dialects.get("mssql").example_call(f"s.q_{proc.kind}", proc.example, shape, table_type)
    return lines + ["```"]


def _procedure_markdown(proc: Procedure) -> list[str]:
    out = [f"### {proc.kind}", "", proc.summary + (" SQL Server only." if proc.sql_server_only else ""), "",
           "```text", *_signature(proc), "```", ""]
    if proc.parameters:
        out += ["| parameter | type | default | present | meaning |", "|---|---|---|---|---|"]
        out += [f"| `{_shown_name(p.name)}` | {_type_text(p.type)} | {_default_text(p)} | {_when_text(p.when)} | {p.meaning} |"
                for p in proc.parameters]
        out.append("")
    if proc.results:
        out += ["| result column | present | meaning |", "|---|---|---|"]
        out += [f"| `{'<job type column>' if c.name == JOB_TYPE else '<payload columns>' if c.name == PAYLOAD else c.name}` "
                f"| {_when_text(c.when)} | {c.meaning} |" for c in proc.results]
        out.append("")
    if proc.returns:
        out += [f"Returns {proc.returns}.", ""]
    out += ["Example, on a lease queue `s.q` with one payload column `n int`:", "", *_example(proc), ""]
    if proc.example_result:
        columns = _results(proc.kind, _EXAMPLE_HOLDS, None, ["n"])
        out += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        out += ["| " + " | ".join(row) + " |" for row in proc.example_result]
        out.append("")
    return out


def reference_markdown() -> str:
    """docs/api.md's per-procedure reference, generated from the contract so it cannot drift
    (tests/test_readme.py holds the page to it)."""
    lines: list[str] = []
    for proc in PROCEDURES.values():
        lines += _procedure_markdown(proc)
    return "\n".join(lines)
