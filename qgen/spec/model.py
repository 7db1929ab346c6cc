"""The queue spec: the single source of every default qgen applies.

A spec is YAML written by hand. Each model below forbids unknown keys (typos are errors) and
documents each field; the JSON Schema published for editors is generated from these models
(`qgen schema`), and docs/spec.md's key reference is checked against it by the tests.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WrapValidator,
    model_validator,
)

from qgen import dialects

# Identifiers are emitted quoted, but qgen still only accepts names that need no quoting in
# either database, so a spec can never smuggle SQL into a rendered script. Every pattern here is
# used with fullmatch: `$` would also match before a trailing newline.
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The stricter of the two databases' limits (PostgreSQL truncates at 63 bytes).
MAX_IDENTIFIER = 63
# The largest value the procedures' int parameters and the databases' int columns hold.
MAX_INT = 2**31 - 1


def shown(value: Any, limit: int = 60) -> str:
    """A value as an error message quotes it: its repr, cut to `limit` characters; YAML's null, true
    and false as the spec writes them."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    text = repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, str):
        return f"{text[: limit - 4]}...' ({len(value)} characters)"
    return text[: limit - 3] + "..."


def _check_identifier(value: str) -> str:
    if not _IDENTIFIER.fullmatch(value):
        raise ValueError(
            f"{shown(value)} is not a safe identifier; accepted: a letter or _ followed by letters, digits or _"
        )
    if len(value) > MAX_IDENTIFIER:
        raise ValueError(f"{shown(value)} is {len(value)} characters long; accepted: at most {MAX_IDENTIFIER}")
    return value


Identifier = Annotated[str, AfterValidator(_check_identifier)]


def _check_qualified(value: str) -> str:
    parts = value.split(".")
    if len(parts) > 2:
        raise ValueError(f"{shown(value)} has more than one '.'; accepted: name or schema.name")
    for part in parts:
        _check_identifier(part)
    return value


QualifiedName = Annotated[str, AfterValidator(_check_qualified)]

# ---------------------------------------------------------------------------------------------
# Durations: 30s, 5m, 1h, 7d, or a whole number of seconds.

_DURATION = re.compile(r"\s*([0-9]+)\s*(s|m|h|d)?\s*")
_UNIT_SECONDS = {None: 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def _parse_duration(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("a duration is not true/false; accepted: 30s, 5m, 1h, 7d or whole seconds")
    if isinstance(value, int):
        seconds = value
    elif isinstance(value, str) and (match := _DURATION.fullmatch(value)):
        seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    else:
        raise ValueError(f"{shown(value)} is not a duration; accepted: 30s, 5m, 1h, 7d or whole seconds")
    if seconds < 0:
        raise ValueError("a duration cannot be negative")
    if seconds > MAX_INT:
        raise ValueError(f"{shown(value)} is {seconds} seconds; accepted: at most {MAX_INT} seconds (about 68 years), "
                         "what the procedures' int parameters hold")
    return seconds


def _at_least_one_second(seconds: int) -> int:
    if seconds < 1:
        raise ValueError(f"{seconds} seconds: a claim that is already expired when it is made; accepted: at least 1 second")
    return seconds


def _at_least_one_second_or_none(seconds: Optional[int]) -> Optional[int]:
    if seconds is not None and seconds < 1:
        raise ValueError(f"{seconds} seconds: every job would expire at enqueue; accepted: at least 1 second")
    return seconds


class Duration(int):
    """A duration in seconds that remembers how the spec wrote it (`text`: '2m', '90s', '300'), so a page
    can show a setting as the spec has it; in every other way the int it is."""

    text: str

    def __new__(cls, seconds: int, text: str | None = None) -> "Duration":
        made = super().__new__(cls, seconds)
        made.text = text if text is not None else str(int(seconds))
        return made

    def __getnewargs__(self) -> tuple[int, str]:  # copy and pickle keep the text
        return int(self), self.text


def _keep_duration_text(value: Any, handler: Any) -> Duration:
    seconds = handler(_parse_duration(value))
    return Duration(seconds, value.strip() if isinstance(value, str) else str(value))


_UNIT_ORDER = (("d", 86400), ("h", 3600), ("m", 60))


def duration_text(seconds: int) -> str:
    """A duration as the spec writes it: the spec's own text where it gave one (a Duration), else (a
    default) the largest unit that holds it whole: 300 -> 5m, 604800 -> 7d, 90 -> 90s."""
    if isinstance(seconds, Duration):
        return seconds.text
    for unit, size in _UNIT_ORDER:
        if seconds and seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def is_duration(field: Any) -> bool:
    """Whether a model field (a pydantic FieldInfo) holds a duration (Seconds), or an optional one
    (Optional[Seconds]: pydantic keeps the duration's metadata inside the annotation then)."""
    import typing

    metadata = list(field.metadata)
    for arg in typing.get_args(field.annotation):
        metadata += getattr(arg, "__metadata__", ())
    return any(getattr(m, "func", None) is _keep_duration_text for m in metadata)


Seconds = Annotated[int, WrapValidator(_keep_duration_text), Field(json_schema_extra={"type": ["string", "integer"], "pattern": r"^\d+(s|m|h|d)?$"})]

# ---------------------------------------------------------------------------------------------
# Portable column types.

_TYPE = re.compile(
    r"(?:(?P<plain>int|bigint|text|uuid|bool|datetime|json|xml)"
    r"|string\((?P<length>[0-9]+)\)"
    r"|decimal\((?P<precision>[0-9]+)\s*,\s*(?P<scale>[0-9]+)\))"
)
TYPE_NAMES = "int, bigint, string(n), text, uuid, bool, decimal(p,s), datetime, json, xml"
# The same grammar without named groups, for JSON Schema (ECMA-262 regular expressions).
TYPE_PATTERN_JSON = r"^(int|bigint|text|uuid|bool|datetime|json|xml|string\(\d+\)|decimal\(\d+\s*,\s*\d+\))$"


# The labels qgen keeps beside a job (lease_owner, claimed_by and enqueued_by: string(128)) and the
# error text of its last failed attempt (last_error: string(4000)), as templates/*/table.sql.j2
# create them. A label past LABEL_MAX is refused like a payload value past its column (50010 /
# QG010); an error text is cut to ERROR_MAX, on purpose (docs/api.md, "Values past a column's limit").
LABEL_MAX = 128
ERROR_MAX = 4000


class ColumnType(BaseModel):
    """A parsed portable type; the templates map `kind` to each database's own type."""

    model_config = ConfigDict(frozen=True)
    kind: Literal["int", "bigint", "string", "text", "uuid", "bool", "decimal", "datetime", "json", "xml"]
    length: Optional[int] = None
    precision: Optional[int] = None
    scale: Optional[int] = None

    @classmethod
    def parse(cls, text: str) -> "ColumnType":
        match = _TYPE.fullmatch(text.strip()) if isinstance(text, str) else None
        if not match and isinstance(text, str) and text.startswith("decimal(") and ")" not in text:
            raise ValueError(f"{shown(text)} was cut at its comma by a YAML flow mapping {{...}}; "
                             "accepted: quote it, 'decimal(p,s)', or write the column on its own line")
        if not match:
            raise ValueError(f"{shown(text)} is not a type; accepted: {TYPE_NAMES}")
        if match.group("plain"):
            return cls(kind=match.group("plain"))
        if match.group("length"):
            length = int(match.group("length"))
            if not 1 <= length <= 4000:
                raise ValueError(f"string({length}): accepted lengths are 1 to 4000 (use text for longer)")
            return cls(kind="string", length=length)
        precision, scale = int(match.group("precision")), int(match.group("scale"))
        # 36, not SQL Server's 38: a value arrives in a parameter one digit wider on each side
        # (decimal(38, 37-p+s), templates/mssql/macros.sql.j2 param_type), so that a value past the
        # column is refused there, never rounded by the parameter's own conversion.
        if not (1 <= precision <= 36 and 0 <= scale <= precision):
            raise ValueError(f"decimal({precision},{scale}): accepted: 1 <= p <= 36 and 0 <= s <= p (SQL Server's "
                             "decimal(38) must hold one digit more on each side, to refuse a value past the column "
                             "instead of rounding it)")
        return cls(kind="decimal", precision=precision, scale=scale)

    def __str__(self) -> str:
        if self.kind == "string":
            return f"string({self.length})"
        if self.kind == "decimal":
            return f"decimal({self.precision},{self.scale})"
        return self.kind


def _to_column_type(value: Any) -> Any:
    return ColumnType.parse(value) if isinstance(value, str) else value


PortableType = Annotated[ColumnType, BeforeValidator(_to_column_type)]


class _Strict(BaseModel):
    # strict: a number is a number and a flag a flag (lax mode read `batch_size: true` as 1).
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)


class Column(_Strict):
    """A payload column. Short form: `name: string(50)`; long form: `name: {type: ..., nullable: true}`."""

    type: PortableType = Field(..., description="The column's portable type.")
    nullable: bool = Field(False, description="May the column be NULL? Payload columns are NOT NULL unless said.")


def _column_shorthand(value: Any) -> Any:
    return {"type": value} if isinstance(value, str) else value


ColumnSpec = Annotated[Column, BeforeValidator(_column_shorthand)]

# ---------------------------------------------------------------------------------------------
# Queue options.


class JobType(_Strict):
    """Named sub-queues: a column every job carries, which dequeue can filter on."""

    column: Identifier = Field("job_type", description="Column name.")
    type: PortableType = Field(default_factory=lambda: ColumnType.parse("string(50)"), description="Portable type of the column.")


def _job_type_shorthand(value: Any) -> Any:
    if value is True:
        return {}
    if isinstance(value, str):
        return {"type": value}
    return value


class Dedupe(_Strict):
    """A unique key over payload columns, so the same item cannot be queued twice."""

    key: list[Identifier] = Field(..., min_length=1, description="Payload columns that together identify an item.")
    on_duplicate: Literal["return_existing", "error"] = Field(
        "return_existing",
        description="return_existing: enqueue returns the id already queued; error: enqueue raises an error.",
    )
    scope: Literal["queued", "ever"] = Field(
        "queued",
        description="queued: a key is refused while a job with it is pending or in flight; ever: also while a "
        "finished job with it is kept (archive, dead letters, processed rows), until purge removes it.",
    )


def _dedupe_shorthand(value: Any) -> Any:
    if isinstance(value, str):
        return {"key": [value]}
    if isinstance(value, list):
        return {"key": value}
    return value


class Backoff(_Strict):
    """Delay before retry n (n = 1, 2, ...) is min(max, base * factor^(n-1))."""

    base: Seconds = Field(10, description="Delay before the first retry.")
    factor: int = Field(2, ge=1, le=10, description="Multiplier per further attempt (1 = fixed delay).")
    max: Seconds = Field(3600, description="Upper bound on the delay.")


class Retry(_Strict):
    max_attempts: int = Field(5, ge=1, le=1000, description="Claims a job may have before it is dead-lettered (lease mode).")
    backoff: Backoff = Field(default_factory=Backoff, description="Delay before retry n is min(max, base * factor^(n-1)).")


class Watermark(_Strict):
    """The lowest id a dequeue needs to look at, kept in its own table, so a claim seeks past the rows
    claims already took instead of walking them."""

    enabled: bool = Field(True, description="Start every claim at the watermark instead of the lowest id.")
    every: int = Field(100, ge=1, le=1_000_000, description="Move the watermark once per this many claimed ids.")
    slack: int = Field(
        50, ge=0, le=1_000_000,
        description="Keep the watermark this many ids below the claim that moved it, for claims and inserts still in flight.",
    )
    rescan: Annotated[Seconds, Field(ge=1, le=3600)] = Field(
        10,
        description="At most this long after the last rescan, a dequeue looks below the watermark for jobs it passed "
        "(a late insert, a rolled-back claim) and lowers it to them.",
    )


def _watermark_shorthand(value: Any) -> Any:
    if isinstance(value, bool):
        return {"enabled": value}
    return value


class Outbox(_Strict):
    """Where complete hands a result row, in the same transaction."""

    queue: Optional[Identifier] = Field(None, description="A queue of this spec: complete enqueues into it.")
    columns: Optional[dict[Identifier, ColumnSpec]] = Field(
        None, description="Or an outbox table of its own with these columns: <queue>_outbox."
    )

    @model_validator(mode="after")
    def _one_target(self) -> "Outbox":
        if (self.queue is None) == (self.columns is None):
            raise ValueError("give exactly one of queue (a downstream queue) or columns (an outbox table)")
        if self.columns is not None and not self.columns:
            raise ValueError("columns needs at least one column")
        return self


class Worker(_Strict):
    """An in-database worker: a procedure that drains the queue, calling a handler per job."""

    handler: QualifiedName = Field(..., description="Procedure called per job with @id and the payload columns.")
    max_items: int = Field(0, ge=0, le=MAX_INT, description="Stop after this many jobs (0: no limit).")
    max_duration: Seconds = Field(0, description="Stop after this long (0: no limit).")


class Grants(_Strict):
    """Database roles. Producers may only enqueue; consumers only dequeue/complete/fail/extend; admins run the rest."""

    enabled: bool = Field(True, description="Create the roles and grant EXECUTE; no role gets table access.")
    role_prefix: Optional[Identifier] = Field(
        None, description="What the roles' names start with: <role_prefix>_producer, _consumer, _admin (and, on "
        "PostgreSQL, _owner). Default: the schema. On PostgreSQL roles belong to the cluster, not to one "
        "database: two databases that install the same schema share its roles unless their specs give each its own "
        "prefix. On SQL Server they are database roles (CREATE ROLE in the database qgen installs into): each "
        "database has its own, whatever their names.")
    producer: Optional[Identifier] = Field(None, description="Default: <role_prefix>_producer.")
    consumer: Optional[Identifier] = Field(None, description="Default: <role_prefix>_consumer.")
    admin: Optional[Identifier] = Field(None, description="Default: <role_prefix>_admin.")


OBJECT_KINDS: tuple[str, ...] = (
    "table", "claim_index", "claim_order_index", "dedupe_index", "lease_index", "processed_index", "expire_index",
    "pending_view", "watermark_table", "priority_marks", "dead_letter_table", "dead_letter_index", "archive_table",
    "archive_index", "outbox_table", "batch_type", "enqueue", "enqueue_batch", "enqueue_json",
    "dequeue", "complete", "fail", "extend_lease", "reap", "worker", "watermark_move",
    "watermark_correct", "metrics", "peek", "purge", "purge_batch", "maintain", "redrive",
    # Not an object: the LISTEN/NOTIFY channel of `wakeup: notify` (PostgreSQL), named like one.
    "wakeup_channel",
)
# Read-only inspection (issue 25): a queue's dead letters listed, one job looked up by id.
OBJECT_KINDS += ("dead_letters", "job")
# A worker's hand-back of leased jobs it did not start, without counting the attempt (issue 25).
OBJECT_KINDS += ("release",)
# A queue's pause state and the procedures that set it (issue 29).
OBJECT_KINDS += ("control_table", "pause", "resume", "cancel")
ObjectKind = Literal[OBJECT_KINDS]  # type: ignore[valid-type]

# Maintenance (purge, purge_batch, maintain, redrive) works in batches of at most this many rows, each
# its own transaction where the procedure can commit: well under SQL Server's lock-escalation
# threshold (5,000 locks taken by one statement on one table), so a purge never locks a live queue
# table. A batch_size outside 1..MAINTENANCE_BATCH_MAX is refused at run time.
MAINTENANCE_BATCH = 1000
MAINTENANCE_BATCH_MAX = 4000
# The most rows one dead_letters call lists (a page for a person or a script, not an export).
DEAD_LETTERS_MAX = 1000

# Names a user's column may not take, each with the reason. Only what qgen adds beside the user's
# columns: the columns of the tables that hold jobs (queue, dead-letter, archive), of the batch type
# and of the outbox table, and what sits beside payload values in the same call. The procedures' own
# variables hold a `$` (scripts/rename_internal_names.py), which no spec name can: they never clash.
# Compared without case, as SQL Server's default collation compares names.
QUEUE_COLUMNS = (
    "id", "priority", "available_at", "enqueued_at", "enqueued_by", "attempts", "lease_owner",
    "lease_token", "lease_expires_at", "claimed_at", "claimed_by", "processed", "processed_at",
    "last_error",
)
_JOB_COLUMN_CLASHES = {
    **{name: "a column qgen adds to the queue table" for name in QUEUE_COLUMNS},
    "dead_at": "a column qgen adds to the dead-letter table",
    "entry_id": "the key qgen adds to the dead-letter and archive tables",
    "completed_at": "a column qgen adds to the archive table",
    "ordinal": "a column of the batch type enqueue_batch takes",
    "run_at": "enqueue's parameter for a delayed job, beside the payload's",
    "enqueued": "a result column of enqueue (on PostgreSQL an OUT parameter, beside the payload's)",
    "job_type": "the job type's argument of enqueue and dequeue in the client (QueueClient.enqueue(job_type=...))",
    "found": "PL/pgSQL's FOUND: it hides a parameter of this name, so enqueue would store FOUND instead",
}
_OUTBOX_COLUMN_CLASHES = {
    "id": "a column qgen adds to the outbox table",
    "source_id": "a column qgen adds to the outbox table",
    "created_at": "a column qgen adds to the outbox table",
    "lease_token": "complete's parameter, beside the outbox values",
    "no_result": "complete's parameter that says a job hands nothing on, beside the outbox values",
    "found": "PL/pgSQL's FOUND: it hides a parameter of this name, so complete would store FOUND instead",
}


def column_clash(name: str, outbox: bool = False) -> str | None:
    """Why a user's column may not be called `name` (None: it may): a job column, or an outbox column."""
    clashes = _OUTBOX_COLUMN_CLASHES if outbox else _JOB_COLUMN_CLASHES
    taken = next((reserved for reserved in clashes if reserved == name.lower()), None)
    if taken is None:
        return None
    spelled = f"{taken!r}" if taken == name else f"{taken!r} (names are compared without case)"
    return f"{name!r} is taken: {spelled} is {clashes[taken]}; choose another name"


# Names the databases already use for schemas and roles. A schema or role of these names is not
# qgen's to create, grant to or drop (schema public and dbo hold user objects; qgen may use them).
_FIXED_DATABASE_ROLES = ("db_owner", "db_accessadmin", "db_securityadmin", "db_ddladmin", "db_backupoperator",
                         "db_datareader", "db_datawriter", "db_denydatareader", "db_denydatawriter")
_RESERVED_SCHEMAS = {
    "sys": "SQL Server's system schema",
    "information_schema": "the SQL standard's catalog schema, on both databases",
    "guest": "a schema every SQL Server database has",
    **{name: "a schema every SQL Server database has, for its fixed role" for name in _FIXED_DATABASE_ROLES},
}
_RESERVED_ROLES = {
    "public": "the role every user of the database is in: granting it EXECUTE grants everyone",
    "dbo": "SQL Server's database owner, a user",
    "guest": "SQL Server's guest user",
    "sys": "a SQL Server system principal",
    "information_schema": "a SQL Server system principal",
    **{name: "a fixed SQL Server database role" for name in _FIXED_DATABASE_ROLES},
    **{name: "a fixed SQL Server server role" for name in (
        "sysadmin", "serveradmin", "securityadmin", "processadmin", "setupadmin", "bulkadmin", "diskadmin", "dbcreator")},
}


def _reserved(name: str, reserved: dict[str, str], what: str) -> str | None:
    """Why a schema or role may not have this name, or None."""
    if name.lower().startswith("pg_"):
        return f"{shown(name)}: PostgreSQL reserves {what} names that start with pg_; accepted: another name"
    if name.lower() in reserved:
        return f"{shown(name)} is {reserved[name.lower()]}; accepted: a {what} of your own"
    return None


def _index_key_problems(queue: "Queue", dialect_names: list[str]) -> list[tuple[tuple, str]]:
    """Index keys each database could not build: the claim index (job type, priority, id) and the
    dedupe index (its key columns). Each column must be of a bounded type, the key within the limit."""
    from qgen import dialects

    keys = []
    if queue.job_type:
        claim = [(("job_type", "type"), queue.job_type.type)] + [((), ColumnType(kind="int"))] * (queue.ordering == "priority")
        keys.append(("the claim index", claim + [((), ColumnType(kind="bigint"))], "a job type"))
    if queue.dedupe and all(c in queue.payload or (queue.job_type and c == queue.job_type.column) for c in queue.dedupe.key):
        types = {name: column.type for name, column in queue.payload.items()}
        if queue.job_type:
            types[queue.job_type.column] = queue.job_type.type
        keys.append(("the dedupe key", [(("dedupe", "key", i), types[c]) for i, c in enumerate(queue.dedupe.key)], None))
    found: list[tuple[tuple, str]] = []
    for index, columns, what in keys:
        unbounded: dict[tuple, list[str]] = {}
        for dialect in map(dialects.get, dialect_names):
            sizes = [dialect.index_key_bytes(t) for _, t in columns]
            for (path, t), size in zip(columns, sizes):
                if size is None:
                    unbounded.setdefault((path, str(t)), []).append(dialect.title)
            if None not in sizes and sum(sizes) > dialect.max_index_key_bytes:
                path = columns[0][0][:2] if what is None else columns[0][0]
                found.append((path, f"{index} takes up to {sum(sizes)} bytes on {dialect.title}; accepted: at most "
                              f"{dialect.max_index_key_bytes} (the widest index key it builds): shorter string(n) columns"))
        if what:  # the dedupe key's own check already reports text, json and xml
            found += [(path, f"{t} cannot be {what}: the claim index is keyed on it, and on {' and '.join(titles)} a {t} "
                       "value cannot be an index key, or not one of bounded size; accepted: int, bigint, string(n), "
                       "uuid, bool, decimal, datetime") for (path, t), titles in unbounded.items()]
    return found


# The longest a dequeue may wait for work (SQL Server's @wait_ms; the client waits in slices of it).
# Well under the common client command timeouts (ADO.NET's SqlCommand and JDBC's typical 30 s): a
# client that gives up mid-call would leave a job claimed just before to nobody (a burned attempt,
# or with @at_most_once a lost job). The procedure starts no claim after @wait_ms, so the call ends
# at most one claim's duration after it, 10 s before a 30 s timeout.
MAX_WAIT_MS = 20_000
# How long a waiting T-SQL dequeue sleeps between claims that found nothing.
WAIT_STEP_MS = 50

# The most rows one claim may take (batch_size, max_batch_size): SQL Server escalates a statement that
# holds about 5,000 locks on one table to a table lock, which would stop every other claimer.
MAX_CLAIM = 4000


class Queue(_Strict):
    payload: dict[Identifier, ColumnSpec] = Field(..., min_length=1, description="The job's own columns.")
    job_type: Annotated[Optional[JobType], BeforeValidator(_job_type_shorthand)] = Field(
        None, description="true, a type, or {column, type}: named sub-queues that dequeue can filter on."
    )
    dedupe: Annotated[Optional[Dedupe], BeforeValidator(_dedupe_shorthand)] = Field(
        None, description="A column, a list of columns, or {key, on_duplicate, scope}."
    )
    ordering: Literal["fifo", "priority"] = Field(
        "fifo", description="fifo: by id; priority: higher priority first, then by id."
    )
    scheduling: bool = Field(False, description="Jobs may carry a time before which they are not visible (delayed jobs).")
    claim: Literal["lease", "delete"] = Field(
        "lease",
        description="lease: the row is marked with owner, lease expiry and token; delete: the row leaves the table "
        "when claimed, inside the caller's transaction.",
    )
    batch_size: int = Field(10, ge=1, le=MAX_CLAIM, description="Default number of jobs one dequeue claims.")
    max_batch_size: int = Field(
        1000, ge=1, le=MAX_CLAIM,
        description="Most jobs one dequeue or reap may take; a larger batch_size argument is refused at run time "
        "(keeps a claim well under SQL Server's 5,000-lock escalation threshold).",
    )
    lease: Annotated[Seconds, AfterValidator(_at_least_one_second)] = Field(
        300, description="How long a claim holds its jobs before the reaper may release them (at least 1 second)."
    )
    retry: Retry = Field(default_factory=Retry, description="Lease mode: how often a job is tried, and how long to wait between tries.")
    expire_after: Annotated[Optional[Seconds], AfterValidator(_at_least_one_second_or_none)] = Field(
        None,
        description="Lease mode: a job is not handed out later than this after its enqueue (first try or retry, "
        "delayed or not; a lease already granted runs to its end). Claims pass an expired job; reap (and so "
        "maintain) moves it to the dead letters with last_error 'expired' (deletes it with dead_letter: false). "
        "Default: none (jobs never expire).",
    )
    dead_letter: bool = Field(True, description="Jobs that exhaust their attempts move to <queue>_dead.")
    on_complete: Literal["delete", "mark", "archive"] = Field(
        "delete",
        description="delete the row; mark it processed and keep it; or move it to <queue>_archive.",
    )
    retention: Seconds = Field(7 * 86400, description="purge removes finished (archived, processed, dead) jobs older than this.")
    watermark: Annotated[Optional[Watermark], BeforeValidator(_watermark_shorthand)] = Field(
        None, description="true/false or {enabled, every, slack, rescan}. Default: on for fifo queues, off for priority queues."
    )
    audit: bool = Field(False, description="Record who enqueued and who claimed each job, and when.")
    outbox: Optional[Outbox] = Field(None, description="Where complete hands a result row, in the same transaction.")
    worker: Optional[Worker] = Field(None, description="An in-database worker procedure that drains the queue.")
    wakeup: Literal["poll", "notify"] = Field(
        "poll",
        description="poll: idle workers find new jobs by polling; notify (PostgreSQL): enqueue, enqueue_batch and "
        "redrive also NOTIFY the queue's channel <schema>.<queue>_wakeup at commit, so waiting workers wake at once "
        "(polling stays as the fallback). NOTIFY serialises notifying commits: it costs enqueue throughput.",
    )
    names: dict[ObjectKind, Identifier] = Field(
        default_factory=dict, description="Override the name of any object of this queue, e.g. {dequeue: GetNextJob}."
    )

    @model_validator(mode="after")
    def _derive_defaults(self) -> "Queue":
        # Written to __dict__ so that model_fields_set still tells what the spec itself said.
        if self.watermark is None:
            self.__dict__["watermark"] = Watermark(enabled=self.ordering == "fifo")
        if self.claim == "delete":
            self.__dict__["dead_letter"] = False  # a delete queue never retries: nothing exhausts attempts
        return self

    def _column_name_problems(self) -> list[tuple[tuple, str]]:
        """Column names that clash with what qgen adds, or with each other (without case)."""
        found: list[tuple[tuple, str]] = []
        job = [(("payload", name), name) for name in self.payload]
        if self.job_type:
            job.insert(0, (("job_type", "column"), self.job_type.column))
        outbox = [(("outbox", "columns", name), name) for name in (self.outbox.columns or {})] if self.outbox else []
        for names, is_outbox in ((job, False), (outbox, True)):
            first: dict[str, tuple] = {}
            for path, name in names:
                clash = column_clash(name, outbox=is_outbox)
                if path[0] == "job_type" and name.lower() == "job_type":
                    clash = None  # the job type's column keeps the argument's name
                if clash is None and name.lower() in first:
                    other = first[name.lower()]
                    what = "the job type's column" if other[0] == "job_type" else f"the column {other[-1]!r}"
                    clash = (f"{name!r} is also the name of {what} (names are compared without case, as SQL "
                             "Server does); choose another name")
                if clash:
                    found.append((path, clash))
                first.setdefault(name.lower(), path)
        return found

    def problems(self) -> list[tuple[tuple, str]]:
        """Cross-field mistakes, each with the path of the field to point at."""
        found: list[tuple[tuple, str]] = []
        if self.watermark.enabled and self.ordering != "fifo":
            found.append((("watermark",), "a watermark needs ordering: fifo (a priority claim does not walk ids "
                          "in order); accepted: watermark: false with ordering: priority"))
        found += self._column_name_problems()
        if self.dedupe:
            allowed = list(self.payload) + ([self.job_type.column] if self.job_type else [])
            columns = {c: self.payload[c] for c in self.payload}
            if self.job_type:
                columns[self.job_type.column] = Column(type=self.job_type.type)
            for index, column in enumerate(self.dedupe.key):
                if column in self.dedupe.key[:index]:
                    # SQL Server refuses a column named twice in an index key (Msg 1911).
                    found.append((("dedupe", "key", index), f"{column!r} is already in the key (at "
                                  f"dedupe.key[{self.dedupe.key.index(column)}]); accepted: each column once"))
                elif column not in allowed:
                    found.append((("dedupe", "key", index), f"{column!r} is not a payload column; "
                                  f"accepted: {', '.join(allowed)}"))
                elif columns[column].type.kind in ("text", "json", "xml"):
                    found.append((("dedupe", "key", index), f"{column!r} is {columns[column].type}, which "
                                  "cannot be in a unique index; accepted: int, bigint, string(n), uuid, bool, decimal, datetime"))
                elif columns[column].nullable:
                    found.append((("dedupe", "key", index), f"{column!r} is nullable, and the databases disagree "
                                  "on whether two NULLs are duplicates; accepted: NOT NULL columns"))
            if self.dedupe.scope == "ever":
                # `ever` matches the record a finished job leaves; without one a finished key is simply gone.
                lost = []
                if self.on_complete == "delete":
                    lost.append("on_complete: delete keeps no record of a completed job")
                if self.claim == "lease" and not self.dead_letter:
                    lost.append("dead_letter: false keeps no record of a job that used up its attempts")
                if lost:
                    found.append((("dedupe", "scope"), "scope: ever matches finished jobs by the record they "
                                  f"leave, and {' and '.join(lost)}; accepted: scope: queued, or on_complete: "
                                  "archive or mark" + (" with dead_letter: true" if self.claim == "lease" else "")))
        if self.worker is not None and self.outbox is not None:
            # Its handler is a procedure that returns nothing: the worker would complete every job with
            # no outbox values, which complete refuses (a result is never skipped silently).
            found.append((("worker",), "the in-database worker completes each job without outbox values, and this "
                          "queue has an outbox whose values complete needs; accepted: worker or outbox, not both "
                          "(run_worker hands a handler's result on)"))
        if self.batch_size > self.max_batch_size:
            which = "max_batch_size" if "max_batch_size" in self.model_fields_set else "batch_size"
            found.append(((which,), f"batch_size {self.batch_size} is above max_batch_size {self.max_batch_size}"
                          f"{'' if which == 'max_batch_size' else ' (the default)'}; accepted: batch_size at most "
                          f"max_batch_size (both at most {MAX_CLAIM})"))
        if self.claim == "delete":
            for field in ("retry", "lease", "dead_letter", "expire_after"):
                if field in self.model_fields_set:
                    found.append(((field,), f"only claim: lease has {field.replace('_', ' ')}; a delete queue "
                                  "hands each job out once, inside the caller's transaction"))
            if self.on_complete == "mark":
                found.append((("on_complete",), "a delete queue removes the row when it is claimed; "
                              "accepted here: delete or archive"))
            if self.worker:
                found.append((("worker",), "the in-database worker needs claim: lease"))
            if self.outbox:
                found.append((("outbox",), "an outbox is filled by complete, and a delete queue has no "
                              "complete; accepted: claim: lease"))
        return found


# The databases a spec may name: those qgen.dialects registers (one list, not repeated here).
# (A str to the type checker, which cannot read a Literal made at run time.)
if TYPE_CHECKING:
    DialectName = str
else:
    DialectName = Literal[tuple(dialects.names())]


class Spec(_Strict):
    """A qgen spec: database-level settings and one or more queues."""

    dialects: list[DialectName] = Field(
        default_factory=dialects.names, min_length=1, description="Which databases to render for."
    )
    schema_: Identifier = Field("qgen", alias="schema", description="Schema that holds every object. It also names the roles (<schema>_producer, ...) unless grants.role_prefix does: on PostgreSQL roles belong to the cluster, shared by every database whose spec names the same ones; on SQL Server they are roles of the one database.")
    naming: str = Field(
        "{queue}_{object}",
        description="Pattern for object names; {queue} and {object} are replaced. The queue table itself is named <queue>.",
    )
    sqlserver_version: Literal[2016, 2017, 2019, 2022] = Field(
        2017, description="Oldest SQL Server the T-SQL must run on; 2016 means 2016 SP1 or later (CREATE OR ALTER "
        "needs SP1). 2019+ adds OPTIMIZE_FOR_SEQUENTIAL_KEY."
    )
    grants: Grants = Field(default_factory=Grants, description="Database roles and what they may execute.")
    queues: dict[Identifier, Queue] = Field(..., min_length=1, description="The queues, by name.")

    def problems(self) -> list[tuple[tuple, str]]:
        """Cross-field mistakes in the whole spec, each with the path of the field to point at."""
        found: list[tuple[tuple, str]] = []
        for name, queue in self.queues.items():
            if queue.wakeup == "notify" and not any(dialects.get(d).wait_for_work == "listen" for d in self.dialects):
                found.append((("queues", name, "wakeup"), "wakeup: notify is PostgreSQL's LISTEN/NOTIFY, and this spec "
                              "renders for SQL Server only, whose dequeue waits for work itself (@wait_ms); accepted: "
                              "wakeup: poll, or postgres in dialects"))
        for index, dialect in enumerate(self.dialects):
            if dialect in self.dialects[:index]:
                found.append((("dialects", index), f"{dialect!r} is listed twice; accepted: each of mssql, postgres once"))
        if reason := _reserved(self.schema, _RESERVED_SCHEMAS, "schema"):
            found.append((("schema",), reason))
        elif self.grants.enabled:
            derived = []
            for role in ("producer", "consumer", "admin"):
                if reason := _reserved(role_name(self, role), _RESERVED_ROLES, "role"):
                    if getattr(self.grants, role):
                        found.append((("grants", role), f"the {role} role {reason}"))
                    else:
                        derived.append(reason)
            if derived and self.grants.role_prefix:
                found.append((("grants", "role_prefix"), f"the roles named with this prefix: {derived[0]}"
                              + (f" (and {len(derived) - 1} more)" if len(derived) > 1 else "")
                              + "; or name the roles in grants"))
            elif derived:
                found.append((("schema",), f"the roles named after the schema: {derived[0]}"
                              + (f" (and {len(derived) - 1} more)" if len(derived) > 1 else "")
                              + "; or give grants.role_prefix, or name the roles in grants"))
        if "{queue}" not in self.naming or "{object}" not in self.naming:
            found.append((("naming",), "the pattern needs both {queue} and {object}"))
        elif not _IDENTIFIER.fullmatch(self.naming.replace("{queue}", "q").replace("{object}", "o")):
            found.append((("naming",), "apart from {queue} and {object}, accepted: letters, digits and _"))
        for name, queue in self.queues.items():
            found += [(("queues", name) + path, message) for path, message in queue.problems()]
            found += [(("queues", name) + path, message) for path, message in _index_key_problems(queue, self.dialects)]
            target = queue.outbox.queue if queue.outbox else None
            if target is not None and target not in self.queues:
                found.append((("queues", name, "outbox", "queue"),
                              f"{target!r} is not a queue of this spec; accepted: {', '.join(self.queues)}"))
            elif target == name:
                found.append((("queues", name, "outbox", "queue"), "a queue cannot hand its results to itself"))
            elif target is not None and self.queues[target].job_type is not None:
                found.append((("queues", name, "outbox", "queue"), f"{target!r} has job types, which complete "
                              "cannot choose; accepted: a downstream queue without job_type, or outbox columns"))
            elif target is not None and self.queues[target].dedupe and self.queues[target].dedupe.scope == "ever":
                found.append((("queues", name, "outbox", "queue"), f"{target!r} has dedupe.scope: ever, which "
                              "complete's hand-off does not check (it matches the downstream queue table only); "
                              "accepted: a downstream queue with dedupe.scope: queued, or outbox columns"))
        return found

    @property
    def schema(self) -> str:
        return self.schema_


# ---------------------------------------------------------------------------------------------
# Object names. The queue table is named after the queue; every other object by the naming pattern.

NAME_SUFFIX = {
    "table": None, "claim_index": "claim_ix", "claim_order_index": "claim_order_ix", "dedupe_index": "dedupe_ux",
    "lease_index": "lease_ix", "processed_index": "processed_ix", "expire_index": "expire_ix", "pending_view": "pending",
    "watermark_table": "watermark", "control_table": "control", "priority_marks": "marks", "dead_letter_table": "dead", "dead_letter_index": "dead_ix",
    "archive_table": "archive", "archive_index": "archive_ix",
    "outbox_table": "outbox", "batch_type": "batch", "wakeup_channel": "wakeup",
}


def object_name(spec: Spec, queue_name: str, kind: str) -> str:
    """The name of one object of a queue: an override from `names`, else the naming pattern."""
    queue = spec.queues[queue_name]
    if kind in queue.names:
        return queue.names[kind]
    suffix = NAME_SUFFIX.get(kind, kind)
    if suffix is None:
        return queue_name
    return spec.naming.replace("{queue}", queue_name).replace("{object}", suffix)


def wakeup_channel(spec: Spec, queue_name: str) -> str | None:
    """The LISTEN/NOTIFY channel of a queue with `wakeup: notify` (None without): `<schema>.<name>`,
    the name from the naming pattern (`{queue}_wakeup`) or `names.wakeup_channel`. Channels belong to
    the whole database, not to a schema, so the schema is part of the name; qgen check holds it to
    PostgreSQL's 63 bytes (qgen/render/names.py)."""
    if spec.queues[queue_name].wakeup != "notify":
        return None
    return f"{spec.schema}.{object_name(spec, queue_name, 'wakeup_channel')}"


def role_name(spec: Spec, role: str) -> str:
    """producer, consumer, admin (grants may name them), or owner: on PostgreSQL the NOLOGIN role that
    owns every object qgen creates, so its SECURITY DEFINER functions run with no other rights."""
    return getattr(spec.grants, role, None) or f"{spec.grants.role_prefix or spec.schema}_{role}"
