"""What each step of a schedule does: the client call a session makes, and how its result is
held to the model (tests/model/model.py). A mixin of tests/model/runner.py's Runner."""

from __future__ import annotations

import contextlib
import time
from typing import Any, Callable, Optional

from qgen.client import LeaseLost
from tests.model.model import Violation
from tests.model.schedule import IMPLICIT, Step
from tests.model.sessions import LAZY, ImplicitTransaction, Outcome, Session, _epoch, _Rollback, _serialization


class Calls:
    """Runner's steps: _plan(step, session) -> (work run on the session's thread, what to do with
    its Outcome on the scheduler's), or None when the step has nothing to act on."""

    def _plan(self, step: Step, session: Session) -> Optional[tuple[Callable[[], Any], Callable[[Outcome], str]]]:
        op, args = step.op, step.args
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
            if not in_tx:
                return None  # its transaction ended early: outside one, SET would begin a transaction
            def work() -> None:
                with client.connection.cursor() as cur:
                    cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
            return work, lambda o: self._tx_error(session, o) or "set"
        if op in ("complete", "fail", "extend", "fenced_complete", "fenced_fail", "release"):
            return self._lease_call(session, op, args)
        if op == "metrics":
            quiet = not in_tx and not model.overlays and not self._in_flight()

            def after_metrics(o: Outcome) -> str:
                if o.error is not None:
                    return self._tx_error(session, o)
                if quiet and not self._others_busy(session):
                    self._reconcile()  # what calls in flight until now changed is known first
                    model.metrics(o.value)
                return "metrics" + (" (held to the model)" if quiet else "")
            return client.metrics, after_metrics
        if op == "cancel":
            if in_tx:
                return None
            known = sorted(model.jobs)
            if not known:
                return None
            chosen = sorted({known[(args["pick"] + 7 * i) % len(known)] for i in range(args["count"])})
            quiet = not model.overlays and not self._in_flight()

            def after_cancel(o: Outcome) -> str:
                text = self._plain(session, o)
                calm = quiet and not self._others_busy(session)
                for one in o.value:
                    model.cancelled(session.index, one.id, one.outcome, o.t0, o.t1, calm)
                return text
            return (lambda: client.cancel(chosen)), after_cancel
        if op in ("pause", "resume"):
            def after_pause(o: Outcome) -> str:
                text = self._plain(session, o)
                model.pause_call(op == "pause", o.value, o.t0, o.t1)
                return text
            return getattr(client, op), after_pause
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
                model.redriven(o.value.redriven, new, o.t1, o.t0)
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
        def work() -> None:
            try:
                with contextlib.suppress(RuntimeError):
                    tx.__exit__(RuntimeError, error, None)
            finally:
                self._reset_isolation(session)
        try:
            session.run_here(work)
        except TimeoutError as exc:
            raise Violation("hang", f"ROLLBACK: {exc}") from exc
        self.model.rollback(session.index, time.time())

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
        """On the session's thread: set the isolation level and enter client.transaction() (or the
        autocommit-off mode's transaction, ImplicitTransaction)."""
        client = session.client
        conn = client.connection
        if isolation == IMPLICIT:
            implicit = ImplicitTransaction(client, self.postgres)
            implicit.__enter__()
            session.tx = implicit
            return
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
            if rows and not in_tx and model.surely_paused(o.t0, o.t1):
                raise Violation("claim-while-paused", f"a claim at [{o.t0:.3f}, {o.t1:.3f}] returned jobs "
                                                      f"{[r['id'] for r in rows]} while the queue was paused")
            if quiet and len(rows) < batch and not self._others_busy(session) and not model.maybe_paused(o.t0, o.t1):
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
            if kind == "release":
                return client.release(token, id=job_id)
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
            elif kind == "release":
                model.released(s, token, job_id, o.value, o.t0, o.t1)
            else:
                model.extended(s, token, job_id, lease_seconds, o.t0, o.t1)
            return f"{kind} job {job_id} token {str(token)[:8]}: {o.value}"
        return work, after

