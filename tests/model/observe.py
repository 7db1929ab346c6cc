"""What the scheduler reads from the database between steps: the committed tables (held to the
model), what a blocked call waits on (pg_locks), and what one claim costs (EXPLAIN ANALYZE BUFFERS).
A mixin of tests/model/runner.py's Runner."""

from __future__ import annotations

import contextlib
import time
import uuid

from tests.model.model import Violation

WAIT_BOUND = 0.4       # a call in flight this long is looked up: what it waits on (may be a violation)
# Most shared buffers one measured claim of up to 5 jobs may touch: a constant, plus two for each
# job still in the queue (docs/api.md: an in-place claim steps over the jobs in flight and in
# backoff). Finished jobs behind the queue (the prefill, the archive, purged rows) add nothing.
CLAIM_BUFFERS = 100
CLAIM_BUFFERS_PER_QUEUED = 2


class Observer:
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
            if watermark and step.op in ("fail", "reap", "maintain", "complete", "extend", "fenced_fail", "release",
                                         "fenced_complete"):
                raise Violation("watermark-wait", text + " (no worker call may wait on the "
                                                         "watermark row)")

    def _sample_claim(self) -> None:
        """One claim measured and rolled back: shared buffers touched (hit + read)."""
        import psycopg

        if self._probe is None:
            self._probe = psycopg.connect(self.env.backend.url, autocommit=False)
        name = self.env.name(self.queue, "dequeue")
        queued = sum(j.status in ("ready", "leased") for j in self.model.jobs.values())
        bound = CLAIM_BUFFERS + CLAIM_BUFFERS_PER_QUEUED * queued
        measured: list[int] = []
        # Each rolled back. The first call (re)plans the function's statements when its cached
        # plans were invalidated (an autovacuum ANALYZE); a claim over the bound is measured once
        # more, and a cost that does not stay (a replan, a cache reload) is not the claim's.
        for attempt in range(3):
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
            if attempt:
                measured.append(int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0)))
                if measured[-1] <= bound:
                    break
        buffers = min(measured)
        self.report.claim_buffers.append(buffers)
        holder = self._horizon_holder()
        if holder is not None:
            # docs/api.md, "Claim cost", a held snapshot: what claims leave behind stays for every
            # claim to walk while a transaction of the schedule pins the xmin horizon (a REPEATABLE
            # READ caller, or any that wrote): not bounded yet. Recorded, not judged.
            self.report.log.append(f"     claim of 5: {buffers} shared buffers, not judged: {holder} holds the "
                                   "xmin horizon")
            return
        if buffers > bound:
            raise Violation("claim-cost", f"a claim of 5 touched {buffers} shared buffers (bound {bound}: "
                                          f"{CLAIM_BUFFERS} + {CLAIM_BUFFERS_PER_QUEUED} x {queued} jobs queued); "
                                          f"samples so far: {self.report.claim_buffers}")

    def _horizon_holder(self) -> "str | None":
        """A session of the schedule whose open transaction pins the xmin horizon (a snapshot, or an
        xid of its own), or None."""
        pids = [s.pid for s in self.sessions if s.pid is not None]
        rows = self.env.sql("SELECT pid FROM pg_stat_activity WHERE pid = ANY (?) AND "
                            "(backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)", pids)
        held = {r[0] for r in rows}
        return next((f"s{s.index}" for s in self.sessions if s.pid in held), None)

    def _log_sessions(self) -> None:
        """What each session's backend is doing when a violation is found (PostgreSQL)."""
        if not self.postgres:
            return
        with contextlib.suppress(Exception):
            for session in self.sessions:
                rows = self.env.sql("SELECT state, xact_start, backend_xid, wait_event_type, wait_event, "
                                    "left(query, 80) FROM pg_stat_activity WHERE pid = ?", session.pid)
                self.report.log.append(f"     s{session.index} (pid {session.pid}, tx {session.tx is not None}): {rows}")

