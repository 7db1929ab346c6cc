"""dedupe.scope: `queued` refuses a key while a job with it is pending or in flight; `ever` also
while a finished job with it is kept (archive, dead letters, processed rows), until purge removes
it. Example 002's card codes: a sold code is archived, and re-importing it must not queue it again."""

from __future__ import annotations

import threading
import time

import pytest

from qgen.client import DuplicateJob
from tests.behaviour.helpers import BEHAVE, EX002


def sell(codes) -> list[int]:
    with codes.transaction():
        return [job.id for job in codes.dequeue(batch_size=10)]


def test_a_sold_card_code_is_never_queued_again(use_spec):
    env = use_spec(EX002)
    codes = env.client("card_codes")
    a = codes.enqueue(card_number="4000-1", card_secret="s1")
    assert sell(codes) == [a.id]
    assert codes.enqueue(card_number="4000-1", card_secret="again") == (a.id, False), "archived: still taken"
    again, new = codes.enqueue_many([{"card_number": "4000-1", "card_secret": "x"},
                                     {"card_number": "4000-2", "card_secret": "y"}])
    assert (again.id, again.enqueued) == (a.id, False)
    assert new.enqueued
    assert sell(codes) == [new.id], "the sold code was not queued again, so it is not sold twice"

    # a buyer that rolls back puts the code back: it is queued, and still taken
    b = codes.enqueue(card_number="4000-3", card_secret="z")
    with pytest.raises(RuntimeError):
        with codes.transaction():
            assert [job.id for job in codes.dequeue()] == [b.id]
            raise RuntimeError("the buyer gives up")
    assert codes.enqueue(card_number="4000-3", card_secret="z") == (b.id, False)

    # purge removes the record after the retention period: then the key is free again
    env.backdate("card_codes", "completed_at", 366 * 86400, kind="archive_table")
    assert codes.purge().archived == 2
    assert codes.enqueue(card_number="4000-1", card_secret="s1").enqueued


def test_ever_covers_the_archive_and_the_dead_letters(use_spec):
    env = use_spec(BEHAVE)
    queue = env.client("once_archived")   # on_duplicate: error, one attempt
    done, dead = queue.enqueue(code="done"), queue.enqueue(code="dead")
    first, second = queue.dequeue(batch_size=2)
    queue.complete(first)
    assert queue.fail(second, "no") == "dead"
    for code in ("done", "dead"):
        with pytest.raises(DuplicateJob):
            queue.enqueue(code=code)
        with pytest.raises(DuplicateJob):
            queue.enqueue_many([{"code": "fresh"}, {"code": code}])
    assert queue.metrics()["ready"] == 0, "nothing of a refused batch was queued"
    assert queue.purge(older_than_seconds=0) == (1, 0, 1)
    assert queue.enqueue(code="done").enqueued and queue.enqueue(code="dead").enqueued
    assert done.id != dead.id


def test_ever_covers_processed_rows_and_dead_letters_of_a_marking_queue(use_spec):
    env = use_spec(BEHAVE)
    queue = env.client("once_marked")     # on_duplicate: return_existing, one attempt
    x, y = queue.enqueue(code="x"), queue.enqueue(code="y")
    first, second = queue.dequeue(batch_size=2)
    queue.complete(first)
    assert queue.fail(second, "no", retry=False) == "dead"
    assert queue.enqueue(code="x") == (x.id, False), "processed, kept: still taken"
    assert queue.enqueue(code="y") == (y.id, False), "dead-lettered: still taken"
    results = queue.enqueue_many([{"code": "x"}, {"code": "y"}, {"code": "z"}, {"code": "z"}])
    assert [(r.id, r.enqueued) for r in results[:2]] == [(x.id, False), (y.id, False)]
    assert results[2].enqueued and results[3] == (4, results[2].id, False)
    assert queue.metrics()["ready"] == 1


def test_queued_frees_the_key_of_a_processed_job(use_spec):
    env = use_spec(BEHAVE)
    queue = env.client("while_queued")    # mark, scope: queued
    x = queue.enqueue(code="x")
    assert queue.enqueue(code="x") == (x.id, False), "pending: taken"
    job, = queue.dequeue()
    assert queue.enqueue(code="x") == (x.id, False), "in flight: taken"
    queue.complete(job)
    again = queue.enqueue(code="x")
    assert again.enqueued and again.id != x.id, "processed: the key is free again"
    repeat, other = queue.enqueue_many([{"code": "x"}, {"code": "w"}])
    assert (repeat.id, repeat.enqueued) == (again.id, False)
    assert other.enqueued
    assert queue.metrics()["processed"] == 1 and queue.metrics()["ready"] == 2


@pytest.mark.babelfish_gap("B17", "a REPEATABLE READ caller", only=['REPEATABLE READ'])
@pytest.mark.babelfish_gap("B10", "the import must wait for the buyer's claim of the same key: SQL Server's locking",
                           only=['READ COMMITTED'])
@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ"])
def test_a_key_enqueued_while_its_job_is_being_sold_is_not_queued_again(use_spec, level):
    """The race `ever` must win: a buyer's open transaction has claimed the code (deleted from the
    queue, inserted into the archive, not committed) when the same code is re-imported. The import
    waits for the buyer; once the buyer commits, the code is in the archive and the import finds it
    there, also for an importer whose snapshot (REPEATABLE READ) predates the sale."""
    env = use_spec(EX002)
    codes, buyer, importer = env.client("card_codes"), env.client("card_codes"), env.client("card_codes")
    a = codes.enqueue(card_number="4000-9", card_secret="s")
    if level == "REPEATABLE READ":
        from tests.behaviour.test_hostile_session import at_isolation
        at_isolation(importer, level)
    result: list = []

    def reimport() -> None:
        try:
            with importer.transaction():
                importer.peek()               # the transaction's snapshot is taken here, before the sale commits
                started.set()
                result.append(importer.enqueue(card_number="4000-9", card_secret="again"))
        except BaseException as error:
            result.append(error)

    started = threading.Event()
    with buyer.transaction():
        assert [job.id for job in buyer.dequeue()] == [a.id]
        thread = threading.Thread(target=reimport)
        thread.start()
        assert started.wait(10)
        time.sleep(0.5)
        assert thread.is_alive(), "the import waits for the buyer's claim of the same key"
    thread.join(10)
    assert result == [(a.id, False)], result
    assert env.count("card_codes") == 0 and env.count("card_codes", "archive_table") == 1


def test_a_queued_code_the_archive_already_holds_does_not_wedge_the_sale(use_spec):
    """A code can be queued while the archive already holds it (an import that raced with the sale
    of the same code, a row written by hand). Moving it to the archive would break the archive's
    unique key (Msg 2601 / SQLSTATE 23505) on every claim that meets it: every sale would fail until
    someone intervened. The claim that meets it drops it instead (selling it would sell the code
    twice), and sells the next code; the archive keeps its one record of the code."""
    env = use_spec(EX002)
    codes = env.client("card_codes")
    sold_before = codes.enqueue(card_number="5000-1", card_secret="again")
    fresh = codes.enqueue(card_number="5000-2", card_secret="t")
    c = env.col
    env.execute(f"INSERT INTO {env.name('card_codes', 'archive_table')} ({c('id')}, {c('card_number')}, {c('card_secret')}, "
                f"{c('enqueued_at')}, {c('completed_at')}) VALUES (?, ?, ?, {env.now}, {env.now})",
                sold_before.id, "5000-1", "first")
    assert sell(codes) == [fresh.id], "the code already sold is not sold again; the next one is"
    assert env.count("card_codes") == 0, "the duplicate left the queue with the claim that met it"
    assert env.count("card_codes", "dead_letter_table") == 1, "and is kept in the dead letters"
    assert env.sql(f"SELECT {c('card_secret')} FROM {env.name('card_codes', 'archive_table')} "
                   f"WHERE {c('card_number')} = ?", "5000-1") == [("first",)]
    assert sell(codes) == []


@pytest.mark.parametrize("outcome", ["commit", "rollback"])
def test_a_key_enqueued_by_the_buyer_that_holds_its_job_is_not_queued_again(use_spec, outcome):
    """The half of test_a_key_enqueued_while_its_job_is_being_sold_is_not_queued_again one session
    shows: the buyer's own transaction has claimed the code (deleted from the queue, in the archive)
    when it enqueues the same code; `ever` finds it in the archive, and whether the sale commits or
    rolls back the code exists once."""
    env = use_spec(EX002)
    buyer = env.client("card_codes")
    a = buyer.enqueue(card_number="4000-9", card_secret="s")
    try:
        with buyer.transaction():
            assert [job.id for job in buyer.dequeue()] == [a.id]
            assert buyer.enqueue(card_number="4000-9", card_secret="again") == (a.id, False)
            if outcome == "rollback":
                raise RuntimeError("the sale is called off")
    except RuntimeError:
        pass
    if outcome == "commit":
        assert env.count("card_codes") == 0 and env.count("card_codes", "archive_table") == 1
    else:
        assert env.count("card_codes") == 1 and env.count("card_codes", "archive_table") == 0
    assert buyer.enqueue(card_number="4000-9", card_secret="later") == (a.id, False)


def test_a_claim_of_one_sells_a_free_code_past_the_codes_already_sold(use_spec):
    """A claimed code whose key the archive already holds (a bcp/SSIS reload past
    enqueue) was dropped from the claim: with batch 1 the buyer got nothing (read as sold out) while
    free codes waited, and the code vanished without a trace. Now the claim takes a free code in its
    place, round after round, and each duplicate is kept in the dead letters with the reason."""
    env = use_spec(EX002)
    codes = env.client("card_codes")
    c = env.col
    reloaded = [codes.enqueue(card_number=f"6000-{n}", card_secret="reloaded") for n in (1, 2, 3)]
    free = codes.enqueue(card_number="6000-9", card_secret="free")
    for job in reloaded:  # sold before: the archive holds their keys
        env.execute(f"INSERT INTO {env.name('card_codes', 'archive_table')} ({c('id')}, {c('card_number')}, "
                    f"{c('card_secret')}, {c('enqueued_at')}, {c('completed_at')}) VALUES (?, ?, ?, {env.now}, {env.now})",
                    job.id + 1000, f"6000-{reloaded.index(job) + 1}", "first sale")
    with codes.transaction():
        sold = codes.dequeue()  # the spec's batch of 1
    assert [(j.id, j.payload["card_number"]) for j in sold] == [(free.id, "6000-9")], \
        "the buyer gets the free code, not an empty result"
    dead = env.sql(f"SELECT {c('id')}, {c('card_number')}, {c('card_secret')}, {c('attempts')}, {c('last_error')} "
                   f"FROM {env.name('card_codes', 'dead_letter_table')} ORDER BY {c('id')}")
    assert [row[:4] for row in dead] == [(j.id, f"6000-{n}", "reloaded", 0) for n, j in enumerate(reloaded, 1)]
    assert all("archive already holds this dedupe key (card_number)" in row[4] for row in dead)
    assert codes.metrics()["dead"] == 3, "metrics count them"
    assert env.count("card_codes") == 0
    assert env.sql(f"SELECT {c('card_secret')} FROM {env.name('card_codes', 'archive_table')} "
                   f"WHERE {c('card_number')} = ?", "6000-9") == [("free",)]
    with codes.transaction():
        assert codes.dequeue() == [], "sold out only when no code is left"


def _lock_timeout(env, client, seconds: int) -> None:
    """Make every lock wait of this client's session fail after `seconds` (lock waits only: a call
    that waits on no lock never meets it, however loaded the machine)."""
    sql = f"SET lock_timeout = '{seconds}s'" if env.dialect == "postgres" else f"SET LOCK_TIMEOUT {seconds * 1000}"
    cursor = client.connection.cursor()
    cursor.execute(sql)
    cursor.close()


@pytest.mark.babelfish_gap("B10", "whether one buyer waits on another's archive insert is SQL Server's key-range locking")
@pytest.mark.parametrize("holder", ["buyer", "importer"])
def test_a_buyer_never_waits_on_another_buyer_or_an_open_import(use_spec, holder):
    """The claim's archive check read WITH (UPDLOCK, HOLDLOCK). With sequential
    card numbers its key-range lock landed on the end of the archive's unique index for every buyer
    and was held to the end of the buyer's transaction (and an import's archive check, held to the
    end of the importer's transaction, did the same): each buyer's archive insert waited for the
    other's whole sale. Here a second buyer, whose session fails any lock wait, claims and commits
    while a first buyer (or an import of later codes) holds its transaction open. On PostgreSQL a
    unique-index check waits only for an uncommitted row of the same key, which no other claim
    can hold (each claim holds its own queue row, unique by key)."""
    env = use_spec(EX002)
    codes, first, second = env.client("card_codes"), env.client("card_codes"), env.client("card_codes")
    codes.enqueue_many([{"card_number": f"7000-{n:04d}", "card_secret": "s"} for n in range(1, 21)])
    for _ in range(5):  # the archive holds the first five codes
        with codes.transaction():
            assert len(codes.dequeue()) == 1
    _lock_timeout(env, second, 3)
    with first.transaction():
        if holder == "buyer":
            held = [j.payload["card_number"] for j in first.dequeue()]
        else:
            held = [r.id for r in first.enqueue_many([{"card_number": f"7000-{n:04d}", "card_secret": "new"}
                                                      for n in range(21, 71)])]
        with second.transaction():
            bought = [j.payload["card_number"] for j in second.dequeue()]
        assert len(bought) == 1 and bought != held, "the second buyer sold a code without waiting"
    assert env.count("card_codes", "archive_table") == 6 + (holder == "buyer")
    assert env.count("card_codes") == 20 - 6 - (holder == "buyer") + (50 if holder == "importer" else 0)
