"""How QueueClient uses its connection: making it (and a new one after a loss), the caller's
transactions, and one procedure call with its retries (a deadlock victim after a backoff, a call
whose connection was lost on a new connection when that is safe). What differs between databases is
the client driver's (qgen/dialects/client_base.py); what an error means is its error table's."""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from typing import Any, Callable, Iterator, Optional, Sequence

from qgen import dialects
from qgen.catalog import claims_in_place
from qgen.client_values import QueueValues
from qgen.connection import Backoff, LeaseBook, connection_factory, dialect_of_target
from qgen.dialects.client_base import ClientDriver
from qgen.dialects.error_codes import message, queue_error
from qgen.errors import CannotReconnect, ConnectionLost
from qgen.locks import limits
from qgen.spec import wakeup_channel
from qgen.wakeup import Listener

log = logging.getLogger("qgen.client")

# Calls retried on a new connection after the old one was lost. A lost call may have committed:
# these are safe to run again (a lost claim's jobs stay leased until reap releases them; complete
# and fail are fenced by the lease token). enqueue is retried only with a dedupe key that returns
# the existing job; the in-database worker and calls inside client.transaction() never are.
RETRIED_AFTER_LOSS = frozenset({"dequeue", "complete", "fail", "extend_lease", "reap", "metrics", "peek", "purge",
                                "watermark_correct"})
ENQUEUES = frozenset({"enqueue", "enqueue_batch", "enqueue_json"})


class ClientSession(QueueValues):
    """The connection, its transactions and the procedure calls of one QueueClient."""

    # Set by QueueClient.__init__ (its arguments of the same names).
    max_deadlock_retries: int
    deadlock_backoff: float
    deadlock_backoff_max: float
    deadlock_retries: int
    reconnect_timeout: float

    def _setup_session(self, connection: Any, dialect: Optional[str], batch_via: str, reconnect_backoff: float,
                       reconnect_backoff_max: float) -> None:
        """connection: a DB-API connection, a callable that opens one, or a URL / DSN."""
        self._factory: Optional[Callable[[], Any]] = None
        if isinstance(connection, str):
            dialect = dialect or dialect_of_target(connection)
            self._factory, connection = connection_factory(connection), None
        elif callable(connection):
            self._factory, connection = connection, None
        self.connection = connection
        self.reconnects = 0  # new connections made after a loss
        self.replanned = 0  # calls run again after a revision replaced their routine (error kind 'replaced')
        self._backoff = Backoff(reconnect_backoff, reconnect_backoff_max)
        self._leases = LeaseBook()
        self._statements: dict[tuple, str] = {}  # call text by (kind, shape, parameter names)
        self.batch_via = batch_via
        self._lost = False
        self._lock = threading.RLock()
        self._tx_depth = 0
        self._listener: Optional[Listener] = None  # wakeup: notify on PostgreSQL: made at the first wait
        # Without a connection (dialect given) the client still names objects and parameters; a
        # factory's first connection tells the dialect when it was not given.
        driver: Optional[type[ClientDriver]] = dialects.client_driver(dialect) if dialect else None
        if driver is None and self._factory is None:
            driver = dialects.client_for_connection(connection)
        self._driver = driver(batch_via) if driver is not None else None  # type: ignore[assignment]
        if self._factory is not None:
            self._connected()
        elif connection is not None:
            self._prepare(connection)
        self.dialect = self._driver.name
        self._database = dialects.get(self.dialect)
        # How this database waits for work (qgen/dialects): in its dequeue (wait_ms), or on LISTEN.
        self._waits_in_dequeue = self._database.wait_for_work == "dequeue"
        # Where a claim leaves the row in place no index holds tokens: jobs are named by id.
        self._by_id = claims_in_place(self.queue, self.dialect)
        # Rows per statement under lock escalation: enqueue_many's split, the maintenance batch.
        self._limits = limits(self.spec, self.queue_name, self.dialect)

    # -- transactions ------------------------------------------------------------------------

    @property
    def in_transaction(self) -> bool:
        return self._tx_depth > 0

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Any]:
        """Run the calls inside the block in one transaction: commit at the end, roll back on an
        exception. Nested blocks join the outer one. Other threads wait until the block ends."""
        with self._lock:
            if self._tx_depth:
                self._tx_depth += 1
                try:
                    yield self
                finally:
                    self._tx_depth -= 1
                return
            try:
                conn = self._connected()
                self._finish(commit=True)  # nothing of an earlier call may leak into this transaction
                with self._driver.transaction(conn):
                    self._tx_depth = 1
                    try:
                        yield self
                    finally:
                        self._tx_depth = 0
            except ConnectionLost:
                raise
            except Exception as exc:
                if self.connection is None or not self._is_lost(exc):
                    raise
                # Lost at BEGIN, at a call inside, or at COMMIT: then nobody knows whether it committed.
                self._drop_connection(exc, "a transaction")
                raise self._lost_error(f"queue {self.queue_name}: the connection was lost during a transaction: it "
                                       "was rolled back, or (lost at its commit) committed or not: unknown") from exc

    # -- the connection ----------------------------------------------------------------------

    def _prepare(self, connection: Any) -> None:
        if self._driver is None:
            self._driver = dialects.client_for_connection(connection)(self.batch_via)
        self._driver.prepare(connection)

    def _connected(self) -> Any:
        """The connection; after a loss a new one, made within reconnect_timeout or ConnectionLost."""
        if self.connection is not None:
            return self.connection
        if self._factory is None:
            raise CannotReconnect(f"queue {self.queue_name}: no connection, and no way to make a new connection (the "
                                  "client was given a ready connection; give it a URL or a connection factory to "
                                  "reconnect)")
        started, attempt = time.monotonic(), 0
        while True:
            attempt += 1
            try:
                connection = self._factory()
            except Exception as exc:
                self._wait_to_connect(exc, attempt, time.monotonic() - started)
                continue
            self._prepare(connection)
            if self._lost:
                log.info("queue %s: connected again (%d attempt(s), %.1fs)", self.queue_name, attempt,
                         time.monotonic() - started)
            self._lost = False
            self.connection = connection
            return connection

    def _wait_to_connect(self, exc: Exception, attempt: int, waited: float) -> None:
        """After a failed attempt to connect: sleep before the next, or raise ConnectionLost when the time is up."""
        describe = self._driver.describe if self._driver is not None else ClientDriver().describe
        if waited >= self.reconnect_timeout:
            log.error("queue %s: no connection after %d attempts in %.1fs; giving up: %s",
                      self.queue_name, attempt, waited, describe(exc))
            raise ConnectionLost(f"queue {self.queue_name}: could not connect within "
                                 f"{self.reconnect_timeout:g}s: {message(exc)}") from exc
        delay = min(self._backoff.delay(attempt), self.reconnect_timeout - waited)
        log.warning("queue %s: connecting failed (attempt %d: %s); next attempt in %.2fs",
                    self.queue_name, attempt, describe(exc), delay)
        time.sleep(max(0.0, delay))

    def close(self) -> None:
        """Close the connection (a later call opens a new one when the client has a factory or URL)."""
        with self._lock:
            old, self.connection = self.connection, None
            if old is not None:
                old.close()
        if self._listener is not None:
            self._listener.close()

    def _wakeups(self) -> Optional[Listener]:
        """The LISTEN side of `wakeup: notify`, when this queue, database and client have one."""
        if self._listener is None and self._factory is not None and not self._waits_in_dequeue:
            channel = wakeup_channel(self.spec, self.queue_name)
            if channel is not None:
                self._listener = Listener(self._factory, channel, self.queue_name)
        return self._listener

    def _drop_connection(self, exc: BaseException, during: str) -> None:
        """Forget a connection that is lost (closing what is left of it); the next call makes another."""
        log.warning("queue %s: connection lost during %s: %s", self.queue_name, during, self._driver.describe(exc))
        old, self.connection = self.connection, None
        self._lost = True
        if self._factory is not None:
            self.reconnects += 1
        if old is not None:
            with contextlib.suppress(Exception):
                old.close()

    def _is_lost(self, exc: BaseException) -> bool:
        return self._driver.error_kind(exc, self.connection) == "connection"

    def _batch(self, sql: str) -> None:
        self._driver.execute_batch(self._connected(), sql)

    def _finish(self, commit: bool) -> None:
        """End the implicit transaction a call left open (a no-op on an autocommit connection)."""
        if self._tx_depth or self.connection is None:
            return
        if commit:
            self.connection.commit()
        else:
            with contextlib.suppress(Exception):
                self.connection.rollback()

    # -- calling procedures ------------------------------------------------------------------

    def _run(self, kind: str, params: Sequence[tuple[str, Any]], shape: str) -> Any:
        """Call one procedure with named parameters. shape: 'rows' (the last result set, as dicts),
        'scalar' (the function's value / the procedure's RETURN value), 'call' (PostgreSQL CALL)."""
        sql, values = self._statement(kind, params, shape)
        attempt, losses, replaced = 0, 0, False
        lost_since: Optional[float] = None  # when this call first lost its connection
        while True:
            with self._lock:
                try:
                    self._connected()
                    result = self._execute(sql, values, shape)
                    self._finish(commit=True)
                    if lost_since is not None:
                        log.info("queue %s: %s succeeded on a new connection after %.1fs", self.queue_name, kind,
                                 time.monotonic() - lost_since)
                    return result
                except ConnectionLost:
                    raise
                except Exception as exc:
                    entry = self._driver.classify(exc, self.connection)
                    if entry is not None and entry.kind == "connection":
                        self._drop_connection(exc, kind)
                        lost_since = lost_since if lost_since is not None else time.monotonic()
                        self._retry_after_loss(kind, exc, lost_since)
                        losses += 1
                        wait = self._backoff.delay(losses)
                    else:
                        self._finish(commit=False)
                        if self._replaced_again(entry, exc, kind, replaced):
                            replaced = True
                            continue
                        if entry is None or entry.kind != "deadlock" or self._tx_depth \
                                or attempt >= self.max_deadlock_retries:
                            raise queue_error(entry, exc, retried=lost_since is not None,  # noqa: B904 (it sets __cause__)
                                              routine=f"{self.spec.schema}.{self.object_name(kind)}")
                        attempt += 1
                        wait = self._deadlock_wait(attempt)
            time.sleep(wait)  # outside the lock: a heartbeat may run meanwhile

    def _replaced_again(self, entry: Any, exc: BaseException, kind: str, replaced: bool) -> bool:
        """Whether to run a call again at once because a revision replaced the routine under the
        session (an error of kind 'replaced'): the session forgets what it prepared, and the call runs
        once more. Safe for every call: it failed before it did anything, in a transaction of its own
        that was rolled back. Not inside client.transaction() (the caller's transaction is aborted:
        the caller retries the block), and only once per call."""
        if entry is None or entry.kind != "replaced" or self._tx_depth or replaced or self.connection is None:
            return False
        log.info("queue %s: %s: the routine was replaced under this session (a revision); its prepared statements "
                 "are dropped and the call runs again: %s", self.queue_name, kind, self._driver.describe(exc))
        self.replanned += 1
        self._driver.forget_plans(self.connection)
        return True

    def _lease_ids(self, parameter: str, token: Any) -> list[tuple[str, Any]]:
        """The ids of the jobs this client holds under a lease, as the parameter that names them to
        complete, extend_lease or dequeue (found by primary key); none when this client does not
        know the lease (then the procedure searches for the token)."""
        if not self._by_id:
            return []
        ids = self._leases.ids(token)
        if not ids:
            log.warning("queue %s: lease %s is not one this client took (or it expired over %.0fs ago): the "
                        "database searches the whole table for its jobs; pass the jobs (or id=) instead",
                        self.queue_name, token, LeaseBook.KEEP_EXPIRED)
            return []
        return [(parameter, self._database.id_list(ids))]

    def _deadlock_wait(self, attempt: int) -> float:
        self.deadlock_retries += 1
        delay = min(self.deadlock_backoff_max, self.deadlock_backoff * 2 ** (attempt - 1))
        return random.uniform(delay / 2, delay)

    def _retry_after_loss(self, kind: str, exc: BaseException, lost_since: float) -> None:
        """Return when a call that lost its connection may run again on a new one; else raise ConnectionLost."""
        dedupe = self.queue.dedupe
        if self._tx_depth:
            why = "it ran inside client.transaction(), which was rolled back"
        elif kind in ENQUEUES and not (dedupe and dedupe.on_duplicate == "return_existing"):
            why = ("it may have committed, and without a dedupe key that returns the existing job a retry could "
                   "enqueue the job twice")
        elif kind not in RETRIED_AFTER_LOSS and kind not in ENQUEUES:
            why = "it is not retried after a connection loss"
        elif self._factory is None:
            why = "the client has no way to make a new connection (give it a URL or a connection factory)"
        elif time.monotonic() - lost_since >= self.reconnect_timeout:
            why = f"it kept losing its connection for {self.reconnect_timeout:g}s"
        else:
            return
        raise self._lost_error(f"queue {self.queue_name}: the connection was lost during {kind}: {why}") from exc

    def _lost_error(self, message: str) -> ConnectionLost:
        """ConnectionLost; CannotReconnect when this client has no way to make a new connection."""
        if self._factory is None:
            if "no way to make a new connection" not in message:
                message += "; the client has no way to make a new connection (give it a URL or a connection factory)"
            return CannotReconnect(message)
        return ConnectionLost(message)

    def _statement(self, kind: str, params: Sequence[tuple[str, Any]], shape: str) -> tuple[str, list[Any]]:
        values = [value for _, value in params]
        key = (kind, shape, tuple(p for p, _ in params))
        sql = self._statements.get(key)
        if sql is None:  # the same call shape is the same text: built once (a claim is called a lot)
            known = self.parameters(kind)
            unknown = [p for p, _ in params if p not in known]
            if unknown:  # a bug in the client, not in the caller's values
                raise AssertionError(f"{kind} has no parameter(s) {', '.join(unknown)}; it has {', '.join(known)}")
            sql = self._statements[key] = self._driver.statement(self.qualified(kind), params, shape)
        return sql, values

    def _execute(self, sql: str, values: list[Any], shape: str) -> Any:
        cursor = self.connection.cursor()
        try:
            cursor.execute(sql, values) if values else cursor.execute(sql)
            return self._driver.fetch(cursor, shape)
        finally:
            cursor.close()
