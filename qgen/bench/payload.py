"""The payloads bench processes enqueue: every column filled, distinct per job. Its own module so that
qgen.bench.database (which fills queues) and qgen.bench.procs (the processes, which use the database
module) both use it without importing each other in a circle."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

from qgen.spec.model import Spec


def sample_payload(spec: Spec, queue: str, n: int) -> dict[str, Any]:
    """A payload for job n: every column filled, distinct per n (so a dedupe key never repeats),
    strings at their full declared length (up to 400) so rows are as wide as the spec says."""
    values: dict[str, Any] = {}
    for name, column in spec.queues[queue].payload.items():
        kind = column.type.kind
        if kind in ("int", "bigint", "decimal"):
            values[name] = n if kind != "decimal" else Decimal(n % 10 ** max(1, (column.type.precision or 18) - (column.type.scale or 0) - 1))
        elif kind in ("string", "text", "xml"):
            text = str(n).rjust(min(column.type.length or 100, 400), "x")
            values[name] = f"<n>{n}</n>" if kind == "xml" else text
        elif kind == "uuid":
            values[name] = uuid.UUID(int=n)
        elif kind == "bool":
            values[name] = n % 2 == 0
        elif kind == "datetime":
            values[name] = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=n)
        else:  # json
            values[name] = {"n": n}
    return values
