"""The queue spec: the single source of every default qgen applies.

A spec is YAML written by hand. Each model below forbids unknown keys (typos are errors) and
documents each field; the JSON Schema published for editors is generated from these models
(`qgen schema`), and the README's key reference is checked against it by the tests.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Optional

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    model_validator,
)

# Identifiers are emitted quoted, but qgen still only accepts names that need no quoting in
# either database, so a spec can never smuggle SQL into a rendered script.
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# The stricter of the two databases' limits (PostgreSQL truncates at 63 bytes).
MAX_IDENTIFIER = 63


def _check_identifier(value: str) -> str:
    if not _IDENTIFIER.match(value):
        raise ValueError(
            f"{value!r} is not a safe identifier; accepted: a letter or _ followed by letters, digits or _"
        )
    if len(value) > MAX_IDENTIFIER:
        raise ValueError(f"{value!r} is {len(value)} characters long; accepted: at most {MAX_IDENTIFIER}")
    return value


Identifier = Annotated[str, AfterValidator(_check_identifier)]


def _check_qualified(value: str) -> str:
    parts = value.split(".")
    if len(parts) > 2:
        raise ValueError(f"{value!r} has more than one '.'; accepted: name or schema.name")
    for part in parts:
        _check_identifier(part)
    return value


QualifiedName = Annotated[str, AfterValidator(_check_qualified)]

# ---------------------------------------------------------------------------------------------
# Durations: 30s, 5m, 1h, 7d, or a whole number of seconds.

_DURATION = re.compile(r"^\s*(\d+)\s*(s|m|h|d)?\s*$")
_UNIT_SECONDS = {None: 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def _parse_duration(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("a duration is not true/false; accepted: 30s, 5m, 1h, 7d or whole seconds")
    if isinstance(value, int):
        seconds = value
    elif isinstance(value, str) and (match := _DURATION.match(value)):
        seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    else:
        raise ValueError(f"{value!r} is not a duration; accepted: 30s, 5m, 1h, 7d or whole seconds")
    if seconds < 0:
        raise ValueError("a duration cannot be negative")
    return seconds


Seconds = Annotated[int, BeforeValidator(_parse_duration), Field(json_schema_extra={"type": ["string", "integer"], "pattern": r"^\d+(s|m|h|d)?$"})]

# ---------------------------------------------------------------------------------------------
# Portable column types.

_TYPE = re.compile(
    r"^(?:(?P<plain>int|bigint|text|uuid|bool|datetime|json|xml)"
    r"|string\((?P<length>\d+)\)"
    r"|decimal\((?P<precision>\d+)\s*,\s*(?P<scale>\d+)\))$"
)
TYPE_NAMES = "int, bigint, string(n), text, uuid, bool, decimal(p,s), datetime, json, xml"
# The same grammar without named groups, for JSON Schema (ECMA-262 regular expressions).
TYPE_PATTERN_JSON = r"^(int|bigint|text|uuid|bool|datetime|json|xml|string\(\d+\)|decimal\(\d+\s*,\s*\d+\))$"


class ColumnType(BaseModel):
    """A parsed portable type; the templates map `kind` to each database's own type."""

    model_config = ConfigDict(frozen=True)
    kind: Literal["int", "bigint", "string", "text", "uuid", "bool", "decimal", "datetime", "json", "xml"]
    length: Optional[int] = None
    precision: Optional[int] = None
    scale: Optional[int] = None

    @classmethod
    def parse(cls, text: str) -> "ColumnType":
        match = _TYPE.match(text.strip()) if isinstance(text, str) else None
        if not match and isinstance(text, str) and text.startswith("decimal(") and ")" not in text:
            raise ValueError(f"{text!r} was cut at its comma by a YAML flow mapping {{...}}; "
                             "accepted: quote it, 'decimal(p,s)', or write the column on its own line")
        if not match:
            raise ValueError(f"{text!r} is not a type; accepted: {TYPE_NAMES}")
        if match.group("plain"):
            return cls(kind=match.group("plain"))
        if match.group("length"):
            length = int(match.group("length"))
            if not 1 <= length <= 4000:
                raise ValueError(f"string({length}): accepted lengths are 1 to 4000 (use text for longer)")
            return cls(kind="string", length=length)
        precision, scale = int(match.group("precision")), int(match.group("scale"))
        if not (1 <= precision <= 38 and 0 <= scale <= precision):
            raise ValueError(f"decimal({precision},{scale}): accepted: 1 <= p <= 38 and 0 <= s <= p")
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
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


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
    """Named sub-queues: a column every job carries, which dequeue can filter on (seed 003)."""

    column: Identifier = Field("job_type", description="Column name.")
    type: PortableType = Field(default_factory=lambda: ColumnType.parse("string(50)"), description="Portable type of the column.")


def _job_type_shorthand(value: Any) -> Any:
    if value is True:
        return {}
    if isinstance(value, str):
        return {"type": value}
    return value


class Dedupe(_Strict):
    """A unique key over payload columns, so the same item cannot be queued twice (seed 000)."""

    key: list[Identifier] = Field(..., min_length=1, description="Payload columns that together identify an item.")
    on_duplicate: Literal["return_existing", "error"] = Field(
        "return_existing",
        description="return_existing: enqueue returns the id already queued; error: enqueue raises an error.",
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
    """The lowest id a dequeue needs to look at, kept in its own table (seed 001)."""

    enabled: bool = Field(True, description="Start every claim at the watermark instead of the lowest id.")
    every: int = Field(100, ge=1, le=1_000_000, description="Move the watermark once per this many claimed ids.")
    slack: int = Field(
        50, ge=0, le=1_000_000,
        description="Keep the watermark this many ids below the claim that moved it, for claims and inserts still in flight.",
    )


def _watermark_shorthand(value: Any) -> Any:
    if isinstance(value, bool):
        return {"enabled": value}
    return value


class Outbox(_Strict):
    """Where complete hands a result row, in the same transaction (seed 004)."""

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
    """An in-database worker (seed 000): a procedure that drains the queue, calling a handler per job."""

    handler: QualifiedName = Field(..., description="Procedure called per job with @id and the payload columns.")
    max_items: int = Field(0, ge=0, description="Stop after this many jobs (0: no limit).")
    max_duration: Seconds = Field(0, description="Stop after this long (0: no limit).")


class Grants(_Strict):
    """Database roles. Producers may only enqueue; consumers only dequeue/complete/fail/extend; admins run the rest."""

    enabled: bool = Field(True, description="Create the roles and grant EXECUTE; no role gets table access.")
    producer: Optional[Identifier] = Field(None, description="Default: <schema>_producer.")
    consumer: Optional[Identifier] = Field(None, description="Default: <schema>_consumer.")
    admin: Optional[Identifier] = Field(None, description="Default: <schema>_admin.")


OBJECT_KINDS = (
    "table", "claim_index", "dedupe_index", "lease_index", "pending_view", "watermark_table",
    "dead_letter_table", "archive_table", "outbox_table", "batch_type", "enqueue", "enqueue_batch",
    "enqueue_json", "dequeue", "complete", "fail", "extend_lease", "reap", "worker", "watermark_move",
    "watermark_correct", "metrics", "peek", "purge",
)
ObjectKind = Literal[OBJECT_KINDS]  # type: ignore[valid-type]

# Names the procedures use for their own parameters and variables; a payload column of the same
# name (compared without case, as T-SQL does) would collide with them.
PROCEDURE_NAMES = (
    "archived", "attempts", "batch_size", "claimed", "claimed_from", "completed", "cutoff", "dead",
    "dead_lettered", "deleted", "error", "existing", "expired", "extended", "from", "highest",
    "job_id", "jobs", "lease_seconds", "limit", "lowest", "max_items", "max_seconds", "new", "now",
    "old", "older_than_seconds", "owner", "released", "retry", "run_at", "started", "target",
    "token", "tries", "until", "version", "written", "result", "outcome",
    # columns of the other tables and result sets
    "source_id", "created_at", "dead_at", "completed_at", "ordinal", "enqueued", "one_row",
)

# Columns qgen adds to a queue table; payload columns may not take these names.
SYSTEM_COLUMNS = (
    "id", "priority", "available_at", "enqueued_at", "enqueued_by", "attempts", "lease_owner",
    "lease_token", "lease_expires_at", "claimed_at", "claimed_by", "processed", "processed_at",
    "last_error",
)


class Queue(_Strict):
    payload: dict[Identifier, ColumnSpec] = Field(..., min_length=1, description="The job's own columns.")
    job_type: Annotated[Optional[JobType], BeforeValidator(_job_type_shorthand)] = Field(
        None, description="true, a type, or {column, type}: named sub-queues that dequeue can filter on."
    )
    dedupe: Annotated[Optional[Dedupe], BeforeValidator(_dedupe_shorthand)] = Field(
        None, description="A column, a list of columns, or {key, on_duplicate}."
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
    batch_size: int = Field(10, ge=1, le=10_000, description="Default number of jobs one dequeue claims.")
    lease: Seconds = Field(300, description="How long a claim holds its jobs before the reaper may release them.")
    retry: Retry = Field(default_factory=Retry, description="Lease mode: how often a job is tried, and how long to wait between tries.")
    dead_letter: bool = Field(True, description="Jobs that exhaust their attempts move to <queue>_dead.")
    on_complete: Literal["delete", "mark", "archive"] = Field(
        "delete",
        description="delete the row; mark it processed and keep it; or move it to <queue>_archive.",
    )
    retention: Seconds = Field(7 * 86400, description="purge removes finished (archived, processed, dead) jobs older than this.")
    watermark: Annotated[Optional[Watermark], BeforeValidator(_watermark_shorthand)] = Field(
        None, description="true/false or {enabled, every, slack}. Default: on for fifo queues, off for priority queues."
    )
    audit: bool = Field(False, description="Record who enqueued and who claimed each job, and when (seed 003).")
    outbox: Optional[Outbox] = Field(None, description="Where complete hands a result row, in the same transaction (seed 004).")
    worker: Optional[Worker] = Field(None, description="An in-database worker procedure that drains the queue (seed 000).")
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

    def problems(self) -> list[tuple[tuple, str]]:
        """Cross-field mistakes, each with the path of the field to point at."""
        found: list[tuple[tuple, str]] = []
        if self.watermark.enabled and self.ordering != "fifo":
            found.append((("watermark",), "a watermark needs ordering: fifo (a priority claim does not walk ids "
                          "in order); accepted: watermark: false with ordering: priority"))
        job_column = self.job_type.column.lower() if self.job_type else None
        taken = set(SYSTEM_COLUMNS) | set(PROCEDURE_NAMES) | {"job_type"}
        named = [(("payload", name), name) for name in self.payload]
        if self.job_type and self.job_type.column != "job_type":
            named.append((("job_type", "column"), self.job_type.column))
        if self.outbox and self.outbox.columns:
            named += [(("outbox", "columns", name), name) for name in self.outbox.columns]
        for path, name in named:
            if name.lower() in taken or (path[0] != "job_type" and name.lower() == job_column):
                found.append((path, f"the name {name!r} is taken by a column or parameter qgen adds; "
                              "choose another name (reserved, in any case: "
                              f"{', '.join(sorted(taken))})"))
        if self.dedupe:
            allowed = list(self.payload) + ([self.job_type.column] if self.job_type else [])
            columns = {c: self.payload[c] for c in self.payload}
            if self.job_type:
                columns[self.job_type.column] = Column(type=self.job_type.type)
            for index, column in enumerate(self.dedupe.key):
                if column not in allowed:
                    found.append((("dedupe", "key", index), f"{column!r} is not a payload column; "
                                  f"accepted: {', '.join(allowed)}"))
                elif columns[column].type.kind in ("text", "json", "xml"):
                    found.append((("dedupe", "key", index), f"{column!r} is {columns[column].type}, which "
                                  "cannot be in a unique index; accepted: int, bigint, string(n), uuid, bool, decimal, datetime"))
                elif columns[column].nullable:
                    found.append((("dedupe", "key", index), f"{column!r} is nullable, and the databases disagree "
                                  "on whether two NULLs are duplicates; accepted: NOT NULL columns"))
            # SQL Server caps a nonclustered index key at 1700 bytes; nvarchar takes 2 bytes a character.
            key_chars = sum(columns[c].type.length or 0 for c in self.dedupe.key if c in columns)
            if key_chars > 850:
                found.append((("dedupe", "key"), f"the key's strings add up to {key_chars} characters; "
                              "accepted: at most 850 (SQL Server's 1700-byte index key limit)"))
        if self.claim == "delete":
            for field in ("retry", "lease", "dead_letter"):
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


class Spec(_Strict):
    """A qgen spec: database-level settings and one or more queues."""

    dialects: list[Literal["mssql", "postgres"]] = Field(
        default_factory=lambda: ["mssql", "postgres"], min_length=1, description="Which databases to render for."
    )
    schema_: Identifier = Field("qgen", alias="schema", description="Schema that holds every object.")
    naming: str = Field(
        "{queue}_{object}",
        description="Pattern for object names; {queue} and {object} are replaced. The queue table itself is named <queue>.",
    )
    sqlserver_version: Literal[2016, 2017, 2019, 2022] = Field(
        2017, description="Oldest SQL Server the T-SQL must run on. 2019+ adds OPTIMIZE_FOR_SEQUENTIAL_KEY."
    )
    grants: Grants = Field(default_factory=Grants, description="Database roles and what they may execute.")
    queues: dict[Identifier, Queue] = Field(..., min_length=1, description="The queues, by name.")

    def problems(self) -> list[tuple[tuple, str]]:
        """Cross-field mistakes in the whole spec, each with the path of the field to point at."""
        found: list[tuple[tuple, str]] = []
        if "{queue}" not in self.naming or "{object}" not in self.naming:
            found.append((("naming",), "the pattern needs both {queue} and {object}"))
        elif not _IDENTIFIER.match(self.naming.replace("{queue}", "q").replace("{object}", "o")):
            found.append((("naming",), "apart from {queue} and {object}, accepted: letters, digits and _"))
        for name, queue in self.queues.items():
            found += [(("queues", name) + path, message) for path, message in queue.problems()]
            for kind in NAME_SUFFIX.keys() | set(OBJECT_KINDS):
                if len(object_name(self, name, kind)) > MAX_IDENTIFIER:
                    found.append((("queues", name), f"the name of its {kind}, {object_name(self, name, kind)!r}, "
                                  f"is longer than {MAX_IDENTIFIER} characters; accepted: a shorter queue name or names: override"))
                    break
            target = queue.outbox.queue if queue.outbox else None
            if target is not None and target not in self.queues:
                found.append((("queues", name, "outbox", "queue"),
                              f"{target!r} is not a queue of this spec; accepted: {', '.join(self.queues)}"))
            elif target == name:
                found.append((("queues", name, "outbox", "queue"), "a queue cannot hand its results to itself"))
            elif target is not None and self.queues[target].job_type is not None:
                found.append((("queues", name, "outbox", "queue"), f"{target!r} has job types, which complete "
                              "cannot choose; accepted: a downstream queue without job_type, or outbox columns"))
        return found

    @property
    def schema(self) -> str:
        return self.schema_


# ---------------------------------------------------------------------------------------------
# Object names. The queue table is named after the queue; every other object by the naming pattern.

NAME_SUFFIX = {
    "table": None, "claim_index": "claim_ix", "dedupe_index": "dedupe_ux", "lease_index": "lease_ix",
    "pending_view": "pending",
    "watermark_table": "watermark", "dead_letter_table": "dead", "archive_table": "archive",
    "outbox_table": "outbox", "batch_type": "batch",
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


def role_name(spec: Spec, role: str) -> str:
    return getattr(spec.grants, role) or f"{spec.schema}_{role}"
