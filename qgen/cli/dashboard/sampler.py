"""qgen dashboard's sampler: one thread reads every queue of the spec once per refresh, however many
browsers are open, through the queue's own procedures (metrics, dead_letters, peek: the admin role's
EXECUTE is all it needs), on one connection whose every statement runs under a short statement and
lock timeout (the database's session_limits, qgen/dialects). Pages render from the last sample.

A database that cannot be reached is said (sample.error, its URL's password hidden), the last numbers
read are kept, and the next round connects again.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from typing import Any, Optional

from qgen import dialects
from qgen.cli.dburl import DatabaseUnavailable, connect
from qgen.cli.ops import Session, _connection_still_good, _explain
from qgen.client import ConnectionLost, QueueClient
from qgen.client.results import DeadLetter
from qgen.dialects.urls import database_of, redacted
from qgen.spec.catalog import has_dead_letters
from qgen.spec.model import Spec

STATEMENT_MS = 5000  # a statement of the dashboard's runs at most this long
LOCK_MS = 1000       # and waits at most this long for a lock
HISTORY_SECONDS = 3600
DEAD_SHOWN = 50
PEEK_SHOWN = 20


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


@dataclass(frozen=True)
class Point:
    """One round's numbers of a queue, for the charts."""

    at: float                       # time.time() of the round
    backlog: int                    # ready + scheduled
    completed_last_minute: Optional[int]  # None: the queue keeps no finished rows (on_complete: delete)


@dataclass(frozen=True)
class QueueSample:
    """What the last round read of one queue (None: not read yet, or not this queue's)."""

    name: str
    metrics: Optional[dict[str, Any]] = None
    dead_letters: Optional[list[DeadLetter]] = None  # None: the queue has no dead-letter table
    next_jobs: tuple[dict[str, Any], ...] = ()
    error: Optional[str] = None     # why this queue could not be read (not installed, denied ...)
    at: Optional[dt.datetime] = None


@dataclass(frozen=True)
class Snapshot:
    queues: dict[str, QueueSample]
    history: dict[str, tuple[Point, ...]]
    at: Optional[dt.datetime] = None           # the last round that reached the database
    error: Optional[str] = None                # the database could not be reached: why
    error_since: Optional[dt.datetime] = None


class LimitedSession(Session):
    """ops.Session whose connection runs every statement under the dashboard's timeouts."""

    def client(self, queue: str) -> QueueClient:
        if self.connection is None:
            connection = connect(self.url)
            try:
                dialects.get(database_of(self.url)).limit_session(connection, STATEMENT_MS, LOCK_MS)
            except Exception:
                with contextlib.suppress(Exception):
                    connection.close()
                raise
            self.connection = connection
        return super().client(queue)


def _unreachable(exc: BaseException) -> bool:
    return isinstance(exc, (DatabaseUnavailable, ConnectionLost))


class Sampler:
    def __init__(self, spec: Spec, url: str, every: float):
        self.spec, self.url, self.every = spec, url, every
        self._session = LimitedSession(url, spec)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        size = int(HISTORY_SECONDS / every) + 2
        self._history: dict[str, deque[Point]] = {q: deque(maxlen=size) for q in spec.queues}
        self._snapshot = Snapshot({q: QueueSample(q) for q in spec.queues}, {q: () for q in spec.queues})

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="qgen-dashboard-sampler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=STATEMENT_MS / 1000 * 3)
        self._session.reset()

    def snapshot(self) -> Snapshot:
        with self._lock:
            return self._snapshot

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.every)

    def sample(self) -> Snapshot:
        """One round: every queue, in the spec's order. The first error saying the database is away
        ends the round (said once, on the page's banner)."""
        samples: dict[str, QueueSample] = {}
        error: Optional[str] = None
        for queue in self.spec.queues:
            try:
                samples[queue] = self._read(queue)
            except Exception as exc:  # a driver error: the database away, or this queue unreadable
                if _unreachable(exc):
                    self._session.reset()
                    # A lost connection's message advises a client user; here the sampler reconnects.
                    error = ("the connection to the database was lost; connecting again at the next round"
                             if isinstance(exc, ConnectionLost) else redacted(" ".join(str(exc).split())) or
                             type(exc).__name__)
                    break
                if not _connection_still_good(exc):
                    self._session.reset()
                samples[queue] = QueueSample(queue, error=redacted(_explain(self._session, queue, "metrics", exc)))
        return self._keep(samples, error)

    def _read(self, queue: str) -> QueueSample:
        client = self._session.client(queue)
        metrics = client.metrics()
        letters = client.dead_letters(limit=DEAD_SHOWN) if has_dead_letters(self.spec.queues[queue]) else None
        return QueueSample(queue, metrics, letters, tuple(client.peek(limit=PEEK_SHOWN)), None, now())

    def _keep(self, samples: dict[str, QueueSample], error: Optional[str]) -> Snapshot:
        at = time.time()
        for queue, sample in samples.items():
            if sample.metrics is not None:
                m = sample.metrics
                self._history[queue].append(Point(at, int(m["ready"]) + int(m["scheduled"]), m.get("completed_last_minute")))
        with self._lock:
            old = self._snapshot
            queues = {q: samples.get(q, old.queues[q]) for q in self.spec.queues}
            history = {q: tuple(self._history[q]) for q in self.spec.queues}
            if error is None:
                self._snapshot = Snapshot(queues, history, now())
            else:
                self._snapshot = replace(old, queues=queues, history=history, error=error,
                                         error_since=old.error_since or now())
            return self._snapshot
