"""Read-only inspection commands (issue 25): `qgen dead` lists each queue's dead letters with the error
each died of, newest first; `qgen job` shows where one job is. Both call the queue's procedures
(dead_letters, job) through QueueClient, so the login needs only the admin role, and neither takes a
lock a worker waits on (docs/api.md, "Dead letters and jobs by id").

Exit status as the other operations commands (qgen/cli/ops.py): 0 when every call succeeded (a job
not found included: its state says so), 1 when the database could not be reached, a queue is not
installed, the login may not run the procedure or a call failed (said on stderr, no traceback), 2
for a spec or argument error.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import sys
from typing import Any, Optional

from qgen.cli.dburl import DatabaseUnavailable
from qgen.cli.ops import Session, _call, _common, _each_queue, _setup, _usage
from qgen.cli.tables import table
from qgen.client import DeadLetter, JobState
from qgen.spec.catalog import has_dead_letters
from qgen.spec.model import DEAD_LETTERS_MAX, Spec

ERROR_SHOWN = 100  # characters of an error the table shows (--json has all of it)


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: accepted: a whole number of rows from 1 to {DEAD_LETTERS_MAX}") from None
    if not 1 <= value <= DEAD_LETTERS_MAX:
        raise argparse.ArgumentTypeError(f"{value}: accepted: 1 to {DEAD_LETTERS_MAX} rows per queue")
    return value


def _job_id(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: accepted: a job id, a whole number from 1 up") from None
    if not 1 <= value <= 2**63 - 1:
        raise argparse.ArgumentTypeError(f"{value}: accepted: a job id, a whole number from 1 to {2**63 - 1}")
    return value


def _plain(value: Any) -> Any:
    """A value as JSON holds it: times in ISO 8601, decimals, uuids and anything else as text."""
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str, list)):
        return value
    return str(value)


def _one_line(text: Optional[str]) -> str:
    if text is None:
        return "-"
    flat = " ".join(text.split())
    return flat if len(flat) <= ERROR_SHOWN else flat[:ERROR_SHOWN - 3] + "..."


def _when(value: Optional[dt.datetime]) -> str:
    """A time in UTC, to the second, as the tables show it."""
    if value is None:
        return "-"
    return (value.astimezone(dt.timezone.utc) if value.tzinfo else value).strftime("%Y-%m-%d %H:%M:%S UTC")


# ---------------------------------------------------------------------------------------------
# qgen dead


def _dead_queues(spec: Spec, chosen: Optional[str], spec_path: str) -> list[str]:
    if chosen is not None:
        if not has_dead_letters(spec.queues[chosen]):
            _usage(f"queue {chosen} has no dead-letter table (it needs claim: lease with dead_letter: true)")
        return [chosen]
    queues = [name for name, queue in spec.queues.items() if has_dead_letters(queue)]
    if not queues:
        _usage(f"no queue of {spec_path} has a dead-letter table")
    return queues


def cmd_dead(args: argparse.Namespace) -> int:
    spec, _, url = _setup(args)
    queues = _dead_queues(spec, args.queue, args.spec)
    session = Session(url, spec)
    found: dict[str, list[DeadLetter]] = {}

    def one(queue: str) -> bool:
        letters = _call(session, queue, "dead_letters", lambda c: c.dead_letters(args.limit), "dead")
        if letters is not None:
            found[queue] = letters
        return letters is not None

    try:
        ok = _each_queue("dead", queues, one)
    finally:
        session.reset()
    if args.json:
        print(json.dumps({"limit": args.limit, "queues": [
            {"queue": f"{spec.schema}.{queue}", "dead_letters": [_plain(dataclasses.asdict(d)) for d in letters]}
            for queue, letters in found.items()]}, indent=2))
    else:
        for queue, letters in found.items():
            name = f"{spec.schema}.{queue}"
            if not letters:
                print(f"{name}: no dead letters\n")
                continue
            more = f" (the newest {args.limit}: --limit shows more)" if len(letters) == args.limit else ""
            print(f"{name}: {len(letters)} dead letter{'s' if len(letters) != 1 else ''}, newest first{more}")
            print(table(("id", "attempts", "dead at", "last error"),
                        [[d.id, d.attempts, _when(d.dead_at), _one_line(d.last_error)] for d in letters]))
            print(f"put them back: qgen redrive {args.spec} {queue} --ids ID,ID... (or --all)\n")
    return 0 if ok else 1


# ---------------------------------------------------------------------------------------------
# qgen job


def _job_lines(spec: Spec, queue: str, job: JobState) -> list[str]:
    head = f"{spec.schema}.{queue} job {job.id}: {job.state.replace('_', ' ')}"
    if job.state == "not_found":
        gone = {"delete": "finished (on_complete: delete leaves no trace)",
                "mark": "purged after it was processed", "archive": "purged from the archive"}
        how = gone[spec.queues[queue].on_complete]
        return [head, f"  never enqueued, or {how}, purged from the dead letters, or redriven under a new id"]
    lines = [head]
    fields = [("enqueued at", _when(job.enqueued_at) if job.enqueued_at else None),
              ("due at", _when(job.available_at) if job.available_at and job.state in ("queued", "scheduled") else None),
              ("attempts", job.attempts), ("lease owner", job.lease_owner),
              ("lease expires", _when(job.lease_expires_at) if job.lease_expires_at else None),
              ("finished at", _when(job.finished_at) if job.finished_at else None),
              ("last error", _one_line(job.last_error) if job.last_error else None)]
    lines += [f"  {label + ':':<14} {value}" for label, value in fields if value is not None]
    now = dt.datetime.now(dt.timezone.utc)
    if job.state == "in_flight" and job.lease_expires_at is not None and job.lease_expires_at < now:
        lines.append("  the lease has expired: maintain (reap) releases the job for another attempt")
    return lines


def cmd_job(args: argparse.Namespace) -> int:
    spec, _, url = _setup(args)
    if args.queue_name not in spec.queues:
        _usage(f"{args.queue_name!r} is not a queue of {args.spec}; accepted: {', '.join(spec.queues)}")
    session = Session(url, spec)
    try:
        job = _call(session, args.queue_name, "job", lambda c: c.job(args.id), "job")
    except DatabaseUnavailable as exc:
        print(f"qgen job: {exc}", file=sys.stderr)
        job = None
    finally:
        session.reset()
    if job is None:
        return 1
    if args.json:
        print(json.dumps({"queue": f"{spec.schema}.{args.queue_name}", **_plain(dataclasses.asdict(job))}, indent=2))
    else:
        print("\n".join(_job_lines(spec, args.queue_name, job)))
    return 0


# ---------------------------------------------------------------------------------------------
# Arguments


def add_commands(commands: Any) -> None:
    dead = commands.add_parser(
        "dead", help="list each queue's dead letters with the error each died of, newest first",
        description="List the dead letters of each queue that has them (or --queue): id, attempts, when it died "
        "and the error it died of, newest first, at most --limit per queue; --json adds the payload. Reads only, "
        "without taking a lock a worker waits on. The login needs the admin role. `qgen redrive` puts them back.")
    _common(dead)
    dead.add_argument("--queue", help="only this queue (default: every queue of the spec with a dead-letter table)")
    dead.add_argument("--limit", type=_limit, default=100, metavar="N",
                      help=f"the most dead letters per queue, newest first (default 100, at most {DEAD_LETTERS_MAX})")
    dead.add_argument("--json", action="store_true", help="JSON for scripts: every column, the payload included")
    dead.set_defaults(func=cmd_dead)

    job = commands.add_parser(
        "job", help="show where one job is: queued, scheduled, in flight, processed, archived, dead, not found",
        description="Show one job's state by its id, wherever it is: queued, scheduled (delayed or backing off), in "
        "flight (lease owner and expiry), processed (on_complete: mark), archived, dead (with the error it died "
        "of), or not found. Reads only, without taking a lock a worker waits on. The login needs the admin role.")
    _common(job)
    job.add_argument("queue_name", metavar="QUEUE", help="the queue the job was enqueued into")
    job.add_argument("id", type=_job_id, metavar="ID", help="the job's id (what enqueue returned)")
    job.add_argument("--json", action="store_true", help="JSON for scripts")
    job.set_defaults(func=cmd_job)
