"""Queue metrics in the Prometheus text exposition format (version 0.0.4), for `qgen status --format
prometheus` and `qgen metrics --port` (qgen/cli/ops.py reads the figures; this module only names and
writes them, so it needs no database and no third-party package).

Every figure is a gauge: the metrics procedure reports what the tables hold at one instant, and
nothing in them only ever grows. Completions in particular: `on_complete: delete` keeps no trace of a
finished job, and the processed rows (`mark`) and the archive are purged after the retention, so a
"completed total" read from them would fall at every purge, which a counter must not. What there is
comes as the gauge `qgen_jobs_completed_last_minute` (absent where the queue records no completion).

The format: one `# HELP` and one `# TYPE` line per metric name, its samples together after them;
label values escaped (backslash, double quote, newline), HELP text escaped (backslash, newline);
`text/plain; version=0.0.4`. Output is deterministic: families in a fixed order, samples in the
spec's queue order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@dataclass(frozen=True)
class Family:
    """One metric name: its help text, type and samples (labels, value)."""

    name: str
    help: str
    type: str = "gauge"
    samples: list[tuple[dict[str, str], float]] = field(default_factory=list)


def escape_label_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


def escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def format_value(value: float) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    value = float(value)  # a Decimal or another number a driver returned
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(value)


def render(families: list[Family]) -> str:
    """The exposition text of these families (every line ends with a newline)."""
    lines: list[str] = []
    for family in families:
        lines.append(f"# HELP {family.name} {escape_help(family.help)}")
        lines.append(f"# TYPE {family.name} {family.type}")
        for labels, value in family.samples:
            shown = ",".join(f'{key}="{escape_label_value(str(text))}"' for key, text in labels.items())
            lines.append(f"{family.name}{{{shown}}} {format_value(value)}" if shown
                         else f"{family.name} {format_value(value)}")
    return "\n".join(lines) + "\n"


# Per queue, from the metrics procedure's row (qgen/cli/ops.py status_row's source): (name, the row's key, help).
QUEUE_GAUGES: tuple[tuple[str, str, str], ...] = (
    ("qgen_jobs_ready", "ready", "Jobs claimable now (gauge)."),
    ("qgen_jobs_scheduled", "scheduled",
     "Jobs waiting for their run_at or a retry backoff, not yet claimable (gauge)."),
    ("qgen_jobs_in_flight", "in_flight",
     "Jobs leased by a worker, expired leases included (gauge; see qgen_leases_expired)."),
    ("qgen_leases_expired", "expired",
     "Jobs whose lease ran out and that no maintain or claim has taken back yet (gauge). Held above 0 "
     "past a lease plus the maintain interval: maintenance is not running."),
    ("qgen_dead_letters", "dead",
     "Dead letters kept (gauge: redrive and purge lower it)."),
    ("qgen_oldest_ready_age_seconds", "oldest_ready_age_seconds",
     "Age of the oldest claimable job since it was enqueued (scheduled or retried jobs included), in seconds; "
     "0 when none is ready (gauge)."),
    ("qgen_jobs_completed_last_minute", "completed_last_minute",
     "Jobs completed within the last minute, from processed_at (mark) or the archive (archive); absent with "
     "on_complete: delete, which records no completion. A gauge: no completed total is kept anywhere."),
    ("qgen_jobs_processed", "processed",
     "Completed jobs kept by on_complete: mark until purged (gauge, not a count of completions)."),
    ("qgen_jobs_archived", "archived",
     "Completed jobs kept in the archive until purged (gauge, not a count of completions)."),
    ("qgen_watermark_lag", "watermark_lag",
     "Ids a claim walks before the first unclaimed job (gauge; negative: pending jobs below the watermark "
     "until maintain corrects it); absent without a watermark or when the table is empty."),
    ("qgen_queue_paused", "paused",
     "1 while the queue is paused (qgen pause): claims return no job until qgen resume (gauge)."),
)

UP = ("qgen_up", "1 when this queue's metrics were read at this scrape; 0 when the database could not be "
      "reached, the queue is not installed, or the login may not run its metrics procedure (the exporter "
      "says which on stderr).")
DURATION = ("qgen_scrape_duration_seconds", "Seconds this scrape took, connecting included.")


def families(schema: str, results: list[tuple[str, Optional[dict[str, Any]]]], seconds: float) -> list[Family]:
    """The exposition of one scrape: results are (queue, its metrics row, or None where it could not
    be read), in the spec's order. A queue not read has qgen_up 0 and no other sample."""
    up = Family(*UP)
    gauges = [Family(name, text) for name, _, text in QUEUE_GAUGES]
    for queue, row in results:
        labels = {"queue": queue, "schema": schema}
        up.samples.append((labels, 1 if row is not None else 0))
        if row is None:
            continue
        for family, (_, key, _) in zip(gauges, QUEUE_GAUGES):
            if row.get(key) is not None:
                family.samples.append((labels, int(row[key]) if isinstance(row[key], bool) else row[key]))
    duration = Family(*DURATION, samples=[({"schema": schema}, round(seconds, 6))])
    return [up] + [g for g in gauges if g.samples] + [duration]
