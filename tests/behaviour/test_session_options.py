"""Every qgen procedure sets the same session options whatever the caller's session (issue 15,
item 4). Here: a caller with IMPLICIT_TRANSACTIONS ON (pyodbc with autocommit off, JDBC with
autocommit false): each procedure must return with no transaction left open, so purge cannot turn
into one huge transaction and maintain cannot return holding its applock and the watermark row.
SQL Server only (PostgreSQL has no implicit transactions); the gate rule "procedure session"
(tests/support/tsql_gate.py) holds every procedure to the same options where no server runs."""

from __future__ import annotations

import contextlib

import pytest

from tests.behaviour.helpers import BEHAVE

# (queue, procedure kind, arguments): the maintenance procedures that set only the isolation level
# before issue 15, and the rest of the worker's path for good measure.
CALLS = [
    ("kept", "purge", "@older_than_seconds = 0"),
    ("kept", "purge_batch", "@older_than_seconds = 0"),
    ("kept", "maintain", ""),
    ("kept", "redrive", "@redrive_all = 1"),
    ("kept", "reap", ""),
    ("wm", "watermark_correct", ""),
    ("kept", "metrics", ""),
]


@pytest.mark.parametrize(("queue", "kind", "args"), CALLS, ids=[c[1] for c in CALLS])
def test_a_procedure_returns_no_open_transaction_to_an_implicit_transactions_caller(use_spec, queue, kind, args):
    env = use_spec(BEHAVE)
    if env.dialect != "mssql":
        pytest.skip("IMPLICIT_TRANSACTIONS is SQL Server's session option")
    client = env.client(queue)
    client.enqueue(n=1)
    job, = client.dequeue(batch_size=1)
    client.fail(job, "for the dead letters", retry=False)
    client.enqueue(n=2)
    conn = env.connect(autocommit=True)
    cursor = conn.cursor()
    cursor.execute("SET IMPLICIT_TRANSACTIONS ON")
    try:
        cursor.execute(f"EXEC {env.name(queue, kind)} {args}")
        while cursor.nextset():
            pass
        cursor.execute("SELECT @@TRANCOUNT")
        assert cursor.fetchone()[0] == 0, f"{kind} returned inside a transaction it left open"
    finally:
        with contextlib.suppress(Exception):
            cursor.execute("IF @@TRANCOUNT > 0 ROLLBACK")
            cursor.execute("SET IMPLICIT_TRANSACTIONS OFF")
