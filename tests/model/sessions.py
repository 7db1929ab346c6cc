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
TASK_BOUND = 60.0  # seconds a statement the scheduler runs on a session's thread may take (a hang past it)


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
        self._inbox: "queue_module.Queue[Optional[tuple[str, Callable[[], Any]]]]" = queue_module.Queue()
        self._done = threading.Event()
        self.outcome: Optional[Outcome] = None
        self.pending: Optional[tuple[Step, Callable[[Outcome], None], float]] = None
        self.classified = False
        self.owed: Optional[Step] = None   # a commit or rollback deferred while a call was blocked
        self._thread = threading.Thread(target=self._loop, name=f"model-s{index}", daemon=True)
        self._thread.start()

    def _pid(self) -> Optional[int]:
        conn = self.client.connection
        info = getattr(conn, "info", None)
        return getattr(info, "backend_pid", None)

    def _loop(self) -> None:
        while True:
            item = self._inbox.get()
            if item is None:
                return
            kind, work = item
            if kind == "task":  # the scheduler's own use of the connection (run_here)
                work()
                continue
            t0 = time.time()
            try:
                value, error = work(), None
            except BaseException as exc:  # noqa: BLE001 - the scheduler judges it
                value, error = None, exc
            self.outcome = Outcome(t0, time.time(), value, error)
            self._done.set()

    def submit(self, step: Step, work: Callable[[], Any], on_result: Callable[[Outcome], None]) -> None:
        if self.busy:  # a second call would run on the connection as soon as the first returns, unseen
            raise AssertionError(f"harness: s{self.index} was handed step {step.index} while step "
                                 f"{self.pending[0].index} is in flight")
        self._done.clear()
        self.outcome = None
        self.pending = (step, on_result, time.time())
        self.classified = False
        self._inbox.put(("call", work))

    def wait(self, timeout: float) -> bool:
        return self._done.wait(timeout)

    def run_here(self, work: Callable[[], Any], timeout: float = TASK_BOUND) -> Any:
        """Run work on this session's thread, after whatever it runs now, and return its value.

        Every use of the session's connection goes through its thread: one connection serves one
        statement at a time (on SQL Server a second statement while the first's results are being
        read fails with "Connection is busy with results for another command"), and a transaction
        must end on the thread that entered client.transaction() (it holds the client's lock). A
        call in flight is the scheduler's to collect first: refused here."""
        if self.busy:
            raise AssertionError(f"harness: s{self.index}'s connection was used while step "
                                 f"{self.pending[0].index} is in flight")
        done = threading.Event()
        box: dict[str, Any] = {}

        def task() -> None:
            try:
                box["value"] = work()
            except BaseException as exc:  # noqa: BLE001 - raised on the scheduler's thread
                box["error"] = exc
            finally:
                done.set()
        self._inbox.put(("task", task))
        if not done.wait(timeout):
            raise TimeoutError(f"s{self.index}: the scheduler's statement did not return within {timeout:g}s")
        if "error" in box:
            raise box["error"]
        return box.get("value")

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
            self._inbox.put(("task", leave))
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
    """A caller's transaction in the autocommit-off mode, entered and left on the session's
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
        self.client._session.depth = 1
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> bool:
        self.client._session.depth = 0
        conn = self.client.connection
        if self.postgres:
            conn.commit() if kind is None else conn.rollback()
            return False
        try:
            self._batch("IF @@TRANCOUNT > 0 COMMIT TRANSACTION" if kind is None else "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION")
        finally:
            self._batch("SET IMPLICIT_TRANSACTIONS OFF")
        return False

