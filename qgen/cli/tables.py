"""Plain-text tables (Markdown-compatible) that the commands print: qgen status, and the bench's
results (the same numbers go to --json)."""

from __future__ import annotations

from typing import Any, Sequence


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A table with right-aligned numbers and left-aligned text, Markdown-compatible."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    numeric = [all(_is_number(row[i]) for row in rows) and rows for i in range(len(headers))]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.rjust(w) if n else v.ljust(w) for v, w, n in zip(values, widths, numeric)) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if n else ("-" * (w + 2)) for w, n in zip(widths, numeric)) + "|"
    return "\n".join([line(headers), rule] + [line(r) for r in cells])


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) or value is None


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}"
    return str(value)
