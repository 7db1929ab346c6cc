"""Limits: a value at its column's limit is stored exactly, and one past it is
refused with a located code, never cut or rounded, through every entry point that takes a value.

SQL Server cut a 37-character card code silently to its nvarchar(32) parameter (two codes sharing 32
characters became one dedupe key, the second import answered "already queued" and its secret was
lost), rounded a decimal(p,s) parameter's extra scale, and PostgreSQL's varchar(n) and numeric(p,s)
(the insert, and enqueue_batch's reading of a job into the batch type) dropped trailing spaces past n
and rounded extra scale. Only the Python client checked lengths; T-SQL, ODBC, JDBC and bulk callers
did not.

Generated: the columns are every column of tests/behaviour/specs/limits.yaml, which has one payload
and one outbox column of every portable type (the first test fails when qgen/spec/model.py gains a kind
the spec lacks); the values are each kind's limits and one past (CASES); the entry points are the
client's calls and every rendered routine that takes a column's value, found in the rendered SQL
(entry_points: a routine with a parameter named after a payload or outbox column, one taking the
batch table type, one taking a JSON array of jobs). A routine that takes values and that no caller
here knows fails the test, so a new entry point cannot go unchecked. Each call is made as a client,
an ODBC or psycopg caller bypassing the client, would: raw SQL with bound parameters.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from dataclasses import dataclass
from decimal import Context, Decimal, localcontext
from pathlib import Path
from typing import Any, Callable, Optional, get_args

import pytest

from qgen.client import InvalidArgument
from qgen.spec.model import ERROR_MAX, LABEL_MAX, ColumnType
from tests.support.babelfish import BABELFISH_UNMAPPED

SPEC = Path(__file__).resolve().parent / "specs" / "limits.yaml"
QUEUE = "values"
UTC = dt.timezone.utc
LOCATED = {"postgres": "QG010", "mssql": 50010}


@dataclass(frozen=True)
class Case:
    label: str
    value: Any
    past: Callable[[str], bool]  # by dialect: is this value past the column's limit there?
    raw_only: bool = False  # a value no Python client can even hold (a year past 9999)
    located: bool = True  # refused by qgen's own check (50010, QG010), not by the caller's conversion
    known: tuple[tuple[str, str], ...] = ()  # (dialect, why it cannot be shown there): docs/api.md "Known"


def never(dialect: str) -> bool:
    return False


def always(dialect: str) -> bool:
    return True


def cases(t: ColumnType) -> list[Case]:
    """Each kind's values at its limits and one past them."""
    if t.kind == "string":
        n = t.length or 0
        return [Case("n characters", "x" * n, never),
                Case("n with a trailing space", "x" * (n - 1) + " ", never),
                Case("n+1 characters", "x" * (n + 1), always),
                Case("n and a trailing space", "x" * n + " ", always),  # PostgreSQL's varchar(n) dropped it
                # n characters, n+1 UTF-16 code units: nvarchar(n) cannot hold it, varchar(n) can
                Case("n with one outside the BMP", "\U0001F600" + "x" * (n - 1), lambda d: d == "mssql")]
    if t.kind == "decimal":
        p, s = t.precision or 0, t.scale or 0
        with localcontext(Context(prec=80)):
            largest = Decimal(10) ** (p - s) - Decimal(10) ** -s
            smallest = -largest
            step = Decimal(10) ** -s
            last_place = 1 + Decimal(10) ** -(37 - p + s)  # SQL Server's parameter's last place
            one_past = 1 + Decimal(10) ** -(38 - p + s)
        return [Case("largest", largest, never), Case("smallest", smallest, never), Case("one step", step, never),
                Case("one digit more before the point", Decimal(10) ** (p - s), always),
                Case("one digit more after the point", step + step.scaleb(-1), always),  # rounded before
                Case("one digit more after the point, negative", -step.scaleb(-1), always),
                # SQL Server's parameter is decimal(38, 37-p+s): a nonzero digit at its last place is
                # refused; one past it is rounded away by the conversion into the parameter, before the
                # procedure runs (no decimal(38, x) holds p-s+1 digits before the point and every
                # place a caller can send). PostgreSQL's parameters keep every digit: refused there.
                Case("a nonzero digit at SQL Server's parameter's last place", last_place, always),
                Case("a nonzero digit one place past SQL Server's parameter", one_past, always,
                     known=(("mssql", "docs/api.md, Values past a column's limit, Known: rounded into the "
                                      "parameter's 37-p+s places before the procedure runs"),))]
    if t.kind == "int":
        return [Case("largest", 2**31 - 1, never), Case("smallest", -(2**31), never),
                Case("one past the largest", 2**31, always, located=False),
                Case("one past the smallest", -(2**31) - 1, always, located=False)]
    if t.kind == "bigint":
        return [Case("largest", 2**63 - 1, never), Case("smallest", -(2**63), never),
                Case("one past the largest", 2**63, always, located=False)]
    if t.kind == "datetime":
        return [Case("latest", dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC), never),
                Case("earliest", dt.datetime(1, 1, 1, tzinfo=UTC), never),
                Case("year 10000", "10000-01-01T00:00:00", always, raw_only=True,
                     located=False)]  # PostgreSQL's timestamptz holds it: refused there with QG010
    if t.kind == "text":
        return [Case("long, trailing spaces", "y" * 5000 + "  ", never)]
    if t.kind == "uuid":
        return [Case("a uuid", uuid.UUID("12345678-1234-5678-1234-567812345678"), never)]
    if t.kind == "bool":
        return [Case("true", True, never), Case("false", False, never)]
    if t.kind == "json":
        return [Case("an object", {"k": [1, "x ", None]}, never)]
    if t.kind == "xml":
        return [Case("an element", "<a>b</a>", never)]
    raise AssertionError(f"no limit cases for the kind {t.kind}: add them to cases()")


def test_the_spec_has_a_column_of_every_portable_type(use_spec):
    env = use_spec(SPEC)
    queue = env.spec.queues[QUEUE]
    kinds = set(get_args(ColumnType.model_fields["kind"].annotation))
    assert {c.type.kind for c in queue.payload.values()} == kinds
    assert queue.outbox is not None and queue.outbox.columns is not None
    assert {c.type.kind for c in queue.outbox.columns.values()} == kinds


# ---- where a value lands, and how it is read back -------------------------------------------------

def columns(env) -> dict[str, tuple[ColumnType, str]]:
    """Every value column of the queue: its type and the table it lands in (payload: the queue
    table, by the new job's id; outbox: the outbox table, by the completed job's id)."""
    queue = env.spec.queues[QUEUE]
    found = {name: (c.type, "table") for name, c in queue.payload.items()}
    found.update({name: (c.type, "outbox_table") for name, c in (queue.outbox.columns or {}).items()})
    return found


def stored(env, column: str, row_id: int) -> Any:
    t, table = columns(env)[column]
    key = "id" if table == "table" else "source_id"
    rows = env.sql(f"SELECT {env.col(column)} FROM {env.name(QUEUE, table)} WHERE {env.col(key)} = ?", row_id)
    assert len(rows) == 1, f"{column}: no row {row_id} in {table}"
    return normal(t, rows[0][0])


def normal(t: ColumnType, value: Any) -> Any:
    """A value as read back (either driver) or as sent, in one form to compare."""
    if value is None:
        return None
    if t.kind == "datetime":
        value = dt.datetime.fromisoformat(value) if isinstance(value, str) else value
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if t.kind == "uuid":
        return uuid.UUID(str(value))
    if t.kind == "json":
        return json.loads(value) if isinstance(value, str) else value
    if t.kind == "decimal":
        return Decimal(value)
    if t.kind == "bool":
        return bool(value)
    if t.kind == "xml":
        return re.sub(r"^<\?xml[^>]*\?>", "", str(value))
    return value


# ---- the entry points ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    name: str  # how the test names it
    routine: Optional[str]  # the rendered routine (None: the client's call)
    shape: str  # "client_enqueue", "client_many", "client_complete", "scalar", "table", "json"
    columns: tuple[str, ...]  # the value columns it takes


PARAMETER = {"mssql": re.compile(r"^\s*@(\w+) ([^,\n]+?)(?: = NULL)?,?$", re.M),
             "postgres": re.compile(r'^\s*"(\w+)" ([^,\n]+?)(?: DEFAULT [^,\n]+)?,?$', re.M)}


def routine_parameters(dialect: str, create: str) -> Optional[tuple[str, dict[str, str]]]:
    """(routine name, {parameter: type}) of a rendered CREATE PROCEDURE / FUNCTION (None otherwise)."""
    if dialect == "mssql":
        head = re.search(r"CREATE (?:OR ALTER )?PROCEDURE \[\w+\]\.\[(\w+)\]\n(.*?)\nAS\n", create, re.S)
    else:
        head = re.search(r'CREATE (?:OR REPLACE )?FUNCTION "\w+"\."(\w+)"\n\(\n(.*?)\n\)\n', create, re.S)
    if head is None:
        return None
    return head.group(1), {m.group(1): m.group(2) for m in PARAMETER[dialect].finditer(head.group(2))}


def entry_points(env) -> list[Entry]:
    """The client's calls, and every rendered routine that takes a value of a column."""
    known = columns(env)
    queue = env.spec.queues[QUEUE]
    payload = tuple(queue.payload)
    outbox = tuple(queue.outbox.columns or {})
    entries = [Entry("client.enqueue", None, "client_enqueue", payload),
               Entry("client.enqueue_many", None, "client_many", payload),
               Entry("client.complete", None, "client_complete", outbox)]
    batch_type = env.name(QUEUE, "batch_type")
    for obj in env.installed.rendering.objects:
        found = routine_parameters(env.dialect, obj.create)
        if found is None or obj.obj.queue != QUEUE:
            continue
        name, params = found
        taken = tuple(p for p in params if p in known)
        if taken:
            entries.append(Entry(name, name, "scalar", taken))
        if any(batch_type in t for t in params.values()):
            entries.append(Entry(name, name, "table", payload))
        elif params.get("jobs") in ("nvarchar(max)", "jsonb"):
            entries.append(Entry(name, name, "json", payload))
    return entries


def test_every_routine_taking_values_is_an_entry_point(use_spec):
    """The entry points found are the ones the issue names: a routine that takes values and is not
    among them is still found (it is in entry_points whatever its name); this pins what is found now."""
    env = use_spec(SPEC)
    found = {(e.routine, e.shape) for e in entry_points(env) if e.routine}
    name = lambda kind: env.name(QUEUE, kind).split(".")[1].strip('[]"')  # noqa: E731
    expected = {(name("enqueue"), "scalar"), (name("complete"), "scalar")}
    expected |= ({(name("enqueue_batch"), "table"), (name("enqueue_json"), "json")} if env.dialect == "mssql"
                 else {(name("enqueue_batch"), "json")})
    assert found == expected


# ---- calling one ------------------------------------------------------------------------------------

def claimed_job(client) -> Any:
    client.enqueue(job_type="t")
    (job,) = client.dequeue(batch_size=1)
    return job


def raw_value(env, t: ColumnType, value: Any) -> Any:
    """A value as a caller bypassing the client binds it (text for a PostgreSQL cast, ISO text for a
    SQL Server datetime: B14, and JSON text for json)."""
    if value is None:
        return None
    if t.kind == "json":
        return json.dumps(value)
    if isinstance(value, dt.datetime):
        return value.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")
    if env.dialect == "postgres":
        return str(value).lower() if isinstance(value, bool) else str(value)
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        return Decimal(value)  # ODBC binds no integer past bigint: a caller sends a numeric
    return str(value) if isinstance(value, uuid.UUID) else value


# The type a PostgreSQL caller casts its text to: the kind's own, unbounded (a cast to varchar(n) or
# numeric(p,s) would cut or round in the caller's own statement, before any routine sees the value).
PG_CAST = {"string": "text", "text": "text", "decimal": "numeric", "int": "integer", "bigint": "bigint",
           "uuid": "uuid", "bool": "boolean", "datetime": "timestamptz", "json": "jsonb", "xml": "xml"}


def call_scalar(env, callers: "Callers", entry: Entry, column: str, value: Any) -> int:
    """Call the routine with one column's value (and its other required arguments); the id of the row
    the value lands in."""
    t, table = columns(env)[column]
    args: dict[str, Any] = {}
    if table == "outbox_table":
        job = claimed_job(callers.client)
        args.update(lease_token=str(job.lease_token), id=job.id)
    job_type = env.spec.queues[QUEUE].job_type
    if job_type is not None and job_type.column in routine_parameters(env.dialect, routine_text(env, entry))[1]:
        args[job_type.column] = "t"
    args[column] = raw_value(env, t, value)
    cursor = callers.conn.cursor()
    if env.dialect == "postgres":
        kinds = {name: PG_CAST[c.kind] for name, (c, _) in columns(env).items()}
        kinds.update(lease_token="uuid", id="bigint", job_type="text")
        listed = ", ".join(f'"{k}" => %s::{kinds[k]}' for k in args)
        cursor.execute(f'SELECT * FROM "{env.spec.schema}"."{entry.routine}"({listed})', tuple(args.values()))
        row = cursor.fetchone()
    else:
        listed = ", ".join(f"@{k} = ?" for k in args)
        cursor.execute(f"DECLARE @q$r int; EXEC @q$r = [{env.spec.schema}].[{entry.routine}] {listed}; "
                       "SELECT @q$r", tuple(args.values()))
        while cursor.description is None and cursor.nextset():
            pass
        row = cursor.fetchone()  # enqueue's (id, enqueued); complete returns its count
        while cursor.nextset():
            pass
    return args["id"] if table == "outbox_table" else int(row[0])


def routine_text(env, entry: Entry) -> str:
    return next(o.create for o in env.installed.rendering.objects
                if (found := routine_parameters(env.dialect, o.create)) and found[0] == entry.routine)


def job_document(env, column: str, value: Any) -> str:
    """One job as a JSON array, every column's key present (SQL Server's strict paths), a decimal as a
    JSON number written digit for digit."""
    job: dict[str, Any] = {name: None for name in env.spec.queues[QUEUE].payload}
    job[env.spec.queues[QUEUE].job_type.column] = "t"
    t, _ = columns(env)[column]
    numbers: dict[str, str] = {}
    if isinstance(value, Decimal):
        numbers['"#number#"'] = str(value)
        job[column] = "#number#"
    elif t.kind == "json" and env.dialect == "mssql":
        job[column] = json.dumps(value)  # a json column is its JSON text there
    elif isinstance(value, (dt.datetime, uuid.UUID)):
        job[column] = raw_value(env, t, value) if isinstance(value, uuid.UUID) else value.isoformat()
    else:
        job[column] = value
    text = json.dumps([job])
    for marker, digits in numbers.items():
        text = text.replace(marker, digits)
    return text


def call_batch(env, callers: "Callers", entry: Entry, column: str, value: Any) -> int:
    cursor = callers.conn.cursor()
    routine = (f'"{env.spec.schema}"."{entry.routine}"' if env.dialect == "postgres"
               else f"[{env.spec.schema}].[{entry.routine}]")
    if entry.shape == "json":
        if env.dialect == "postgres":
            cursor.execute(f'SELECT "id" FROM {routine}("jobs" => %s::jsonb)', (job_document(env, column, value),))
        else:
            cursor.execute(f"EXEC {routine} @jobs = ?", (job_document(env, column, value),))
    else:  # a T-SQL caller filling a variable of the table type, as an ODBC/JDBC TVP does
        t, _ = columns(env)[column]
        jt = env.spec.queues[QUEUE].job_type.column
        cursor.execute(f"DECLARE @jobs {env.name(QUEUE, 'batch_type')}; "
                       f"INSERT INTO @jobs ([ordinal], [{jt}], [{column}]) VALUES (1, N't', ?); "
                       f"EXEC {routine} @jobs = @jobs;", (raw_value(env, t, value),))
    while cursor.description is None and cursor.nextset():
        pass
    rows = cursor.fetchall()
    return int(rows[0][-2] if env.dialect == "mssql" else rows[0][0])


@dataclass
class Callers:
    """One client and one raw connection (autocommit) for a whole test."""
    client: Any
    conn: Any


def call(env, callers: Callers, entry: Entry, column: str, value: Any) -> int:
    client = callers.client
    if entry.shape == "client_enqueue":
        return client.enqueue(job_type="t", **{column: value}).id
    if entry.shape == "client_many":
        return client.enqueue_many([{"job_type": "t", column: value}])[0].id
    if entry.shape == "client_complete":
        job = claimed_job(client)
        client.complete(job, **{column: value})
        return job.id
    if entry.shape == "scalar":
        return call_scalar(env, callers, entry, column, value)
    return call_batch(env, callers, entry, column, value)


# ---- the test ---------------------------------------------------------------------------------------

def check_refused(env, callers: Callers, entry: Entry, column: str, case: Case, exc: BaseException) -> Optional[str]:
    """None when exc is the refusal the docs promise; else what is wrong with it."""
    text = str(exc)
    if entry.routine is None:
        if not isinstance(exc, InvalidArgument):
            return f"the client raised {type(exc).__name__}, not InvalidArgument: {text[:200]}"
        return None if column in text else f"the refusal does not name {column}: {text[:200]}"
    driver = callers.client._session.driver
    state, native = driver.codes(exc)
    codes = {state, *native}
    located = case.located or env.dialect == "postgres" and columns(env)[column][0].kind == "datetime"
    if located:
        if LOCATED[env.dialect] not in codes:
            return f"refused with {sorted(map(str, codes - {None}))}, not {LOCATED[env.dialect]}: {text[:300]}"
        if column not in text or entry.routine not in text:
            return f"the refusal does not name {entry.routine} and {column}: {text[:300]}"
        return None
    entry_kind = driver.errors.classify([state, *sorted(native)])
    if entry_kind is not None and entry_kind.kind == "invalid":
        return None
    if env.backend.babelfish and BABELFISH_UNMAPPED in native:
        return None  # B30: a conversion's refusal comes as 33557097 there
    return f"refused, but not as an invalid value: {sorted(map(str, codes - {None}))}: {text[:300]}"


def attempt(env, callers: Callers, entry: Entry, column: str, case: Case) -> Optional[str]:
    """None when the entry stores the value exactly or refuses it as promised; else the failure."""
    t, table = columns(env)[column]
    key = "id" if table == "table" else "source_id"
    before = env.scalar(f"SELECT COUNT(*) FROM {env.name(QUEUE, table)}")
    try:
        row_id = call(env, callers, entry, column, case.value)
    except Exception as exc:  # noqa: BLE001 - every refusal is checked below
        if not case.past(env.dialect):
            return f"refused a value at the limit: {type(exc).__name__}: {str(exc)[:300]}"
        wrong = check_refused(env, callers, entry, column, case, exc)
        after = env.scalar(f"SELECT COUNT(*) FROM {env.name(QUEUE, table)}")
        return wrong or (f"refused, but {after - before} row(s) stored" if after != before else None)
    if case.past(env.dialect):
        as_text = (f"{env.col(column)}::text" if env.dialect == "postgres"  # psycopg reads no year past 9999
                   else f"CAST({env.col(column)} AS nvarchar(max))")
        got = env.sql(f"SELECT {as_text} FROM {env.name(QUEUE, table)} WHERE {env.col(key)} = ?", row_id)
        return f"accepted a value past the limit: stored {str(got)[:120]!r}"
    got = stored(env, column, row_id)
    want = normal(t, case.value)
    return None if got == want else f"stored {str(got)[:120]!r}, not {str(want)[:120]!r}"


def babelfish_gap_of(env, entry: Entry, t: ColumnType, case: Case) -> Optional[str]:
    """Why Babelfish cannot show this case (a gap of tests/support/babelfish.py), or None."""
    if not env.backend.babelfish:
        return None
    if t.kind == "json" and entry.shape in ("client_many", "json"):
        return "B15: OPENJSON returns a JSON string value still escaped, which ISJSON then refuses"
    if entry.shape in ("client_many", "json") and isinstance(case.value, str) and len(case.value) > 4000:
        return "B31: OPENJSON ... WITH (c nvarchar(max)) cuts a value to 4000 characters there"
    if t.kind == "string" and any(ord(ch) > 0xFFFF for ch in case.value):
        return ("B30: DATALENGTH counts UTF-8 bytes there; the harness's check counts characters, and "
                "Babelfish's own insert refuses the value (33557097), unlocated")
    return None


ENTRY_SHAPES = ["client_enqueue", "client_many", "client_complete", "scalar", "table", "json"]


@pytest.mark.parametrize("shape", ENTRY_SHAPES)
def test_a_value_at_its_limit_is_stored_exactly_and_one_past_is_refused(use_spec, shape):
    env = use_spec(SPEC)
    entries = [e for e in entry_points(env) if e.shape == shape]
    if not entries:
        pytest.skip(f"no {shape} entry point on {env.dialect}")
    callers = Callers(env.client(QUEUE, autocommit=True), env.connect(autocommit=True))
    failures: list[str] = []
    skipped: list[str] = []
    for entry in entries:
        for column in entry.columns:
            t, _ = columns(env)[column]
            for case in cases(t):
                if case.raw_only and entry.routine is None:
                    continue
                gap = babelfish_gap_of(env, entry, t, case) or (dict(case.known).get(env.dialect) if entry.routine else None)
                if gap:
                    skipped.append(f"{entry.name} {column} {case.label}: {gap}")
                    continue
                wrong = attempt(env, callers, entry, column, case)
                if wrong:
                    failures.append(f"{entry.name} {column} ({t}) {case.label}: {wrong}")
    assert not failures, f"{len(failures)} failure(s):\n" + "\n".join(failures)


def test_a_job_type_longer_than_its_column_matches_no_job(use_spec):
    """dequeue's and peek's job-type filter: SQL Server cut a value longer than the column to its
    first n characters, so a consumer of the job type "abcdefghX" claimed the jobs of "abcdefgh".
    Now the parameter is one wider (m.param_type): the longer value matches nothing."""
    env = use_spec(SPEC)
    client = env.client(QUEUE, autocommit=True)
    n = env.spec.queues[QUEUE].job_type.type.length
    at_limit = "a" * n
    queued = client.enqueue(job_type=at_limit)
    conn = env.connect(autocommit=True)
    cursor = conn.cursor()
    peek = env.name(QUEUE, "peek")
    if env.dialect == "postgres":
        cursor.execute(f'SELECT "id" FROM {peek}("job_type" => %s, "limit" => 10)', (at_limit + "X",))
    else:
        cursor.execute(f"EXEC {peek} @job_type = ?, @limit = 10", (at_limit + "X",))
    assert cursor.fetchall() == [], "peek with a longer job type listed the shorter type's job"
    assert client.dequeue(job_type=at_limit + "X") == []
    assert [j.id for j in client.dequeue(job_type=at_limit)] == [queued.id]


# ---- labels and the error text ------------------------------------------------------------------------
# SQL Server cut an @owner or @enqueued_by past 128 characters to the parameter's nvarchar(128), and
# PostgreSQL's varchar(128) column dropped trailing spaces past 128 (a longer owner was refused there
# with an unlocated 22001): two workers' owners sharing 128 characters read as one. A label is now
# refused as a payload value is (50010 / QG010, naming the routine and the parameter). fail's error
# text is cut to its column, on purpose (docs/api.md): PostgreSQL's fail itself failed (22001) on a
# text past 4000 characters, so a worker could not record a long exception at all.

LABELS = {"owner": "lease_owner", "enqueued_by": "enqueued_by"}  # parameter -> the column it lands in


def label_entries(env) -> list[Entry]:
    """The client's calls that take a label, and every rendered routine with a label parameter."""
    entries = [Entry("client.enqueue", None, "client_enqueue", ("enqueued_by",)),
               Entry("client.enqueue_many", None, "client_many", ("enqueued_by",)),
               Entry("client.dequeue", None, "client_dequeue", ("owner",))]
    for obj in env.installed.rendering.objects:
        found = routine_parameters(env.dialect, obj.create)
        if found is None or obj.obj.queue != QUEUE:
            continue
        name, params = found
        for label in LABELS:
            if label in params:
                shape = ("table" if any(env.name(QUEUE, "batch_type") in t for t in params.values())
                         else "json" if "jobs" in params else "dequeue" if label == "owner" else "scalar")
                entries.append(Entry(name, name, shape, (label,)))
    return entries


def test_every_routine_taking_a_label_is_checked(use_spec):
    """Pins what label_entries finds (a routine with a label parameter is found whatever its name)."""
    env = use_spec(SPEC)
    found = {(e.routine, e.shape, e.columns[0]) for e in label_entries(env) if e.routine}
    name = lambda kind: env.name(QUEUE, kind).split(".")[1].strip('[]"')  # noqa: E731
    expected = {(name("enqueue"), "scalar", "enqueued_by"), (name("dequeue"), "dequeue", "owner")}
    expected |= ({(name("enqueue_batch"), "table", "enqueued_by"), (name("enqueue_json"), "json", "enqueued_by")}
                 if env.dialect == "mssql" else {(name("enqueue_batch"), "json", "enqueued_by")})
    assert found == expected


def returned_id(cursor) -> int:
    while cursor.description is None and cursor.nextset():
        pass
    names = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    while cursor.nextset():
        pass
    assert len(rows) == 1, rows
    return int(rows[0][names.index("id")])


def call_label(env, callers: Callers, entry: Entry, label: str, value: Any) -> int:
    """Call the entry with the label; the id of the job row it lands on."""
    client = callers.client
    if entry.shape == "client_enqueue":
        return client.enqueue(job_type="t", enqueued_by=value).id
    if entry.shape == "client_many":
        return client.enqueue_many([{"job_type": "t"}], enqueued_by=value)[0].id
    if entry.shape == "client_dequeue":
        client.enqueue(job_type="t")
        (job,) = client.dequeue(batch_size=1, owner=value)
        return job.id
    cursor = callers.conn.cursor()
    pg = env.dialect == "postgres"
    routine = f'"{env.spec.schema}"."{entry.routine}"' if pg else f"[{env.spec.schema}].[{entry.routine}]"
    jt = env.spec.queues[QUEUE].job_type.column
    if entry.shape == "dequeue":
        client.enqueue(job_type="t")
        if pg:
            cursor.execute(f'SELECT * FROM {routine}("owner" => %s::text, "batch_size" => 1)', (value,))
        else:
            cursor.execute(f"EXEC {routine} @owner = ?, @batch_size = 1", (value,))
    elif entry.shape == "scalar":
        if pg:
            cursor.execute(f'SELECT * FROM {routine}("{jt}" => %s::text, "enqueued_by" => %s::text)', ("t", value))
        else:
            cursor.execute(f"EXEC {routine} @{jt} = N't', @enqueued_by = ?", (value,))
    elif entry.shape == "json":
        jobs = job_document(env, next(iter(env.spec.queues[QUEUE].payload)), None)
        if pg:
            cursor.execute(f'SELECT * FROM {routine}("jobs" => %s::jsonb, "enqueued_by" => %s::text)', (jobs, value))
        else:
            cursor.execute(f"EXEC {routine} @jobs = ?, @enqueued_by = ?", (jobs, value))
    else:
        cursor.execute(f"DECLARE @jobs {env.name(QUEUE, 'batch_type')}; "
                       f"INSERT INTO @jobs ([ordinal], [{jt}]) VALUES (1, N't'); "
                       f"EXEC {routine} @jobs = @jobs, @enqueued_by = ?;", (value,))
    return returned_id(cursor)


def attempt_label(env, callers: Callers, entry: Entry, label: str, case: Case) -> Optional[str]:
    """None when the label lands exactly (in its column, and claimed_by for a claim's owner) or is
    refused as promised, nothing enqueued or claimed; else the failure."""
    table = env.name(QUEUE, "table")
    count = (f"SELECT COUNT(*) FROM {table}" if label == "enqueued_by"
             else f"SELECT COUNT(*) FROM {table} WHERE {env.col('lease_owner')} IS NOT NULL")
    before = env.scalar(count)
    try:
        row_id = call_label(env, callers, entry, label, case.value)
    except Exception as exc:  # noqa: BLE001 - every refusal is checked below
        if not case.past(env.dialect):
            return f"refused a label at the limit: {type(exc).__name__}: {str(exc)[:300]}"
        wrong = check_refused(env, callers, entry, label, case, exc)
        after = env.scalar(count)
        return wrong or (f"refused, but {after - before} row(s) changed" if after != before else None)
    columns_ = [LABELS[label]] + (["claimed_by"] if label == "owner" else [])
    got = env.sql(f"SELECT {', '.join(env.col(c) for c in columns_)} FROM {table} WHERE {env.col('id')} = ?", row_id)
    if case.past(env.dialect):
        return f"accepted a label past the limit: stored {str(got)[:160]!r}"
    wrong = [f"{c} = {v!r}" for c, v in zip(columns_, got[0]) if v != case.value]
    return f"stored {', '.join(wrong)[:300]}, not {case.value!r}" if wrong else None


@pytest.mark.parametrize("shape", ["client_enqueue", "client_many", "client_dequeue", "scalar", "table", "json",
                                   "dequeue"])
def test_a_label_at_its_limit_is_stored_exactly_and_one_past_is_refused(use_spec, shape):
    env = use_spec(SPEC)
    entries = [e for e in label_entries(env) if e.shape == shape]
    if not entries:
        pytest.skip(f"no {shape} entry point taking a label on {env.dialect}")
    callers = Callers(env.client(QUEUE, autocommit=True), env.connect(autocommit=True))
    label_type = ColumnType(kind="string", length=LABEL_MAX)
    failures: list[str] = []
    for entry in entries:
        label = entry.columns[0]
        for case in cases(label_type):
            gap = babelfish_gap_of(env, entry, label_type, case)
            if gap:
                continue
            wrong = attempt_label(env, callers, entry, label, case)
            if wrong:
                failures.append(f"{entry.name} {label} {case.label}: {wrong}")
    assert not failures, f"{len(failures)} failure(s):\n" + "\n".join(failures)


ERROR_CASES = [("at the limit", "e" * ERROR_MAX), ("at the limit, trailing spaces", "e" * (ERROR_MAX - 2) + "  "),
               ("one past", "e" * ERROR_MAX + "f"), ("far past", "g" * 3 * ERROR_MAX),
               ("past with trailing spaces", "e" * ERROR_MAX + "   ")]


@pytest.mark.parametrize("retry", [True, False], ids=["released", "dead-lettered"])
@pytest.mark.parametrize("via", ["client", "routine"])
def test_fail_keeps_the_first_error_max_characters_of_any_error_text(use_spec, via, retry):
    """fail's error text is cut to last_error's 4000 characters, never refused: stored exactly up to
    the limit, its first 4000 characters past it, in the job (released) or its dead letter."""
    env = use_spec(SPEC)
    client = env.client(QUEUE, autocommit=True)
    cursor = env.connect(autocommit=True).cursor()
    fail = env.name(QUEUE, "fail")
    failures = []
    for label, text in ERROR_CASES:
        job = claimed_job(client)
        try:
            if via == "client":
                client.fail(job, error=text, retry=retry)
            elif env.dialect == "postgres":
                cursor.execute(f'SELECT {fail}("lease_token" => %s::uuid, "id" => %s, "error" => %s::text, '
                               '"retry" => %s)', (str(job.lease_token), job.id, text, retry))
            else:
                cursor.execute(f"EXEC {fail} @lease_token = ?, @id = ?, @error = ?, @retry = ?",
                               (str(job.lease_token), job.id, text, retry))
        except Exception as exc:  # noqa: BLE001 - a refused failure is the defect
            failures.append(f"{label}: fail refused the error text: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        table = env.name(QUEUE, "table" if retry else "dead_letter_table")
        got = env.scalar(f"SELECT {env.col('last_error')} FROM {table} WHERE {env.col('id')} = ?", job.id)
        if got != text[:ERROR_MAX]:
            failures.append(f"{label}: stored {len(got or '')} characters {str(got)[-20:]!r}, "
                            f"not the first {ERROR_MAX} ({text[:ERROR_MAX][-20:]!r})")
        if retry:  # release it for the next case's claim to take another
            env.execute(f"DELETE FROM {table} WHERE {env.col('id')} = ?", job.id)
    assert not failures, "\n".join(failures)
