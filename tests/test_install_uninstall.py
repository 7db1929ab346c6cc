"""Install and uninstall on the local PostgreSQL, each in a scratch database: uninstall refuses to
drop tables that still hold jobs unless told to, drops only what install created (roles and schema),
runs twice; install makes a NOLOGIN owner role own everything, so the SECURITY DEFINER functions run
with its rights only, and ends by verifying that; the worker pins its search_path."""

from __future__ import annotations

import subprocess
import threading
import time
import uuid

import psycopg
import pytest

from qgen.render.engine import render_spec
from qgen.spec.catalog import ROUTINE_KINDS, queue_objects
from qgen.spec.load import load_spec_text
from tests.support.pg import ADMIN_URL, run_script, scratch_database
from tests.support.run import TOKEN, named

SPEC = """\
schema: {schema}
{grants}queues:
  mail:
    payload:
      address: string(320)
    on_complete: mark
    worker:
      handler: {schema}_handlers.handle
"""
# The worker's handler: records the search_path it runs with.
HANDLER = """\
CREATE SCHEMA IF NOT EXISTS "{schema}_handlers";
CREATE TABLE IF NOT EXISTS "{schema}_handlers".seen (id bigint, search_path text);
CREATE OR REPLACE PROCEDURE "{schema}_handlers".handle(id bigint, address varchar)
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "{schema}_handlers".seen VALUES (id, current_setting('search_path'));
END
$$;
"""


@pytest.fixture
def schema(postgres_server) -> str:
    return f"qgen_iu_{uuid.uuid4().hex[:6]}_{TOKEN}"  # its roles are named after it: this run's token


@pytest.fixture
def database(schema):
    """A scratch database; roles named after the schema (cluster-wide) go even when a test fails."""
    with scratch_database("qgen_iu") as url:
        yield url
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        for (role,) in admin.execute("SELECT rolname FROM pg_roles WHERE rolname LIKE %s", (schema + "%",)).fetchall():
            admin.execute(f'DROP ROLE "{role}"')


def rendering(schema: str, grants: str = ""):
    spec = load_spec_text(SPEC.format(schema=schema, grants=grants), "spec.yaml")
    return render_spec(spec, "spec.yaml", "postgres")


def install(url: str, schema: str, grants: str = ""):
    rendered = rendering(schema, grants)
    run_script(url, HANDLER.format(schema=schema))
    run_script(url, rendered.install)
    return rendered


def roles(conn, prefix: str) -> list[str]:
    return [r[0] for r in conn.execute("SELECT rolname FROM pg_roles WHERE rolname LIKE %s ORDER BY 1", (prefix + "%",))]


def schema_exists(conn, schema: str) -> bool:
    return conn.execute("SELECT to_regnamespace(%s) IS NOT NULL", (f'"{schema}"',)).fetchone()[0]


def test_uninstall_refuses_tables_that_hold_jobs_unless_forced(database, schema):
    rendered = install(database, schema)
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', ("a@example.com",))
    with pytest.raises(psycopg.Error) as refused:
        run_script(database, rendered.uninstall)
    assert refused.value.sqlstate == "QG021"
    assert f"still hold rows: {schema}.mail" in str(refused.value)
    assert "SET qgen.force_uninstall = 'on'" in refused.value.diag.message_hint
    # psql without ON_ERROR_STOP goes on after an error: uninstall.sql is one transaction, so still nothing goes.
    psql = subprocess.run(["psql", "-X", "-q", "-d", database], input=rendered.uninstall, text=True, capture_output=True)
    assert "uninstall refused" in psql.stderr
    with psycopg.connect(database, autocommit=True) as conn:
        assert conn.execute(f'SELECT count(*) FROM "{schema}".mail').fetchone()[0] == 1
        assert conn.execute(f"SELECT to_regprocedure('\"{schema}\".mail_dequeue(varchar, integer, integer, uuid, bigint[])')"
                            ).fetchone()[0] is not None
        assert roles(conn, schema) == [f"{schema}_admin", f"{schema}_consumer", f"{schema}_owner", f"{schema}_producer"]

    run_script(database, rendered.force_uninstall + rendered.uninstall)
    run_script(database, rendered.uninstall)  # twice: nothing left to drop, no error
    with psycopg.connect(database, autocommit=True) as conn:
        assert not schema_exists(conn, schema)
        assert roles(conn, schema) == []


def test_uninstall_checks_and_drops_the_same_rows_while_a_producer_commits_meanwhile(database, schema):
    """A producer whose insert is in flight when uninstall checks the tables: the check waits for it
    and sees its row, so uninstall is refused and the job kept. Before the fix the check saw no
    committed row, the DROP then waited for the producer, and the job it committed was dropped."""
    rendered = install(database, schema)
    producer = psycopg.connect(database)
    try:
        producer.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', ("late@example.com",))
        outcome: list[BaseException | None] = []

        def uninstall() -> None:
            try:
                run_script(database, rendered.uninstall)
                outcome.append(None)
            except psycopg.Error as exc:
                outcome.append(exc)

        worker = threading.Thread(target=uninstall)
        worker.start()
        with psycopg.connect(database, autocommit=True) as watcher:  # uninstall waits on the producer's lock
            for _ in range(200):
                if watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                   "AND wait_event_type = 'Lock'").fetchone()[0]:
                    break
                time.sleep(0.05)
        producer.commit()
        worker.join(30)
    finally:
        producer.close()
    assert len(outcome) == 1 and isinstance(outcome[0], psycopg.Error), "uninstall dropped a job committed meanwhile"
    assert outcome[0].sqlstate == "QG021"
    with psycopg.connect(database, autocommit=True) as conn:
        assert conn.execute(f'SELECT count(*) FROM "{schema}".mail').fetchone()[0] == 1
    run_script(database, rendered.force_uninstall + rendered.uninstall)


def test_verify_finds_a_function_install_left_at_an_older_version(database, schema):
    """A CREATE OR REPLACE that failed (psql without ON_ERROR_STOP goes on) leaves the older function:
    verify, the end of install, names it (QG020) instead of passing because the function exists."""
    rendered = install(database, schema)
    verify = next(item.create for item in rendered.objects if item.obj.kind == "verify")
    run_script(database, verify)  # as installed: passes
    with psycopg.connect(database, autocommit=True) as conn:
        source = conn.execute(f"SELECT pg_get_functiondef('\"{schema}\".mail_peek'::regproc)").fetchone()[0]
        conn.execute(source.replace("ORDER BY", "ORDER BY 1,", 1) if "ORDER BY" in source else source + "\n")
    with pytest.raises(psycopg.Error) as stale:
        run_script(database, verify)
    assert stale.value.sqlstate == "QG020"
    assert "not as this install rendered it: mail_peek" in str(stale.value)
    run_script(database, rendered.force_uninstall + rendered.uninstall)


def test_uninstall_drops_only_what_install_created(database, schema):
    """A role the spec only names (it existed before), the public schema, a schema holding someone
    else's table, a role that has members: none of them is dropped."""
    shared = f"{schema}_shared"
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{shared}" NOLOGIN')
    grants = f"grants:\n  producer: {shared}\n  consumer: {schema}_consumer\n  admin: {schema}_admin\n"
    spec = load_spec_text(SPEC.format(schema="public", grants=grants).replace("public_handlers", f"{schema}_handlers"), "s")
    owner = named("public_owner")  # the owner role of this run's own: roles belong to the whole cluster
    spec = spec.model_copy(update={"grants": spec.grants.model_copy(update={"owner": owner})})
    public = render_spec(spec, "s", "postgres")
    run_script(database, HANDLER.format(schema=schema))
    try:
        run_script(database, public.install)
        run_script(database, public.uninstall)
        with psycopg.connect(database, autocommit=True) as conn:
            assert schema_exists(conn, "public"), "uninstall dropped the public schema"
            assert roles(conn, schema) == [shared], "only the role that was there before install stays"
            assert roles(conn, owner) == []
            assert conn.execute("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                                "WHERE n.nspname = 'public'").fetchone()[0] == 0
    finally:
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute(f'DROP OWNED BY "{owner}" CASCADE' if roles(conn, owner) else "SELECT 1")
            conn.execute(f'DROP ROLE IF EXISTS "{owner}"')

    # A schema install created, now holding a table of someone else's; a role with a member.
    rendered = install(database, schema)
    member = f"{schema}_app"
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(f'CREATE TABLE "{schema}".theirs (x int)')
        conn.execute(f'CREATE ROLE "{member}" NOLOGIN IN ROLE "{schema}_consumer"')
    run_script(database, rendered.uninstall)
    with psycopg.connect(database, autocommit=True) as conn:
        assert schema_exists(conn, schema) and conn.execute(f'SELECT count(*) FROM "{schema}".theirs').fetchone()[0] == 0
        assert roles(conn, schema) == [f"{schema}_app", f"{schema}_consumer", shared], \
            "the role with a member stays; the owner role owns nothing any more and goes"


def test_a_nologin_owner_owns_everything_and_definer_functions_pin_search_path(database, schema):
    install(database, schema)
    owner = f"{schema}_owner"
    with psycopg.connect(database, autocommit=True) as conn:
        assert conn.execute("SELECT rolcanlogin, rolsuper FROM pg_roles WHERE rolname = %s", (owner,)).fetchone() == (False, False)
        routines = conn.execute(
            "SELECT p.proname, p.prokind, p.prosecdef, pg_get_userbyid(p.proowner), p.proconfig FROM pg_proc p "
            "JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = %s ORDER BY 1", (schema,)).fetchall()
        # every routine the catalog renders for the queue (functions; the worker and purge procedures)
        spec = load_spec_text(SPEC.format(schema=schema, grants=""), "spec.yaml")
        rendered = {o.name for o in queue_objects(spec, "mail", "postgres") if o.kind in ROUTINE_KINDS}
        assert sorted(r[0] for r in routines) == sorted(rendered) and len(routines) >= 16
        assert {r[3] for r in routines} == {owner}, "every function is the owner role's, not the installer's"
        for name, kind, definer, _, config in routines:
            assert definer == (kind == "f"), name  # the worker commits: it cannot be SECURITY DEFINER
            assert kind == "p" or "search_path=pg_catalog, pg_temp" in config, name
        relations = conn.execute(
            "SELECT c.relname, pg_get_userbyid(c.relowner) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind IN ('r', 'v', 'c')", (schema,)).fetchall()
        # queue, watermark, control and dead-letter tables, the pending view, the batch and dequeue row types
        assert {r[1] for r in relations} == {owner} and len(relations) == 7, relations
        options = conn.execute("SELECT reloptions FROM pg_class WHERE oid = %s::regclass", (f'"{schema}".mail',)).fetchone()[0]
        assert {"fillfactor=50", "autovacuum_vacuum_scale_factor=0.01", "autovacuum_vacuum_threshold=1000",
                "autovacuum_analyze_scale_factor=0.02"} <= set(options)
        # Through the functions, the owner's rights suffice: a queue works end to end.
        conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', ("a@example.com",))
        assert conn.execute(f'CALL "{schema}".mail_worker()').fetchone()[0] == 1


def test_install_refuses_an_owner_role_that_can_log_in(database, schema):
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{schema}_owner" LOGIN')
    with pytest.raises(psycopg.Error) as refused:
        install(database, schema)
    assert refused.value.sqlstate == "QG022" and "can log in" in str(refused.value)


def test_install_ends_by_verifying_owners_and_search_paths(database, schema):
    rendered = install(database, schema)
    verify = next(item for item in rendered.objects if item.obj.kind == "verify")
    run_script(database, verify.create)  # as installed: nothing to say
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(f'ALTER FUNCTION "{schema}".mail_dequeue RESET search_path')
        conn.execute(f'ALTER FUNCTION "{schema}".mail_purge_batch OWNER TO CURRENT_USER')
    with pytest.raises(psycopg.Error) as wrong:
        run_script(database, verify.create)
    assert wrong.value.sqlstate == "QG020"
    assert "mail_dequeue" in str(wrong.value) and "search_path not pinned" in str(wrong.value)
    assert "mail_purge_batch" in str(wrong.value) and "owned by" in str(wrong.value)
    run_script(database, rendered.install)  # installing again puts both right
    run_script(database, verify.create)


def test_the_worker_pins_its_search_path(database, schema):
    """An = operator on integers in a schema the caller puts before pg_catalog would run inside the
    worker, with the caller's rights; the worker pins its own path, and gives the handler the caller's."""
    install(database, schema)
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(f"""
            CREATE SCHEMA "{schema}_evil";
            CREATE TABLE "{schema}_evil".called (at timestamptz DEFAULT now());
            CREATE FUNCTION "{schema}_evil".int_eq(a integer, b integer) RETURNS boolean LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO "{schema}_evil".called DEFAULT VALUES;
                RETURN a OPERATOR(pg_catalog.=) b;
            END $$;
            CREATE OPERATOR "{schema}_evil".= (LEFTARG = integer, RIGHTARG = integer, FUNCTION = "{schema}_evil".int_eq);
        """)
        conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', ("a@example.com",))
        path = f'"{schema}_evil", pg_catalog, public'
        conn.execute(f"SET search_path = {path}")
        path = conn.execute("SHOW search_path").fetchone()[0]
        assert conn.execute("SELECT 1 = 1").fetchone() == (True,)
        assert conn.execute(f'SELECT count(*) FROM "{schema}_evil".called').fetchone()[0] == 1, "the trap works"
        assert conn.execute(f'CALL "{schema}".mail_worker()').fetchone()[0] == 1
        conn.execute("RESET search_path")
        assert conn.execute(f'SELECT count(*) FROM "{schema}_evil".called').fetchone()[0] == 1, \
            "the worker's own = resolved through the caller's search_path"
        assert conn.execute(f'SELECT search_path FROM "{schema}_handlers".seen').fetchall() == [(path,)]
