"""Regression (the test failed before the fix): a json payload holding a Decimal, a datetime or a UUID is refused on PostgreSQL and taken
on SQL Server.

The client's json columns take "anything json.dumps takes", and the SQL Server driver serialises
with qgen's json_default (Decimal as its text, datetimes as ISO UTC, UUIDs as text). The PostgreSQL
driver hands the value to psycopg's Jsonb with psycopg's own dumps, which knows none of them: the
same enqueue raises a bare TypeError there (and enqueue_many, whose jobs go as one Jsonb array).
Fixed: the PostgreSQL driver dumps with the same json_default.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest

from pathlib import Path

SPEC = Path(__file__).resolve().parents[1] / "specs" / "features_lease.yaml"
DOC = {"amount": Decimal("12.50"), "at": dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc),
       "ref": uuid.UUID("12345678-1234-5678-1234-567812345678")}
AS_JSON = {"amount": "12.50", "at": "2026-01-02T03:04:05+00:00", "ref": "12345678-1234-5678-1234-567812345678"}


@pytest.mark.babelfish_gap("B15", "enqueue_many goes as one JSON document there (B12), and its json column's text keeps "
                           "its escapes", only=["enqueue_many"])
@pytest.mark.parametrize("many", [False, True], ids=["enqueue", "enqueue_many"])
def test_a_json_payload_with_decimal_datetime_and_uuid_goes_as_json_text(use_spec, many):
    env = use_spec(SPEC)
    client = env.client("jobs")
    job = {"job_type": "a", "customer_id": 1, "amount": Decimal("1.00"), "doc": DOC}
    if many:
        client.enqueue_many([job])
    else:
        client.enqueue(**job)
    (claimed,) = client.dequeue(batch_size=1)
    assert claimed.payload["doc"] == AS_JSON
