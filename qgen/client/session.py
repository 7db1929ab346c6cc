"""QueueClient's session: its connection (and a new one after a loss), the caller's transactions, and
one procedure call with its retries (a deadlock victim after a backoff, a call whose connection was
lost on a new connection when that is safe). It knows no queue: a call comes to it ready (`Call`,
made by the queue's shape, qgen/client/values.py). What differs between databases is its
database class's (qgen/dialects; the client side in qgen/dialects/client.py); what an error means is its
error table's."""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from typing import Any, Callable, Iterator, NamedTuple, Optional

from qgen import dialects
from qgen.client.connection import Backoff, connection_factory, dialect_of_target
from qgen.dialects import Database
from qgen.dialects.error_codes import ErrorCode, message, queue_error
from qgen.errors import CannotReconnect, ConnectionConfigError, ConnectionLost, QueueUsageError

log = logging.getLogger("qgen.client")


class Call(NamedTuple):
    """A procedure call with some parameters, ready to send with their values."""

    kind: str  # the procedure's kind, for the log: 'dequeue', 'complete', ...
    routine: str  # its schema-qualified name, for errors
    sql: str
    result: str  # 'rows' (dicts), 'tuples' (columns, rows), 'scalar', 'call' (PostgreSQL CALL)
    not_repeated: Optional[str]  # why it is not sent again on a new connection after a loss; None: it may be


class Session:
    """The connection of one client, its transactions and its calls. Safe to share between threads:
    `lock` serialises the use of the connection, and a `transaction()` block holds it until it ends."""

    def __init__(self, connection: Any, *, dialect: Optional[str], batch_via: str, name: str,
                 max_deadlock_retries: int, deadlock_backoff: float, deadlock_backoff_max: float,
                 reconnect_timeout: float, reconnect_backoff: float, reconnect_backoff_max: float):
        """connection: a DB-API connection, a callable that opens one, or a URL / DSN. name: what the
        log and errors call the session's owner ('queue NAME')."""
        self.name = name
        self.factory: Optional[Callable[[], Any]] = None
        if isinstance(connection, str):
            dialect = dialect or dialect_of_target(connection)
            self.factory, connection = connection_factory(connection), None
        elif callable(connection):
            self.factory, connection = connection, None
        self.connection = connection
        self.max_deadlock_retries = max_deadlock_retries
        self.deadlock_backoff = deadlock_backoff
        self.deadlock_backoff_max = deadlock_backoff_max
        self.reconnect_timeout = reconnect_timeout
        self.deadlock_retries = 0
        self.reconnects = 0  # new connections made after a loss
        self.replanned = 0  # calls run again after a revision replaced their routine (error kind 'replaced')
        self.depth = 0  # of nested transaction() blocks
        self.lock = threading.RLock()
        self.batch_via = batch_via
        self._backoff = Backoff(reconnect_backoff, reconnect_backoff_max)
        self._lost = False
        self._connected_once = False  # a connection was made (or given): refusals after it are waited out
        # A factory's first connection tells the dialect when it was not given.
        self._driver: Optional[Database] = dialects.get(dialect, batch_via) if dialect else None
        if self._driver is None and self.factory is None:
            self._driver = dialects.of_connection(connection, batch_via)
        if self.factory is not None:
            self.connected()
        elif connection is not None:
            self._connected_once = True
            self._prepare(connection)

    @property
    def driver(self) -> Database:
        """The database (qgen.dialects.Database; known once the session has a connection or a dialect)."""
        assert self._driver is not None
        return self._driver

    # -- transactions ------------------------------------------------------------------------

    @property
    def in_transaction(self) -> bool:
        return self.depth > 0

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """The calls inside the block in one transaction (see QueueClient.transaction)."""
        with self.lock:
            if self.depth:
                self.depth += 1
                try:
                    yield
                finally:
                    self.depth -= 1
                return
            try:
                conn = self.connected()
                self._finish(commit=True)  # nothing of an earlier call may leak into this transaction
                with self.driver.transaction(conn):
                    self.depth = 1
                    try:
                        yield
                    finally:
                        self.depth = 0
            except ConnectionLost:
                raise
            except Exception as exc:
                if self.connection is None or self.driver.error_kind(exc, self.connection) != "connection":
                    raise
                # Lost at BEGIN, at a call inside, or at COMMIT: then nobody knows whether it committed.
                self._drop_connection(exc, "a transaction")
                raise self._lost_error(f"{self.name}: the connection was lost during a transaction: it "
                                       "was rolled back, or (lost at its commit) committed or not: unknown") from exc

    @contextlib.contextmanager
    def autocommitted(self, refusal: str) -> Iterator[None]:
        """The connection in autocommit mode for the block (a call that commits by itself), refused
        inside a transaction() with QueueUsageError(refusal)."""
        with self.lock:
            if self.depth:
                raise QueueUsageError(refusal)
            conn = self.connected()
            autocommit = conn.autocommit
            conn.commit()
            conn.autocommit = True
            try:
                yield
            finally:
                if conn is self.connection:
                    conn.autocommit = autocommit

    # -- the connection ----------------------------------------------------------------------

    def _prepare(self, connection: Any) -> None:
        if self._driver is None:
            self._driver = dialects.of_connection(connection, self.batch_via)
        self._driver.prepare(connection)

    def connected(self) -> Any:
        """The connection; after a loss a new one, made within reconnect_timeout or ConnectionLost."""
        if self.connection is not None:
            return self.connection
        if self.factory is None:
            raise CannotReconnect(f"{self.name}: no connection, and no way to make a new connection (the "
                                  "client was given a ready connection; give it a URL or a connection factory to "
                                  "reconnect)")
        started, attempt = time.monotonic(), 0
        while True:
            attempt += 1
            try:
                connection = self.factory()
            except Exception as exc:
                self._wait_to_connect(exc, attempt, time.monotonic() - started)
                continue
            self._prepare(connection)
            if self._lost:
                log.info("%s: connected again (%d attempt(s), %.1fs)", self.name, attempt, time.monotonic() - started)
            self._lost = False
            self._connected_once = True
            self.connection = connection
            return connection

    def _wait_to_connect(self, exc: Exception, attempt: int, waited: float) -> None:
        """After a failed attempt to connect: sleep before the next, or raise ConnectionLost when the time is up."""
        driver = self._driver or dialects.of_error(exc)
        describe = driver.describe
        entry = driver.classify(exc)
        if entry is not None and entry.kind == "connection_config" and not self._connected_once:
            # A configuration error (its code says so, in the driver's error table), not an outage:
            # no attempt after it can succeed. Only before the first connection: after a loss the
            # same refusal can be a failover's (Azure SQL's 4060 while a database moves, a standby
            # not yet promoted), waited out as the loss is.
            log.error("%s: cannot connect: %s; not retried: %s", self.name, entry.about, describe(exc))
            raise ConnectionConfigError(f"{self.name}: cannot connect: {entry.about} (not retried: fix the URL, "
                                        f"the login or the database): {message(exc)}") from exc
        if waited >= self.reconnect_timeout:
            log.error("%s: no connection after %d attempts in %.1fs; giving up: %s",
                      self.name, attempt, waited, describe(exc))
            raise ConnectionLost(f"{self.name}: could not connect within "
                                 f"{self.reconnect_timeout:g}s: {message(exc)}") from exc
        delay = min(self._backoff.delay(attempt), self.reconnect_timeout - waited)
        log.warning("%s: connecting failed (attempt %d: %s); next attempt in %.2fs",
                    self.name, attempt, describe(exc), delay)
        time.sleep(max(0.0, delay))

    def close(self) -> None:
        with self.lock:
            old, self.connection = self.connection, None
            if old is not None:
                old.close()

    def _drop_connection(self, exc: BaseException, during: str) -> None:
        """Forget a connection that is lost (closing what is left of it); the next call makes another."""
        log.warning("%s: connection lost during %s: %s", self.name, during, self.driver.describe(exc))
        old, self.connection = self.connection, None
        self._lost = True
        if self.factory is not None:
            self.reconnects += 1
        if old is not None:
            with contextlib.suppress(Exception):
                old.close()

    def _finish(self, commit: bool) -> None:
        """End the implicit transaction a call left open (a no-op on an autocommit connection)."""
        if self.depth or self.connection is None:
            return
        if commit:
            self.connection.commit()
        else:
            with contextlib.suppress(Exception):
                self.connection.rollback()

    # -- calling procedures ------------------------------------------------------------------

    def run(self, call: Call, values: list[Any]) -> Any:
        """Send one call with its parameters' values; its result as the driver reads it (Database.fetch)."""
        attempt, losses, replaced = 0, 0, False
        lost_since: Optional[float] = None  # when this call first lost its connection
        while True:
            with self.lock:
                try:
                    self.connected()
                    result = self._execute(call, values)
                    self._finish(commit=True)
                    if lost_since is not None:
                        log.info("%s: %s succeeded on a new connection after %.1fs", self.name, call.kind,
                                 time.monotonic() - lost_since)
                    return result
                except ConnectionLost:
                    raise
                except Exception as exc:
                    entry = self.driver.classify(exc, self.connection)
                    if entry is not None and entry.kind == "connection":
                        self._drop_connection(exc, call.kind)
                        lost_since = lost_since if lost_since is not None else time.monotonic()
                        self._retry_after_loss(call, exc, lost_since)
                        losses += 1
                        wait = self._backoff.delay(losses)
                    else:
                        self._finish(commit=False)
                        if self._replaced_again(entry, exc, call.kind, replaced):
                            replaced = True
                            continue
                        if entry is None or entry.kind != "deadlock" or self.depth \
                                or attempt >= self.max_deadlock_retries:
                            raise queue_error(entry, exc, retried=lost_since is not None,  # noqa: B904 (it sets __cause__)
                                              routine=call.routine)
                        attempt += 1
                        wait = self._deadlock_wait(attempt)
            time.sleep(wait)  # outside the lock: a heartbeat may run meanwhile

    def _execute(self, call: Call, values: list[Any]) -> Any:
        cursor = self.connection.cursor()
        try:
            cursor.execute(call.sql, values) if values else cursor.execute(call.sql)
            return self.driver.fetch(cursor, call.result)
        finally:
            cursor.close()

    def _replaced_again(self, entry: Optional[ErrorCode], exc: BaseException, kind: str, replaced: bool) -> bool:
        """Whether to run a call again at once because a revision replaced the routine under the
        session (an error of kind 'replaced'): the session forgets what it prepared, and the call runs
        once more. Safe for every call: it failed before it did anything, in a transaction of its own
        that was rolled back. Not inside a transaction() (the caller's transaction is aborted: the
        caller retries the block), and only once per call."""
        if entry is None or entry.kind != "replaced" or self.depth or replaced or self.connection is None:
            return False
        log.info("%s: %s: the routine was replaced under this session (a revision); its prepared statements "
                 "are dropped and the call runs again: %s", self.name, kind, self.driver.describe(exc))
        self.replanned += 1
        self.driver.forget_plans(self.connection)
        return True

    def _deadlock_wait(self, attempt: int) -> float:
        self.deadlock_retries += 1
        delay = min(self.deadlock_backoff_max, self.deadlock_backoff * 2 ** (attempt - 1))
        return random.uniform(delay / 2, delay)

    def _retry_after_loss(self, call: Call, exc: BaseException, lost_since: float) -> None:
        """Return when a call that lost its connection may run again on a new one; else raise ConnectionLost."""
        if self.depth:
            why = "it ran inside client.transaction(), which was rolled back"
        elif call.not_repeated is not None:
            why = call.not_repeated
        elif self.factory is None:
            why = "the client has no way to make a new connection (give it a URL or a connection factory)"
        elif time.monotonic() - lost_since >= self.reconnect_timeout:
            why = f"it kept losing its connection for {self.reconnect_timeout:g}s"
        else:
            return
        raise self._lost_error(f"{self.name}: the connection was lost during {call.kind}: {why}") from exc

    def _lost_error(self, message: str) -> ConnectionLost:
        """ConnectionLost; CannotReconnect when this session has no way to make a new connection."""
        if self.factory is None:
            if "no way to make a new connection" not in message:
                message += "; the client has no way to make a new connection (give it a URL or a connection factory)"
            return CannotReconnect(message)
        return ConnectionLost(message)
