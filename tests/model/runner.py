"""Run a schedule (tests/model/schedule.py) against an installed queue and hold it to the model.

Sessions are threads, each with its own connection and QueueClient; one scheduler (the calling
thread) hands each step to its session and waits at most STEP_WAIT for it. A step still running
then is *in flight* (blocked on a lock, as a rule): the scheduler goes on with the other sessions,
skips the steps of a session whose call is in flight, and applies the call's result when it
returns. A call in flight longer than WAIT_BOUND is looked up in pg_locks: what it waits for, and
who holds it. A claim that waits, or any worker call that waits on the watermark row, is a
violation; other waits (a complete behind another transaction's takeover of
its job, an enqueue behind an uncommitted one with the same dedupe key) are recorded.

After every step with nothing in flight the scheduler reads the committed tables and reconciles
the model with them (model.Model.reconcile). Every SAMPLE_EVERY steps on PostgreSQL it measures one
claim: EXPLAIN (ANALYZE, BUFFERS) of the dequeue in a transaction that is rolled back, so the
schedule does not see it; the buffers it touched must stay under a bound (observe.CLAIM_BUFFERS plus a
little per job still queued: finished jobs behind the queue may not raise it). At the end the
workers finish what they hold, leases and backoffs run out, one session drains the queue, and
every job must be done or dead exactly once.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any, Optional

from qgen.spec.catalog import claims_in_place, queue_objects
from qgen.client import LeaseLost
from tests.model.calls import Calls
from tests.model.model import EPS, Facts, Model, Violation
from tests.model.observe import Observer
from tests.model.schedule import Options, Shape, Step
from tests.model.sessions import Session, _epoch
from tests.support.backends import QueueEnv

STEP_WAIT = 0.4        # seconds the scheduler waits for a step before it counts as in flight
REJUDGE_WAIT = 3.0     # seconds a result that breaks the model waits for the calls in flight with it
HANG_BOUND = 60.0      # a call neither returning nor blocked by another session this long: a hang
SAMPLE_EVERY = 15      # steps between two measured claims (PostgreSQL)


def shape_of(env: QueueEnv, queue: str) -> tuple[Shape, Facts]:
    q = env.spec.queues[queue]
    lease = q.claim == "lease"
    watermark = bool(q.watermark.enabled)
    shape = Shape(
        name=queue, lease=lease, watermark=lease and watermark,
        job_types=("red", "blue") if q.job_type else (),
        priority=q.ordering == "priority",
        dedupe_keys=6 if q.dedupe else 0,
        dead_letter=bool(q.dead_letter), expires=q.expire_after is not None)
    facts = Facts(
        lease=lease, on_complete=q.on_complete, dead_letter=bool(q.dead_letter),
        max_attempts=q.retry.max_attempts,
        backoff=(int(q.retry.backoff.base), int(q.retry.backoff.factor), int(q.retry.backoff.max)),
        in_place=claims_in_place(q, env.dialect), rescan=int(q.watermark.rescan),
        # A priority queue's claim marks (PostgreSQL) can pass a job as a watermark can: the same bound.
        watermark=watermark or any(o.kind == "priority_marks" for o in queue_objects(env.spec, queue, env.dialect)),
        retention=int(q.retention), dedupe=bool(q.dedupe),
        expire_after=int(q.expire_after) if q.expire_after is not None else None)
    return shape, facts


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


class Runner(Calls, Observer):
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

    def _step(self, step: Step) -> None:
        if step.session is None:
            self._admin_step(step)
            return
        session = self.sessions[step.session]
        if session.busy and not self._await_call(session):
            # Blocked behind another session's transaction: this step waits its turn, skipped. A
            # commit or rollback is not dropped: the session's later steps were generated for a
            # session outside a transaction, so it ends the transaction once the call returns.
            if step.op in ("commit", "rollback") and session.tx is not None:
                session.owed = step
            self.report.skipped_busy += 1
            self._log(step, "skipped: the session's last call is in flight, blocked by another session")
            return
        if session.owed is not None:
            owed, session.owed = session.owed, None
            self._log(step, f"first the {owed.op} of step {owed.index}, deferred while blocked")
            self._call(owed, session)
            if session.busy:
                self.report.skipped_busy += 1
                self._log(step, "skipped: the deferred end is in flight")
                return
        self._call(step, session)

    def _call(self, step: Step, session: Session) -> None:
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

    def _await_call(self, session: Session) -> bool:
        """Wait for a session's call in flight to return (True), unless a lock another session
        holds blocks it (False: it waits for that session's later steps). A slow call (a loaded
        machine, a first call that compiles) is waited for, not taken for a blocked one: skipping
        its session's steps would leave the schedule untested, and its commit undone."""
        give_up = time.time() + HANG_BOUND
        while not session.wait(0.05):
            self._collect()
            self._watch()
            if not session.busy:
                return True
            if self._blocked(session):
                return False
            if time.time() > give_up:
                step = session.pending[0]
                raise Violation("hang", f"s{session.index} step {step.index} {step.op} neither returned nor "
                                        f"waited on another session for {HANG_BOUND:g}s")
        self._collect()
        return True

    def _blocked(self, session: Session) -> bool:
        """Does a lock another session holds block this session's call? PostgreSQL tells
        (pg_blocking_pids); a T-SQL engine runs one session, which nothing else blocks."""
        if not self.postgres:
            return len(self.sessions) > 1
        return bool(self.env.scalar("SELECT cardinality(pg_blocking_pids(?)) > 0", session.pid))

    def _admin_step(self, step: Step) -> None:
        if step.op == "sleep":
            deadline = time.time() + step.args["seconds"]
            while time.time() < deadline:
                time.sleep(min(0.1, max(0.0, deadline - time.time())))
                self._collect()
                self._watch()
            self._log(step, "slept")
        elif step.op == "lower_attempts":
            job_id = self._waiting_job(step)
            if job_id is None:
                return
            attempts = self.facts.max_attempts
            self.env.execute(f"UPDATE {self.env.name(self.queue)} SET {self.env.col('attempts')} = ? "
                             f"WHERE {self.env.col('id')} = ?", attempts, job_id)
            self.model.lowered(job_id, attempts, time.time())
            self._log(step, f"job {job_id} attempts -> {attempts}")
        elif step.op == "age":
            # expire_after: a waiting job as if enqueued, and due, expire_after + 2 s earlier, so that
            # claims meet jobs past their expiry before reap takes them away.
            job_id = self._waiting_job(step)
            if job_id is None:
                return
            seconds = int(self.facts.expire_after or 0) + 2
            # The job's own row only: transactions the schedule keeps open may hold the watermark row
            # (the due index's bound), and this step runs on the scheduler's thread, which ends them.
            for column in ("enqueued_at", "available_at"):
                self.env.backdate(self.queue, column, seconds, ids=[job_id], due_bound=False)
            self.model.aged(job_id, seconds, time.time())
            self._log(step, f"job {job_id} enqueued {seconds}s earlier")

    def _waiting_job(self, step: Step) -> Optional[int]:
        """The step's pick among the waiting jobs no transaction holds (None, logged, when there is
        none or a call is in flight): an arrangement changes such a job's row by hand."""
        locked = self.model.locked_ids()
        ready = sorted(j.id for j in self.model.jobs.values() if j.status == "ready" and j.id not in locked)
        if not ready or self._in_flight():
            self._log(step, "nothing to do")
            return None
        return ready[step.args["pick"] % len(ready)]

    def _finish(self, session: Session, may_defer: bool = False) -> bool:
        """Apply a returned call's result to the model (False: deferred, see below)."""
        # A call in flight that was unblocked meanwhile may have committed before this one saw its
        # rows: give each a moment to report, and apply first those that returned before this one.
        # Which of two calls returning at the same moment the server ran first, their return times
        # cannot tell (a call unblocked by this one's COMMIT can return before the COMMIT call
        # does): one that breaks the model applied first is judged again after this one.
        deferred: list[Session] = []
        others = [s for s in self._in_flight() if s is not session]
        if others and not self._finishing:
            self._finishing = True
            try:
                for other in others:
                    other.wait(0.15)
                mine = session.outcome.t1
                for other in sorted((o for o in others if o.busy and o.wait(0) and o.outcome.t1 < mine),
                                    key=lambda o: o.outcome.t1):
                    if not self._finish(other, may_defer=True):
                        deferred.append(other)
            finally:
                self._finishing = False
        step, on_result, submitted = session.pending
        outcome = session.outcome
        session.pending = None
        # Calls returning at the same moment may have committed in either order: when this result
        # breaks the model while another call is in flight, apply the others that return within
        # a moment first, and judge this one again on the model as it was.
        saved = self.model.snapshot() if any(s.busy for s in self.sessions) or may_defer else None
        try:
            try:
                text = on_result(outcome)
            except Violation:
                if saved is None:
                    raise
                self.model.restore(saved)
                if may_defer:
                    session.pending = (step, on_result, submitted)
                    return False
                if self._finishing:
                    raise
                self._finishing = True
                try:
                    busy = [s for s in self.sessions if s.busy]
                    # Only on the way to a failure: a loaded machine (CI at a load of 4) can take
                    # more than half a second to return a COMMIT the server has done.
                    give_up = time.time() + REJUDGE_WAIT
                    for other in busy:
                        other.wait(max(0.0, give_up - time.time()))
                    for other in sorted((o for o in busy if o.wait(0)), key=lambda o: o.outcome.t1):
                        self._finish(other)
                finally:
                    self._finishing = False
                text = on_result(outcome) + " (judged after the calls that returned with it)"
        except Violation:
            self._log(step, f"VIOLATION at [{outcome.t0:.3f}, {outcome.t1:.3f}]")
            raise
        self._log(step, f"[{outcome.t0:.3f}, {outcome.t1:.3f}] {text}")
        self._check_idle(session, step)
        for other in deferred:
            if other.busy:
                self._finish(other)
        return True

    def _check_idle(self, session: Session, step: Step) -> None:
        """A session outside a caller's transaction must be left with none open: every call outside
        client.transaction() is its own transaction. One left open would hold its locks and snapshot
        (and on PostgreSQL refuse the next isolation level) while the model takes it for finished."""
        if session.tx is not None:
            return
        if self.postgres:
            import psycopg

            status = session.client.connection.info.transaction_status
            left = None if status == psycopg.pq.TransactionStatus.IDLE else status.name
        else:
            # T-SQL: the client calls in autocommit mode, so a procedure that returns with a
            # transaction of its own still open (a BEGIN without its COMMIT on some path) shows here.
            def trancount() -> int:
                cursor = session.client.connection.cursor()
                try:
                    return int(cursor.execute("SELECT @@TRANCOUNT").fetchone()[0])
                finally:
                    cursor.close()
            count = session.run_here(trancount)  # on the session's thread: its connection is its own
            left = f"@@TRANCOUNT {count}" if count else None
        if left is not None:
            self._log(step, f"VIOLATION: session left {left}")
            raise Violation("idle", f"s{session.index} left a transaction open ({left}) after {step.op}")

    def _collect(self) -> None:
        done = [s for s in self.sessions if s.busy and s.wait(0)]
        for session in sorted(done, key=lambda s: s.outcome.t1):
            # _finish of an earlier one applies first the calls that returned before it, which
            # may include a later one of this list: that one is finished already.
            if session.busy:
                self._finish(session)

    def _in_flight(self) -> list[Session]:
        return [s for s in self.sessions if s.busy]

    def _log(self, step: Step, text: str) -> None:
        self.report.log.append(f"{step.line()}  -> {text}")

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
        give_up = time.time() + HANG_BOUND
        while True:
            # A transaction ends on its session's thread once no call of it is in flight: a
            # ROLLBACK queued behind a call would run while the scheduler reads that session.
            for session in self.sessions:
                if session.tx is not None and not session.busy:
                    self._rollback_now(session, "the schedule ended")
            if not self._in_flight():
                break
            self._collect()
            self._watch()
            if time.time() > give_up:
                names = [f"s{s.index} step {s.pending[0].index} {s.pending[0].op}" for s in self._in_flight()]
                raise Violation("hang", f"calls still in flight {HANG_BOUND:g}s after every transaction ended: {names}")
            time.sleep(0.05)
        self._reconcile()
        model = self.model
        t0 = time.time()
        self.model.pause_call(False, self.sessions[0].client.resume(), t0, time.time())  # a paused queue drains nothing
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
        self._drain_queue()

    def _drain_queue(self) -> None:
        """Let leases and backoffs run out, then claim and complete until nothing is left: every
        job must come back within the documented bound (the watermark's rescan)."""
        model = self.model
        waits = [j.lease_hi for j in model.jobs.values() if j.status == "leased"]
        waits += [j.avail_hi for j in model.jobs.values() if j.status == "ready"]
        pause = max(waits, default=0.0) - time.time()
        if pause > 0:
            time.sleep(min(pause, 5.0))
        client = self.sessions[0].client
        deadline = time.time() + (self.facts.rescan if self.facts.watermark else 0) + 3 * EPS + 1
        while True:
            t0 = time.time()
            if self.facts.lease and (not self.facts.in_place or self.facts.expire_after):
                client.reap()  # releases expired leases (an in-place claim takes them over), takes expired jobs away
            if self.facts.lease:
                claimed = client.dequeue(batch_size=10, lease_seconds=60)
            else:
                with client.transaction():
                    claimed = client.dequeue(batch_size=10)
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


def describe_failure(runner: Runner, error: BaseException, rerun: str) -> str:
    lines = [f"model-based test: seed {runner.seed}, queue {runner.queue}: {error}", "",
             "the schedule as it ran (step, session, operation, arguments -> what happened):"]
    lines += runner.report.log[-120:]
    lines += ["", f"replay: {rerun}"]
    return "\n".join(lines)

