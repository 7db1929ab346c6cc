"""Job control commands (issue 29): `qgen pause SPEC QUEUE` holds a queue's claims (an incident, a
deploy of the handlers, a downstream outage) and `qgen resume SPEC QUEUE` lets them go again. Each
calls the queue's pause or resume procedure through QueueClient, so the login needs only the admin
role. While paused, claims return no job, enqueues go on and leases already granted run to their
end; both are idempotent (docs/api.md, "Pause and resume").

Exit status as the other operations commands (qgen/cli/ops.py): 0 when the call succeeded (the queue
already in that state included: the output says so), 1 when the database could not be reached, the
queue is not installed, the login may not run the procedure or the call failed (said on stderr, no
traceback), 2 for a spec or argument error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from qgen.cli.dburl import DatabaseUnavailable
from qgen.cli.ops import Session, _call, _common, _setup, _usage

# What each command does, and the words of its outcome: (changed, unchanged).
SAID = {
    "pause": ("paused: claims return no job until `qgen resume` (enqueues go on, leases run to their end)",
              "already paused: nothing changed"),
    "resume": ("resumed: claims take jobs again", "not paused: nothing changed"),
}


def cmd_control(args: argparse.Namespace) -> int:
    command = args.command_name
    spec, _, url = _setup(args)
    queue = args.queue_name
    if queue not in spec.queues:
        _usage(f"{queue!r} is not a queue of {args.spec}; accepted: {', '.join(spec.queues)}")
    session = Session(url, spec)
    try:
        changed = _call(session, queue, command, lambda c: getattr(c, command)(), command)
    except DatabaseUnavailable as exc:
        print(f"qgen {command}: {exc}", file=sys.stderr)
        changed = None
    session.reset()
    if changed is None:
        return 1
    print(f"{spec.schema}.{queue}: {SAID[command][0 if changed else 1]}")
    return 0


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
