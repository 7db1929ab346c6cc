"""Waking idle workers: a LISTEN connection on a queue's wake-up channel (PostgreSQL, `wakeup: notify`).

With `wakeup: notify` the queue's enqueue, enqueue_batch and redrive queue a notification on the
channel `<schema>.<queue>_wakeup` (qgen.spec.wakeup_channel), which PostgreSQL sends when their
transaction commits (never for one that rolls back; one per transaction, whatever it enqueued).
A `Listener` holds a second connection of the client's, used for nothing but LISTEN, and waits on
it between claims that found nothing (select on its socket, then psycopg 3's Connection.notifies).

A wake-up only shortens a wait: it never replaces the claim that follows a wait. A notification
can be missed (the LISTEN connection was lost, or was not there yet), so a wait always ends at its
timeout, and the caller claims again then: the poll interval bounds how long a missed wake-up can
delay a job. A lost LISTEN connection is replaced like the client's own (the same factory, with
jittered backoff between failed attempts, never blocking a wait longer than its timeout); a wait
that re-establishes LISTEN returns True at once, as notifications sent meanwhile were lost.
"""

from __future__ import annotations

import contextlib
import logging
import select
import threading
import time
from typing import Any, Callable, Optional

from qgen.client.connection import Backoff

log = logging.getLogger("qgen.client")

# With a stop event, a wait looks at it this often (a LISTEN wait costs the server nothing, and a
# sleep in select next to nothing here).
STOP_CHECK = 0.5


class Listener:
    """LISTEN on one channel over a connection of its own, made (and remade) by `factory`."""

    def __init__(self, factory: Callable[[], Any], channel: str, queue_name: str,
                 backoff: Optional[Backoff] = None):
        self._factory, self.channel, self.queue_name = factory, channel, queue_name
        self._backoff = backoff or Backoff(0.5, 5.0)
        self.connection: Any = None
        self._failures = 0
        self._next_attempt = 0.0
        self._lost = False
        self.wakeups = 0     # waits a notification ended
        self.relistens = 0   # LISTEN connections made again after a loss

    @property
    def backend_pid(self) -> Optional[int]:
        """The server process of the LISTEN connection (None while there is none)."""
        return None if self.connection is None else self.connection.info.backend_pid

    def listen(self) -> bool:
        """Be listening before a claim: connect and LISTEN when needed (not more often than the
        backoff allows after a failure), and forget notifications already received, which a claim
        about to start answers anyway. True when it (re)established LISTEN just now after a loss:
        what was notified meanwhile is lost, so the caller should claim."""
        if self.connection is None:
            return self._connect()
        try:
            for _ in self.connection.notifies(timeout=0):
                pass
        except Exception as exc:
            self._drop(exc)
        return False

    def wait(self, timeout: float, stop: Optional[threading.Event] = None) -> bool:
        """Block until a notification arrives (True), `timeout` seconds pass or `stop` is set (False).
        Without a LISTEN connection it sleeps, trying to make one when the backoff allows; one made
        again after a loss ends the wait with True."""
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or (stop is not None and stop.is_set()):
                return False
            step = min(left, STOP_CHECK) if stop is not None else left
            if self.connection is None and self._connect():
                return True
            if self.connection is None:  # not now: sleep until the next attempt is due (or the wait is over)
                step = min(step, max(0.0, self._next_attempt - time.monotonic())) or step
                stop.wait(step) if stop is not None else time.sleep(step)
                continue
            try:
                if self._receive(step):
                    self.wakeups += 1
                    return True
            except Exception as exc:
                self._drop(exc)

    def _receive(self, timeout: float) -> bool:
        """Wait on the socket (select: asleep until the server sends something; psycopg's own wait
        wakes every 0.1 s, which costs an idle worker more than the rest of its idling), then take
        every notification that came, without waiting. A message that is no notification (a
        notice, a parameter change) is taken too, and the wait goes on."""
        if any(True for _ in self.connection.notifies(timeout=0)):
            return True
        if not select.select([self.connection.fileno()], [], [], timeout)[0]:
            return False
        return any(True for _ in self.connection.notifies(timeout=0))

    def close(self) -> None:
        old, self.connection = self.connection, None
        if old is not None:
            with contextlib.suppress(Exception):
                old.close()

    def _connect(self) -> bool:
        if time.monotonic() < self._next_attempt:
            return False
        try:
            connection = self._factory()
            connection.autocommit = True
            connection.execute(f'LISTEN "{self.channel}"')  # a spec identifier and a dot: nothing to escape
        except Exception as exc:
            self._failures += 1
            self._next_attempt = time.monotonic() + self._backoff.delay(self._failures)
            log.warning("queue %s: LISTEN %s failed (%s); polling until it is back", self.queue_name, self.channel, exc)
            return False
        self.connection, self._failures = connection, 0
        if self._lost:
            self._lost = False
            self.relistens += 1
            log.info("queue %s: listening on %s again", self.queue_name, self.channel)
            return True
        return False

    def _drop(self, exc: BaseException) -> None:
        log.warning("queue %s: the LISTEN connection was lost (%s); polling until it is back", self.queue_name,
                    str(exc).strip())
        self.close()
        self._lost = True
