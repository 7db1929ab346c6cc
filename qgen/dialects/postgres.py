"""PostgreSQL. Scripts run as one unit: psql or a driver executes all statements of a file at once."""

from __future__ import annotations

from qgen.dialects import Dialect, register


def split_batches(script: str) -> list[str]:
    """PostgreSQL needs no client-side batching: the whole script is one batch."""
    return [script] if script.strip() else []


POSTGRES = register(
    Dialect(
        name="postgres",
        title="PostgreSQL",
        batch_separator="",
        split_batches=split_batches,
        max_identifier_length=63,
    )
)
