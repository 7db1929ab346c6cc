"""The result columns the contract declares (qgen/spec/contract.py, and so docs/api.md's procedure
reference) are the columns a real call returns, in order: dequeue, peek and metrics of every queue of
every example, on each database (the cursor's description of a call made by hand)."""

from __future__ import annotations

from typing import Any

import pytest

from qgen.spec.catalog import queue_objects
from qgen.spec.contract import result_columns
from tests.behaviour.helpers import call_sql
from tests.behaviour.test_examples_end_to_end import CASES, job_values


def returned_columns(env: Any, sql: str) -> list[str]:
    """The column names of the first result set a statement returns."""
    cursor = env.admin.cursor()
    try:
        cursor.execute(sql)
        while cursor.description is None and cursor.nextset():
            pass
        assert cursor.description is not None, f"{sql} returned no result set"
        names = [d[0] for d in cursor.description]
        cursor.fetchall()
        return names
    finally:
        cursor.close()


@pytest.mark.parametrize(("path", "queue_name"), CASES)
def test_dequeue_peek_and_metrics_return_the_contracts_columns(use_spec, path, queue_name):
    env = use_spec(path)
    queue = env.spec.queues[queue_name]
    env.client(queue_name).enqueue(**job_values(queue, 1))
    mssql = env.dialect == "mssql"
    for kind in ("peek", "metrics", "dequeue"):
        args = ""
        if kind == "dequeue" and queue.claim == "delete":  # the owner's connection commits each statement
            args = "@at_most_once = 1" if mssql else "at_most_once => true"
        expected = result_columns(env.spec, queue_name, kind, env.dialect)
        assert returned_columns(env, call_sql(env, queue_name, kind, args)) == expected, f"{queue_name}.{kind}"


@pytest.mark.parametrize(("path", "queue_name"), CASES)
def test_dead_letters_and_job_return_the_contracts_columns(use_spec, path, queue_name):
    """The read-only inspection (issue 25): job on every queue, dead_letters where the queue has dead
    letters (with one listed, so a row's columns are what the description says)."""
    env = use_spec(path)
    queue = env.spec.queues[queue_name]
    job_id = env.client(queue_name).enqueue(**job_values(queue, 1)).id
    mssql = env.dialect == "mssql"
    kinds = {"job": f"@job_id = {job_id}" if mssql else f"job_id => {job_id}"}
    if "dead_letters" in {o.kind for o in queue_objects(env.spec, queue_name, env.dialect)}:
        kinds["dead_letters"] = ""
    for kind, args in kinds.items():
        expected = result_columns(env.spec, queue_name, kind, env.dialect)
        assert returned_columns(env, call_sql(env, queue_name, kind, args)) == expected, f"{queue_name}.{kind}"
