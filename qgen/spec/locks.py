"""How many rows one statement may touch before SQL Server escalates its locks: the one place this
arithmetic lives. The spec check (max_batch_size, batch_size), the templates (enqueue_batch's and
enqueue_json's row cap, the maintenance procedures' @batch_size limit and default) and the client
(enqueue_many's split, purge's and redrive's default batch) all read `limits`.

SQL Server escalates to a table lock when one statement holds at least 5,000 locks on one index or
heap of a table (one reference: "lock escalation isn't triggered if a statement acquires 3,000 locks
in one index and 3,000 locks in another index of the same table"); from then on every claim waits
behind that statement. For each index a statement writes or reads with locks, qgen counts:
- one key lock per row it writes, deletes or reads with UPDLOCK;
- one more per row where it also reads a key range (the dedupe check's UPDLOCK, HOLDLOCK);
- one page lock per page those rows fill (IX page locks come with row locks), taking each row at
  the widest its columns allow: a row that may hold nvarchar(max), xml, or a 4,000-character
  last_error counts as filling a page alone;
- one more page, as a batch of consecutive ids may start mid-page.
Counting per index, a claim of a fifo queue with available_at is two statements (the due jobs from
the due index, then the rest from the claim index), each of at most batch_size rows; a row it
claims leaves the index it was found in and enters none of the claim indexes (a leased row is in
the lease index only), so no index of the table takes more than one lock per claimed row, as
before. The due index, like the claim, lease and processed indexes, is narrow.
and keeps every index under LOCK_BUDGET, a fifth below the threshold for what it does not count
(upper index levels, the recheck at every 1,250 locks). PostgreSQL never escalates: there the limits
are the plain maxima.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from qgen import dialects
from qgen.spec.catalog import splits_deferred
from qgen.spec.model import MAINTENANCE_BATCH, MAINTENANCE_BATCH_MAX, MAX_CLAIM, ColumnType, Queue, Spec

ESCALATION_LOCKS = 5000
LOCK_BUDGET = 4000
PAGE_BYTES = 8060      # the bytes of a data page that rows can use
ROW_OVERHEAD = 16      # a row's header, null bitmap and variable-length offsets, about
LOB_BYTES = PAGE_BYTES  # nvarchar(max), xml: in row up to a whole page

_FIXED = {"int": 4, "bigint": 8, "uuid": 16, "bool": 1, "datetime": 8, "decimal": 17}


def column_bytes(t: ColumnType) -> int:
    """The most bytes a value of portable type t takes in a SQL Server row."""
    if t.kind == "string":
        return 2 * (t.length or 0) + 2
    if t.kind in ("text", "json", "xml"):
        return LOB_BYTES
    return _FIXED[t.kind]


def rows_under_budget(locks_per_row: int, row_bytes: int) -> int:
    """The most rows a statement may touch on one index whose rows are row_bytes wide, taking
    locks_per_row locks per row, with its page locks, and stay within LOCK_BUDGET."""
    per_page = max(1, PAGE_BYTES // max(1, row_bytes))
    rows = LOCK_BUDGET // locks_per_row
    while rows > 0 and rows * locks_per_row + math.ceil(rows / per_page) + 1 > LOCK_BUDGET:
        rows -= 1
    return rows


@dataclass(frozen=True)
class Limits:
    """Rows per statement for one queue on one database."""

    enqueue_rows: int       # enqueue_batch / enqueue_json: jobs per call (the client splits more)
    claim_rows: int         # dequeue and reap: the most max_batch_size may be
    maintenance_max: int    # purge, purge_batch, maintain, redrive: the largest @batch_size
    maintenance_batch: int  # their default @batch_size

    @classmethod
    def unbounded(cls) -> "Limits":
        return cls(enqueue_rows=0, claim_rows=MAX_CLAIM, maintenance_max=MAINTENANCE_BATCH_MAX,
                   maintenance_batch=MAINTENANCE_BATCH)


def _job_bytes(queue: Queue) -> int:
    """The widest row of a queue's table (and, about, of its archive and dead letters, which keep
    the job's columns and a few of their own)."""
    size = ROW_OVERHEAD + 8 + 8  # id, enqueued_at
    size += sum(column_bytes(c.type) for c in queue.payload.values())
    size += column_bytes(queue.job_type.type) if queue.job_type else 0
    size += 4 if queue.ordering == "priority" else 0
    size += 8 if queue.claim == "lease" or queue.scheduling else 0   # available_at
    size += 1 if splits_deferred(queue) else 0                          # deferred (SQL Server's bit)
    size += 2 * 128 + 2 if queue.audit else 0                           # enqueued_by
    if queue.claim == "lease":
        size += 4 + 16 + (2 * 128 + 2) + 8 + 2 * 4000 + 2                # attempts, token, owner, expiry, last_error
        size += (8 + 2 * 128 + 2) if queue.audit else 0                  # claimed_at, claimed_by
    size += 1 + 8 if queue.on_complete == "mark" else 0
    return size + 16  # archive's completed_at / the dead letter's dead_at and entry id


def _key_bytes(queue: Queue) -> int:
    """The widest row of the dedupe index: its key and the clustered key."""
    columns = dict(queue.payload)
    sizes = [column_bytes(columns[k].type) if k in columns else column_bytes(queue.job_type.type)
             for k in (queue.dedupe.key if queue.dedupe else [])]
    return ROW_OVERHEAD + sum(sizes) + 8 + 1


def _narrow_rows(locks_per_row: int) -> int:
    """A narrow nonclustered index (claim, lease, processed, by age): at most a few dozen bytes a row."""
    return rows_under_budget(locks_per_row, ROW_OVERHEAD + 64)


def limits(spec: Spec, queue_name: str, dialect: str) -> Limits:
    """The row limits of one queue's statements on one database."""
    if not dialects.get(dialect).escalates_locks:
        return Limits.unbounded()
    queue = spec.queues[queue_name]
    job = _job_bytes(queue)
    # Every statement writes the clustered index (one lock a row) and each narrow index.
    table_rows = min(rows_under_budget(1, job), _narrow_rows(1))
    # An insert also reads each dedupe key's range before writing it: two locks a row there.
    enqueue_rows = table_rows
    if queue.dedupe is not None:
        enqueue_rows = min(enqueue_rows, rows_under_budget(2, _key_bytes(queue)))
    claim_rows = min(table_rows, MAX_CLAIM)
    # purge deletes from the archive, the processed rows and the dead letters (as wide as a job);
    # redrive inserts into the queue table what it deletes from the dead letters.
    maintenance_max = min(MAINTENANCE_BATCH_MAX, table_rows, enqueue_rows)
    return Limits(enqueue_rows=enqueue_rows, claim_rows=claim_rows, maintenance_max=maintenance_max,
                  maintenance_batch=min(MAINTENANCE_BATCH, maintenance_max))


def lock_problems(spec: Spec) -> list[tuple[tuple, str]]:
    """A batch_size or max_batch_size whose claim could escalate to a table lock on a database the
    spec renders for, each with the path of the field to point at."""
    found: list[tuple[tuple, str]] = []
    for dialect in spec.dialects:
        if not dialects.get(dialect).escalates_locks:
            continue
        for name, queue in spec.queues.items():
            cap = limits(spec, name, dialect).claim_rows
            for field in ("max_batch_size", "batch_size"):
                value = getattr(queue, field)
                if value <= cap or (field == "batch_size" and queue.batch_size > queue.max_batch_size):
                    continue
                given = field in queue.model_fields_set
                found.append((("queues", name, field) if given else ("queues", name),
                              f"{field} {value}{'' if given else ' (the default)'}: a claim of {value} rows could take "
                              f"more than {LOCK_BUDGET} locks on one index of this queue's table, near the {ESCALATION_LOCKS} where "
                              f"{dialects.get(dialect).title} escalates to a table lock that stops every other "
                              f"claim (counting page locks: a row here is up to {_job_bytes(queue)} bytes); "
                              f"accepted: {field} at most {cap}"))
                break
    return found
