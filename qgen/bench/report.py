"""Plain-text tables of a bench's results (the same numbers go to --json); the table itself is qgen.cli.tables."""

from __future__ import annotations

from typing import Any

from qgen.cli.tables import table


def load_table(report: dict[str, Any]) -> str:
    ledger = report["ledger"]
    latency = report["claim_latency_ms"]
    rows = [
        ("queue", f"{report['queue']} (claim: {report['claim']}, workers: {report['worker_mode']})"),
        ("jobs enqueued", ledger["enqueued"]),
        ("jobs completed", ledger["completed"]),
        ("enqueued/s", report["enqueued_per_second"]),
        ("completed/s", report["completed_per_second"]),
        ("claim latency p50 (ms)", latency["p50"]),
        ("claim latency p95 (ms)", latency["p95"]),
        ("claim latency p99 (ms)", latency["p99"]),
        ("re-deliveries", report["redeliveries"]),
        ("deadlock retries", report["deadlock_retries"]),
        ("reconnects", report.get("reconnects", 0)),
    ]
    if report.get("lost_processes"):
        rows.append(("processes lost", ", ".join(f"{n} ({c})" for n, c in report["lost_processes"].items())))
    if report.get("reaped"):
        rows.append(("released by the reaper", report["reaped"]["released"]))
        rows.append(("dead-lettered by the reaper", report["reaped"]["dead_lettered"]))
    rows += _chaos_rows(report.get("chaos"), ledger)
    rows += [
        ("duplicates", ledger["duplicates"]),
        ("lost", ledger["lost"]),
        ("exactly once", ledger["exactly_once"]),
    ]
    return table(("measure", "value"), rows)


def _chaos_rows(chaos: dict[str, Any] | None, ledger: dict[str, Any]) -> list[tuple[str, Any]]:
    if chaos is None:
        return []
    recovery = chaos["recovery_s"]
    rows: list[tuple[str, Any]] = [
        ("workers killed (SIGKILL)", chaos["workers_killed"]),
        ("jobs in doubt at a kill", ledger.get("in_doubt", 0)),
        ("  resolved as completed", ledger.get("resolved", 0)),
        ("recovery after a kill, median (s)", recovery["median"]),
        ("recovery after a kill, max (s)", recovery["max"]),
    ]
    if recovery["never"]:
        rows.append(("kills whose jobs never came back", recovery["never"]))
    restart = chaos.get("database_restart")
    if restart is not None and restart.get("ran"):
        rows += [
            ("database restart (s)", restart["seconds"]),
            ("  its exit code", restart["exit_code"]),
            ("  first completion after it began (s)", restart["first_completion_after_s"]),
            ("  half the rate back after (s)", restart["throughput_back_after_s"]
             if restart["throughput_back_after_s"] is not None else "not before the queue was drained"),
        ]
    elif restart is not None:
        rows.append(("database restart", "did not run (the run ended first)"))
    return rows
