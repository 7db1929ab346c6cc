"""PostgreSQL: the delete-mode guard tells a claim the caller commits from one that commits by itself.

A delete-mode claim without at_most_once must run inside a transaction the caller ends with its
own COMMIT (docs/api.md, "The transaction rule"). A function cannot see whether the caller opened a
transaction block; the guard, a deferred constraint trigger fired at commit, used to accept any
commit made after a later statement had started, and to refuse any check made during the claim's
own statement. Both misfired:

- a pipelined autocommit claim (the claim and another statement sent before one Sync: one implicit
  transaction, committed by the Sync, never by the caller) was accepted: at-most-once delivery;
- a claim in an explicit transaction after SET CONSTRAINTS ALL IMMEDIATE was refused: the check
  ran at the end of the claim's statement instead of at the commit.

Each is run with the driver's own protocol features (psycopg's pipeline mode, a plain BEGIN).
"""

from __future__ import annotations

import pytest

from qgen.client import error_kind
from tests.behaviour.helpers import EX001

QUEUE = "testq"   # example 001: claim: delete, watermark


@pytest.fixture
def env(use_spec):
    env = use_spec(EX001)
    if env.dialect != "postgres":
        pytest.skip("SQL Server refuses at the claim's start by @@TRANCOUNT")
    env.client(QUEUE).enqueue_many([{"filler": f"row {n}"} for n in range(6)])
    return env


def dequeue(env, batch_size: int = 2) -> str:
    return f'SELECT "id" FROM {env.name(QUEUE, "dequeue")}("batch_size" => %s)'


def pipelined_refusal(env, later_statement: bool) -> BaseException:
    """The error a pipelined autocommit claim ends in. Now and then psycopg's pipeline loses its own
    bookkeeping on the failed Sync and raises IndexError ('pop from an empty deque', in the driver,
    CI under load) instead of the server's error: nothing committed then either (asserted), and the
    pipeline is run again on a new connection, up to three times, for the server's answer."""
    for _ in range(3):
        conn = env.connect(autocommit=True)
        with pytest.raises(Exception) as caught:
            with conn.pipeline() as pipeline:
                conn.execute(dequeue(env), (2,))
                if later_statement:
                    conn.execute("SELECT %s::int", (1,))   # a later statement, before the same Sync
                pipeline.sync()                             # the implicit transaction commits here
        assert env.count(QUEUE) == 6, "the pipelined claim committed by itself"
        if not isinstance(caught.value, IndexError):
            break
    return caught.value


def test_a_pipelined_autocommit_claim_is_refused(env):
    refusal = pipelined_refusal(env, later_statement=True)
    assert error_kind("postgres", refusal) == "refused", refusal


def test_a_pipelined_claim_alone_is_refused(env):
    refusal = pipelined_refusal(env, later_statement=False)
    assert error_kind("postgres", refusal) == "refused", refusal


def test_a_pipelined_claim_inside_begin_and_commit_is_accepted(env):
    conn = env.connect(autocommit=True)
    with conn.pipeline():
        conn.execute("BEGIN")
        claimed = conn.execute(dequeue(env), (2,))
        conn.execute("SELECT %s::int", (1,))
        conn.execute("COMMIT")
    assert [row[0] for row in claimed.fetchall()] == [1, 2]
    assert env.count(QUEUE) == 4


@pytest.mark.parametrize("ending", ["commit", "rollback"])
def test_a_claim_after_set_constraints_all_immediate_is_accepted(env, ending):
    conn = env.connect(autocommit=True)
    conn.execute("BEGIN")
    conn.execute("SET CONSTRAINTS ALL IMMEDIATE")
    ids = [row[0] for row in conn.execute(dequeue(env), (2,)).fetchall()]
    assert ids == [1, 2]
    conn.execute("SELECT 1")   # the caller's own work
    conn.execute(ending.upper())
    assert env.count(QUEUE) == (4 if ending == "commit" else 6)


def test_an_autocommit_claim_after_set_constraints_all_immediate_is_still_refused(env):
    """The claim re-defers its own check: a session whose constraints are immediate (SET
    CONSTRAINTS in an earlier transaction does not last, so: in the same implicit transaction)
    still cannot commit a claim by itself."""
    conn = env.connect(autocommit=True)
    with pytest.raises(Exception) as caught:
        conn.execute(f"SET CONSTRAINTS ALL IMMEDIATE; {dequeue(env) % 2}")
    assert error_kind("postgres", caught.value) == "refused", caught.value
    assert env.count(QUEUE) == 6


def test_a_claim_in_a_transaction_committed_by_the_client_is_accepted(env):
    """psycopg's default (autocommit off): the driver sends BEGIN, the caller commit()s."""
    conn = env.connect()
    ids = [row[0] for row in conn.execute(dequeue(env), (3,)).fetchall()]
    conn.execute("SELECT 1")
    conn.commit()
    assert ids == [1, 2, 3] and env.count(QUEUE) == 3
