"""QueueClient's queue shape: what it knows of its queue from the spec and the database, never from a
connection: the names of its objects, the parameters of each procedure and the calls made of them,
and the checks and conversions of the values it passes and reads back. The database's part of a
conversion (json, datetimes, quoting) is its database class's (qgen/dialects/client.py); this
module only looks up the column's kind."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import ROUND_DOWN, Context, Decimal, localcontext
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from qgen.spec.catalog import claims_in_place
from qgen.client.session import Call
from qgen.spec.contract import BATCH_LEAVES_OUT, declared
from qgen.dialects import Database
from qgen.dialects.client import Batch, Record
from qgen.errors import InvalidArgument, QueueUsageError
from qgen.spec.locks import limits
from qgen.client.results import Job
from qgen.spec.model import LABEL_MAX, ColumnType, Queue, Spec, object_name

# Columns qgen adds, by the kind their values come back as.
SYSTEM_KINDS = {
    "id": "bigint", "attempts": "int", "priority": "int", "lease_token": "uuid",
    "lease_expires_at": "datetime", "enqueued_at": "datetime", "available_at": "datetime",
    "claimed_at": "datetime", "processed_at": "datetime", "completed_at": "datetime", "dead_at": "datetime",
    "enqueued": "bool", "processed": "bool", "ordinal": "int",
}
SYSTEM_KINDS.update(finished_at="datetime")  # job's result (issue 25)
_JOB_FIELDS = ("id", "attempts", "lease_token", "lease_expires_at", "priority", "enqueued_at")
_JOB_SYSTEM = frozenset(_JOB_FIELDS)
# Values already of the type value_out makes are handed on (ids and tokens, as psycopg gives them).
_READY_TYPES: dict[str, type] = {"int": int, "bigint": int, "uuid": uuid.UUID}

# Calls sent again on a new connection after the old one was lost. A lost call may have committed:
# these are safe to run again (a lost claim's jobs stay leased until reap releases them; complete
# and fail are fenced by the lease token). enqueue is sent again only with a dedupe key that returns
# the existing job; the in-database worker and calls inside client.transaction() never are.
RETRIED_AFTER_LOSS = frozenset({"dequeue", "complete", "fail", "extend_lease", "reap", "metrics", "peek", "purge",
                                "watermark_correct"})
RETRIED_AFTER_LOSS |= {"dead_letters", "job"}  # read-only inspection (issue 25): nothing to repeat
RETRIED_AFTER_LOSS |= {"release"}  # fenced by the lease token, as complete and fail
RETRIED_AFTER_LOSS |= {"pause", "resume"}  # idempotent: a second call finds the state set (issue 29)
ENQUEUES = frozenset({"enqueue", "enqueue_batch", "enqueue_json"})


def check_text(where: str, name: str, value: Any, limit: Optional[int], length: Callable[[str], int] = len) -> None:
    """Refuse, before it is sent, a value both databases would not take the same way: text holding a
    NUL (PostgreSQL refuses it with a driver error; in a json value too), text longer than its column
    (as the database counts it: `length`, the driver's text_length)."""
    if isinstance(value, str):
        if "\x00" in value:
            raise InvalidArgument(f"{where}: {name} holds a NUL character (at {value.index(chr(0))}); accepted: text "
                                  "without NUL characters (PostgreSQL cannot store one)")
        if limit is not None and length(value) > limit:
            raise InvalidArgument(f"{where}: {name} is {length(value)} characters long; accepted: at most {limit}")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            check_text(where, f"{name}.{key}" if isinstance(key, str) and "\x00" not in key else name, key, None)
            check_text(where, f"{name}.{key}", item, None)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            check_text(where, f"{name}[{index}]", item, None)


def check_decimal(where: str, name: str, value: Any, kind: ColumnType) -> None:
    """Refuse, before it is sent, a number a decimal(p,s) column would round or cannot hold: more than
    p-s digits before the point, a nonzero digit past the scale, NaN or infinity. The procedures
    refuse it too (50010, QG010: templates' over_limit); this is the same rule, said by the client."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return
    precision, scale = kind.precision or 0, kind.scale or 0
    number = value if isinstance(value, Decimal) else Decimal(str(value))
    with localcontext(Context(prec=80)):  # the default context's 28 digits would round a decimal(36,s)
        past = (not number.is_finite() or abs(number) >= Decimal(10) ** (precision - scale)
                or number != number.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_DOWN))
    if past:
        raise InvalidArgument(f"{where}: {name} is {value}; accepted: decimal({precision},{scale}), at most "
                              f"{precision - scale} digits before the point and {scale} after, never rounded")


# int and bigint: what a value of the kind may be (a parameter of the type cannot even take one past).
INTEGER_RANGES = {"int": (-(2**31), 2**31 - 1), "bigint": (-(2**63), 2**63 - 1)}


def check_integer(where: str, name: str, value: Any, kind: str) -> None:
    """Refuse an int or bigint value past its type's range before it is sent: the database's own
    conversion would refuse it too, but not by name (and PostgreSQL, given a bigint where its
    function takes an integer, finds no such function)."""
    if isinstance(value, int) and not isinstance(value, bool):
        low, high = INTEGER_RANGES[kind]
        if not low <= value <= high:
            raise InvalidArgument(f"{where}: {name} is {value}; accepted: {kind}, {low} to {high}")


# What a value of each portable kind may be in Python (docs/client.md, "Errors"): checked before a
# value is sent, so that no driver converts it silently ('42' for 42, 2 for 2.7) or refuses it with
# an error that names no column.
ACCEPTED = {
    "int": "an int (not a bool, float or str)",
    "bigint": "an int (not a bool, float or str)",
    "string": "a str",
    "text": "a str",
    "xml": "a str",
    "decimal": "a Decimal, an int or a finite float (not a bool or str)",
    "uuid": "a uuid.UUID, or a str holding one",
    "bool": "a bool",
    "datetime": "a datetime.datetime (naive: UTC)",
    "json": "a dict, list, str, int, float, bool or None, nested (keys str; Decimal, UUID, date and datetime "
            "inside are written as text)",
}


def type_name(value: Any) -> str:
    """A value's type as an error names it."""
    return "None" if value is None else type(value).__name__


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json_problem(value: Any, name: str) -> Optional[tuple[str, Any]]:
    """Where in a json value a part is of no JSON type (its name and the part), else None."""
    if value is None or isinstance(value, (str, bool, int, Decimal, dt.date, uuid.UUID)):
        if isinstance(value, Decimal) and not value.is_finite():
            return name, value
        return None
    if isinstance(value, float):
        return None if value == value and value not in (float("inf"), float("-inf")) else (name, value)
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{name} (a key)", key
            found = _json_problem(item, f"{name}.{key}")
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _json_problem(item, f"{name}[{index}]")
            if found:
                return found
        return None
    return name, value


def check_type(where: str, name: str, value: Any, kind: ColumnType, nullable: bool = True) -> None:
    """Refuse a value that is not of its column's portable type (ACCEPTED), or None for a NOT NULL
    column, before it is sent: InvalidArgument naming the column, the value's type and what is
    accepted. A str for a number, a float for an int, a bool for anything but bool are refused,
    never converted."""
    k = kind.kind
    if value is None:
        if not nullable:
            raise InvalidArgument(f"{where}: {name} is None; accepted: {kind}, {ACCEPTED[k]}: the column is NOT NULL")
        return
    if k in ("int", "bigint"):
        ok = _is_integer(value)
    elif k in ("string", "text", "xml"):
        ok = isinstance(value, str)
    elif k == "decimal":
        ok = _is_integer(value) or isinstance(value, (Decimal, float))
    elif k == "uuid":
        ok = isinstance(value, uuid.UUID) or (isinstance(value, str) and _parses_as_uuid(value))
    elif k == "bool":
        ok = isinstance(value, bool)
    elif k == "datetime":
        ok = isinstance(value, dt.datetime)
    elif k == "json":
        found = _json_problem(value, name)
        if found is not None:
            part, bad = found
            what = f"{type_name(bad)} {bad}" if isinstance(bad, (float, Decimal)) else f"of type {type_name(bad)}"
            raise InvalidArgument(f"{where}: {part} is {what}, which JSON cannot hold; accepted: json, {ACCEPTED[k]}")
        ok = True
    else:  # pragma: no cover - a kind qgen/spec/model.py gained: tests/test_client_types.py fails first
        raise AssertionError(f"no Python type is accepted for the kind {k}: add it to ACCEPTED and check_type")
    if not ok:
        shown = "a str that is not a UUID" if k == "uuid" and isinstance(value, str) else f"of type {type_name(value)}"
        raise InvalidArgument(f"{where}: {name} is {shown}; accepted: {kind}, {ACCEPTED[k]}")


def _parses_as_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def check_number(where: str, name: str, value: Any, low: int, high: int) -> int:
    """A call argument that is a whole number (a batch size, a priority, seconds): an int within
    low .. high, else InvalidArgument saying what is accepted. Returns it."""
    if not _is_integer(value):
        raise InvalidArgument(f"{where}: {name} is of type {type_name(value)}; accepted: an int from {low} to {high} "
                              "(not a bool, float or str)")
    if not low <= value <= high:
        raise InvalidArgument(f"{where}: {name} is {value}; accepted: an int from {low} to {high}")
    return int(value)


def check_label(where: str, name: str, value: Any) -> None:
    """owner, enqueued_by: a str of at most LABEL_MAX characters without NUL (None: not given)."""
    if value is not None and not isinstance(value, str):
        raise InvalidArgument(f"{where}: {name} is of type {type_name(value)}; accepted: a str of at most {LABEL_MAX} characters")
    check_text(where, name, value, LABEL_MAX)


INT_MAX = 2**31 - 1


def queue_of(spec: Spec, queue_name: str) -> Queue:
    """The spec's queue of this name; ValueError when it has none."""
    if queue_name not in spec.queues:
        raise ValueError(f"{queue_name!r} is not a queue of this spec; known: {', '.join(spec.queues)}")
    return spec.queues[queue_name]


def token_and_id(job: Union[Job, uuid.UUID, str], id: Optional[int]) -> tuple[Any, Optional[int]]:
    """The lease token and job id a call names: a Job's own (id= overrides its id), or a token."""
    if isinstance(job, Job):
        if job.lease_token is None:
            raise QueueUsageError("this job was not claimed under a lease")
        return job.lease_token, job.id if id is None else id
    if isinstance(job, uuid.UUID):
        return job, id
    try:
        return uuid.UUID(str(job)), id
    except ValueError:
        raise InvalidArgument(f"{job!r} is neither a Job nor a lease token; accepted: a Job that dequeue returned, "
                              "or its lease_token (a UUID)") from None


class QueueShape:
    """One queue of a spec as its client calls it on one database (its database class's): names,
    parameters and calls, values in and out. It holds no connection."""

    def __init__(self, spec: Spec, queue_name: str, driver: Database):
        self.spec, self.queue_name, self.driver = spec, queue_name, driver
        self.queue = queue = queue_of(spec, queue_name)
        self.lease_mode = queue.claim == "lease"
        self.job_type_column = queue.job_type.column if queue.job_type else None
        self.payload_columns = list(queue.payload)
        self._kinds: dict[str, ColumnType] = {n: c.type for n, c in queue.payload.items()}
        if queue.job_type:
            self._kinds[queue.job_type.column] = queue.job_type.type
        self._required = {n for n, c in queue.payload.items() if not c.nullable}
        self._outbox_kinds: dict[str, ColumnType] = {}
        self._job_makers: dict[tuple[str, ...], Callable[[Sequence[Any]], Job]] = {}  # by a claim's result columns
        self._calls: dict[tuple, Call] = {}  # by kind, result and parameter names
        self.outbox_columns: list[str] = []
        if queue.outbox is not None and queue.outbox.columns is not None:
            self.outbox_columns = list(queue.outbox.columns)
            self._outbox_kinds = {n: c.type for n, c in queue.outbox.columns.items()}
        elif queue.outbox is not None and queue.outbox.queue is not None:
            target = spec.queues[queue.outbox.queue]
            self.outbox_columns = list(target.payload)
            self._outbox_kinds = {n: c.type for n, c in target.payload.items()}
        self._id_list = driver.id_list
        # How this database waits for work (qgen/dialects): in its dequeue (wait_ms), or on LISTEN.
        self.waits_in_dequeue = driver.wait_for_work == "dequeue"
        # Where a claim leaves the row in place no index holds tokens: jobs are named by id.
        self.by_id = claims_in_place(queue, driver.name)
        # Rows per statement under lock escalation: enqueue_many's split, the maintenance batch.
        self.limits = limits(spec, queue_name, driver.name)

    # -- names, parameters, calls ------------------------------------------------------------

    def object_name(self, kind: str) -> str:
        return object_name(self.spec, self.queue_name, kind)

    def qualified(self, kind: str) -> str:
        """The quoted, schema-qualified name of one of this queue's objects."""
        return f"{self.driver.quote(self.spec.schema)}.{self.driver.quote(self.object_name(kind))}"

    def parameters(self, kind: str) -> list[str]:
        """Every parameter the client may pass to one of the queue's procedures, in the procedure's
        own order: the contract's (qgen/spec/contract.py), less the results a CALL hands back."""
        return [p.name for p in declared(self.spec, self.queue_name, kind, self.driver.name) if p.by_name]

    def batch_columns(self) -> list[str]:
        """The columns of one job in enqueue_batch: the SQL Server table type's columns in order, the
        keys of a job object in PostgreSQL's JSON array and in SQL Server's enqueue_json document."""
        return ["ordinal"] + [name for name in self.parameters("enqueue") if name not in BATCH_LEAVES_OUT]

    def call(self, kind: str, params: Sequence[tuple[str, Any]], result: str) -> Call:
        """The call of the queue's `kind` procedure with these named parameters (their values go
        with it to the session). result: 'rows', 'tuples', 'scalar' or 'call' (Call.result)."""
        key = (kind, result, tuple(p for p, _ in params))
        call = self._calls.get(key)
        if call is None:  # the same call shape is the same text: built once (a claim is called a lot)
            names = self.parameters(kind)
            unknown = [p for p, _ in params if p not in names]
            if unknown:  # a bug in the client, not in the caller's values
                raise AssertionError(f"{kind} has no parameter(s) {', '.join(unknown)}; it has {', '.join(names)}")
            call = self._calls[key] = Call(kind, f"{self.spec.schema}.{self.object_name(kind)}",
                                           self.driver.statement(self.qualified(kind), params, result), result,
                                           self._not_repeated(kind))
        return call

    def _not_repeated(self, kind: str) -> Optional[str]:
        """Why a call of this kind is not sent again after a connection loss (None: it may be)."""
        dedupe = self.queue.dedupe
        if kind in ENQUEUES and not (dedupe and dedupe.on_duplicate == "return_existing"):
            return ("it may have committed, and without a dedupe key that returns the existing job a retry could "
                    "enqueue the job twice")
        if kind not in RETRIED_AFTER_LOSS and kind not in ENQUEUES:
            return "it is not retried after a connection loss"
        return None

    def id_list(self, ids: Sequence[int]) -> Any:
        """Job ids as the parameter that names them (ids, complete_ids)."""
        return self._id_list(list(ids))

    # -- values in and out -------------------------------------------------------------------

    def column_kind(self, column: str) -> Optional[str]:
        """The kind (qgen.spec.ColumnType.kind) of a payload or job-type column; None for others."""
        kind = self._kinds.get(column)
        return kind.kind if kind is not None else None

    def value_in(self, column: str, value: Any) -> Any:
        """A payload or job-type value as a parameter."""
        return self.driver.value_in(self.column_kind(column), value)

    def plain_in(self, value: Any) -> Any:
        """A value of no column (run_at) as a parameter."""
        return self.driver.plain_in(value)

    def outbox_values(self, outbox: Mapping[str, Any]) -> list[tuple[str, Any]]:
        """complete's outbox values, checked, then as parameters."""
        kinds = {column: self._outbox_kinds.get(column) for column in outbox}
        for column, value in outbox.items():
            self.check_value(self.where("complete"), column, value, kinds[column])
        return [(column, self.driver.value_in(kind.kind if kind is not None else None, outbox[column]))
                for column, kind in kinds.items()]

    def batch(self, records: list[Record]) -> Batch:
        """enqueue_many's checked records, as the driver encodes them (Database.batch_call)."""
        return Batch(records, {column: self.column_kind(column) for column in self._kinds},
                     (self.object_name("batch_type"), self.spec.schema), self.queue.ordering == "priority",
                     self.queue.scheduling)

    def value_out(self, column: str, value: Any) -> Any:
        kind = self._kinds[column].kind if column in self._kinds else SYSTEM_KINDS.get(column)
        return self.driver.value_out(kind, value)

    def row(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """A result row, each value as the client hands it on."""
        return {column: self.value_out(column, value) for column, value in row.items()}

    def jobs(self, columns: tuple[str, ...], rows: Sequence[Sequence[Any]]) -> list[Job]:
        """Jobs straight from a claim's result rows ('tuples'), without a dict per row: each column
        converted as value_out does, those whose values the driver's value_out hands
        back unchanged left alone (a claim of 100 rows spent more building dicts per row than in the
        database call)."""
        make = self._job_makers.get(columns)
        if make is None:
            make = self._job_makers[columns] = self._job_maker(columns)
        return [make(row) for row in rows]

    def _job_maker(self, columns: tuple[str, ...]) -> Callable[[Sequence[Any]], Job]:
        out, driver = self.value_out, self.driver

        def getter(name: Optional[str]) -> Callable[[Sequence[Any]], Any]:
            if name is None or name not in columns:
                return lambda row: None
            i = columns.index(name)
            kind = self._kinds[name].kind if name in self._kinds else SYSTEM_KINDS.get(name)
            if driver.passes_unchanged(kind):
                return lambda row: row[i]
            ready = _READY_TYPES.get(kind or "")
            if ready is not None:
                return lambda row: row[i] if type(row[i]) is ready else out(name, row[i])
            return lambda row: out(name, row[i])

        payload = [(name, getter(name)) for name in columns if name not in _JOB_SYSTEM and name != self.job_type_column]
        job_type = getter(self.job_type_column)
        id_, attempts, token, expires, priority, enqueued = (getter(name) for name in _JOB_FIELDS)

        def make(row: Sequence[Any]) -> Job:
            return Job(id=id_(row), payload={name: get(row) for name, get in payload}, job_type=job_type(row),
                       attempts=attempts(row), lease_token=token(row), lease_expires_at=expires(row),
                       priority=priority(row), enqueued_at=enqueued(row))

        return make

    # -- checks ------------------------------------------------------------------------------

    def where(self, call: str) -> str:
        """How an error names a call of this queue: 'queue NAME, CALL'."""
        return f"queue {self.queue_name}, {call}"

    def job(self, call: str, payload: Mapping[str, Any], job_type: Any, priority: Any,
            run_at: Any) -> tuple[list[tuple[str, Any]], Optional[int], Optional[dt.datetime]]:
        """One job of enqueue or enqueue_many, checked the same way for both (call: how errors name
        it): its column values in procedure order, its priority and its run_at."""
        where = self.where(call)
        if priority is not None:
            if self.queue.ordering != "priority":
                raise QueueUsageError(f"{where}: queue {self.queue_name} has ordering: fifo; priority needs "
                                      "ordering: priority")
            priority = check_number(where, "priority", priority, *INTEGER_RANGES["int"])
        if run_at is not None:
            if not self.queue.scheduling:
                raise QueueUsageError(f"{where}: queue {self.queue_name} has no scheduling; run_at needs scheduling: true")
            if not isinstance(run_at, dt.datetime):
                raise InvalidArgument(f"{where}: run_at is of type {type_name(run_at)}; accepted: a datetime.datetime "
                                      "(naive: UTC)")
        return self.job_values(payload, job_type, where=where), priority, run_at

    def job_values(self, payload: Mapping[str, Any], job_type: Any, *, where: str) -> list[tuple[str, Any]]:
        """The job-type column and payload columns, checked against the spec, in procedure order."""
        payload = dict(payload)
        if self.job_type_column:
            if self.job_type_column in payload and self.job_type_column != "job_type":
                if job_type is not None:
                    raise TypeError(f"{where}: give the job type once, as job_type or {self.job_type_column}")
                job_type = payload.pop(self.job_type_column)
            if job_type is None:
                raise TypeError(f"{where}: queue {self.queue_name} has job types: give job_type")
        elif job_type is not None:
            raise QueueUsageError(f"{where}: queue {self.queue_name} has no job types")
        unknown = set(payload) - set(self.payload_columns)
        if unknown:
            raise TypeError(f"{where}: unknown payload column(s) {', '.join(sorted(unknown))}; "
                            f"accepted: {', '.join(self.payload_columns)}")
        missing = self._required - set(payload)
        if missing:
            raise TypeError(f"{where}: missing payload column(s) {', '.join(sorted(missing))}")
        values: list[tuple[str, Any]] = []
        if self.job_type_column:
            values.append((self.job_type_column, job_type))
        values += [(column, payload.get(column)) for column in self.payload_columns]
        for column, value in values:
            self.check_value(where, column, value, self._kinds.get(column), nullable=column not in self._required
                             and column != self.job_type_column)
        return values

    def check_value(self, where: str, column: str, value: Any, kind: Optional[ColumnType], nullable: bool = True) -> None:
        """Refuse a value not of its column's type (check_type), or one its column would cut, round
        or not hold alike on both databases (docs/api.md, "Values past a column's limit"): the
        procedures refuse the same values, with 50010 / QG010."""
        if kind is not None:
            check_type(where, column, value, kind, nullable)
        check_text(where, column, value, kind.length if kind is not None and kind.kind == "string" else None,
                   self.driver.text_length)
        if kind is not None and kind.kind == "decimal":
            check_decimal(where, column, value, kind)
        if kind is not None and kind.kind in INTEGER_RANGES:
            check_integer(where, column, value, kind.kind)

    def check_enqueued_by(self, call: str, enqueued_by: Any) -> None:
        if enqueued_by is not None and not self.queue.audit:
            raise QueueUsageError(f"{self.where(call)}: queue {self.queue_name} has no audit; enqueued_by needs audit: true")
        check_label(self.where(call), "enqueued_by", enqueued_by)

    def need_lease(self, what: str) -> None:
        if not self.lease_mode:
            raise QueueUsageError(f"{what}: queue {self.queue_name} has claim: delete, which has no {what} "
                                  "(commit or roll back the transaction of the dequeue instead)")

    def check_claim(self, job_type: Any, owner: Optional[str], lease_seconds: Optional[int],
                    complete: Any, at_most_once: bool, in_transaction: bool) -> None:
        """Refuse a claim the queue's options or the client's transaction do not allow, or whose
        arguments are not of their types."""
        if complete is not None:
            self.need_lease("complete")
        if at_most_once and (self.lease_mode or in_transaction):
            raise QueueUsageError(f"dequeue: at_most_once commits a delete-mode claim at once; queue {self.queue_name} "
                                  + ("has claim: lease" if self.lease_mode else "is inside client.transaction()"))
        if not self.lease_mode and not in_transaction and not at_most_once:
            raise QueueUsageError(f"dequeue: queue {self.queue_name} has claim: delete: call dequeue inside "
                                  "`with client.transaction():` and commit when the work is done "
                                  "(or pass at_most_once=True to take the jobs with a claim that commits at once)")
        if lease_seconds is not None:
            self.need_lease("lease_seconds")
        if job_type is not None and not self.job_type_column:
            raise QueueUsageError(f"dequeue: queue {self.queue_name} has no job types")
        where = self.where("dequeue")
        check_label(where, "owner", owner)
        if job_type is not None and self.job_type_column:
            # Its type only: a longer job type than the column holds matches no job (test_limits).
            check_type(where, "job_type", job_type, self._kinds[self.job_type_column])
        check_text(where, "job_type", job_type, None)
