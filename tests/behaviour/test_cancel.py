"""cancel (issue 29): a job that should not run leaves the queue at once, whatever it is doing: waiting,
delayed, backing off, or leased (then its worker is fenced off by the token: nothing it does commits
with the job). One outcome per id; a delete-mode claim's open transaction is never waited for; nothing
is completed twice or lost, also when cancels race claims and completions."""

from __future__ import annotations

import datetime as dt
import random
import threading
import time

import pytest

from qgen.client import Cancelled, LeaseLost, QueueUsageError
from qgen.spec.contract import CANCEL_OUTCOMES
from tests.behaviour.helpers import BEHAVE, EX002, FEAT, assert_denied, call_sql


def dead(env, queue: str) -> dict[int, tuple[str, int]]:
    rows = env.sql(f"SELECT {env.col('id')}, {env.col('last_error')}, {env.col('attempts')} "
                   f"FROM {env.name(queue, 'dead_letter_table')}")
    return {int(i): (e, int(a)) for i, e, a in rows}


def ids_in(env, queue: str) -> set[int]:
    return {int(r[0]) for r in env.sql(f"SELECT {env.col('id')} FROM {env.name(queue)}")}


def test_cancel_takes_waiting_delayed_backing_off_and_leased_jobs_out_and_says_what_it_did(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    waiting, delayed, backing, leased, done = (
        jobs.enqueue(job_type="t", customer_id=n, amount=1, **extra).id
        for n, extra in enumerate([{}, {"run_at": dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)}, {}, {}, {}]))
    first = {j.id: j for j in jobs.dequeue(batch_size=3)}       # waiting, backing and leased by id order
    assert set(first) == {waiting, backing, leased}
    jobs.fail(first[backing], "boom")                           # backing off now (1 s, then 3 s ...)
    jobs.release(first[waiting])                                # waiting again
    done_job, = jobs.dequeue(batch_size=1)
    assert done_job.id == waiting
    jobs.complete(done_job, summary_text="ok")                  # archived: finished
    got = jobs.cancel([leased, delayed, backing, waiting, 10**9, leased])
    assert got == [Cancelled(waiting, "not_queued"), Cancelled(delayed, "cancelled"), Cancelled(backing, "cancelled"),
                   Cancelled(leased, "cancelled_in_flight"), Cancelled(10**9, "not_queued")], got
    assert {o for _, o in got} <= set(CANCEL_OUTCOMES)
    assert {i: e for i, (e, _) in dead(env, "jobs").items()} == dict.fromkeys((delayed, backing, leased), "cancelled")
    assert dead(env, "jobs")[backing][1] == 1, "attempts are kept"
    holder = first[leased]
    for call in (lambda: jobs.complete(holder, summary_text="late"), lambda: jobs.fail(holder, "late"),
                 lambda: jobs.extend_lease(holder), lambda: jobs.release(holder)):
        with pytest.raises(LeaseLost):
            call()
    assert ids_in(env, "jobs") == {done}, "only the job no one touched is still queued"
    assert jobs.cancel([leased]) == [Cancelled(leased, "not_queued")], "a second cancel finds nothing"
    assert jobs.metrics()["in_flight"] == 0


def test_a_queue_without_dead_letters_deletes_what_it_cancels(use_spec):
    env = use_spec(FEAT)
    urgent = env.client("urgent")
    a, b = urgent.enqueue(task="a").id, urgent.enqueue(task="b").id
    held, = urgent.dequeue(batch_size=1)
    assert urgent.cancel([a, b]) == [Cancelled(a, "cancelled_in_flight"), Cancelled(b, "cancelled")]
    assert ids_in(env, "urgent") == set()
    with pytest.raises(LeaseLost):
        urgent.complete(held)


def test_a_processed_job_is_not_queued(use_spec):
    env = use_spec(BEHAVE)
    marked = env.client("once_marked")
    job_id = marked.enqueue(code="A").id
    job, = marked.dequeue()
    marked.complete(job)
    assert marked.cancel([job_id]) == [Cancelled(job_id, "not_queued")]
    assert ids_in(env, "once_marked") == {job_id}, "the processed row stays, as mark keeps it"


# A delete queue without dead letters, and example 002's (dedupe ever: its claims keep duplicates back
# into dead letters), with the payload of job n.
DELETE_QUEUES = {"busyd": (BEHAVE, lambda n: {"n": n}),
                 "card_codes": (EX002, lambda n: {"card_number": f"CARD-{n:06d}", "card_secret": "s"})}


@pytest.mark.babelfish_gap("B10", "whether cancel waits on a claim's open transaction is SQL Server's locking (READPAST, LOCK_TIMEOUT 0)")
@pytest.mark.parametrize("queue", list(DELETE_QUEUES))
def test_a_delete_mode_claim_in_an_open_transaction_is_never_waited_for(use_spec, queue):
    spec, payload = DELETE_QUEUES[queue]
    env = use_spec(spec)
    claimer, canceller = env.client(queue), env.client(queue)
    job_id = claimer.enqueue(**payload(1)).id
    outcome: list = []
    with claimer.transaction():
        claimed, = claimer.dequeue(batch_size=1)
        thread = threading.Thread(target=lambda: outcome.append(canceller.cancel([job_id])))
        thread.start()
        thread.join(20)
        assert not thread.is_alive(), "cancel waited on a claim's open transaction"
        assert outcome[0] == [Cancelled(job_id, "held")]
    # the claim committed (it is the claimer's job now): a cancel finds nothing
    assert canceller.cancel([job_id]) == [Cancelled(job_id, "not_queued")]
    again = claimer.enqueue(**payload(2)).id
    with pytest.raises(RuntimeError):
        with claimer.transaction():
            claimer.dequeue(batch_size=1)
            raise RuntimeError("the buyer's payment failed")
    assert canceller.cancel([again]) == [Cancelled(again, "cancelled")], "rolled back: queued again, and cancelled"
    if env.spec.queues[queue].claim == "delete" and (env.spec.queues[queue].dedupe is not None):
        assert dead(env, queue)[again] == ("cancelled", 0)


def test_cancel_refuses_what_it_cannot_take(use_spec):
    env = use_spec(BEHAVE)
    client = env.client("wm")
    for bad in ([], "3,7", None):
        with pytest.raises(QueueUsageError, match="ids must be a non-empty list"):
            client.cancel(bad)  # type: ignore[arg-type]
    most = client._shape.limits.maintenance_max                # 4000; on SQL Server less for a wide queue
    too_many = list(range(1, most + 2))
    ids = "[" + ", ".join(map(str, too_many)) + "]" if env.dialect == "mssql" else "ARRAY[" + ", ".join(map(str, too_many)) + "]::bigint[]"
    conn = env.connect(autocommit=True)
    with pytest.raises(Exception, match=f"more than {most} jobs"):
        conn.cursor().execute(call_sql(env, "wm", "cancel", f"@ids = N'{ids}'" if env.dialect == "mssql" else ids))
    assert [c.outcome for c in client.cancel(too_many)] == ["not_queued"] * len(too_many), "the client splits"


def test_only_the_admin_role_may_cancel(use_spec):
    env = use_spec(BEHAVE)
    job_id = env.client("wm").enqueue(n=1).id
    args = f"@ids = N'[{job_id}]'" if env.dialect == "mssql" else f"ARRAY[{job_id}]::bigint[]"
    for role in ("consumer", "producer"):
        with env.login(role) as login:
            assert_denied(env, env.connect(login=login), call_sql(env, "wm", "cancel", args))
    with env.login("admin") as admin:
        assert env.client("wm", login=admin).cancel([job_id]) == [Cancelled(job_id, "cancelled")]


def test_cancels_racing_claims_and_completions_lose_nothing_and_finish_nothing_twice(use_spec):
    env = use_spec(BEHAVE)
    queue = "kept"                                             # lease, archive on completion, dead letters
    all_ids = [r.id for r in env.client(queue).enqueue_many([{"n": n} for n in range(300)])]
    stop, completed, cancelled, errors = threading.Event(), [], {}, []

    def work() -> None:
        client = env.client(queue)
        try:
            while not stop.is_set():
                batch = client.dequeue(batch_size=5, lease_seconds=60)
                if not batch:
                    return
                for job in batch:
                    try:
                        client.complete(job)
                        completed.append(job.id)
                    except LeaseLost:
                        pass
        except Exception as exc:  # noqa: BLE001 - the test reports it
            errors.append(exc)

    def cancel() -> None:
        client, rng = env.client(queue), random.Random(7)
        try:
            for _ in range(30):
                for c in client.cancel(rng.sample(all_ids, 8)):
                    if c.outcome.startswith("cancelled"):
                        assert c.id not in cancelled, f"job {c.id} cancelled twice"
                        cancelled[c.id] = c.outcome
                time.sleep(0.005)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(2)] + [threading.Thread(target=cancel)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    stop.set()
    assert not errors, errors
    assert not set(completed) & set(cancelled), "a job was both completed and cancelled"
    archived = {int(r[0]) for r in env.sql(f"SELECT {env.col('id')} FROM {env.name(queue, 'archive_table')}")}
    assert archived == set(completed)
    assert set(dead(env, queue)) == set(cancelled)
    assert archived | set(cancelled) | ids_in(env, queue) == set(all_ids), "every job is somewhere"
    assert len(archived) + len(cancelled) + len(ids_in(env, queue)) == len(all_ids), "and in one place"


def test_the_worker_learns_of_a_cancel_skips_the_job_and_lets_its_handler_see_it(use_spec):
    """run_worker's heartbeat (every lease/3 s) extends fewer jobs than the batch holds, asks job by job,
    and extend_lease says JobCancelled for those cancel took: a handler still running sees
    job.cancelled, a job of the batch not started yet is skipped, and neither counts as a lost lease."""
    from qgen.client import run_worker

    env = use_spec(BEHAVE)
    ids = [r.id for r in env.client("kept").enqueue_many([{"n": n} for n in range(3)])]
    admin, seen = env.client("kept"), {}

    def handler(job) -> None:
        if job.id == ids[0]:
            assert [c.outcome for c in admin.cancel([ids[0], ids[2]])] == ["cancelled_in_flight"] * 2
            give_up = time.monotonic() + 15
            while not job.cancelled.is_set() and time.monotonic() < give_up:
                time.sleep(0.05)
        seen[job.id] = job.cancelled.is_set()

    outcomes: dict[int, str] = {}
    stats = run_worker(env.client("kept"), handler, batch_size=3, lease_seconds=3, maintain_every=None,
                       on_done=lambda job, outcome: outcomes.__setitem__(job.id, outcome))
    assert seen == {ids[0]: True, ids[1]: False}, "the cancelled job's handler saw it; the third never ran"
    assert outcomes == {ids[0]: "cancelled", ids[1]: "completed", ids[2]: "cancelled"}, outcomes
    assert (stats.cancelled, stats.processed, stats.lease_lost) == (2, 1, 0), stats
    assert set(dead(env, "kept")) == {ids[0], ids[2]}


def test_cancels_racing_reap_and_takeover_of_expired_leases_leave_each_job_in_one_place(use_spec):
    """Issue 29 item 6: cancel racing reap (and, on PostgreSQL's in-place queues, the claim that takes an
    expired lease over): a job is either cancelled (a dead letter saying so) or released and claimed
    again, never both, and none is lost."""
    env = use_spec(BEHAVE)
    queue = "wm"                                               # lease, watermark: PostgreSQL claims in place
    client = env.client(queue)
    all_ids = [r.id for r in client.enqueue_many([{"n": n} for n in range(60)])]
    held = client.dequeue(batch_size=5, lease_seconds=60) + client.dequeue(batch_size=5, lease_seconds=60)
    env.backdate(queue, "lease_expires_at", 3600, ids=[j.id for j in held])
    cancelled: dict[int, str] = {}
    claimed: list[int] = []
    refused: list[int] = []                                    # claimed again, then cancelled in flight
    errors: list[BaseException] = []

    def cancel() -> None:
        try:
            for c in env.client(queue).cancel([j.id for j in held] + all_ids[20:30]):
                if c.outcome.startswith("cancelled"):
                    cancelled[c.id] = c.outcome
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def reap_and_claim() -> None:
        try:
            other = env.client(queue)
            other.reap()
            while batch := other.dequeue(batch_size=5, lease_seconds=60):
                for job in batch:
                    try:
                        other.complete(job)
                    except LeaseLost:                          # the token fence: cancel took it while held
                        refused.append(job.id)
                    else:
                        claimed.append(job.id)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=cancel), threading.Thread(target=reap_and_claim)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert not set(cancelled) & set(claimed), "a job both cancelled and completed"
    assert all(cancelled.get(i) == "cancelled_in_flight" for i in refused), (refused, cancelled)
    assert set(dead(env, queue)) == set(cancelled)
    assert set(cancelled) | set(claimed) | ids_in(env, queue) == set(all_ids)
    assert all(e == "cancelled" for e, _ in dead(env, queue).values())
