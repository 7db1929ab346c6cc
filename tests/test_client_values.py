"""Values the two databases would take differently, or refuse with a raw driver error, are refused
by the client before they are sent, with the parameter's name and what is accepted:
a NUL character (PostgreSQL cannot store one: psycopg's DataError), a string(n) value longer
than n (PostgreSQL refuses it, SQL Server's nvarchar(n) parameter cuts it silently), an owner or
enqueued_by longer than their 128-character columns. A handler's error text holding a NUL is kept
(written as \\x00) instead of stopping the worker with a driver error. Live on PostgreSQL."""

from __future__ import annotations

import psycopg
import pytest

from qgen.client import InvalidArgument, QueueClient
from qgen.render.engine import render_spec
from qgen.spec.load import load_spec_text
from qgen.client.worker import run_worker
from tests.support.pg import scratch_database
from tests.support.run import run_spec

SPEC = """\
schema: qgen_values
queues:
  q:
    payload:
      code: string(10)
      note: {type: text, nullable: true}
      doc: {type: json, nullable: true}
    audit: true
"""


@pytest.fixture(scope="module")
def queue(postgres_server):
    spec = run_spec(load_spec_text(SPEC, "values.yaml"))
    rendering = render_spec(spec, "values.yaml", "postgres")
    with scratch_database("qgen_values") as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET client_min_messages = warning")
            conn.execute(rendering.install)
        try:
            yield url, spec
        finally:  # the roles belong to the cluster
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("SET client_min_messages = warning")
                conn.execute(rendering.force_uninstall + rendering.uninstall)


def count(url: str) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT count(*) FROM qgen_values.q").fetchone()[0]


CALLS = {
    "a NUL in a string value": (lambda q: q.enqueue(code="a\x00b"), "enqueue: code holds a NUL character"),
    "a NUL in a text value": (lambda q: q.enqueue(code="a", note="x\x00"), "enqueue: note holds a NUL character"),
    "a NUL inside a json value": (lambda q: q.enqueue(code="a", doc={"k": ["ok", "\x00"]}),
                                  "enqueue: doc.k[1] holds a NUL character"),
    "a NUL in a batch": (lambda q: q.enqueue_many([{"code": "a"}, {"code": "\x00"}]),
                         "enqueue_many (job 2): code holds a NUL character"),
    "a string value past its length": (lambda q: q.enqueue(code="x" * 11),
                                       "enqueue: code is 11 characters long; accepted: at most 10"),
    "a long enqueued_by": (lambda q: q.enqueue(code="a", enqueued_by="b" * 129),
                           "enqueue: enqueued_by is 129 characters long; accepted: at most 128"),
    "a long owner": (lambda q: q.dequeue(owner="o" * 129), "dequeue: owner is 129 characters long; accepted: at most 128"),
    "a NUL in an owner": (lambda q: q.dequeue(owner="w\x00"), "dequeue: owner holds a NUL character"),
}


@pytest.mark.parametrize("case", CALLS)
def test_a_value_the_databases_would_not_take_alike_is_refused_by_name_before_it_is_sent(queue, case):
    url, spec = queue
    call, message = CALLS[case]
    client = QueueClient(url, spec, "q")
    client.enqueue(code="waiting")  # a job a claim would take: the owner is written, not only compared
    before = count(url)
    with pytest.raises(InvalidArgument) as refused:
        call(client)
    assert message in str(refused.value)
    assert refused.value.__cause__ is None, "refused by the client, not by the driver"
    assert count(url) == before
    client.close()


def test_a_client_made_with_a_long_owner_is_refused_at_once(queue):
    url, spec = queue
    with pytest.raises(InvalidArgument, match="QueueClient: owner is 200 characters long"):
        QueueClient(url, spec, "q", owner="o" * 200)


def test_a_handler_error_holding_a_nul_is_recorded_and_the_worker_goes_on(queue):
    url, spec = queue
    client = QueueClient(url, spec, "q")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DELETE FROM qgen_values.q")
    job_id = client.enqueue(code="nul").id

    def handler(job):
        raise ValueError("bad byte \x00 in the input")

    stats = run_worker(client, handler, max_batches=1, maintain_every=None)
    assert stats.failed == 1
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT last_error FROM qgen_values.q WHERE id = %s", (job_id,)).fetchone() == (
            "ValueError: bad byte \\x00 in the input",)
    client.close()


def test_statement_is_the_call_the_client_would_send_and_sends_nothing(queue):
    """QueueClient.statement (what qgen bench EXPLAINs): run as it is, it is the procedure's call."""
    url, spec = queue
    client = QueueClient(url, spec, "q")
    job = client.enqueue(code="stmt").id
    before = count(url)
    sql, values = client.statement("peek", limit=10000)
    assert count(url) == before
    with psycopg.connect(url) as conn:
        ids = [row[0] for row in conn.execute(sql, values).fetchall()]
    assert job in ids
    with pytest.raises(TypeError, match="peek has no parameter.*nope"):
        client.statement("peek", nope=1)
    assert client.connections() == [client.connection]
    client.close()
    assert client.connections() == []


@pytest.mark.parametrize("given", [None, "garbage", 42, ""])
def test_a_lease_that_is_neither_a_job_nor_a_token_is_an_invalid_argument(given):
    """complete, fail, extend_lease and release name a lease by a Job or its token: anything else is
    InvalidArgument saying what is accepted, not a bare ValueError from uuid."""
    from qgen.client.values import token_and_id
    from qgen.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="neither a Job nor a lease token; accepted: a Job that dequeue returned"):
        token_and_id(given, None)  # type: ignore[arg-type]
