"""The lock-escalation arithmetic (qgen/spec/locks.py): every statement qgen sizes from it stays under
the budget on every index, page locks of wide rows counted, and the budget is not wasted."""

from __future__ import annotations

import math

import pytest

from qgen.spec.locks import LOCK_BUDGET, PAGE_BYTES, column_bytes, limits, rows_under_budget
from qgen.spec.model import MAINTENANCE_BATCH_MAX, MAX_CLAIM, ColumnType
from qgen.spec.load import load_spec, load_spec_text
from tests.conftest import COVERAGE_SPECS, EXAMPLES


def locks(rows: int, per_row: int, row_bytes: int) -> int:
    return rows * per_row + math.ceil(rows / max(1, PAGE_BYTES // row_bytes)) + 1


@pytest.mark.parametrize(("per_row", "row_bytes"), [(1, 20), (1, 850), (1, 9000), (2, 60), (2, 8060), (3, 100)])
def test_the_most_rows_fit_the_budget_and_one_more_does_not(per_row, row_bytes):
    rows = rows_under_budget(per_row, row_bytes)
    assert locks(rows, per_row, row_bytes) <= LOCK_BUDGET < locks(rows + 1, per_row, row_bytes)


def test_a_row_that_can_fill_a_page_counts_a_page_lock_per_row():
    assert column_bytes(ColumnType(kind="json")) >= PAGE_BYTES
    assert rows_under_budget(1, PAGE_BYTES) == (LOCK_BUDGET - 1) // 2


@pytest.mark.parametrize("path", EXAMPLES + COVERAGE_SPECS, ids=lambda p: p.stem)
def test_every_statement_of_every_queue_stays_under_the_budget(path):
    spec = load_spec(path)
    for name, queue in spec.queues.items():
        limit = limits(spec, name, "mssql")
        assert queue.batch_size <= queue.max_batch_size <= limit.claim_rows <= MAX_CLAIM
        assert 0 < limit.enqueue_rows and limit.maintenance_batch <= limit.maintenance_max <= MAINTENANCE_BATCH_MAX
        if queue.claim == "lease":
            # a lease queue's row, its archive and its dead letters can fill a page each (last_error)
            assert max(limit.claim_rows, limit.enqueue_rows, limit.maintenance_max) <= rows_under_budget(1, PAGE_BYTES)
        assert limits(spec, name, "postgres").claim_rows == MAX_CLAIM


def test_a_dedupe_key_halves_what_one_insert_may_write():
    plain = load_spec_text("queues:\n  q:\n    payload: {a: int}\n    claim: delete\n", "s.yaml")
    keyed = load_spec_text("queues:\n  q:\n    payload: {a: int}\n    claim: delete\n    dedupe: [a]\n", "s.yaml")
    assert limits(keyed, "q", "mssql").enqueue_rows <= LOCK_BUDGET // 2 < limits(plain, "q", "mssql").enqueue_rows


def test_the_deferred_bit_of_a_fifo_queue_with_available_at_is_counted_in_its_row():
    """SQL Server's [deferred] bit widens each row of a fifo queue with available_at by a
    byte; a priority queue has none (its deferred jobs stay in its claim index)."""
    from qgen.spec.locks import _job_bytes

    def width(ordering: str) -> int:
        spec = load_spec_text(f"queues:\n  q:\n    payload: {{a: int}}\n    ordering: {ordering}\n", "s.yaml")
        return _job_bytes(spec.queues["q"])

    assert width("fifo") - width("priority") == 1 - 4  # the bit, and priority's int
