"""What `qgen dashboard --allow-actions` may do to a queue, each a POST form on the queue's page (a CSRF
token per action and queue, the Origin checked, who did it logged): redrive a dead letter, cancel a
job, pause or resume the queue. Each runs on a connection of its own (the writable --url, not
--read-url) under the sampler's statement and lock timeouts, through the queue's own procedure (the
admin role's EXECUTE), and answers with the notice the page shows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from qgen.cli.dashboard.sampler import LimitedSession
from qgen.client import QueueClient
from qgen.spec.catalog import has_dead_letters
from qgen.spec.model import Queue, Spec


def _redrive(client: QueueClient, job_id: Optional[int]) -> str:
    result = client.redrive([job_id or 0])
    return f"{result.redriven} redriven" + (", left dead: its dedupe key is queued again"
                                           if result.skipped_duplicates else "")


def _cancel(client: QueueClient, job_id: Optional[int]) -> str:
    said = {"cancelled": "cancelled", "cancelled_in_flight": "cancelled while a worker held it",
            "held": "not cancelled: another open transaction holds it", "not_queued": "not in the queue: nothing done"}
    outcome, = client.cancel([job_id or 0])
    return said.get(outcome.outcome, outcome.outcome)


def _pause(client: QueueClient, job_id: Optional[int]) -> str:
    return "paused: claims return no job until resumed" if client.pause() else "already paused: nothing changed"


def _resume(client: QueueClient, job_id: Optional[int]) -> str:
    return "resumed: claims take jobs again" if client.resume() else "not paused: nothing changed"


@dataclass(frozen=True)
class Action:
    takes_id: bool                                        # the form names a job by id
    offered: Callable[[Queue], bool]                      # which queues have it
    run: Callable[[QueueClient, Optional[int]], str]      # do it; what happened, in a few words


ACTIONS: dict[str, Action] = {
    "redrive": Action(True, has_dead_letters, _redrive),
    "cancel": Action(True, lambda q: True, _cancel),
    "pause": Action(False, lambda q: True, _pause),
    "resume": Action(False, lambda q: True, _resume),
}


def act(spec: Spec, url: str, queue: str, name: str, job_id: Optional[int]) -> str:
    """Run one action on a connection of its own; the notice it answers with."""
    session = LimitedSession(url, spec)
    try:
        return ACTIONS[name].run(session.client(queue), job_id)
    finally:
        session.reset()
