"""The queue page's small charts, drawn on the server: the sampler's history of the last hour as the
points of an SVG polyline (the template draws it; no script, no chart library)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from qgen.cli.dashboard.sampler import HISTORY_SECONDS, Point

WIDTH, HEIGHT = 300, 60


@dataclass(frozen=True)
class Chart:
    title: str
    points: str                 # "x,y x,y ..." in a WIDTH x HEIGHT box; "" when there is nothing to draw
    latest: Optional[int]
    peak: int
    samples: int
    note: str = ""              # why there is no line (untracked, no samples yet)


def chart(title: str, history: Sequence[Point], value: Callable[[Point], Optional[int]], until: float,
          untracked: str = "") -> Chart:
    """The last hour up to `until` (time.time()): x is time, y the value scaled to the hour's peak."""
    start = until - HISTORY_SECONDS
    kept = [(p.at, value(p)) for p in history if p.at >= start]
    values = [(at, v) for at, v in kept if v is not None]
    if not values:
        return Chart(title, "", None, 0, 0, untracked if kept else "no samples yet")
    peak = max(v for _, v in values)
    scale = (HEIGHT - 4) / peak if peak else 0.0

    def xy(at: float, v: int) -> str:
        return f"{(at - start) / HISTORY_SECONDS * WIDTH:.1f},{HEIGHT - 2 - v * scale:.1f}"

    return Chart(title, " ".join(xy(at, v) for at, v in values), values[-1][1], peak, len(values))


def queue_charts(history: Sequence[Point], until: float) -> list[Chart]:
    return [
        chart("backlog (ready + scheduled)", history, lambda p: p.backlog, until),
        chart("throughput (completed per minute)", history, lambda p: p.completed_last_minute, until,
              untracked="untracked: a completion deletes the row (on_complete: delete)"),
    ]
