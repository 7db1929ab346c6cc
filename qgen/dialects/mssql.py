"""SQL Server (T-SQL). The GO batch separator is a client convention, not T-SQL: it is known here only."""

from __future__ import annotations

import re

from qgen.dialects import Dialect, register

# GO alone on its line (optionally followed by a repeat count, which qgen never emits), any case.
_GO_LINE = re.compile(r"^[ \t]*GO(?:[ \t]+\d+)?[ \t]*(?:--[^\n]*)?$", re.IGNORECASE | re.MULTILINE)


def split_batches(script: str) -> list[str]:
    """Cut a T-SQL script on GO lines; returns the non-blank batches in order."""
    return [batch.strip("\n") for batch in _GO_LINE.split(script) if batch.strip()]


def batch_spans(script: str) -> list[tuple[int, str]]:
    """Like split_batches, but also returns the 1-based line where each batch starts in the script."""
    spans: list[tuple[int, str]] = []
    start = 0
    for match in list(_GO_LINE.finditer(script)) + [None]:
        end = match.start() if match else len(script)
        chunk = script[start:end]
        if chunk.strip():
            leading = len(chunk) - len(chunk.lstrip("\n"))
            first_line = script.count("\n", 0, start) + 1 + leading
            spans.append((first_line, chunk.strip("\n")))
        if match:
            start = match.end()
    return spans


MSSQL = register(
    Dialect(
        name="mssql",
        title="SQL Server (T-SQL)",
        batch_separator="GO\n",
        split_batches=split_batches,
        max_identifier_length=128,
    )
)
