"""The sessions of the model-based test: threads, each with its own connection and QueueClient,
running one call at a time for the scheduler (tests/model/runner.py)."""

from __future__ import annotations

import contextlib
import datetime as dt
import queue as queue_module
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Optional

from qgen.client import QueueClient
from tests.model.schedule import Step
from tests.support.backends import QueueEnv

LAZY = "lazy"  # Session.tx of a transaction begun without a statement yet


def _epoch(value: Any) -> float:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        return value.timestamp()
    return float(value)


@dataclass
class Outcome:
    t0: float
    t1: float
    value: Any = None
    error: Optional[BaseException] = None


class Session:
    """One worker or producer: a thread with its own connection, running one call at a time."""

    def __init__(self, index: int, env: QueueEnv, queue: str):
        self.index = index
        self.env = env
        self.client = QueueClient(env.connect(autocommit=False), env.spec, queue, owner=f"s{index}",
                                  max_deadlock_retries=3, deadlock_backoff=0.01)
        self.pid = self._pid()
        self.tx: Any = None            # the open client.transaction() context, entered by this thread
        self.leases: list[tuple[uuid.UUID, int]] = []   # every (token, job id) it was handed
        self._inbox: "queue_module.Queue[Optional[Callable[[], Any]]]" = queue_module.Queue()
        self._done = threading.Event()
        self.outcome: Optional[Outcome] = None
        self.pending: Optional[tuple[Step, Callable[[Outcome], None], float]] = None
        self.classified = False
        self._thread = threading.Thread(target=self._loop, name=f"model-s{index}", daemon=True)
        self._thread.start()

    def _pid(self) -> Optional[int]:
        conn = self.client.connection
        info = getattr(conn, "info", None)
        return getattr(info, "backend_pid", None)

    def _loop(self) -> None:
        while True:
            work = self._inbox.get()
            if work is None:
                return
            t0 = time.time()
            try:
                value, error = work(), None
            except BaseException as exc:  # noqa: BLE001 - the scheduler judges it
                value, error = None, exc
            self.outcome = Outcome(t0, time.time(), value, error)
            self._done.set()

    def submit(self, step: Step, work: Callable[[], Any], on_result: Callable[[Outcome], None]) -> None:
        self._done.clear()
        self.outcome = None
        self.pending = (step, on_result, time.time())
        self.classified = False
        self._inbox.put(work)

    def wait(self, timeout: float) -> bool:
        return self._done.wait(timeout)

    @property
    def busy(self) -> bool:
        return self.pending is not None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            cancel = getattr(self.client.connection, "cancel", None)
            if cancel is not None and self.busy:
                cancel()
        tx, self.tx = self.tx, None
        if tx is not None and not isinstance(tx, str):
            # leave the client's transaction on the thread that entered it (it holds the client's lock)
            def leave() -> None:
                with contextlib.suppress(BaseException):
                    tx.__exit__(RuntimeError, RuntimeError("the run ended"), None)
            self._inbox.put(leave)
        self._inbox.put(None)
        self._thread.join(5)
        with contextlib.suppress(Exception):
            self.client.connection.close()


def _serialization(error: BaseException) -> bool:
    """A serialization failure or deadlock: what a caller's transaction at REPEATABLE READ or
    SERIALIZABLE may get from a claim or a write (docs/api.md, Isolation), and retries."""
    cause = error.__cause__ if error.__cause__ is not None else error
    state = getattr(cause, "sqlstate", None) or (cause.args[0] if getattr(cause, "args", None) else None)
    return state in ("40001", "40P01")



class _Rollback(Exception):
    pass


class ImplicitTransaction:
    """A caller's transaction in the autocommit-off mode (issue 24), entered and left on the session's
    thread like client.transaction(): SQL Server's IMPLICIT_TRANSACTIONS ON, where nothing is open
    until the first statement that reads or writes a table (a procedure's own, since the caller
    runs none), and the caller ends it with COMMIT or ROLLBACK; PostgreSQL's psycopg with autocommit
    off, in a transaction from its first statement. The client is told it runs inside the caller's
    transaction (its transaction depth, as client.transaction() sets it), so that it neither commits
    after each call nor retries one, as it would not inside client.transaction()."""

    def __init__(self, client: QueueClient, postgres: bool):
        self.client, self.postgres = client, postgres

    def _batch(self, sql: str) -> None:
        cursor = self.client.connection.cursor()
        try:
            cursor.execute(sql)
        finally:
            cursor.close()

    def __enter__(self) -> "ImplicitTransaction":
        if self.postgres:
            self.client.connection.autocommit = False
        else:
            self._batch("SET IMPLICIT_TRANSACTIONS ON")
        self.client._tx_depth = 1
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> bool:
        self.client._tx_depth = 0
        conn = self.client.connection
        if self.postgres:
            conn.commit() if kind is None else conn.rollback()
            return False
        try:
            self._batch("IF @@TRANCOUNT > 0 COMMIT TRANSACTION" if kind is None else "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION")
        finally:
            self._batch("SET IMPLICIT_TRANSACTIONS OFF")
        return False

