"""Job control commands (issue 29): `qgen pause SPEC QUEUE` holds a queue's claims (an incident, a
deploy of the handlers, a downstream outage) and `qgen resume SPEC QUEUE` lets them go again;
`qgen cancel SPEC QUEUE --ids 3,7` takes jobs out of the queue so that they never run. Each calls the
queue's procedure through QueueClient, so the login needs only the admin role. While paused, claims
return no job, enqueues go on and leases already granted run to their end; pause and resume are
idempotent (docs/api.md, "pause", "cancel").

Exit status as the other operations commands (qgen/cli/ops.py): 0 when the call succeeded (the queue
already in that state included: the output says so), 1 when the database could not be reached, the
queue is not installed, the login may not run the procedure or the call failed (said on stderr, no
traceback), 2 for a spec or argument error; qgen cancel 3 when a job it was given was not cancelled
(held by another transaction, or not in the queue), each said on its line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from qgen.cli.dburl import DatabaseUnavailable
from qgen.cli.ops import Session, _call, _common, _ids, _setup, _usage
from qgen.client import QueueClient
from qgen.spec.model import Spec

# What each command does, and the words of its outcome: (changed, unchanged).
SAID = {
    "pause": ("paused: claims return no job until `qgen resume` (enqueues go on, leases run to their end)",
              "already paused: nothing changed"),
    "resume": ("resumed: claims take jobs again", "not paused: nothing changed"),
}


def _one_call(args: argparse.Namespace, kind: str, call: Callable[[QueueClient], Any]) -> tuple[Spec, str, Any]:
    """The spec, the queue, and what one call of the queue's `kind` procedure returned (None when it
    failed: said on stderr). An unknown queue is an argument error (exit 2)."""
    spec, _, url = _setup(args)
    queue = args.queue_name
    if queue not in spec.queues:
        _usage(f"{queue!r} is not a queue of {args.spec}; accepted: {', '.join(spec.queues)}")
    session = Session(url, spec)
    try:
        result = _call(session, queue, kind, call, kind)
    except DatabaseUnavailable as exc:
        print(f"qgen {kind}: {exc}", file=sys.stderr)
        result = None
    session.reset()
    return spec, queue, result


def cmd_control(args: argparse.Namespace) -> int:
    command = args.command_name
    spec, queue, changed = _one_call(args, command, lambda c: getattr(c, command)())
    if changed is None:
        return 1
    print(f"{spec.schema}.{queue}: {SAID[command][0 if changed else 1]}")
    return 0


NOT_ALL_CANCELLED = 3  # qgen cancel's exit status when a job was not cancelled (held, or not in the queue)
# What each outcome of cancel means, as the command says it.
CANCEL_SAID = {
    "cancelled": "cancelled (it was waiting)",
    "cancelled_in_flight": "cancelled while a worker held it (its complete and fail are refused)",
    "held": "not cancelled: another open transaction holds it, a claim or a cancel (cancel it again if that rolls back)",
    "not_queued": "not in the queue (finished, dead, purged or never enqueued): nothing done",
}


def cmd_cancel(args: argparse.Namespace) -> int:
    spec, queue, found = _one_call(args, "cancel", lambda c: c.cancel(args.ids))
    if found is None:
        return 1
    for one in found:
        print(f"{spec.schema}.{queue}: job {one.id} {CANCEL_SAID.get(one.outcome, one.outcome)}")
    done = sum(1 for one in found if one.outcome.startswith("cancelled"))
    print(f"{spec.schema}.{queue}: cancelled {done} of {len(found)} job{'s' if len(found) != 1 else ''}")
    return 0 if done == len(found) else NOT_ALL_CANCELLED


def add_commands(commands: Any) -> None:
    for command, what in (("pause", "hold a queue's claims (enqueues go on; leases already granted run to their end)"),
                          ("resume", "let a paused queue's claims take jobs again")):
        parser = commands.add_parser(
            command, help=what,
            description=f"{what[0].upper()}{what[1:]}, through the queue's {command} procedure: from its commit "
            "every claim sees it (dequeue, `qgen worker`, the in-database worker). Idempotent: a queue already in "
            "that state is said so, exit 0. `qgen status` shows a paused queue. The login needs the admin role.")
        _common(parser)
        parser.add_argument("queue_name", metavar="QUEUE", help=f"the queue to {command}")
        parser.set_defaults(func=cmd_control, command_name=command)
    cancel = commands.add_parser(
        "cancel", help="take jobs out of a queue by id, so that they never run",
        description="Cancel jobs by id through the queue's cancel procedure: each job still in the queue leaves it at "
        "once, into the dead letters (last error 'cancelled'; `qgen redrive` puts one back) or deleted where the queue "
        "keeps none. A job a worker holds is cancelled too: its worker's complete and fail are refused. Says per job "
        "what happened. The login needs the admin role.")
    _common(cancel)
    cancel.add_argument("queue_name", metavar="QUEUE", help="the queue of the jobs")
    cancel.add_argument("--ids", type=_ids, required=True,
                        help="job ids, comma-separated (exit 3 when one of them was not cancelled)")
    cancel.set_defaults(func=cmd_cancel)
