"""Every value is checked against its column's portable type before a call: a
value of the wrong Python type, None for a NOT NULL column, or one out of its type's range raises
InvalidArgument naming the queue, the column, the value's type and what is accepted, the same from
enqueue and enqueue_many (one checking path, QueueShape.job), on both databases' client drivers.
Before: an int for a string(n) column raised NotInstalled ("install the spec") from enqueue and was
stored as '42' by enqueue_many, priority=2.7 became 2, a dict for a text column was a raw driver error.

Generated: every portable kind (qgen/spec/model.py ColumnType: the spec below has a NOT NULL column of each,
and the first test fails when a kind is added) x every value of VALUES (ACCEPTS says, independently
of the client, which kinds take it) x {enqueue, enqueue_many} x {postgres, mssql}. No database: the
client has none, so a value that passes its checks reaches the send and raises CannotReconnect,
and a refused one never gets there."""

from __future__ import annotations

import datetime as dt
import math
import uuid
from decimal import Decimal
from typing import Any, Callable, get_args

import pytest

from qgen.client import CannotReconnect, InvalidArgument, QueueClient, QueueUsageError
from qgen.spec.model import ColumnType
from qgen.spec.load import load_spec_text

KINDS = get_args(ColumnType.model_fields["kind"].annotation)
TYPES = {"string": "string(40)", "decimal": "decimal(6,2)"}  # the rest: the kind's own name
DIALECTS = ("postgres", "mssql")
CALLS = ("enqueue", "enqueue_many")

SPEC = "schema: typed\nqueues:\n  q:\n    ordering: priority\n    scheduling: true\n    audit: true\n    payload:\n" + "".join(
    f"      c_{kind}: {{type: '{TYPES.get(kind, kind)}'}}\n" for kind in KINDS)
spec = load_spec_text(SPEC, "typed.yaml")

# A valid value of each kind: the job every case starts from.
VALID = {"int": 1, "bigint": 2**40, "string": "ok", "text": "ok", "xml": "<a/>", "decimal": Decimal("1.50"),
         "uuid": uuid.UUID(int=1), "bool": False, "datetime": dt.datetime(2030, 1, 2, tzinfo=dt.timezone.utc),
         "json": {"k": 1}}

NUMBERS = {"int", "bigint", "decimal"}
JSON_SCALARS = {"json"}
# Each value, and the kinds that take it (all others refuse it).
VALUES: dict[str, tuple[Any, set[str]]] = {
    "str": ("42", {"string", "text", "xml", "json"}),
    "str holding a uuid": (str(uuid.UUID(int=7)), {"string", "text", "xml", "json", "uuid"}),
    "int": (42, {"int", "bigint", "decimal", "json"}),
    "bool": (True, {"bool", "json"}),
    "float": (2.5, {"decimal", "json"}),
    "float with no fraction": (2.0, {"decimal", "json"}),
    "Decimal": (Decimal("2.5"), {"decimal", "json"}),
    "dict": ({"a": 1}, {"json"}),
    "list": ([1, "x"], {"json"}),
    "uuid.UUID": (uuid.UUID(int=3), {"uuid", "json"}),
    "datetime": (dt.datetime(2030, 1, 2, 3, 4, 5), {"datetime", "json"}),
    "date": (dt.date(2030, 1, 2), {"json"}),
    "bytes": (b"x", set()),
    "set": ({1}, set()),
    "object": (object(), set()),
    "None (NOT NULL columns)": (None, set()),
}
# Values of an accepted type that the column cannot hold: refused too.
OUT_OF_RANGE: dict[str, tuple[str, Any, str]] = {
    "int past 2^31-1": ("int", 2**31, "accepted: int, -2147483648 to 2147483647"),
    "int below -2^31": ("int", -(2**31) - 1, "accepted: int, -2147483648 to 2147483647"),
    "bigint past 2^63-1": ("bigint", 2**63, "accepted: bigint"),
    "decimal with a digit too many before the point": ("decimal", 10000, "accepted: decimal(6,2)"),
    "decimal with a digit too many after the point": ("decimal", Decimal("1.005"), "accepted: decimal(6,2)"),
    "decimal NaN": ("decimal", float("nan"), "accepted: decimal(6,2)"),
    "decimal infinity": ("decimal", Decimal("Infinity"), "accepted: decimal(6,2)"),
    "string past its length": ("string", "x" * 41, "accepted: at most 40"),
    "a NUL in text": ("text", "a\x00", "holds a NUL character"),
    "json NaN": ("json", {"a": [math.nan]}, "c_json.a[0] is float nan, which JSON cannot hold"),
    "json with bytes inside": ("json", {"a": {"b": b"x"}}, "c_json.a.b is of type bytes, which JSON cannot hold"),
    "json with an int key": ("json", {1: "x"}, "c_json (a key) is of type int, which JSON cannot hold"),
    "a str that is no uuid": ("uuid", "not-a-uuid", "c_uuid is a str that is not a UUID; accepted: uuid"),
}


def client(dialect: str) -> QueueClient:
    return QueueClient(None, spec, "q", dialect=dialect)


def job(**changes: Any) -> dict[str, Any]:
    values = {f"c_{kind}": value for kind, value in VALID.items()}
    values.update(changes)
    return values


def send(call: str, dialect: str, **changes: Any) -> Callable[[], Any]:
    queue = client(dialect)
    options = {k: changes.pop(k) for k in ("priority", "run_at") if k in changes}
    if call == "enqueue":
        return lambda: queue.enqueue(**options, **job(**changes))
    return lambda: queue.enqueue_many([job(), {**job(**changes), **options}])


def refusal(call: str, dialect: str, **changes: Any) -> str:
    """The InvalidArgument the call raises, as text, with the call's name and the job's number
    taken out (so that enqueue's and enqueue_many's can be compared)."""
    with pytest.raises(InvalidArgument) as refused:
        send(call, dialect, **changes)()
    assert refused.value.__cause__ is None, "refused by the client, before anything was sent"
    text = str(refused.value)
    prefix = "queue q, enqueue: " if call == "enqueue" else "queue q, enqueue_many (job 2): "
    assert text.startswith(prefix), text
    return text[len(prefix):]


def test_the_spec_has_a_not_null_column_of_every_portable_kind():
    assert {c.type.kind for c in spec.queues["q"].payload.values()} == set(KINDS) == set(VALID)
    assert not any(c.nullable for c in spec.queues["q"].payload.values())


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("call", CALLS)
def test_a_valid_job_passes_the_checks(call, dialect):
    with pytest.raises(CannotReconnect):  # reached the send: the client has no connection
        send(call, dialect)()


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("kind", KINDS)
def test_a_value_of_a_type_its_column_does_not_take_is_refused_by_name_alike_from_enqueue_and_enqueue_many(
        kind, value, dialect):
    given, accepted_by = VALUES[value]
    column = f"c_{kind}"
    if kind in accepted_by:
        for call in CALLS:
            with pytest.raises(CannotReconnect):
                send(call, dialect, **{column: given})()
        return
    one, many = (refusal(call, dialect, **{column: given}) for call in CALLS)
    assert one == many, "enqueue and enqueue_many refuse a value alike"
    shown = "None" if given is None else type(given).__name__
    assert one.startswith(f"{column} is "), one
    assert shown in one, f"the value's type is named: {one}"
    assert f"accepted: {TYPES.get(kind, kind)}, " in one, f"what the column accepts is said: {one}"
    if given is None:
        assert "NOT NULL" in one


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("case", OUT_OF_RANGE)
def test_a_value_its_column_cannot_hold_is_refused_alike_from_enqueue_and_enqueue_many(case, dialect):
    kind, given, says = OUT_OF_RANGE[case]
    one, many = (refusal(call, dialect, **{f"c_{kind}": given}) for call in CALLS)
    assert one == many
    assert says in one, one


OPTIONS: dict[str, tuple[str, Any, str]] = {
    "priority as a float": ("priority", 2.7, "priority is of type float; accepted: an int from -2147483648"),
    "priority as a float with no fraction": ("priority", 2.0, "priority is of type float"),
    "priority as a str": ("priority", "high", "priority is of type str"),
    "priority as a str of digits": ("priority", "2", "priority is of type str"),
    "priority as a bool": ("priority", True, "priority is of type bool"),
    "priority past an int": ("priority", 2**31, "priority is 2147483648; accepted: an int from"),
    "run_at as a str": ("run_at", "2030-01-01", "run_at is of type str; accepted: a datetime.datetime"),
    "run_at as a date": ("run_at", dt.date(2030, 1, 1), "run_at is of type date"),
    "run_at as seconds": ("run_at", 60, "run_at is of type int"),
}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("case", OPTIONS)
def test_a_priority_or_run_at_of_the_wrong_type_is_refused_alike_from_enqueue_and_enqueue_many(case, dialect):
    name, given, says = OPTIONS[case]
    one, many = (refusal(call, dialect, **{name: given}) for call in CALLS)
    assert one == many
    assert one.startswith(says), one


def test_a_job_that_is_not_a_mapping_is_refused():
    with pytest.raises(InvalidArgument, match=r"queue q, enqueue_many \(job 1\): the job is of type list"):
        client("postgres").enqueue_many([[1, 2]])  # type: ignore[list-item]


# Every other call's whole-number and label arguments: (call, what it says). Refused before anything is sent.
ARGUMENTS: dict[str, tuple[Callable[[QueueClient], Any], str]] = {
    "dequeue batch_size float": (lambda q: q.dequeue(batch_size=2.5), "dequeue: batch_size is of type float"),
    "dequeue batch_size str": (lambda q: q.dequeue(batch_size="10"), "dequeue: batch_size is of type str"),
    "dequeue batch_size bool": (lambda q: q.dequeue(batch_size=True), "dequeue: batch_size is of type bool"),
    # 0 and past the queue's cap: the procedure refuses with the queue's range (test_hostile_session_isolation).
    "dequeue batch_size past 2^31-1": (lambda q: q.dequeue(batch_size=2**31),
                                       "dequeue: batch_size is 2147483648; accepted: an int from"),
    "dequeue lease_seconds float": (lambda q: q.dequeue(lease_seconds=1.5), "dequeue: lease_seconds is of type float"),
    "dequeue owner int": (lambda q: q.dequeue(owner=7), "dequeue: owner is of type int; accepted: a str"),
    "dequeue wait str": (lambda q: q.dequeue(wait="5"), "dequeue: wait is str '5'; accepted: seconds"),
    "dequeue wait negative": (lambda q: q.dequeue(wait=-1), "dequeue: wait is int -1"),
    "enqueued_by int": (lambda q: q.enqueue(**job(), enqueued_by=5), "enqueue: enqueued_by is of type int"),
    "enqueue_many enqueued_by int": (lambda q: q.enqueue_many([job()], enqueued_by=5),
                                     "enqueue_many: enqueued_by is of type int"),
    "reap batch_size str": (lambda q: q.reap(batch_size="1"), "reap: batch_size is of type str"),
    "maintain batch_size float": (lambda q: q.maintain(batch_size=1.0), "maintain: batch_size is of type float"),
    "peek limit float": (lambda q: q.peek(limit=1.5), "peek: limit is of type float"),
    "purge older_than_seconds str": (lambda q: q.purge(older_than_seconds="60"), "purge: older_than_seconds is of type str"),
    "purge batch_size negative": (lambda q: q.purge(batch_size=-1), "purge: batch_size is -1"),
    "purge_batch batch_size float": (lambda q: q.purge_batch(batch_size=0.5), "purge_batch: batch_size is of type float"),
    "extend_lease lease_seconds str": (lambda q: q.extend_lease(uuid.UUID(int=1), lease_seconds="30"),
                                       "extend_lease: lease_seconds is of type str"),
    "redrive ids str": (lambda q: q.redrive(["1"]), "redrive: ids is of type str"),
}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("case", ARGUMENTS)
def test_a_call_argument_of_the_wrong_type_or_range_is_refused_by_name(case, dialect):
    call, says = ARGUMENTS[case]
    with pytest.raises(InvalidArgument) as refused:
        call(client(dialect))
    assert str(refused.value).startswith(f"queue q, {says}"), str(refused.value)


def test_a_client_made_with_an_owner_of_the_wrong_type_is_refused():
    with pytest.raises(InvalidArgument, match="queue q, QueueClient: owner is of type int"):
        QueueClient(None, spec, "q", dialect="postgres", owner=5)  # type: ignore[arg-type]


def test_an_option_the_queue_lacks_is_still_a_usage_error_whatever_its_type():
    fifo = load_spec_text("schema: s\nqueues:\n  f:\n    payload:\n      a: int\n", "f.yaml")
    queue = QueueClient(None, fifo, "f", dialect="postgres")
    with pytest.raises(QueueUsageError, match="priority needs ordering: priority"):
        queue.enqueue(a=1, priority="high")
