"""Run a schedule (tests/model/schedule.py) against an installed queue and hold it to the model.

Sessions are threads, each with its own connection and QueueClient; one scheduler (the calling
thread) hands each step to its session and waits at most STEP_WAIT for it. A step still running
then is *in flight* (blocked on a lock, as a rule): the scheduler goes on with the other sessions,
skips the steps of a session whose call is in flight, and applies the call's result when it
returns. A call in flight longer than WAIT_BOUND is looked up in pg_locks: what it waits for, and
who holds it. A claim that waits, or any worker call that waits on the watermark row, is a
violation (issue 15, item 10); other waits (a complete behind another transaction's takeover of
its job, an enqueue behind an uncommitted one with the same dedupe key) are recorded.

After every step with nothing in flight the scheduler reads the committed tables and reconciles
the model with them (model.Model.reconcile). Every SAMPLE_EVERY steps on PostgreSQL it measures one
claim: EXPLAIN (ANALYZE, BUFFERS) of the dequeue in a transaction that is rolled back, so the
schedule does not see it; the buffers it touched must stay under CLAIM_BUFFERS. At the end the
workers finish what they hold, leases and backoffs run out, one session drains the queue, and
every job must be done or dead exactly once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import queue as queue_module
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from qgen.catalog import claims_in_place
from qgen.client import LeaseLost, QueueClient, QueueError
from tests.model.model import EPS, Facts, Model, Violation
from tests.model.schedule import Options, Shape, Step
from tests.support.backends import QueueEnv

STEP_WAIT = 0.4        # seconds the scheduler waits for a step before it counts as in flight
WAIT_BOUND = STEP_WAIT  # a call in flight this long is looked up: what it waits on (may be a violation)
HANG_BOUND = 20.0      # a call still in flight this long after every transaction ended: a hang
SAMPLE_EVERY = 15      # steps between two measured claims (PostgreSQL)
CLAIM_BUFFERS = 150    # most shared buffers one measured claim of up to 5 jobs may touch


def shape_of(env: QueueEnv, queue: str) -> tuple[Shape, Facts]:
    q = env.spec.queues[queue]
    lease = q.claim == "lease"
    watermark = bool(q.watermark.enabled)
    shape = Shape(
        name=queue, lease=lease, watermark=lease and watermark,
        job_types=("red", "blue") if q.job_type else (),
        priority=q.ordering == "priority",
        dedupe_keys=6 if q.dedupe else 0,
        dead_letter=bool(q.dead_letter))
    facts = Facts(
        lease=lease, on_complete=q.on_complete, dead_letter=bool(q.dead_letter),
        max_attempts=q.retry.max_attempts,
        backoff=(int(q.retry.backoff.base), int(q.retry.backoff.factor), int(q.retry.backoff.max)),
        in_place=claims_in_place(q, env.dialect), watermark=watermark, rescan=int(q.watermark.rescan),
        retention=int(q.retention), dedupe=bool(q.dedupe))
    return shape, facts


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


@dataclass
class Report:
    seed: int
    queue: str
    steps: int = 0
    calls: int = 0
    skipped_busy: int = 0
    waits: list[str] = field(default_factory=list)
    claim_buffers: list[int] = field(default_factory=list)
    counts: dict = field(default_factory=dict)
    seconds: float = 0.0
    log: list[str] = field(default_factory=list)


class Runner:
    def __init__(self, env: QueueEnv, queue: str, seed: int, steps: list[Step], options: Options):
        self.env, self.queue, self.seed, self.steps, self.options = env, queue, seed, steps, options
        self.shape, self.facts = shape_of(env, queue)
        self.model = Model(self.facts)
        self.report = Report(seed, queue)
        self.sessions: list[Session] = []
        self.postgres = env.dialect == "postgres"
        self._probe: Any = None
        self._lazy_isolation: dict[int, str] = {}
        self._finishing = False
        c = env.col
        self._queue_sql = (f"SELECT {c('id')}, {c('n')}"
                           + (f", {c('attempts')}, {c('lease_token')}" if self.facts.lease else "")
                           + (f", {c('processed')}" if self.facts.on_complete == "mark" else "")
                           + f" FROM {env.name(queue)}")

    # ------------------------------------------------------------------------------------------

    def run(self) -> Report:
        started = time.time()
        try:
            self.sessions = [Session(i, self.env, self.queue) for i in range(self.options.sessions)]
            if self.options.prefill:
                self._prefill(self.options.prefill)
            for step in self.steps:
                self.report.steps += 1
                self._collect()
                self._step(step)
                self._watch()
                if not self._in_flight():
                    self._reconcile()
                    if self.postgres and step.index % SAMPLE_EVERY == SAMPLE_EVERY - 1:
                        self._sample_claim()
            self._drain()
        except Violation:
            self._log_sessions()
            raise
        finally:
            for session in self.sessions:
                session.close()
            if self._probe is not None:
                with contextlib.suppress(Exception):
                    self._probe.close()
            self.report.seconds = time.time() - started
        return self.report

    # ------------------------------------------------------------------------------------------
    # Steps

    def _step(self, step: Step) -> None:
        if step.session is None:
            self._admin_step(step)
            return
        session = self.sessions[step.session]
        if session.busy:
            self.report.skipped_busy += 1
            self._log(step, "skipped: the session's last call is still in flight")
            return
        planned = self._plan(step, session)
        if planned is None:
            self._log(step, "nothing to do")
            return
        work, on_result = planned
        self.report.calls += 1
        session.submit(step, work, on_result)
        if session.wait(STEP_WAIT):
            self._finish(session)
        else:
            self._log(step, "in flight")

    def _admin_step(self, step: Step) -> None:
        if step.op == "sleep":
            deadline = time.time() + step.args["seconds"]
            while time.time() < deadline:
                time.sleep(min(0.1, max(0.0, deadline - time.time())))
                self._collect()
                self._watch()
            self._log(step, "slept")
        elif step.op == "lower_attempts":
            locked = self.model.locked_ids() | self._in_flight_ids()
            ready = sorted(j.id for j in self.model.jobs.values() if j.status == "ready" and j.id not in locked)
            if not ready or self._in_flight():
                self._log(step, "nothing to do")
                return
            job_id = ready[step.args["pick"] % len(ready)]
            attempts = self.facts.max_attempts
            self.env.execute(f"UPDATE {self.env.name(self.queue)} SET {self.env.col('attempts')} = ? "
                             f"WHERE {self.env.col('id')} = ?", attempts, job_id)
            self.model.lowered(job_id, attempts, time.time())
            self._log(step, f"job {job_id} attempts -> {attempts}")

    def _finish(self, session: Session) -> None:
        # A call in flight that was unblocked meanwhile may have committed before this one saw its
        # rows: give each a moment to report, and apply first those that returned before this one.
        others = [s for s in self._in_flight() if s is not session]
        if others and not self._finishing:
            self._finishing = True
            try:
                for other in others:
                    other.wait(0.15)
                mine = session.outcome.t1
                for other in sorted((o for o in others if o.busy and o.wait(0) and o.outcome.t1 < mine),
                                    key=lambda o: o.outcome.t1):
                    self._finish(other)
            finally:
                self._finishing = False
        step, on_result, _ = session.pending
        outcome = session.outcome
        session.pending = None
        try:
            text = on_result(outcome)
        except Violation:
            self._log(step, f"VIOLATION at [{outcome.t0:.3f}, {outcome.t1:.3f}]")
            raise
        self._log(step, f"[{outcome.t0:.3f}, {outcome.t1:.3f}] {text}")

    def _collect(self) -> None:
        done = [s for s in self.sessions if s.busy and s.wait(0)]
        for session in sorted(done, key=lambda s: s.outcome.t1):
            self._finish(session)

    def _in_flight(self) -> list[Session]:
        return [s for s in self.sessions if s.busy]

    def _in_flight_ids(self) -> set[int]:
        return set()

    def _log_sessions(self) -> None:
        """What each session's backend is doing when a violation is found (PostgreSQL)."""
        if not self.postgres:
            return
        with contextlib.suppress(Exception):
            for session in self.sessions:
                rows = self.env.sql("SELECT state, xact_start, backend_xid, wait_event_type, wait_event, "
                                    "left(query, 80) FROM pg_stat_activity WHERE pid = ?", session.pid)
                self.report.log.append(f"     s{session.index} (pid {session.pid}, tx {session.tx is not None}): {rows}")

    def _log(self, step: Step, text: str) -> None:
        self.report.log.append(f"{step.line()}  -> {text}")

    # ------------------------------------------------------------------------------------------
    # What each step does

    def _plan(self, step: Step, session: Session) -> Optional[tuple[Callable[[], Any], Callable[[Outcome], str]]]:
        op, args, s = step.op, step.args, session.index
        client, model = session.client, self.model
        in_tx = session.tx is not None
        if op in ("commit", "rollback"):
            if not in_tx:
                return None
            return self._end_tx(session, commit=op == "commit")
        if op == "begin":
            if in_tx:
                return None
            return self._begin(session, args["isolation"], args["early"])
        planned = self._plan_call(step, session)
        if planned is None or session.tx != LAZY:
            return planned
        # A transaction begun without an early statement starts at its first call (psycopg sends
        # BEGIN then): enter it in that call, and time it from there.
        work, after = planned

        def enter_then_work() -> Any:
            self._enter(session, self._lazy_isolation[session.index])
            return work()

        def after_entered(o: Outcome) -> str:
            if session.tx == LAZY:  # entering failed
                session.tx = None
                self.model.rollback(session.index, o.t1)
                raise o.error
            self.model.tx_start[session.index] = o.t0
            return after(o)
        return enter_then_work, after_entered

    def _plan_call(self, step: Step, session: Session):
        op, args = step.op, step.args
        client, model = session.client, self.model
        in_tx = session.tx is not None
        if op in ("enqueue", "enqueue_rollback"):
            rollback = op == "enqueue_rollback" and not in_tx
            return self._enqueue(session, args, rollback)
        if op == "enqueue_many":
            return self._enqueue_many(session, args["jobs"])
        if op in ("claim", "claim_at_most_once"):
            if not self.facts.lease and op == "claim" and not in_tx:
                return None  # its transaction ended early (an error rolled it back)
            return self._claim(session, args, at_most_once=op == "claim_at_most_once")
        if op == "set_constraints_immediate":
            def work() -> None:
                with client.connection.cursor() as cur:
                    cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
            return work, lambda o: self._tx_error(session, o) or "set"
        if op in ("complete", "fail", "extend", "fenced_complete", "fenced_fail"):
            return self._lease_call(session, op, args)
        if op == "metrics":
            return client.metrics, lambda o: self._tx_error(session, o) or "metrics"
        if op == "reap":
            return client.reap, lambda o: self._plain(session, o)
        if op == "maintain":
            def after(o: Outcome) -> str:
                text = self._plain(session, o)
                if o.error is None:
                    model.purged(o.t0, o.t1, self.facts.retention)
                return text
            return client.maintain, after
        if op == "purge":
            older = args["older_than_seconds"]

            def after_purge(o: Outcome) -> str:
                text = self._plain(session, o)
                if o.error is None:
                    model.purged(o.t0, o.t1, older)
                return text
            return (lambda: client.purge(older_than_seconds=older)), after_purge
        if op == "watermark_correct":
            return client.watermark_correct, lambda o: self._tx_error(session, o) or self._plain(session, o)
        if op == "redrive":
            if in_tx:
                return None
            dead = sorted(j.id for j in model.jobs.values() if j.status == "dead")
            if not dead:
                return None
            ids = None if args["all"] else [dead[args["pick"] % len(dead)]]
            before = set(model.jobs)

            def work_redrive() -> Any:
                return client.redrive(ids, all=ids is None)

            def after_redrive(o: Outcome) -> str:
                if o.error is not None:
                    return self._plain(session, o)
                rows = self._rows(f"SELECT {self.env.col('id')}, {self.env.col('n')} FROM {self.env.name(self.queue)}")
                # the redriven jobs: new ids carrying a dead job's n (an enqueue in flight may add others)
                dead_n = {j.n for j in model.jobs.values() if j.status == "dead"}
                new = [(r[0], r[1]) for r in rows if r[0] not in before and r[1] in dead_n]
                model.redriven(o.value.redriven, new, o.t1)
                return f"{o.value}"
            return work_redrive, after_redrive
        raise AssertionError(f"unknown step {op}")

    def _plain(self, session: Session, o: Outcome) -> str:
        if o.error is not None:
            if session.tx is not None:
                return self._tx_error(session, o) or ""
            raise o.error
        return repr(o.value)

    def _tx_error(self, session: Session, o: Outcome) -> Optional[str]:
        """An error inside a caller's transaction ends it (PostgreSQL aborts it): roll back."""
        if o.error is None:
            return None
        if session.tx is None:
            raise o.error
        if not isinstance(o.error, LeaseLost) and not _serialization(o.error):
            raise Violation("unexpected-error", f"s{session.index} inside its transaction: {type(o.error).__name__}: "
                                                f"{o.error}")
        self._rollback_now(session, f"{type(o.error).__name__}: {str(o.error).splitlines()[0][:120]}")
        return f"error, transaction rolled back: {type(o.error).__name__}: {str(o.error).splitlines()[0][:160]}"

    def _rollback_now(self, session: Session, why: str) -> None:
        tx, session.tx = session.tx, None
        if tx == LAZY:
            self.model.rollback(session.index, time.time())
            return
        error = RuntimeError(why)
        # __exit__ must run on the thread that entered (it holds the client's lock).
        done = threading.Event()
        box: list = []

        def work() -> None:
            try:
                with contextlib.suppress(RuntimeError):
                    tx.__exit__(RuntimeError, error, None)
            finally:
                self._reset_isolation(session)
                done.set()
        session._done.clear()
        session._inbox.put(work)
        if not session._done.wait(10):
            raise Violation("hang", f"s{session.index}: ROLLBACK did not return within 10 s")
        self.model.rollback(session.index, time.time())
        del box

    def _reset_isolation(self, session: Session) -> None:
        conn = session.client.connection
        if self.postgres:
            conn.isolation_level = None
        else:
            with contextlib.suppress(Exception):
                cur = conn.cursor()
                cur.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
                cur.close()

    def _enter(self, session: Session, isolation: str) -> None:
        """On the session's thread: set the isolation level and enter client.transaction()."""
        client = session.client
        conn = client.connection
        if self.postgres:
            import psycopg

            conn.isolation_level = {"read committed": psycopg.IsolationLevel.READ_COMMITTED,
                                    "repeatable read": psycopg.IsolationLevel.REPEATABLE_READ,
                                    "serializable": psycopg.IsolationLevel.SERIALIZABLE}[isolation]
        else:
            cur = conn.cursor()
            cur.execute(f"SET TRANSACTION ISOLATION LEVEL {isolation.upper()}")
            cur.close()
        tx = client.transaction()
        tx.__enter__()
        session.tx = tx

    def _begin(self, session: Session, isolation: str, early: bool):
        client = session.client
        if not early:
            session.tx = LAZY
            self._lazy_isolation[session.index] = isolation
            t = time.time()
            self.model.begin(session.index, t)
            return (lambda: None), (lambda o: f"begun ({isolation}, at its first call)")

        def work() -> None:
            self._enter(session, isolation)
            client.metrics()  # the transaction's first statement: now() and the snapshot are taken here

        def after(o: Outcome) -> str:
            if o.error is not None:
                if session.tx is not None:
                    return self._tx_error(session, o)
                raise o.error
            self.model.begin(session.index, o.t0)
            return f"begun ({isolation}{', early' if early else ''})"
        return work, after

    def _end_tx(self, session: Session, commit: bool):
        tx = session.tx
        if tx == LAZY:
            session.tx = None
            (self.model.commit if commit else self.model.rollback)(session.index, time.time())
            return (lambda: None), (lambda o: "ended (no call ran in it)")

        def work() -> None:
            try:
                if commit:
                    tx.__exit__(None, None, None)
                else:
                    error = RuntimeError("rollback")
                    with contextlib.suppress(RuntimeError):
                        tx.__exit__(RuntimeError, error, None)
            finally:
                self._reset_isolation(session)

        def after(o: Outcome) -> str:
            session.tx = None
            if o.error is not None:
                # a commit that fails (a serialization failure at commit) rolls back
                self.model.rollback(session.index, o.t1)
                return f"commit failed, rolled back: {o.error}"
            (self.model.commit if commit else self.model.rollback)(session.index, o.t1)
            return "committed" if commit else "rolled back"
        return work, after

    def _job_kwargs(self, args: dict) -> dict:
        kwargs = {"n": args["n"]}
        if "k" in args:
            kwargs["k"] = args["k"]
        if "job_type" in args:
            kwargs["job_type"] = args["job_type"]
        if "priority" in args:
            kwargs["priority"] = args["priority"]
        return kwargs

    def _enqueue(self, session: Session, args: dict, rollback: bool):
        client = session.client
        kwargs = self._job_kwargs(args)

        def work() -> Any:
            if not rollback:
                return client.enqueue(**kwargs)
            with contextlib.suppress(_Rollback):
                with client.transaction():
                    result = client.enqueue(**kwargs)
                    raise _Rollback(result)
            return None

        def after(o: Outcome) -> str:
            if o.error is not None:
                return self._tx_error(session, o)
            if rollback:
                return "enqueued and rolled back (an id burned)"
            self.model.enqueued(session.index, o.value.id, o.value.enqueued, args["n"], args.get("k"),
                                args.get("job_type"), o.t0, o.t1)
            return f"id {o.value.id} enqueued={o.value.enqueued}"
        return work, after

    def _enqueue_many(self, session: Session, jobs: list[dict]):
        client = session.client
        batch = [self._job_kwargs(a) for a in jobs]

        def after(o: Outcome) -> str:
            if o.error is not None:
                return self._tx_error(session, o)
            for args, result in zip(jobs, o.value):
                self.model.enqueued(session.index, result.id, result.enqueued, args["n"], args.get("k"),
                                    args.get("job_type"), o.t0, o.t1)
            return "ids " + ", ".join(f"{r.id}{'' if r.enqueued else '(dup)'}" for r in o.value)
        return (lambda: client.enqueue_many(batch)), after

    def _claim(self, session: Session, args: dict, at_most_once: bool):
        client, model = session.client, self.model
        batch, lease_seconds, job_type = args["batch"], args.get("lease_seconds"), args.get("job_type")
        kwargs: dict = {"batch_size": batch}
        if lease_seconds is not None:
            kwargs["lease_seconds"] = lease_seconds
        if job_type is not None:
            kwargs["job_type"] = job_type
        if at_most_once:
            kwargs["at_most_once"] = True
        in_tx = session.tx is not None
        # The stranded check needs a claim with nothing else open: no transaction, no call in flight.
        quiet = not in_tx and not self.model.overlays and not self._in_flight()

        def after(o: Outcome) -> str:
            if o.error is not None:
                if in_tx:
                    return self._tx_error(session, o)
                raise o.error
            rows = [{"id": j.id, "attempts": j.attempts, "lease_token": j.lease_token,
                     "lease_expires_at": _epoch(j.lease_expires_at) if j.lease_expires_at is not None else None}
                    for j in o.value]
            model.claimed(session.index, rows, lease_seconds if self.facts.lease else None, o.t0, o.t1)
            for job in o.value:
                if job.lease_token is not None:
                    session.leases.append((job.lease_token, job.id))
            if quiet and len(rows) < batch and not self._others_busy(session):
                model.stranded([r["id"] for r in rows], job_type, o.t0)
            return "jobs " + ", ".join(f"{j.id}(a{j.attempts})" for j in o.value) if o.value else "no jobs"
        return (lambda: client.dequeue(**kwargs)), after

    def _others_busy(self, session: Session) -> bool:
        return any(s.busy for s in self.sessions if s is not session) or bool(self.model.overlays)

    def _lease_call(self, session: Session, op: str, args: dict):
        client, model, s = session.client, self.model, session.index
        current = model.current_leases(s)
        mine = [(t, i) for t, i in session.leases if i in current.get(t, [])]
        if op.startswith("fenced_"):
            # tokens the model knows are fenced (the job was released, taken over or finished);
            # first those whose job is still queued: a fence that does not hold shows there
            stale = [(t, i) for t, i in session.leases if i not in current.get(t, [])]
            live = [(t, i) for t, i in stale if (j := model.view(s, i)) is not None and j.holds_key()]
            choices = live or stale
        else:
            choices = mine
        if not choices:
            return None
        token, job_id = choices[args["pick"] % len(choices)]
        in_tx = session.tx is not None
        kind = op.replace("fenced_", "")
        retry = args.get("retry", True)
        lease_seconds = args.get("lease_seconds")

        def work() -> Any:
            if kind == "complete":
                return client.complete(token, id=job_id)
            if kind == "fail":
                return client.fail(token, error=f"failed by s{s}", retry=retry, id=job_id)
            return client.extend_lease(token, lease_seconds, id=job_id)

        def after(o: Outcome) -> str:
            if isinstance(o.error, LeaseLost):
                model.lease_lost_allowed(s, token, job_id, kind, o.t1)
                if in_tx:
                    return self._tx_error(session, o)
                return f"{kind} job {job_id}: LeaseLost"
            if o.error is not None:
                if in_tx:
                    return self._tx_error(session, o)
                raise o.error
            if kind == "complete":
                model.completed(s, token, job_id, o.t0, o.t1)
            elif kind == "fail":
                model.failed(s, token, job_id, retry, o.value, o.t0, o.t1)
            else:
                model.extended(s, token, job_id, lease_seconds, o.t0, o.t1)
            return f"{kind} job {job_id} token {str(token)[:8]}: {o.value}"
        return work, after

    # ------------------------------------------------------------------------------------------
    # The tables, waits and the claim's cost

    def _rows(self, sql: str) -> list[tuple]:
        return self.env.sql(sql)

    def _reconcile(self) -> None:
        f, env, c = self.facts, self.env, self.env.col
        t = time.time()
        queue_rows: dict[int, dict] = {}
        for row in self._rows(self._queue_sql):
            item = {"id": row[0], "n": row[1]}
            if f.lease:
                item["attempts"] = row[2]
                item["lease_token"] = None if row[3] is None else uuid.UUID(str(row[3]))
            if f.on_complete == "mark":
                item["processed"] = bool(row[-1])
            queue_rows[row[0]] = item
        dead: list[dict] = []
        if f.lease and f.dead_letter:
            for row in self._rows(f"SELECT {c('id')}, {c('attempts')}, {c('last_error')} FROM {env.name(self.queue, 'dead_letter_table')}"):
                dead.append({"id": row[0], "attempts": row[1], "last_error": row[2]})
        archive: list[int] = []
        if f.on_complete == "archive":
            archive = [r[0] for r in self._rows(f"SELECT {c('id')} FROM {env.name(self.queue, 'archive_table')}")]
        self.model.reconcile(queue_rows, dead, archive, t)

    def _watch(self) -> None:
        """Look up what each call in flight longer than WAIT_BOUND waits for."""
        now = time.time()
        for session in self._in_flight():
            step, _, since = session.pending
            if session.classified or now - since < WAIT_BOUND or not self.postgres:
                continue
            session.classified = True
            rows = self.env.sql(
                "SELECT l.locktype, c.relname, l.granted, pg_blocking_pids(?) FROM pg_locks l "
                "LEFT JOIN pg_class c ON c.oid = l.relation WHERE l.pid = ? AND "
                "(l.locktype IN ('tuple', 'advisory') OR NOT l.granted)", session.pid, session.pid)
            if not rows:
                continue  # it returned meanwhile, or it is slow, not blocked
            blockers = sorted({f"s{s.index}" for s in self.sessions for r in rows for p in (r[3] or []) if p == s.pid})
            relations = sorted({r[1] for r in rows if r[1]})
            text = (f"step {step.index} s{session.index} {step.op} waited over {WAIT_BOUND}s on "
                    f"{', '.join(relations) or ', '.join(sorted({r[0] for r in rows}))} held by {', '.join(blockers) or '?'}")
            self.report.waits.append(text)
            self._log(step, "WAIT " + text)
            watermark = self.env.spec.queues[self.queue].watermark.enabled and any(
                r.endswith("watermark") for r in relations)
            if step.op in ("claim", "claim_at_most_once"):
                raise Violation("claim-waits", text)
            if watermark and step.op in ("fail", "reap", "maintain", "complete", "extend", "fenced_fail",
                                         "fenced_complete"):
                raise Violation("watermark-wait", text + " (issue 15 item 10: no worker call may wait on the "
                                                         "watermark row)")

    def _sample_claim(self) -> None:
        """One claim measured and rolled back: shared buffers touched (hit + read)."""
        import psycopg

        if self._probe is None:
            self._probe = psycopg.connect(self.env.backend.url, autocommit=False)
        name = self.env.name(self.queue, "dequeue")
        plan: dict = {}
        # Twice, each rolled back: the first call (re)plans the function's statements when its
        # cached plans were invalidated (an autovacuum ANALYZE), the second measures the claim alone.
        for _ in range(2):
            try:
                with self._probe.cursor() as cur:
                    cur.execute("SET LOCAL lock_timeout = '200ms'")
                    cur.execute(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM {name}(batch_size => 5)")
                    plan = cur.fetchone()[0][0]["Plan"]
            except psycopg.errors.LockNotAvailable:
                return
            finally:
                with contextlib.suppress(Exception):
                    self._probe.rollback()
        buffers = int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0))
        self.report.claim_buffers.append(buffers)
        if buffers > CLAIM_BUFFERS:
            raise Violation("claim-cost", f"a claim of 5 touched {buffers} shared buffers (bound {CLAIM_BUFFERS}); "
                                          f"samples so far: {self.report.claim_buffers}")

    # ------------------------------------------------------------------------------------------
    # Before and after

    def _prefill(self, count: int) -> None:
        """Finished jobs behind the queue: enqueued and completed (or claimed, in delete mode)."""
        session = self.sessions[0]
        client = session.client
        base = 10_000_000
        jobs = [dict(n=base + i, **({"job_type": "red"} if self.shape.job_types else {}),
                     **({"k": 1000 + i} if self.shape.dedupe_keys else {})) for i in range(count)]
        t0 = time.time()
        for start in range(0, count, 200):
            results = client.enqueue_many(jobs[start:start + 200])
            for args, r in zip(jobs[start:start + 200], results):
                self.model.enqueued(None, r.id, r.enqueued, args["n"], args.get("k"), args.get("job_type"), t0,
                                   time.time())
        while True:
            t0 = time.time()
            if self.facts.lease:
                claimed = client.dequeue(batch_size=200, lease_seconds=60)
            else:
                with client.transaction():
                    claimed = client.dequeue(batch_size=200)
            if not claimed:
                break
            rows = [{"id": j.id, "attempts": j.attempts, "lease_token": j.lease_token,
                     "lease_expires_at": _epoch(j.lease_expires_at) if j.lease_expires_at else None} for j in claimed]
            self.model.claimed(None, rows, 60 if self.facts.lease else None, t0, time.time())
            for job in claimed if self.facts.lease else []:
                t0 = time.time()
                client.complete(job)
                self.model.completed(None, job.lease_token, job.id, t0, time.time())
        self._reconcile()

    def _drain(self) -> None:
        """Every transaction has ended (the schedule's last steps): let the calls in flight return,
        have each worker finish what it holds, let leases and backoffs run out, and empty the queue."""
        for session in self.sessions:
            if session.tx is not None:
                self._rollback_now(session, "the schedule ended")
        give_up = time.time() + HANG_BOUND
        while self._in_flight():
            self._collect()
            self._watch()
            if time.time() > give_up:
                names = [f"s{s.index} step {s.pending[0].index} {s.pending[0].op}" for s in self._in_flight()]
                raise Violation("hang", f"calls still in flight {HANG_BOUND:g}s after every transaction ended: {names}")
            time.sleep(0.05)
        self._reconcile()
        model = self.model
        if self.facts.lease:
            for session in self.sessions:
                current = model.current_leases(None)
                for token, job_id in session.leases:
                    if job_id in current.get(token, []):
                        t0 = time.time()
                        try:
                            session.client.complete(token, id=job_id)
                        except LeaseLost:
                            model.lease_lost_allowed(None, token, job_id, "complete", time.time())
                            continue
                        model.completed(None, token, job_id, t0, time.time())
            self._reconcile()
        waits = [j.lease_hi for j in model.jobs.values() if j.status == "leased"]
        waits += [j.avail_hi for j in model.jobs.values() if j.status == "ready"]
        pause = max(waits, default=0.0) - time.time()
        if pause > 0:
            time.sleep(min(pause, 5.0))
        client = self.sessions[0].client
        deadline = time.time() + (self.facts.rescan if self.facts.watermark else 0) + 3 * EPS + 1
        while True:
            t0 = time.time()
            if self.facts.lease and not self.facts.in_place:
                client.reap()
            if self.facts.lease:
                claimed = client.dequeue(batch_size=10, lease_seconds=60)
            else:
                with client.transaction():
                    claimed = client.dequeue(batch_size=10)
                    t0c = time.time()
            t1 = time.time()
            rows = [{"id": j.id, "attempts": j.attempts, "lease_token": j.lease_token,
                     "lease_expires_at": _epoch(j.lease_expires_at) if j.lease_expires_at else None} for j in claimed]
            if self.facts.lease:
                model.claimed(None, rows, 60, t0, t1)
                for job in claimed:
                    c0 = time.time()
                    client.complete(job)
                    model.completed(None, job.lease_token, job.id, c0, time.time())
            else:
                model.claimed(None, rows, None, t0, t1)
            self._reconcile()
            if claimed:
                continue
            left = [j for j in model.jobs.values() if j.status in ("ready", "leased")]
            if not left:
                break
            if time.time() > deadline:
                model.stranded([], None, t0)
                raise Violation("lost", f"{len(left)} job(s) left that no claim returns: "
                                        + "; ".join(f"{j.id} {j.status}: {' / '.join(j.history)}" for j in left[:5]))
            time.sleep(0.2)
        self.report.counts = model.final()


def _serialization(error: BaseException) -> bool:
    """A serialization failure or deadlock: what a caller's transaction at REPEATABLE READ or
    SERIALIZABLE may get from a claim or a write (docs/api.md, Isolation), and retries."""
    cause = error.__cause__ if error.__cause__ is not None else error
    state = getattr(cause, "sqlstate", None) or (cause.args[0] if getattr(cause, "args", None) else None)
    return state in ("40001", "40P01")


LAZY = "lazy"  # Session.tx of a transaction begun without a statement yet


class _Rollback(Exception):
    pass


def describe_failure(runner: Runner, error: BaseException, rerun: str) -> str:
    lines = [f"model-based test: seed {runner.seed}, queue {runner.queue}: {error}", "",
             "the schedule as it ran (step, session, operation, arguments -> what happened):"]
    lines += runner.report.log[-120:]
    lines += ["", f"replay: {rerun}"]
    return "\n".join(lines)
