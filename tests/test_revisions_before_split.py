"""Revisions users already committed keep working: tests/fixtures/revisions_before_split/ holds two
revisions (an install, then a follow-on that adds a nullable column and lengthens the lease) that
`qgen revision` wrote before qgen/migrate.py became the package qgen/migrations/. Their modules import
`qgen.migrate.run_revision`, and their manifests are the JSON that qgen wrote then. They are copied
into a fresh environment byte for byte, so their schema (and its roles, which belong to the whole
PostgreSQL cluster) has a fixed name: the tests remove what a run cut short may have left first, and
on PostgreSQL take turns with any other run on this machine through a lock file (the roles are the
cluster's). On SQL Server they migrate a database of this module's own, whose alembic_version table no
other test process or run shares."""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import tempfile
import shutil
from pathlib import Path

import psycopg
import pytest
from alembic import command
from alembic.config import Config

from qgen.cli import main as qgen_main
from tests.conftest import ROOT
from tests.support.backends import mssql_server  # noqa: F401 (a fixture: a database of this module's own)
from tests.support.pg import ADMIN_URL, scratch_database

FIXTURE = ROOT / "tests" / "fixtures" / "revisions_before_split"
MSSQL_URL = os.environ.get("QGEN_TEST_MSSQL_URL")


SCHEMA = "qgen_before_split"
ROLES = [f"{SCHEMA}_{role}" for role in ("producer", "consumer", "admin", "owner")]


@pytest.fixture
def project(tmp_path) -> Path:
    """An environment as `qgen init` writes it, holding the fixture's revisions; its alembic.ini."""
    assert qgen_main(["init", str(tmp_path / "project"), "--no-spec"]) == 0
    versions = tmp_path / "project" / "migrations" / "versions"
    for path in sorted(FIXTURE.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        target = versions / path.relative_to(FIXTURE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return tmp_path / "project" / "alembic.ini"


def alembic_config(ini: Path, url: str) -> Config:
    config = Config(str(ini), cmd_opts=argparse.Namespace(x=[f"url={url}"]))
    config.attributes["configure_logger"] = False
    return config


def test_the_modules_import_run_revision_from_qgen_migrate():
    modules = sorted(FIXTURE.glob("*.py"))
    assert len(modules) == 2
    for module in modules:
        assert "from qgen.migrate import run_revision\n" in module.read_text(encoding="utf-8")


def _columns(conn, schema: str, table: str) -> list[str]:
    return [r[0] for r in conn.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = %s "
                                       "AND table_name = %s ORDER BY ordinal_position", (schema, table))]


def _dequeue_args(conn, schema: str) -> str:
    return conn.execute("SELECT pg_get_function_arguments(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = "
                        "p.pronamespace WHERE n.nspname = %s AND p.proname = 'mail_dequeue'", (schema,)).fetchone()[0]


@contextlib.contextmanager
def _roles_to_ourselves():
    """The fixed roles are the cluster's: one run on this machine at a time uses them."""
    with open(os.path.join(tempfile.gettempdir(), f"{SCHEMA}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _drop_roles() -> None:
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        for role in ROLES:
            admin.execute(f'DROP ROLE IF EXISTS "{role}"')


def test_revisions_written_before_the_split_upgrade_and_downgrade_on_postgres(postgres_server, project):
    with _roles_to_ourselves():
        _upgrade_and_downgrade_on_postgres(project)


def _upgrade_and_downgrade_on_postgres(project: Path) -> None:
    schema = SCHEMA
    _drop_roles()
    try:
        with scratch_database("qgen_old_rev") as url:
            config = alembic_config(project, url)
            command.upgrade(config, "head")
            with psycopg.connect(url, autocommit=True) as conn:
                assert "note" in _columns(conn, schema, "mail")
                assert "lease_seconds integer DEFAULT 600" in _dequeue_args(conn, schema)
                conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', ("a@example.com",))
                leased = conn.execute(f'SELECT * FROM "{schema}".mail_dequeue(owner => %s)', ("w1",)).fetchall()
                assert [job[0] for job in leased] == [1]
            command.downgrade(config, "-1")
            with psycopg.connect(url, autocommit=True) as conn:
                assert "note" not in _columns(conn, schema, "mail"), "an added column without values goes"
                assert "lease_seconds integer DEFAULT 300" in _dequeue_args(conn, schema)
                assert conn.execute(f'SELECT count(*) FROM "{schema}".mail').fetchone()[0] == 1, "the job is kept"
            command.upgrade(config, "head")
            command.downgrade(config, "base")
            with psycopg.connect(url, autocommit=True) as conn:
                assert conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone()[0] == 0
    finally:
        _drop_roles()


@pytest.mark.skipif(not MSSQL_URL, reason="QGEN_TEST_MSSQL_URL is not set: no SQL Server to migrate")
def test_revisions_written_before_the_split_upgrade_and_downgrade_on_sql_server(project, mssql_server):
    from urllib.parse import quote_plus

    import sqlalchemy as sa

    from qgen.client.connection import mssql_connection_string
    from tests.support.babelfish import rewriting_sqlalchemy

    schema, url = SCHEMA, mssql_server.database_url
    engine = sa.create_engine("mssql+pyodbc:///?odbc_connect=" + quote_plus(mssql_connection_string(url)))
    with engine.connect() as conn:
        left = conn.exec_driver_sql("SELECT SCHEMA_ID(?)", (schema,)).scalar() is not None
    if left:  # by a run cut short
        from tests.test_migrations import remove_sql_server_install

        remove_sql_server_install(next(FIXTURE.glob("*_v1")) / "spec.yaml", url)
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA [{schema}]")

    def columns() -> list[str]:
        with engine.connect() as conn:
            return [r[0] for r in conn.exec_driver_sql(
                "SELECT name FROM sys.columns WHERE object_id = OBJECT_ID(?)", (f"{schema}.mail",)).fetchall()]

    config = alembic_config(project, url)
    with rewriting_sqlalchemy(url):
        try:
            command.upgrade(config, "head")
            assert "note" in columns()
            with engine.begin() as conn:
                conn.exec_driver_sql(f"EXEC [{schema}].[mail_enqueue] @address = ?", ("a@example.com",))
            command.downgrade(config, "-1")
            assert "note" not in columns() and "address" in columns()
            command.upgrade(config, "head")
        finally:
            command.downgrade(config, "base")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT SCHEMA_ID(?)", (schema,)).scalar() is None
    engine.dispose()  # its pooled sessions would keep the module's database in use at its drop


def test_a_revision_by_this_qgen_adds_pause_to_the_queue_in_place_with_its_jobs_kept(postgres_server, project, tmp_path):
    """Issue 29: a deployment an older qgen installed (these revisions have no control table, no pause
    or resume, and a metrics function without `paused`) takes this qgen's revision of the same spec:
    the new objects are created, the changed procedures replaced, and the queued and leased jobs stay."""
    with _roles_to_ourselves():
        _drop_roles()
        try:
            with scratch_database("qgen_old_rev") as url:
                config = alembic_config(project, url)
                command.upgrade(config, "head")
                schema = SCHEMA
                with psycopg.connect(url, autocommit=True) as conn:
                    for address in ("a@example.com", "b@example.com", "c@example.com"):
                        conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', (address,))
                    leased = conn.execute(f'SELECT * FROM "{schema}".mail_dequeue(owner => %s, batch_size => 1)',
                                          ("w1",)).fetchall()
                spec = next(FIXTURE.glob("*_v2")) / "spec.yaml"
                assert qgen_main(["revision", str(spec), "-m", "pause", "-c", str(project), "--dialect", "postgres"]) == 0
                command.upgrade(config, "head")
                with psycopg.connect(url, autocommit=True) as conn:
                    assert conn.execute(f'SELECT count(*) FROM "{schema}".mail').fetchone()[0] == 3, "the jobs are kept"
                    assert conn.execute(f'SELECT paused FROM "{schema}".mail_metrics()').fetchone()[0] is False
                    assert conn.execute(f'SELECT "{schema}".mail_pause()').fetchone()[0] == 1
                    assert conn.execute(f'SELECT * FROM "{schema}".mail_dequeue(owner => %s)', ("w2",)).fetchall() == []
                    assert conn.execute(f'SELECT "{schema}".mail_complete(%s, %s)',
                                        (leased[0][-2], leased[0][0])).fetchone()[0] == 1, "a granted lease runs to its end"
                    assert conn.execute(f'SELECT "{schema}".mail_resume()').fetchone()[0] == 1
                    taken = conn.execute(f'SELECT * FROM "{schema}".mail_dequeue(owner => %s)', ("w2",)).fetchall()
                    assert len(taken) == 2
                command.downgrade(config, "-1")
                with psycopg.connect(url, autocommit=True) as conn:
                    assert conn.execute("SELECT to_regclass(%s)", (f"{schema}.mail_control",)).fetchone()[0] is None
                    assert conn.execute(f'SELECT count(*) FROM "{schema}".mail_metrics()').fetchone()[0] == 1
                command.downgrade(config, "base")
        finally:
            _drop_roles()
