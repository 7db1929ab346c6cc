"""The in-database worker: CALL, a handler procedure, commit per job, failures to retry and dead letter."""

import psycopg
import pytest

from tests.support.run import named
from tests.support.sql import one

SPEC = "worker"
S = "pgs_wrk"
C1 = named("pgs_wrk_c1")  # a login of this run's own
A1 = named("pgs_wrk_a1")  # a login of this run's own


@pytest.fixture(scope="module", autouse=True)
def handler(installed):
    with installed.connect() as conn:
        conn.execute(f"CREATE TABLE {S}.sent (id bigint, recipient text, subject text)")
        conn.execute(f"""
            CREATE PROCEDURE {S}.send_mail(id bigint, recipient varchar, subject varchar)
            LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO {S}.sent VALUES (id, recipient, subject);
                IF recipient LIKE 'bad%' THEN
                    RAISE EXCEPTION 'cannot send to %', recipient;
                END IF;
            END $$""")


def test_worker_drains(db):
    for r in ("a@x", "bad@x", "b@x", "c@x"):
        one(db, f"SELECT * FROM {S}.mail_enqueue(%s, %s)", r, "hi " + r)
    processed = one(db, f"CALL {S}.mail_worker()")[0]
    # 4 claims of good or bad jobs, plus the bad job's retry (base 0: at once), then it is dead
    assert processed == 5
    assert one(db, f"SELECT count(*) FROM {S}.mail")[0] == 0
    dead = one(db, f"SELECT recipient, attempts, last_error FROM {S}.mail_dead")
    assert dead == ("bad@x", 2, "cannot send to bad@x")
    # the failed attempts' handler work was rolled back; the good ones committed
    assert sorted(r[0] for r in db.execute(f"SELECT recipient FROM {S}.sent").fetchall()) == ["a@x", "b@x", "c@x"]


def test_worker_limits_and_owner(db):
    db.execute(f"TRUNCATE {S}.sent")
    for i in range(5):
        one(db, f"SELECT * FROM {S}.mail_enqueue(%s)", f"u{i}@x")
    assert one(db, f"CALL {S}.mail_worker(max_items => 2)")[0] == 2
    assert one(db, f"SELECT count(*) FROM {S}.mail")[0] == 3
    assert one(db, f"CALL {S}.mail_worker(1, 0, 'me', 60, NULL)")[0] == 1
    assert one(db, f"CALL {S}.mail_worker(max_seconds => 60)")[0] == 2
    assert one(db, f"CALL {S}.mail_worker()")[0] == 0


def test_worker_in_transaction_block_is_refused(installed):
    with installed.connect(autocommit=False) as conn:
        with pytest.raises(psycopg.errors.InvalidTransactionTermination):
            one(conn, f"SELECT * FROM {S}.mail_enqueue('t@x')")
            conn.execute(f"CALL {S}.mail_worker()")


def test_worker_is_admin_only(installed, db):
    db.execute(f"DROP ROLE IF EXISTS {C1}")
    db.execute(f"CREATE ROLE {C1} LOGIN IN ROLE {installed.role('consumer')}")
    try:
        with psycopg.connect(installed.dsn.replace("user=postgres", f"user={C1}"), autocommit=True) as c:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                c.execute(f"CALL {S}.mail_worker()")
    finally:
        db.execute(f"DROP ROLE {C1}")


def test_worker_as_admin(installed, db):
    db.execute(f"DROP ROLE IF EXISTS {A1}")
    db.execute(f"CREATE ROLE {A1} LOGIN IN ROLE {installed.role('admin')}")
    # The handler was created after the grants ran: the user grants it, as for any procedure of theirs.
    db.execute(f"GRANT EXECUTE ON PROCEDURE {S}.send_mail TO {installed.role('admin')}")
    db.execute(f"GRANT INSERT ON {S}.sent TO {installed.role('admin')}")
    try:
        one(db, f"SELECT * FROM {S}.mail_enqueue('admin@x')")
        with psycopg.connect(installed.dsn.replace("user=postgres", f"user={A1}"), autocommit=True) as a:
            assert one(a, f"CALL {S}.mail_worker()")[0] == 1
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                a.execute(f"SELECT * FROM {S}.mail")
        assert one(db, f"SELECT count(*) FROM {S}.sent WHERE recipient = 'admin@x'")[0] == 1
    finally:
        db.execute(f"REVOKE ALL ON PROCEDURE {S}.send_mail FROM {installed.role('admin')}")
        db.execute(f"REVOKE ALL ON {S}.sent FROM {installed.role('admin')}")
        db.execute(f"DROP ROLE {A1}")
