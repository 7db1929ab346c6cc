"""The reference model of one queue, which the model-based test holds the database to.

The state machine (per job; graphile-worker documents its job lifecycle the same way)
--------------------------------------------------------------------------------------

    enqueue (committed)            claim                      complete (the lease's token)
  ------------------->  READY  ----------->  LEASED(token)  --------------------------------> DONE
                         ^  ^                 |   |   |                                        |
       fail, retry=True  |  |  lease expired: |   |   | fail, retry=False, or attempts used up |
       (available again  |  |  reap releases  |   |   +----------------------------------> DEAD |
        after backoff)   |  |  (attempts kept)|   |  lease expired on the last attempt:    |   |
                         |  +-----------------+   |  reap, or the claim that would take     |   |
                         +------------------------+  it over, dead-letters it ------------->+   |
                                                  |                                        |   |
                         lease expired, attempts  |  a claim takes it over: LEASED(new      |   |
                         left (in-place queues):  +- token), attempts + 1; the old token    |   |
                                                     is fenced (complete/fail/extend: QG001)|   |
                                                                                           v   v
                                        redrive: a new job (new id, attempts 0) <-- DEAD   purge: gone
                                                                                  (older than retention)

Delete mode has READY and DONE only: a claim inside the caller's transaction deletes the rows (and
archives them with on_complete: archive); the caller's commit makes them DONE, its rollback puts them
back READY (at_most_once: DONE when the call returns).

What the model knows and when
-----------------------------
- Time is the client's clock (time.time(); the database is on the same host). Every call has a
  window [t0, t1] (sent, returned). A lease's expiry is known exactly from what the claim returned
  (lease_expires_at); an extend's is [t0 + L, t1 + L]; a backoff's availability is [base + b, t1 + b]
  with base the transaction's start (now()) for a call inside a caller's transaction, else t0.
  Where a decision depends on time (has this lease expired at the moment of that claim?), the model
  accepts both answers inside the window plus EPS, and nothing outside it.
- Transactions: a call inside a caller's transaction changes that session's overlay; COMMIT
  applies the overlay (rows the transaction changed are locked by it until then, so nobody else can
  have changed them meanwhile); ROLLBACK drops it, and the jobs it held are claimable again from
  that moment.
- Some transitions happen where no call reports which job they touched: reap and maintain release
  expired leases and dead-letter those on their last attempt, and so does a claim that meets an
  expired lease on its last attempt; purge and maintain remove finished jobs. After each step,
  when no call is in flight, `reconcile` reads the committed tables and accepts exactly these
  transitions for exactly these jobs (an expired lease; attempts used up; older than the cutoff of
  a purge that ran), and nothing else.

Invariants (each Violation names one)
-------------------------------------
- handed-out-twice: a claim returns a job whose lease, as its holder was told, is still live.
- finished-handed-out: a claim returns a job that is done or dead.
- expired-handed-out: a claim returns (or takes over) a job enqueued longer than expire_after before
  the claim's start; reap alone takes such a job away (last_error 'expired'), and only once no live
  lease holds it.
- early-lease / early-backoff: a claim's lease expires before t0 + lease_seconds; a job comes back
  before its backoff.
- attempts: a claim's attempts is one more than the claims the job has had (committed).
- exhausted-handed-out: a job taken over on its last attempt is handed out instead of dead-lettered.
- completed-twice / fenced-complete / fenced-fail: complete or fail succeeds with a token that does
  not hold the job.
- fail-outcome: fail says 'dead' or 'retry' against attempts / max_attempts / retry.
- dedupe: two queued jobs hold one key; a duplicate enqueue returns a job that does not hold it.
- state: the tables show a job anywhere else than the model allows (lost, resurrected, dead-lettered
  without a lease, archived twice, purged before its time).
- stranded: a claim that found fewer jobs than it asked for, with no other transaction open,
  left a job that was claimable for longer than the documented bound (watermark.rescan on a queue
  with a watermark or claim marks, else at once).
- lost (at the end): after every worker finished and the queue was drained, a job is neither done
  nor dead.
"""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass, field
from typing import Iterable, Optional

EPS = 0.25  # seconds of slack between the client's clock, the database's and a loaded scheduler
TAKEOVER_DEAD = "qgen: lease expired on the last attempt"
EXPIRED = "expired"  # reap's last_error for a job past expire_after


class Violation(AssertionError):
    def __init__(self, invariant: str, detail: str):
        super().__init__(f"[{invariant}] {detail}")
        self.invariant = invariant
        self.detail = detail


@dataclass(frozen=True)
class Facts:
    """What the model needs of the queue's spec."""

    lease: bool
    on_complete: str            # delete | mark | archive
    dead_letter: bool
    max_attempts: int
    backoff: tuple[int, int, int]   # base, factor, max (seconds)
    in_place: bool              # a claim takes over an expired lease itself (else only reap releases it)
    watermark: bool             # claims start at a watermark or claim marks: a passed job waits up to rescan
    rescan: int
    retention: int
    dedupe: bool
    expire_after: Optional[int] = None  # seconds from enqueue after which no claim hands a job out

    def expired_by(self, job: "Job", t: float) -> bool:
        """Could the job be past expire_after at time t (its enqueue time is known to a window)?"""
        return self.expire_after is not None and job.enq_lo + self.expire_after <= t + EPS

    def surely_expired(self, job: "Job", t: float) -> bool:
        """Was the job past expire_after at every moment from t on?"""
        return self.expire_after is not None and job.enq_hi + self.expire_after + EPS < t

    def backoff_after(self, attempts: int) -> float:
        base, factor, most = self.backoff
        return float(min(most, base * factor ** max(attempts - 1, 0)))


@dataclass
class Job:
    id: int
    n: int
    k: Optional[int] = None
    job_type: Optional[str] = None
    status: str = "ready"           # ready | leased | done | dead | gone (purged) | redriven
    attempts: int = 0
    token: Optional[uuid.UUID] = None
    lease_lo: float = 0.0
    lease_hi: float = 0.0
    avail_lo: float = 0.0
    avail_hi: float = 0.0
    since: float = 0.0              # when this state was committed (or the locks on it released)
    finished: tuple[float, float] = (0.0, 0.0)
    completions: int = 0
    lowered: bool = False           # attempts raised by the lower_attempts arrangement
    enq_lo: float = 0.0             # enqueued_at lies in [enq_lo, enq_hi] (expire_after counts from it)
    enq_hi: float = 0.0
    history: list = field(default_factory=list)

    def note(self, what: str) -> None:
        self.history.append(what)

    def holds_key(self) -> bool:
        return self.status in ("ready", "leased")


class TableChecks:
    """What the model holds the tables to between calls (reconcile, metrics), and at the end (final);
    the claims that came back short (stranded). A base of Model: it reads Model's jobs and facts."""

    facts: Facts
    jobs: dict[int, Job]
    purges: list[tuple[float, float, int]]

    def reconcile(self, queue_rows: dict[int, dict], dead_rows: list[dict], archive_ids: list[int], t: float) -> None:
        """Hold the committed tables to the model; accept the transitions no call reports."""
        dead: dict[int, dict] = {}
        for row in dead_rows:
            if row["id"] in dead:
                raise Violation("state", f"job {row['id']} is dead-lettered twice")
            dead[row["id"]] = row
        archived: set[int] = set()
        for job_id in archive_ids:
            if job_id in archived:
                raise Violation("completed-twice", f"job {job_id} is in the archive twice")
            archived.add(job_id)
        for job_id in set(queue_rows) | set(dead) | archived:
            if job_id not in self.jobs:
                where = "queue" if job_id in queue_rows else "dead letters" if job_id in dead else "archive"
                raise Violation("state", f"job {job_id} is in the {where}, but no committed call made it")
        for job in self.jobs.values():
            row = queue_rows.get(job.id)
            where = ("processed" if row is not None and row.get("processed") else
                     "queue" if row is not None else "dead" if job.id in dead else
                     "archive" if job.id in archived else "nowhere")
            self._reconcile_job(job, row, dead.get(job.id), where, t)

    def _reconcile_job(self, job: Job, row: Optional[dict], dead: Optional[dict], where: str, t: float) -> None:
        f = self.facts
        finished_at = {"mark": "processed", "archive": "archive", "delete": "nowhere"}[f.on_complete]

        def wrong(expected: str) -> Violation:
            seen = where + (f" (token {row.get('lease_token')}, attempts {row.get('attempts')})" if row else "")
            seen += f" (last_error {dead.get('last_error')!r}, attempts {dead.get('attempts')})" if dead else ""
            return Violation("state", f"job {job.id} (n={job.n}): the model has it {job.status}"
                                      f"{' under ' + str(job.token) if job.token else ''} (expected in {expected}), "
                                      f"the tables show it {seen}: " + "; ".join(job.history))

        if job.status in ("gone", "redriven"):
            if where != "nowhere":
                raise wrong("nowhere")
            return
        if job.status == "ready":
            if where == "queue" and row.get("lease_token") is None and row.get("attempts", 0) == job.attempts:
                return
            if where == "dead" and job.lowered and dead.get("last_error") != TAKEOVER_DEAD:
                job.status = "dead"
                return
            if self._expired_away(job, where, dead, t):
                return
            raise wrong("the queue, unleased")
        if job.status == "leased":
            if where == "queue" and row.get("lease_token") == job.token and row.get("attempts", 0) == job.attempts:
                return
            expired = job.lease_lo <= t + EPS
            if expired and where == "queue" and row.get("lease_token") is None and row.get("attempts", 0) == job.attempts:
                job.status, job.token, job.avail_lo, job.avail_hi, job.since = "ready", None, 0.0, t, t
                job.note(f"released (lease expired) by {t:.3f}")
                return
            if (expired and where == "dead" and job.attempts >= f.max_attempts
                    and dead.get("last_error") == TAKEOVER_DEAD and dead.get("attempts") == job.attempts):
                job.status, job.token, job.finished, job.since = "dead", None, (job.lease_lo, t), t
                job.note(f"dead-lettered (lease expired on the last attempt) by {t:.3f}")
                return
            if expired and self._expired_away(job, where, dead, t):
                return
            raise wrong("the queue under its token")
        if job.status == "done":
            if where == finished_at:
                return
            if where == "nowhere" and self._purge_allowed(job):
                job.status = "gone"
                return
            raise wrong(finished_at)
        if job.status == "dead":
            if where == "dead":
                if dead.get("attempts") != job.attempts:
                    raise Violation("attempts", f"job {job.id} is dead-lettered with attempts {dead.get('attempts')}; "
                                                f"the model counts {job.attempts}: " + "; ".join(job.history))
                return
            if where == "nowhere" and (self._purge_allowed(job) or not f.dead_letter):
                job.status = "gone"
                return
            raise wrong("dead letters")

    def _expired_away(self, job: Job, where: str, dead: Optional[dict], t: float) -> bool:
        """reap took the job away past expire_after (no live lease holds it: the caller checked a
        leased one's lease is over): into the dead letters with last_error 'expired' and its attempts,
        or, where the queue keeps none, nowhere."""
        f = self.facts
        if not f.expired_by(job, t):
            return False
        if f.dead_letter:
            if where != "dead" or dead.get("last_error") != EXPIRED or dead.get("attempts") != job.attempts:
                return False
        elif where != "nowhere":
            return False
        # reap took it at some moment after it could first be past expire_after, up to now: purge may
        # count its dead letter's age from then.
        moved_from = max(job.since, job.enq_lo + (f.expire_after or 0)) - EPS
        job.status, job.token, job.finished, job.since = ("dead" if f.dead_letter else "gone"), None, (moved_from, t), t
        job.note(f"expired away by reap by {t:.3f}")
        return True

    def _purge_allowed(self, job: Job) -> bool:
        return any(job.finished[0] <= p1 - older + EPS for p0, p1, older in self.purges)

    def metrics(self, row: dict) -> None:
        """metrics, called with nothing else open, counts what the model holds (reconciled after
        every step, so it is the tables' state)."""
        f = self.facts
        jobs = list(self.jobs.values())
        expected = {
            "ready+scheduled": sum(j.status == "ready" for j in jobs),
            "in_flight": sum(j.status == "leased" for j in jobs),
            "dead": sum(j.status == "dead" for j in jobs) if f.lease and f.dead_letter else 0,
            "archived": sum(j.status == "done" for j in jobs) if f.on_complete == "archive" else 0,
            "processed": sum(j.status == "done" for j in jobs) if f.on_complete == "mark" else 0,
        }
        seen = {"ready+scheduled": row["ready"] + row["scheduled"], "in_flight": row["in_flight"],
                "dead": row["dead"], "archived": row["archived"], "processed": row["processed"]}
        ready = [j.id for j in jobs if j.status == "ready"]
        if f.lease:
            expected["lowest_pending_id"] = min(ready, default=None)
            seen["lowest_pending_id"] = row["lowest_pending_id"]
        wrong = {k: (seen[k], expected[k]) for k in expected if seen[k] != expected[k]}
        if wrong:
            raise Violation("metrics", "metrics (seen, model): " + ", ".join(f"{k} {v}" for k, v in wrong.items()))

    def stranded(self, returned: Iterable[int], job_type: Optional[str], t0: float,
                 candidates: Optional[dict[int, Job]] = None) -> None:
        """A claim (autocommit, nothing else open) returned fewer jobs than it asked for: every job
        claimable for longer than the documented bound must have been among them."""
        f = self.facts
        bound = f.rescan if f.watermark else 0.0
        returned = set(returned)
        for job in (candidates or self.jobs).values():
            if job.id in returned or (job_type is not None and job.job_type != job_type):
                continue
            if f.expired_by(job, t0):  # past expire_after: no claim hands it out
                continue
            if job.status == "ready":
                since = max(job.since, job.avail_hi)
            elif job.status == "leased" and f.in_place and job.attempts < f.max_attempts:
                since = max(job.since, job.lease_hi)
            else:
                continue
            if t0 >= since + bound + EPS:
                raise Violation("stranded", f"a claim at {t0:.3f} came back short without job {job.id} ({job.status}), "
                                            f"claimable since {since:.3f} (bound {bound:g}s): " + "; ".join(job.history))

    def final(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for job in self.jobs.values():
            counts[job.status] = counts.get(job.status, 0) + 1
            if job.status in ("ready", "leased"):
                raise Violation("lost", f"job {job.id} (n={job.n}) is still {job.status} after the queue was drained: "
                                        + "; ".join(job.history))
            if job.completions > 1:
                raise Violation("completed-twice", f"job {job.id} completed {job.completions} times")
        done_n: dict[int, int] = {}
        for job in self.jobs.values():
            if job.completions:
                done_n[job.n] = done_n.get(job.n, 0) + job.completions
        twice = [n for n, c in done_n.items() if c > 1]
        if twice:
            raise Violation("completed-twice", f"logical jobs completed more than once: n={twice[:10]}")
        return counts


class Model(TableChecks):
    def __init__(self, facts: Facts):
        self.facts = facts
        self.jobs: dict[int, Job] = {}                  # committed
        self.overlays: dict[int, dict[int, Job]] = {}   # session -> jobs its open transaction changed
        self.tx_start: dict[int, float] = {}
        self.purges: list[tuple[float, float, int]] = []  # (t0, t1, older_than_seconds)
        self.pauses: list[tuple[float, float, bool]] = []  # pause/resume calls: (t0, t1, paused after it)

    def snapshot(self) -> tuple:
        return copy.deepcopy((self.jobs, self.overlays, self.tx_start, self.purges, self.pauses))

    def restore(self, saved: tuple) -> None:
        self.jobs, self.overlays, self.tx_start, self.purges, self.pauses = copy.deepcopy(saved)

    # ------------------------------------------------------------------------------------------
    # Cancel (issue 29): one outcome per id; the job leaves the queue at some moment within [t0, t1].

    def cancelled(self, session: Optional[int], job_id: int, outcome: str, t0: float, t1: float, quiet: bool) -> None:
        """cancel said `outcome` of job_id. quiet: nothing else was open or in flight, so the model's
        view is the tables' and the outcome must be exactly what it holds."""
        job = self._copy(session, job_id)
        status = job.status if job is not None else "unknown"
        if outcome in ("cancelled", "cancelled_in_flight"):
            if job is None or status not in ("ready", "leased"):
                raise Violation("cancel", f"cancel said {outcome} of job {job_id}, which the model has {status}"
                                + ("" if job is None else ": " + "; ".join(job.history)))
            if quiet and (status == "leased") != (outcome == "cancelled_in_flight"):
                raise Violation("cancel", f"cancel said {outcome} of job {job_id}, which the model has {status}: "
                                + "; ".join(job.history))
            job.status = "dead" if self.facts.dead_letter else "gone"
            job.token, job.finished, job.since = None, (self._now(session, t0), t1), t1
            job.note(f"cancelled ({outcome}) by s{session} [{t0:.3f}, {t1:.3f}]")
            self._put(session, job, t1)
            return
        if outcome == "not_queued" and quiet and status in ("ready", "leased"):
            raise Violation("cancel", f"cancel said not_queued of job {job_id}, which the model has {status}: "
                            + "; ".join(job.history if job else []))
        if outcome == "held" and self.facts.lease:
            raise Violation("cancel", f"cancel said held of job {job_id} on a lease queue, whose cancel waits instead")

    # ------------------------------------------------------------------------------------------
    # Pause and resume (issue 29): each call commits at some moment within its [t0, t1].

    def _paused_at(self, t: float) -> Optional[bool]:
        """Whether the queue was paused at t: None when a pause or resume was in flight then."""
        if any(t0 - EPS <= t <= t1 + EPS for t0, t1, _ in self.pauses):
            return None
        before = [(t1, paused) for _, t1, paused in self.pauses if t1 < t]
        return max(before)[1] if before else False

    def surely_paused(self, t0: float, t1: float) -> bool:
        """Paused from before t0 to after t1, no pause or resume in flight meanwhile."""
        return self._paused_at(t0) is True and not any(p0 < t1 + EPS and p1 > t0 - EPS for p0, p1, _ in self.pauses)

    def maybe_paused(self, t0: float, t1: float) -> bool:
        return self._paused_at(t0) is not False or any(p0 < t1 + EPS and p1 > t0 - EPS for p0, p1, _ in self.pauses)

    def pause_call(self, paused: bool, changed: bool, t0: float, t1: float) -> None:
        """pause (paused True) or resume returned changed: it must say whether it changed the state."""
        before = self._paused_at(t0)
        alone = not any(p0 < t1 + EPS and p1 > t0 - EPS for p0, p1, _ in self.pauses)
        if before is not None and alone and changed != (before != paused):
            raise Violation("pause-idempotent", f"{'pause' if paused else 'resume'} at [{t0:.3f}, {t1:.3f}] returned "
                                                f"{changed} on a queue that was {'paused' if before else 'running'}")
        self.pauses.append((t0, t1, paused))

    # ------------------------------------------------------------------------------------------
    # Views

    def view(self, session: Optional[int], job_id: int) -> Optional[Job]:
        overlay = self.overlays.get(session) if session is not None else None
        if overlay is not None and job_id in overlay:
            return overlay[job_id]
        return self.jobs.get(job_id)

    def visible(self, session: Optional[int]) -> dict[int, Job]:
        merged = dict(self.jobs)
        if session is not None and session in self.overlays:
            merged.update(self.overlays[session])
        return merged

    def locked_ids(self, except_session: Optional[int] = None) -> set[int]:
        return {i for s, o in self.overlays.items() if s != except_session for i in o}

    def _put(self, session: Optional[int], job: Job, t: float) -> None:
        if session is not None and session in self.overlays:
            self.overlays[session][job.id] = job
        else:
            job.since = t
            self.jobs[job.id] = job

    def _copy(self, session: Optional[int], job_id: int) -> Optional[Job]:
        job = self.view(session, job_id)
        return copy.deepcopy(job) if job is not None else None

    def current_leases(self, session: Optional[int]) -> dict[uuid.UUID, list[int]]:
        leases: dict[uuid.UUID, list[int]] = {}
        for job in self.visible(session).values():
            if job.status == "leased" and job.token is not None:
                leases.setdefault(job.token, []).append(job.id)
        return leases

    # ------------------------------------------------------------------------------------------
    # Transactions

    def begin(self, session: int, t: float) -> None:
        self.overlays[session] = {}
        self.tx_start[session] = t

    def in_tx(self, session: Optional[int]) -> bool:
        return session is not None and session in self.overlays

    def commit(self, session: int, t: float) -> None:
        for job in self.overlays.pop(session, {}).values():
            job.since = t
            if job.status in ("done", "dead"):
                job.finished = (job.finished[0], t)
            self.jobs[job.id] = job
        self.tx_start.pop(session, None)

    def rollback(self, session: int, t: float) -> None:
        for job_id in self.overlays.pop(session, {}):
            if job_id in self.jobs:
                self.jobs[job_id].since = max(self.jobs[job_id].since, t)
        self.tx_start.pop(session, None)

    # ------------------------------------------------------------------------------------------
    # Calls that returned

    def enqueued(self, session: Optional[int], job_id: int, enqueued: bool, n: int, k: Optional[int],
                 job_type: Optional[str], t0: float, t1: float) -> None:
        if enqueued:
            if any(job_id in o for o in self.overlays.values()) or job_id in self.jobs:
                raise Violation("state", f"enqueue of n={n} returned id {job_id}, which another job already has")
            if k is not None:
                for other in self.visible(session).values():
                    if other.k == k and other.holds_key() and not self._may_have_left(other, t1):
                        raise Violation("dedupe", f"enqueue of n={n} queued a second job {job_id} with key k={k} "
                                                  f"while job {other.id} ({other.status}) holds it")
            job = Job(job_id, n, k, job_type, avail_lo=t0 - EPS, avail_hi=t1 + EPS,
                      enq_lo=self._now(session, t0), enq_hi=t1)
            job.note(f"enqueued [{t0:.3f}, {t1:.3f}]")
            self._put(session, job, t1)
            return
        existing = self.view(session, job_id)
        # The key's holder may have finished while this call ran (the call saw it before)
        held = existing is not None and (existing.holds_key() or existing.since >= t0 - EPS)
        if existing is None or existing.k != k or not held:
            raise Violation("dedupe", f"a duplicate enqueue (n={n}, k={k}) returned job {job_id}, which the model has as "
                                      f"{'unknown' if existing is None else f'{existing.status} with k={existing.k}'}")

    def _now(self, session: Optional[int], t0: float) -> float:
        """The earliest now() a call may have used: its transaction's start inside one (PostgreSQL
        stamps completed_at, dead_at and the archive's rows with the transaction's time)."""
        return min(t0, self.tx_start.get(session, t0)) if self.in_tx(session) else t0

    def _may_have_left(self, job: Job, t: float) -> bool:
        """Could a transition no call reports (reap, a claim's dead-lettering) have finished it by t?"""
        if job.status in ("ready", "leased") and self.facts.expired_by(job, t) and (
                job.status == "ready" or job.lease_lo <= t + EPS):
            return True  # past expire_after: reap may have taken it away
        return (job.status == "leased" and job.lease_lo <= t + EPS
                and job.attempts >= self.facts.max_attempts)

    def claimed(self, session: Optional[int], rows: list[dict], lease_seconds: Optional[int], t0: float,
                t1: float) -> None:
        """rows: id, attempts, lease_token, lease_expires_at (epoch seconds) for lease mode."""
        f = self.facts
        for row in rows:
            job = self._copy(session, row["id"])
            if job is None:
                raise Violation("state", f"a claim returned job {row['id']}, which no committed enqueue made")
            if job.status in ("done", "dead", "gone", "redriven"):
                raise Violation("finished-handed-out", f"a claim returned job {job.id}, which is {job.status}: "
                                                       f"{'; '.join(job.history)}")
            if not f.lease:
                if job.status != "ready":
                    raise Violation("handed-out-twice", f"delete-mode claim returned job {job.id} ({job.status})")
                job.status, job.finished = "done", (self._now(session, t0), t1)
                job.completions += 1
                job.note(f"claimed and deleted [{t0:.3f}, {t1:.3f}] by s{session}")
                self._put(session, job, t1)
                continue
            if f.lease and f.surely_expired(job, self._now(session, t0)):
                raise Violation("expired-handed-out", f"a claim at [{t0:.3f}, {t1:.3f}] returned job {job.id}, enqueued by "
                                                      f"{job.enq_hi:.3f}, past expire_after ({f.expire_after}s): "
                                                      + "; ".join(job.history))
            if job.status == "ready" and job.avail_lo > t1 + EPS:
                raise Violation("early-backoff", f"a claim at [{t0:.3f}, {t1:.3f}] returned job {job.id}, not available "
                                                 f"before {job.avail_lo:.3f}: {'; '.join(job.history)}")
            if job.status == "leased":
                if job.lease_lo > t1 + EPS:
                    raise Violation("handed-out-twice", f"a claim at [{t0:.3f}, {t1:.3f}] took over job {job.id} whose "
                                                        f"lease {job.token} runs until {job.lease_lo:.3f}: it runs twice; "
                                                        + "; ".join(job.history))
                if job.attempts >= f.max_attempts:
                    raise Violation("exhausted-handed-out", f"job {job.id} was taken over on its last attempt "
                                                            f"({job.attempts}/{f.max_attempts}) and handed out again")
            if row["attempts"] != job.attempts + 1:
                raise Violation("attempts", f"a claim returned job {job.id} with attempts {row['attempts']}; the model "
                                            f"counts {job.attempts} claims before this one: {'; '.join(job.history)}")
            expires = row["lease_expires_at"]
            if lease_seconds is not None and expires < t0 + lease_seconds - EPS:
                start = self.tx_start.get(session)
                raise Violation("early-lease", f"a claim sent at {t0:.3f} with lease_seconds={lease_seconds} returned "
                                               f"job {job.id} with a lease ending at {expires:.3f}, "
                                               f"{t0 + lease_seconds - expires:.2f}s short"
                                               + (f" (its transaction began at {start:.3f})" if start else ""))
            job.status, job.token, job.attempts = "leased", row["lease_token"], row["attempts"]
            job.lease_lo, job.lease_hi = expires - EPS, expires + EPS
            job.note(f"claimed by s{session} [{t0:.3f}, {t1:.3f}] token {str(job.token)[:8]} until {expires:.3f} "
                     f"attempt {job.attempts}")
            self._put(session, job, t1)

    def _held(self, session: Optional[int], token: uuid.UUID, job_id: int, what: str, t1: float) -> Job:
        job = self._copy(session, job_id)
        if job is None:
            raise Violation("state", f"{what} with token {token} succeeded on job {job_id}, unknown to the model")
        if job.status != "leased" or job.token != token:
            invariant = "completed-twice" if job.status == "done" else f"fenced-{what}"
            raise Violation(invariant, f"{what} of job {job.id} with token {token} succeeded at {t1:.3f}, but the job is "
                                       f"{job.status}" + (f" under token {job.token}" if job.token else "")
                                       + ": " + "; ".join(job.history))
        return job

    def lease_lost_allowed(self, session: Optional[int], token: uuid.UUID, job_id: int, what: str, t1: float) -> None:
        job = self.view(session, job_id)
        if job is None or job.status != "leased" or job.token != token:
            return
        if job.lease_lo <= t1 + EPS:
            return  # expired: reap or a takeover may have ended it; reconcile will see which
        raise Violation(f"refused-{what}", f"{what} of job {job_id} got LeaseLost at {t1:.3f} while token {token} "
                                           f"holds it until {job.lease_lo:.3f}: " + "; ".join(job.history))

    def completed(self, session: Optional[int], token: uuid.UUID, job_id: int, t0: float, t1: float) -> None:
        job = self._held(session, token, job_id, "complete", t1)
        job.status, job.token, job.finished = "done", None, (self._now(session, t0), t1)
        job.completions += 1
        job.note(f"completed by s{session} [{t0:.3f}, {t1:.3f}]")
        self._put(session, job, t1)

    def failed(self, session: Optional[int], token: uuid.UUID, job_id: int, retry: bool, outcome: str, t0: float,
               t1: float) -> None:
        f = self.facts
        job = self._held(session, token, job_id, "fail", t1)
        expected = "dead" if (not retry or job.attempts >= f.max_attempts) else "retry"
        if outcome != expected:
            raise Violation("fail-outcome", f"fail(retry={retry}) of job {job.id} on attempt {job.attempts} of "
                                            f"{f.max_attempts} returned {outcome!r}, expected {expected!r}")
        job.token = None
        if outcome == "dead":
            job.status, job.finished = ("dead" if f.dead_letter else "gone"), (self._now(session, t0), t1)
            job.note(f"failed to dead by s{session} [{t0:.3f}, {t1:.3f}]")
        else:
            delay = f.backoff_after(job.attempts)
            base = self.tx_start.get(session, t0) if self.in_tx(session) else t0
            job.status, job.avail_lo, job.avail_hi = "ready", base + delay - EPS, t1 + delay + EPS
            job.note(f"failed to retry by s{session} [{t0:.3f}, {t1:.3f}], back at [{job.avail_lo:.3f}, {job.avail_hi:.3f}]")
        self._put(session, job, t1)

    def released(self, session: Optional[int], token: uuid.UUID, job_id: int, count: int, t0: float,
                 t1: float) -> None:
        """release: the job is ready again at once, its claim not counted as an attempt."""
        job = self._held(session, token, job_id, "release", t1)
        if count != 1:
            raise Violation("release-count", f"release of job {job.id} returned {count}, expected 1")
        base = self.tx_start.get(session, t0) if self.in_tx(session) else t0
        job.status, job.token, job.attempts = "ready", None, max(job.attempts - 1, 0)
        job.avail_lo, job.avail_hi = base - EPS, t1 + EPS
        job.note(f"released by s{session} [{t0:.3f}, {t1:.3f}], attempts back to {job.attempts}")
        self._put(session, job, t1)

    def extended(self, session: Optional[int], token: uuid.UUID, job_id: int, lease_seconds: int, t0: float,
                 t1: float) -> None:
        job = self._held(session, token, job_id, "extend", t1)
        job.lease_lo, job.lease_hi = t0 + lease_seconds - EPS, t1 + lease_seconds + EPS
        job.note(f"extended by s{session} [{t0:.3f}, {t1:.3f}] by {lease_seconds}s")
        self._put(session, job, t1)

    def redriven(self, redriven: int, new_rows: list[tuple[int, int]], t1: float, t0: float = 0.0) -> None:
        """new_rows: (new id, n) of the jobs the redrive put back."""
        if redriven != len(new_rows):
            raise Violation("state", f"redrive reported {redriven} redriven, the queue shows {len(new_rows)} new jobs")
        for new_id, n in new_rows:
            old = [j for j in self.jobs.values() if j.n == n and j.status == "dead"]
            if len(old) != 1:
                raise Violation("state", f"redrive brought back n={n} as job {new_id}; the model has "
                                         f"{len(old)} dead jobs with that n")
            old[0].status = "redriven"
            old[0].note(f"redriven as {new_id} at {t1:.3f}")
            job = Job(new_id, n, old[0].k, old[0].job_type, avail_lo=0.0, avail_hi=t1 + EPS, enq_lo=t0, enq_hi=t1)
            job.note(f"redriven from {old[0].id} at {t1:.3f}")
            self._put(None, job, t1)

    def aged(self, job_id: int, seconds: int, t: float) -> None:
        """The age arrangement moved the job's enqueued_at and available_at back by seconds."""
        job = self.jobs[job_id]
        job.enq_lo, job.enq_hi = job.enq_lo - seconds, job.enq_hi - seconds
        job.avail_lo, job.avail_hi = job.avail_lo - seconds, job.avail_hi - seconds
        job.note(f"enqueued {seconds}s earlier (the age arrangement) at {t:.3f}")

    def lowered(self, job_id: int, attempts: int, t: float) -> None:
        job = self.jobs[job_id]
        job.attempts, job.lowered = attempts, True
        job.note(f"attempts raised to {attempts} (a lowered max_attempts) at {t:.3f}")

    def purged(self, t0: float, t1: float, older_than: int) -> None:
        self.purges.append((t0, t1, older_than))






