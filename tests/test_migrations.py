"""Alembic revisions made by `qgen revision`, run against the local PostgreSQL (and SQL Server when
QGEN_TEST_MSSQL_URL names one). Revisions go into an Alembic environment `qgen init` writes into a
temporary folder (the repo has none of its own to write into).

The central scenario is the README's spec-change procedure: revision 1, jobs enqueued and leased,
revision 2 from a changed spec (a new nullable payload column, a longer lease), upgrade, downgrade -1,
upgrade again: no job is lost and every lease holds."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from alembic import command
from alembic.config import Config

from qgen.cli import main as qgen_main
from qgen.migrations import RevisionRefused
from qgen.migrations.writer import make_revision
from tests.conftest import ROOT, require
from tests.support.backends import mssql_server  # noqa: F401 (a fixture: a database of this module's own)
from tests.support.pg import ADMIN_URL, scratch_database

V1 = """\
schema: {schema}
queues:
  mail:
    payload:
      address: string(320)
    lease: 5m
"""
# The spec change: a new nullable payload column, a longer lease and a bigger batch.
V2 = """\
schema: {schema}
queues:
  mail:
    payload:
      address: string(320)
      note: {{type: text, nullable: true}}
    lease: 10m
    batch_size: 20
"""


@pytest.fixture
def migrations(tmp_path) -> Path:
    """An Alembic environment as `qgen init` writes it (alembic.ini, migrations/ with an empty versions/)."""
    assert qgen_main(["init", str(tmp_path / "project"), "--no-spec"]) == 0
    return tmp_path / "project" / "alembic.ini"


@pytest.fixture
def schema() -> str:
    return f"qgen_mig_{uuid.uuid4().hex[:8]}"


@pytest.fixture
def database(postgres_server, schema):
    """A scratch database; the roles (cluster-wide) are removed even when a test fails half-way."""
    with scratch_database("qgen_mig") as url:
        yield url
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        for role in ("producer", "consumer", "admin", "owner"):
            admin.execute(f'DROP ROLE IF EXISTS "{schema}_{role}"')


def spec_file(tmp_path: Path, text: str, schema: str, name: str = "queue.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text.format(schema=schema), encoding="utf-8")
    return path


def alembic_config(ini: Path, url: str) -> Config:
    """What `alembic -c INI -x url=URL ...` builds; the logging setup of env.py is left to pytest."""
    config = Config(str(ini), cmd_opts=argparse.Namespace(x=[f"url={url}"]))
    config.attributes["configure_logger"] = False
    return config


def one(conn, query, *args):
    return conn.execute(query, args).fetchone()


def jobs(conn, schema):
    return conn.execute(f'SELECT id, address, lease_token, lease_owner, attempts FROM "{schema}".mail ORDER BY id').fetchall()


def exists(conn, schema: str, name: str) -> bool:
    return one(conn, "SELECT to_regclass(%s) IS NOT NULL", f'"{schema}"."{name}"')[0]


def indexes(conn, schema: str) -> set[str]:
    return {row[0] for row in conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = %s", (schema,))}


def function_args(conn, schema: str, name: str) -> str:
    return one(conn, "SELECT pg_get_function_arguments(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                     "WHERE n.nspname = %s AND p.proname = %s", schema, name)[0]


def columns(conn, schema: str, table: str) -> list[str]:
    return [r[0] for r in conn.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = %s "
                                       "AND table_name = %s ORDER BY ordinal_position", (schema, table))]


def gone(conn, schema: str) -> tuple[int, int]:
    namespaces = one(conn, "SELECT count(*) FROM pg_namespace WHERE nspname = %s", schema)[0]
    roles = one(conn, "SELECT count(*) FROM pg_roles WHERE rolname LIKE %s", schema + "\\_%")[0]
    return namespaces, roles


# ---------------------------------------------------------------------------------------------


def test_the_commands_from_another_folder_with_c(migrations, database, schema, tmp_path):
    """qgen revision, alembic upgrade head, alembic downgrade base, run from another folder than the
    environment's (-c points at its alembic.ini); the URL from QGEN_DATABASE_URL, -x url= winning."""
    spec = spec_file(tmp_path, (ROOT / "examples" / "001_watermark.yaml").read_text().replace("schema: ghosts", "schema: {schema}"), schema)
    bindir = Path(sys.executable).parent
    qgen = [str(bindir / "qgen")] if (bindir / "qgen").exists() else [sys.executable, "-m", "qgen.cli"]
    alembic = [str(bindir / "alembic")] if (bindir / "alembic").exists() else [sys.executable, "-m", "alembic"]
    env = {**os.environ, "QGEN_DATABASE_URL": database}
    made = subprocess.run(qgen + ["revision", str(spec), "-m", "init", "-c", str(migrations)], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    assert "first revision of this schema" in made.stdout
    subprocess.run(alembic + ["-c", str(migrations), "upgrade", "head"], cwd=ROOT, env=env, check=True, capture_output=True)
    with psycopg.connect(database, autocommit=True) as conn:
        assert exists(conn, schema, "testq") and exists(conn, schema, "testq_watermark")
        assert one(conn, f'SELECT * FROM "{schema}".testq_enqueue(%s)', "x") == (1, True)
    # -x url= takes precedence over the environment variable (which names no server here).
    bad = {**env, "QGEN_DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none"}
    down = subprocess.run(alembic + ["-c", str(migrations), "-x", f"url={database}", "downgrade", "base"], cwd=ROOT,
                          env=bad, capture_output=True, text=True)
    assert down.returncode == 0, down.stderr
    with psycopg.connect(database, autocommit=True) as conn:
        assert gone(conn, schema) == (0, 0)
    missing = subprocess.run(alembic + ["-c", str(migrations), "upgrade", "head"], cwd=ROOT,
                             env={k: v for k, v in env.items() if k != "QGEN_DATABASE_URL"}, capture_output=True, text=True)
    assert missing.returncode != 0 and "set QGEN_DATABASE_URL or pass -x url=" in missing.stderr


def test_a_sql_server_url_without_a_driver_gets_microsofts_and_its_password_stays_hidden(migrations, tmp_path):
    """qgen's own commands give a mssql+pyodbc URL without driver= Microsoft's ODBC driver (qgen[mssql]);
    env.py handed it to SQLAlchemy as it was, which asked the ODBC manager for a default driver: IM002
    ("Data source name not found") before any server was tried. Now the server itself answers (nothing
    listens on port 1 here), and the message names the URL as the user gave it, its password hidden."""
    bindir = Path(sys.executable).parent
    alembic = [str(bindir / "alembic")] if (bindir / "alembic").exists() else [sys.executable, "-m", "alembic"]
    url = "mssql+pyodbc://sa:Sekrit-42@127.0.0.1:1/app?Encrypt=no&LoginTimeout=5"
    done = subprocess.run(alembic + ["-c", str(migrations), "-x", f"url={url}", "current"], cwd=ROOT, capture_output=True,
                          text=True, env={k: v for k, v in os.environ.items() if k != "QGEN_DATABASE_URL"})
    assert done.returncode != 0, done.stderr
    assert "qgen migrations: cannot connect to mssql+pyodbc://sa:***@127.0.0.1:1/app?Encrypt=no" in done.stderr, done.stderr
    assert "IM002" not in done.stderr and "Sekrit-42" not in done.stderr, done.stderr


def test_spec_change_with_jobs_pending_and_leased(migrations, database, schema, tmp_path):
    config = alembic_config(migrations, database)
    first = make_revision(spec_file(tmp_path, V1, schema), "mail queue", migrations)
    assert first.previous is None
    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        for i in range(5):
            conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', (f"user{i}@example.com",))
        leased = conn.execute(f'SELECT * FROM "{schema}".mail_dequeue(owner => %s, batch_size => 2)', ("w1",)).fetchall()
        assert [j[0] for j in leased] == [1, 2]
        before = jobs(conn, schema)

    # Revision 2 from the changed spec: follows revision 1, adds the column to the queue and dead-letter tables.
    second = make_revision(spec_file(tmp_path, V2, schema), "note column, longer lease", migrations)
    assert second.previous == first.revision
    plan = second.plans["postgres"]
    assert sorted(plan.changes) == [f"add column {schema}.mail.note (text, nullable)",
                                    f"add column {schema}.mail_dead.note (text, nullable)"]
    assert not any("_table.sql" in step or "_lease_index" in step for step in plan.upgrade), \
        "tables are altered, never re-created, and an unchanged index is left alone"
    manifest_text = (second.folder / "manifest.json").read_text()
    assert (second.folder / "spec.yaml").read_text() == V2.format(schema=schema)
    # The previous versions it drops (and its downgrade creates again) are the files revision 1 keeps.
    assert f"../{first.folder.name}/postgres/drop/" in manifest_text and "postgres/change/" in manifest_text
    assert not (second.folder / "postgres" / "previous").exists()

    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        assert jobs(conn, schema) == before, "upgrade kept every job and every lease"
        assert "note" in columns(conn, schema, "mail") and "note" in columns(conn, schema, "mail_dead")
        assert "lease_seconds integer DEFAULT 600" in function_args(conn, schema, "mail_dequeue")
        assert "batch_size integer DEFAULT 20" in function_args(conn, schema, "mail_dequeue")
        conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s, %s)', ("late@example.com", "added after the change"))
        before = jobs(conn, schema)
        assert len(before) == 6

    # Back to revision 1: the old functions; the note column stays because a job has a value in it.
    command.downgrade(config, "-1")
    with psycopg.connect(database, autocommit=True) as conn:
        assert jobs(conn, schema) == before, "downgrade kept every job and every lease"
        assert "lease_seconds integer DEFAULT 300" in function_args(conn, schema, "mail_dequeue")
        assert "note" in columns(conn, schema, "mail"), "a column holding values is kept"
        assert "note" not in columns(conn, schema, "mail_dead"), "an empty added column goes"
        # Revision 1's functions work on the table as it is.
        assert one(conn, f'SELECT "{schema}".mail_complete(%s, %s)', before[0][2], 1)[0] == 1
        conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', ("old@example.com",))
        before = jobs(conn, schema)

    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        assert jobs(conn, schema) == before
        assert one(conn, f'SELECT note FROM "{schema}".mail WHERE address = %s', "late@example.com")[0] == "added after the change"
        # Still claimable and completable: the rest of the jobs, then the old lease on job 2.
        claimed = conn.execute(f'SELECT * FROM "{schema}".mail_dequeue(owner => %s)', ("w2",)).fetchall()
        assert sorted(j[0] for j in claimed) == [3, 4, 5, 6, 7]
        assert claimed[0][-1] > one(conn, "SELECT now() + interval '9 minutes'")[0], "the new default lease is 10m"
        assert one(conn, f'SELECT "{schema}".mail_complete(%s)', claimed[0][-2])[0] == 5
        assert one(conn, f'SELECT "{schema}".mail_complete(%s, %s)', before[0][2], 2)[0] == 1
        assert jobs(conn, schema) == []

    # With the queue empty, going back drops the added column; downgrade base removes everything.
    command.downgrade(config, "-1")
    with psycopg.connect(database, autocommit=True) as conn:
        assert "note" not in columns(conn, schema, "mail")
    command.downgrade(config, "base")
    with psycopg.connect(database, autocommit=True) as conn:
        assert gone(conn, schema) == (0, 0)


def test_new_queue_and_allowed_column_drop_round_trip(migrations, database, schema, tmp_path):
    """A revision that adds a queue and drops a payload column (allowed): downgrade keeps the new
    queue's table while it holds jobs and brings the dropped column back, empty."""
    config = alembic_config(migrations, database)
    make_revision(spec_file(tmp_path, V2, schema), "v1", migrations)
    command.upgrade(config, "head")
    v3 = V1 + "  sms:\n    payload:\n      phone: string(20)\n"
    with pytest.raises(RevisionRefused, match=r"--allow-drop mail\.note"):
        make_revision(spec_file(tmp_path, v3, schema, "v3.yaml"), "sms", migrations)
    made = make_revision(spec_file(tmp_path, v3, schema, "v3.yaml"), "sms", migrations, allow_drop=["mail.note"])
    assert f"drop column {schema}.mail.note (allowed)" in made.plans["postgres"].changes
    assert f"create table {schema}.sms" in made.plans["postgres"].changes
    # Its review page says what happens to the data, both ways.
    page = (made.folder / "REVIEW.md").read_text()
    assert "| `queues.sms` | none | a new queue |" in page and "| `queues.mail.payload.note` | text, nullable | removed |" in page
    assert f"Upgrade: drop column {schema}.mail.note (allowed): **the values in it are lost**" in page
    assert f"Upgrade: create table {schema}.sms: new and empty" in page
    assert f"Downgrade adds column {schema}.mail.note back, empty and nullable" in page
    assert f"Downgrade drops table {schema}.sms only if it is empty; a table holding rows is kept with them" in page
    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        assert "note" not in columns(conn, schema, "mail")
        conn.execute(f'SELECT * FROM "{schema}".sms_enqueue(%s)', ("+100",))
    command.downgrade(config, "-1")
    with psycopg.connect(database, autocommit=True) as conn:
        assert "note" in columns(conn, schema, "mail")
        assert exists(conn, schema, "sms"), "a new table holding jobs is kept"
        assert not exists(conn, schema, "sms_dead"), "a new empty table goes"
        assert one(conn, "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                         "WHERE n.nspname = %s AND p.proname LIKE 'sms%%'", schema)[0] == 0
    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        assert [r[1] for r in conn.execute(f'SELECT * FROM "{schema}".sms_dequeue()')] == ["+100"]
    command.downgrade(config, "base")
    with psycopg.connect(database, autocommit=True) as conn:
        # The first revision's teardown knows only its own objects: sms, kept above, is still there.
        assert exists(conn, schema, "sms")
        # ...and so is the role that owns it: a role that still owns something is never dropped.
        assert gone(conn, schema) == (1, 1)
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        conn.execute(f'DROP ROLE "{schema}_owner"')
        assert gone(conn, schema) == (0, 0)


def test_unsafe_changes_are_refused_with_what_to_do(migrations, schema, tmp_path):
    make_revision(spec_file(tmp_path, V1, schema), "v1", migrations)
    versions = migrations.parent / "migrations" / "versions"

    def refused(text: str, *allow: str) -> str:
        written = sorted(p.name for p in versions.iterdir())
        with pytest.raises(RevisionRefused) as caught:
            make_revision(spec_file(tmp_path, text, schema, "changed.yaml"), "change", migrations, allow_drop=allow)
        assert sorted(p.name for p in versions.iterdir()) == written, "a refused revision writes nothing"
        return str(caught.value)

    message = refused(V1.replace("lease: 5m", "claim: delete"))
    assert f"table {schema}.mail: queues.mail.claim changed from lease to delete" in message
    assert "add a new queue with the new settings" in message and "--allow-drop" in message
    message = refused(V1.replace("string(320)", "string(400)"))
    assert "queues.mail.payload.address: changed from string(320) to string(400)" in message
    assert "add a column under a new name" in message
    assert "cannot name" not in message and "by hand" not in message, message
    message = refused(V1.replace("address: string(320)", "address: string(320)\n      subject: string(100)"))
    assert "queues.mail.payload.subject: a new column must be nullable" in message
    assert "{type: string(100), nullable: true}" in message
    assert "cannot name" not in message and "by hand" not in message, "only what is true: the column is the reason"
    message = refused(V1.replace("mail:", "post:"))
    assert f"table {schema}.mail (table of queue mail) is no longer in the spec" in message
    assert "--allow-drop mail" in message
    assert "--allow-drop mail.nothing: this revision drops no such column or table" in refused(V1.replace("5m", "6m"), "mail.nothing")
    assert "nothing changed since revision" in refused(V1)

    # The command line says the same and exits 1.
    changed = spec_file(tmp_path, V1.replace("lease: 5m", "claim: delete"), schema, "cli.yaml")
    assert qgen_main(["revision", str(changed), "-m", "x", "-c", str(migrations)]) == 1

    # A newer SQL Server target only changes a table's key options: accepted, the tables are left as they are.
    made = make_revision(spec_file(tmp_path, "sqlserver_version: 2019\n" + V1, schema, "2019.yaml"), "2019", migrations)
    assert not any("/change/" in step for step in made.plans["mssql"].upgrade)
    assert any(c.startswith("sqlserver_version 2017 -> 2019") for c in made.plans["mssql"].changes)

    # A table the templates would now write differently from the SQL a revision ran: qgen cannot tell
    # what the database holds, and says so (here the stored SQL is edited to stand for an old template).
    # (An object a revision leaves as it was is the file of the revision that last wrote it.)
    entry = next(e for e in json.loads((made.folder / "manifest.json").read_text())["dialects"]["postgres"]["objects"]
                 if e["key"] == "mail.table")
    stored = made.folder / entry["create"]
    stored.write_text(stored.read_text().replace('"enqueued_at"', '"legacy" integer NULL,\n    "enqueued_at"'))
    message = refused("sqlserver_version: 2019\n" + V1.replace("5m", "7m"))
    assert f"table {schema}.mail: the templates now render it differently from revision {made.revision}" in message
    assert '-    "legacy" integer NULL,' in message


def as_an_older_qgen_wrote_it(made, fillfactor: int = 85) -> None:
    """Stand in for a revision an older qgen made, whose lease queue tables had another fillfactor:
    its stored PostgreSQL table SQL and its manifest say so (the rest of the revision is as made)."""
    for path in (made.folder / "postgres").rglob("*_table.sql"):
        text = path.read_text()
        if "fillfactor = 50," in text:
            path.write_text(text.replace("fillfactor = 50,", f"fillfactor = {fillfactor},"))
    manifest = made.folder / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"qgen": "', '"qgen": "0.0.9-was-'))


def reloptions(conn, schema: str, table: str) -> list[str]:
    return one(conn, "SELECT coalesce(c.reloptions, '{}') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                     "WHERE n.nspname = %s AND c.relname = %s", schema, table)[0]


def test_storage_parameters_an_older_qgen_set_are_changed_in_place(migrations, database, schema, tmp_path):
    """Revision 1 as an older qgen made it (fillfactor 85, and so is the table it created); a revision
    that adds a nullable column sets the table's fillfactor to what the templates say now, in place,
    and its downgrade puts the old one back; the jobs stay where they are."""
    config = alembic_config(migrations, database)
    first = make_revision(spec_file(tmp_path, V1, schema), "v1", migrations)
    as_an_older_qgen_wrote_it(first)
    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        assert "fillfactor=85" in reloptions(conn, schema, "mail")
        for i in range(3):
            conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', (f"user{i}@example.com",))
        conn.execute(f'SELECT * FROM "{schema}".mail_dequeue(owner => %s, batch_size => 1)', ("w1",))
        before = jobs(conn, schema)

    v2 = V1.replace("string(320)", "string(320)\n      note: {{type: text, nullable: true}}")
    second = make_revision(spec_file(tmp_path, v2, schema, "v2.yaml"), "note column", migrations)
    plan = second.plans["postgres"]
    storage = [c for c in plan.changes if c.startswith(f"set storage of table {schema}.mail:")]
    assert len(storage) == 1 and "fillfactor = 50 (was 85)" in storage[0], plan.changes
    assert "SHARE UPDATE EXCLUSIVE" in storage[0] and "pages written from now on" in storage[0]
    assert f"add column {schema}.mail.note (text, nullable)" in plan.changes
    assert not any(c.startswith("set storage") for c in second.plans["mssql"].changes), "SQL Server has none"
    assert not any("_table.sql" in step for step in plan.upgrade), "the table is altered, never re-created"

    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        options = reloptions(conn, schema, "mail")
        assert "fillfactor=50" in options and "autovacuum_vacuum_scale_factor=0.01" in options, options
        assert "note" in columns(conn, schema, "mail")
        assert jobs(conn, schema) == before

    command.downgrade(config, "-1")
    with psycopg.connect(database, autocommit=True) as conn:
        options = reloptions(conn, schema, "mail")
        assert "fillfactor=85" in options and "autovacuum_vacuum_scale_factor=0.01" in options, options
        assert "note" not in columns(conn, schema, "mail")
        assert jobs(conn, schema) == before
    command.downgrade(config, "base")


def test_a_table_difference_beyond_storage_is_still_refused(migrations, schema, tmp_path):
    """Only a difference in the storage parameters alone is made in place: one that also changes a
    column, or any difference in a SQL Server table (which has no such parameters), is refused."""
    first = make_revision(spec_file(tmp_path, V1, schema), "v1", migrations)
    as_an_older_qgen_wrote_it(first)
    stored = first.folder / "postgres" / "create" / "02_mail_table.sql"
    text = stored.read_text()
    assert "fillfactor = 85," in text
    changed = spec_file(tmp_path, V1.replace("5m", "7m"), schema, "changed.yaml")

    stored.write_text(text.replace('"address" varchar(320)', '"address" varchar(300)'))
    with pytest.raises(RevisionRefused) as caught:
        make_revision(changed, "change", migrations)
    assert f"table {schema}.mail: the templates now render it differently from revision {first.revision}" in str(caught.value)
    assert '-    "address" varchar(300) NOT NULL,' in str(caught.value)

    stored.write_text(text)
    mssql = first.folder / "mssql" / "create" / "02_mail_table.sql"
    mssql_text = mssql.read_text()
    assert "PRIMARY KEY CLUSTERED ([id])" in mssql_text
    mssql.write_text(mssql_text.replace("PRIMARY KEY CLUSTERED ([id])", "PRIMARY KEY CLUSTERED ([id]) WITH (FILLFACTOR = 85)"))
    with pytest.raises(RevisionRefused, match=r"templates now render it differently[\s\S]*\(mssql\)"):
        make_revision(changed, "change", migrations)

    # The storage parameters alone: on the same spec, the revision holds that change and no other.
    mssql.write_text(mssql_text)
    made = make_revision(spec_file(tmp_path, V1, schema, "same.yaml"), "storage", migrations)
    assert [c.split(" (in place")[0] for c in made.plans["postgres"].changes] == [
        f"set storage of table {schema}.mail: fillfactor = 50 (was 85)"]
    assert made.plans["mssql"].changes == []
    revert = [step for step in made.plans["postgres"].downgrade if "/revert/" in step]
    assert [Path(step).name for step in revert] == ["01_mail_storage.sql"]
    assert "SET (fillfactor = 85, " in (made.folder / revert[0]).read_text()


def test_migration_tsql_passes_the_gate(migrations, schema, tmp_path):
    """The SQL Server side of a spec-change revision (previous objects, column changes and their
    reversal) passes the same T-SQL gate as every rendered script."""
    from tools.tsql_gate.gate import ParserUnavailable, check_scripts, ensure_parser

    try:
        ensure_parser()
    except ParserUnavailable as exc:
        require(f"Microsoft T-SQL parser unavailable (tools/tsql_parser/build.sh): {exc}")
    # Revision 2 adds a json column, drops one (allowed) and adds an archive table.
    make_revision(spec_file(tmp_path, V1.replace("string(320)", "string(320)\n      gone: int"), schema), "v1", migrations)
    v2 = V2.replace("text, nullable", "json, nullable") + "    on_complete: archive\n"
    made = make_revision(spec_file(tmp_path, v2, schema, "v2.yaml"), "json", migrations, allow_drop=["mail.gone"])
    scripts = {}
    for direction in ("upgrade", "downgrade"):
        for relative in made.plans["mssql"].__dict__[direction]:
            if "/change/" in relative or "/revert/" in relative:
                scripts[relative] = (made.folder / relative).read_text()
    assert any("_add_note" in name for name in scripts) and any("_drop_gone" in name for name in scripts)
    assert any("drop_if_empty" in name for name in scripts)
    assert any("ISJSON" in text for text in scripts.values()), "a json column keeps its check on SQL Server"
    # Every file the revision runs, not only its table changes, begins with the SET options batch
    # (a revision runs each file on its own) and passes the gate.
    schema_file = made.folder / next(e.create for e in made.plans["mssql"].objects if e.kind == "schema")
    session = "".join(line for line in schema_file.read_text().splitlines(keepends=True)
                      if not line.startswith("--")).split("GO\n", 1)[0]
    assert session.startswith("SET ANSI_NULLS, QUOTED_IDENTIFIER")
    for direction in ("upgrade", "downgrade"):
        for relative in made.plans["mssql"].__dict__[direction]:
            text = (made.folder / relative).read_text()
            assert "".join(line for line in text.splitlines(keepends=True) if not line.startswith("--")).startswith(session), relative
            scripts[relative] = text
    findings = check_scripts(scripts)
    problems = [str(f) for found in findings.values() for f in found]
    assert not problems, "\n".join(problems)


def test_a_spec_change_that_adds_and_removes_indexes(migrations, database, schema, tmp_path):
    """Dead letters switched on: the revision adds the dead-letter table and the index purge uses,
    and its downgrade removes both (the table while empty); the claim indexes are left alone."""
    config = alembic_config(migrations, database)
    make_revision(spec_file(tmp_path, V1 + "    dead_letter: false\n", schema), "no dead letters", migrations)
    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        before = indexes(conn, schema)
    made = make_revision(spec_file(tmp_path, V1, schema, "v2.yaml"), "dead letters", migrations)
    assert f"create table {schema}.mail_dead" in made.plans["postgres"].changes
    assert any(step.endswith("_mail_dead_letter_index.sql") for step in made.plans["postgres"].upgrade)
    assert not any("claim_index" in step for step in made.plans["postgres"].upgrade), "unchanged indexes stay"
    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        assert exists(conn, schema, "mail_dead") and exists(conn, schema, "mail_dead_ix")
    command.downgrade(config, "-1")
    with psycopg.connect(database, autocommit=True) as conn:
        assert not exists(conn, schema, "mail_dead_ix") and not exists(conn, schema, "mail_dead")
        assert indexes(conn, schema) == before and "mail_pkey" in before
    command.downgrade(config, "base")


MSSQL_URL = os.environ.get("QGEN_TEST_MSSQL_URL")


@pytest.fixture
def sql_server_url(mssql_server) -> str:
    """The URL of a database of this module's own on QGEN_TEST_MSSQL_URL's server (dropped at the end):
    the revisions' alembic_version table is the database's, and another test process or run migrating
    on the same server (a database the URL names, master included) would find this one's revisions in it."""
    return mssql_server.database_url


def sql_server_engine(url: str):
    """The test's own SQLAlchemy engine on that server, through the ODBC connection string qgen makes
    (Microsoft's driver unless the URL names one)."""
    from urllib.parse import quote_plus

    import sqlalchemy as sa

    from qgen.client.connection import mssql_connection_string

    return sa.create_engine("mssql+pyodbc:///?odbc_connect=" + quote_plus(mssql_connection_string(url)))


def test_the_sql_server_teardown_ends_the_transaction_its_guard_begins(migrations, schema, tmp_path):
    """downgrade base on SQL Server runs uninstall's guard (verify's drop), which begins a transaction
    that uninstall.sql's ending commits: the teardown must end with it too, or every drop stays in an
    open transaction that closing the connection rolls back (on Babelfish the schema was all still
    there; tests below show it live)."""
    made = make_revision(spec_file(tmp_path, V1, schema), "v1", migrations, dialect="mssql")
    steps = [(made.folder / step).read_text(encoding="utf-8") for step in made.plans["mssql"].downgrade]
    began = next(i for i, text in enumerate(steps) if "BEGIN TRANSACTION;" in text)
    assert any("COMMIT TRANSACTION;" in text for text in steps[began + 1:]), made.plans["mssql"].downgrade
    assert "SET NOEXEC OFF;" in steps[-1], "a refused teardown's NOEXEC is switched off at the end"


@pytest.mark.skipif(not MSSQL_URL, reason="QGEN_TEST_MSSQL_URL is not set: no SQL Server to migrate "
                    "(e.g. mssql+pyodbc://sa:pass@host:1433/db?driver=FreeTDS&TDS_Version=7.4)")
def test_sql_server_spec_change_with_jobs(migrations, schema, tmp_path, sql_server_url):
    """The same scenario on SQL Server through pyodbc and Microsoft's ODBC driver; the database in the URL is used
    as it is, and everything the revisions create is removed by downgrade base at the end (it was not:
    the teardown ran uninstall's guard, which begins the transaction uninstall.sql's ending commits,
    without that ending, so the drops were rolled back with the connection)."""
    from tests.support.babelfish import rewriting_sqlalchemy

    # The URL as a user gives it to Alembic (without driver=, qgen's env.py takes Microsoft's driver).
    config = alembic_config(migrations, sql_server_url)
    engine = sql_server_engine(sql_server_url)
    make_revision(spec_file(tmp_path, V1, schema), "v1", migrations, dialect="mssql")
    with rewriting_sqlalchemy(sql_server_url):
        sql_server_spec_change(config, engine, schema, migrations, tmp_path)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT SCHEMA_ID(?)", (schema,)).scalar() is None


def sql_server_spec_change(config, engine, schema, migrations, tmp_path):
    try:
        command.upgrade(config, "head")
        with engine.begin() as conn:
            for i in range(3):
                conn.exec_driver_sql(f"EXEC [{schema}].[mail_enqueue] @address = ?", (f"u{i}@example.com",))
        with engine.begin() as conn:
            leased = conn.exec_driver_sql(f"EXEC [{schema}].[mail_dequeue] @owner = N'w1', @batch_size = 2").fetchall()
        assert len(leased) == 2

        def snapshot():
            with engine.connect() as conn:
                return conn.exec_driver_sql(f"SELECT id, address, lease_token, lease_owner, attempts FROM [{schema}].[mail] "
                                            "ORDER BY id").fetchall()

        before = snapshot()
        make_revision(spec_file(tmp_path, V2, schema, "v2.yaml"), "v2", migrations, dialect="mssql")
        command.upgrade(config, "head")
        assert snapshot() == before
        command.downgrade(config, "-1")
        assert snapshot() == before
        command.upgrade(config, "head")
        assert snapshot() == before
        with engine.begin() as conn:
            rest = conn.exec_driver_sql(f"EXEC [{schema}].[mail_dequeue] @owner = N'w2'").fetchall()
        assert len(rest) == 1
    finally:
        command.downgrade(config, "base")
    engine.dispose()  # a session of its own, opened after the downgrade
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT SCHEMA_ID(?)", (schema,)).scalar() is None


TWO_QUEUES = """\
schema: {schema}
queues:
  mail:
    payload:
      address: string(320)
    lease: 5m
  sms:
    payload:
      phone: string(20)
"""


def routines(conn, schema: str, prefix: str) -> dict[str, int]:
    """name -> oid of the schema's functions and procedures whose name starts with prefix: an object
    dropped and created again gets a new oid."""
    return dict(conn.execute("SELECT p.proname, p.oid::int FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                             "WHERE n.nspname = %s AND p.proname LIKE %s", (schema, prefix + "%")).fetchall())


def test_a_revision_holds_and_runs_only_what_changed(migrations, database, schema, tmp_path, caplog, capsys):
    """One nullable column added to one queue of two. The revision holds a file only for an
    object whose SQL changed, none of the other queue's, and its upgrade and downgrade leave the
    other queue's functions alone (same oids); a third revision (a longer lease) follows one that
    kept most of its objects in the first revision's folder; all of it round-trips with the jobs."""
    config = alembic_config(migrations, database)
    first = make_revision(spec_file(tmp_path, TWO_QUEUES, schema), "two queues", migrations)
    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', ("a@example.com",))
        conn.execute(f'SELECT * FROM "{schema}".sms_enqueue(%s)', ("+1",))
        leased = conn.execute(f'SELECT * FROM "{schema}".sms_dequeue(owner => %s)', ("w",)).fetchall()
        sms_before, mail_before = routines(conn, schema, "sms"), routines(conn, schema, "mail")

    v2 = TWO_QUEUES.replace("      address: string(320)\n", "      address: string(320)\n      note: {{type: text, nullable: true}}\n")
    # --dry-run prints the change summary and writes nothing.
    versions = migrations.parent / "migrations" / "versions"
    written_before = sorted(p.name for p in versions.iterdir())
    capsys.readouterr()
    assert qgen_main(["revision", str(spec_file(tmp_path, v2, schema, "v2.yaml")), "-m", "note", "-c", str(migrations),
                      "--dry-run"]) == 0
    dry = capsys.readouterr().out
    assert sorted(p.name for p in versions.iterdir()) == written_before, "a dry run writes nothing"
    assert "(dry run: nothing written)" in dry and "| `queues.mail.payload.note` | none | text, nullable |" in dry
    assert f"add column {schema}.mail.note (text, nullable): jobs already in the table get NULL in it" in dry
    assert f"Downgrade removes column {schema}.mail.note only while no row has a value in it" in dry
    assert f"`{schema}.mail_enqueue` | enqueue | its SQL changed" in dry and "sms_" not in dry.split("## What happens")[0]
    second = make_revision(spec_file(tmp_path, v2, schema, "v2.yaml"), "note", migrations)
    page = (second.folder / "REVIEW.md").read_text()
    assert "| `queues.mail.payload.note` | none | text, nullable |" in page and "`sms_" not in page
    written = [p.relative_to(second.folder).as_posix() for p in second.folder.rglob("*.sql")]
    assert written and not any("_sms" in name for name in written), written
    for dialect, plan in second.plans.items():
        assert not any("_sms_" in step for step in plan.upgrade + plan.downgrade), (dialect, plan.upgrade)
        assert set(plan.redone) <= {f"mail.{kind}" for kind in ("pending_view", "batch_type", "enqueue", "enqueue_batch",
                                                                "enqueue_json", "dequeue", "fail", "reap", "peek",
                                                                "redrive", "maintain", "dead_letters", "cancel")}, plan.redone
        assert "mail.complete" not in plan.redone and "mail.extend_lease" not in plan.redone
        assert plan.regrant and not plan.added and not plan.removed
    # Every object file it holds is of an object whose SQL changed (tables: their definition after
    # the ALTER, kept for the next revision to compare with, and not run).
    # verify too: it holds a fingerprint of every module it checks, so any changed
    # module changes it.
    objects = {p.stem.split("_", 1)[1] for p in (second.folder / "postgres" / "create").iterdir()}
    assert objects == {"verify", "mail_table", "mail_dead_letter_table", "mail_pending_view", "mail_batch_type", "mail_enqueue",
                       "mail_enqueue_batch", "mail_dequeue", "mail_fail", "mail_reap", "mail_redrive",
                       "mail_dead_letters",   # it returns the payload columns
                       "mail_cancel"}         # it moves them into the dead letters

    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        assert routines(conn, schema, "sms") == sms_before, "the unchanged queue's functions were not touched"
        mail_after = routines(conn, schema, "mail")
        assert mail_after["mail_complete"] == mail_before["mail_complete"], "an unchanged function was not touched"
        assert mail_after["mail_enqueue"] != mail_before["mail_enqueue"]
        conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s, %s)', ("b@example.com", "hello"))
        # The re-created functions keep their grants: the producer may still enqueue.
        conn.execute(f'SET ROLE "{schema}_producer"')
        conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', ("c@example.com",))
        conn.execute("RESET ROLE")

    third = make_revision(spec_file(tmp_path, v2.replace("lease: 5m", "lease: 9m"), schema, "v3.yaml"), "lease", migrations)
    # The lease is a default of the functions that take or extend one: those two, nothing else.
    assert set(third.plans["postgres"].redone) == {"mail.dequeue", "mail.extend_lease"}
    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        assert "lease_seconds integer DEFAULT 540" in function_args(conn, schema, "mail_dequeue")
        assert routines(conn, schema, "sms") == sms_before
    caplog.set_level("INFO", logger="alembic.runtime.qgen")
    command.downgrade(config, first.revision)
    said = [r.getMessage() for r in caplog.records if r.name == "alembic.runtime.qgen"]
    assert f"qgen: downgrade of revision {second.revision} ({schema}) removes column {schema}.mail.note only while no " \
           "row has a value in it; otherwise keeps it, values included" in said, said
    assert any(f"keeps tables {schema}.mail, {schema}.mail_dead" in line for line in said), said
    with psycopg.connect(database, autocommit=True) as conn:
        assert "lease_seconds integer DEFAULT 300" in function_args(conn, schema, "mail_dequeue")
        assert routines(conn, schema, "sms") == sms_before
        assert "note" in columns(conn, schema, "mail"), "a column holding values is kept"
        assert [r[0] for r in conn.execute(f'SELECT address FROM "{schema}".mail ORDER BY id')] == \
            ["a@example.com", "b@example.com", "c@example.com"]
        assert one(conn, f'SELECT "{schema}".sms_complete(%s)', leased[0][-2])[0] == 1, "the lease held throughout"
        conn.execute(f'SET ROLE "{schema}_producer"')
        conn.execute(f'SELECT * FROM "{schema}".mail_enqueue(%s)', ("d@example.com",))
        conn.execute("RESET ROLE")
    command.upgrade(config, "head")
    with psycopg.connect(database, autocommit=True) as conn:
        assert "lease_seconds integer DEFAULT 540" in function_args(conn, schema, "mail_dequeue")
        assert len(conn.execute(f'SELECT * FROM "{schema}".mail_dequeue(owner => %s)', ("w",)).fetchall()) == 4
    command.downgrade(config, "base")
    with psycopg.connect(database, autocommit=True) as conn:
        assert gone(conn, schema) == (0, 0)


@pytest.mark.skipif(not MSSQL_URL, reason="QGEN_TEST_MSSQL_URL is not set: no SQL Server to migrate "
                    "(e.g. mssql+pyodbc://sa:pass@host:1433/db?driver=FreeTDS&TDS_Version=7.4)")
def test_sql_server_revision_leaves_the_unchanged_queue_alone(migrations, schema, tmp_path, sql_server_url):
    """On SQL Server: a column added to one queue of two; the other queue's procedures keep
    their object_id and modify_date through upgrade and downgrade, and the jobs of both are kept."""
    from tests.support.babelfish import rewriting_sqlalchemy

    config = alembic_config(migrations, sql_server_url)  # without driver=: env.py takes Microsoft's driver (was IM002)
    engine = sql_server_engine(sql_server_url)

    def procedures(prefix: str):
        with engine.connect() as conn:
            return conn.exec_driver_sql("SELECT name, object_id, modify_date FROM sys.objects WHERE schema_id = SCHEMA_ID(?) "
                                        "AND type = 'P' AND name LIKE ? ORDER BY name", (schema, prefix + "%")).fetchall()

    def rows(table: str):
        with engine.connect() as conn:
            return conn.exec_driver_sql(f"SELECT * FROM [{schema}].[{table}] ORDER BY id").fetchall()

    make_revision(spec_file(tmp_path, TWO_QUEUES, schema), "v1", migrations, dialect="mssql")
    with rewriting_sqlalchemy(sql_server_url):
        unchanged_queue_alone(config, engine, schema, migrations, tmp_path, procedures, rows)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT SCHEMA_ID(?)", (schema,)).scalar() is None


def unchanged_queue_alone(config, engine, schema, migrations, tmp_path, procedures, rows):
    try:
        command.upgrade(config, "head")
        with engine.begin() as conn:
            conn.exec_driver_sql(f"EXEC [{schema}].[mail_enqueue] @address = N'a@example.com'")
            conn.exec_driver_sql(f"EXEC [{schema}].[sms_enqueue] @phone = N'+1'")
        with engine.begin() as conn:
            assert len(conn.exec_driver_sql(f"EXEC [{schema}].[sms_dequeue] @owner = N'w'").fetchall()) == 1
        sms, mail, sms_rows = procedures("sms"), procedures("mail"), rows("sms")
        v2 = TWO_QUEUES.replace("      address: string(320)\n", "      address: string(320)\n      note: {{type: text, nullable: true}}\n")
        second = make_revision(spec_file(tmp_path, v2, schema, "v2.yaml"), "v2", migrations, dialect="mssql")
        assert not any("_sms_" in step for step in second.plans["mssql"].upgrade + second.plans["mssql"].downgrade)
        command.upgrade(config, "head")
        assert procedures("sms") == sms and rows("sms") == sms_rows
        changed = {name for name, oid, _ in procedures("mail")} & {name for name, oid, _ in mail}
        assert dict((n, o) for n, o, _ in procedures("mail"))["mail_enqueue"] != dict((n, o) for n, o, _ in mail)["mail_enqueue"]
        assert "mail_complete" in changed and [p for p in procedures("mail") if p[0] == "mail_complete"] == \
            [p for p in mail if p[0] == "mail_complete"], "an unchanged procedure is not touched"
        command.downgrade(config, "-1")
        assert procedures("sms") == sms and rows("sms") == sms_rows
        assert [r.address for r in rows("mail")] == ["a@example.com"]
    finally:
        command.downgrade(config, "base")
    engine.dispose()  # a session of its own, opened after the downgrade
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT SCHEMA_ID(?)", (schema,)).scalar() is None


@pytest.mark.parametrize("example", ["000_flag_worker", "002_card_codes", "003_queue_sample", "004_rainfall"])
def test_every_example_takes_a_new_column_by_recreating_only_what_changed(migrations, database, schema, tmp_path, example):
    """Each example (job types, a table type, views, an archive, dedupe, a worker, an outbox into a
    downstream queue) takes a nullable column in every queue through a revision that re-creates only
    what changed: the database itself refuses a drop that something left in place still needs, so
    upgrade, downgrade and upgrade again succeeding live shows the dependencies were followed."""
    import re as regex

    text = regex.sub(r"(?m)^schema: .*$", f"schema: {schema}", (ROOT / "examples" / f"{example}.yaml").read_text())
    config = alembic_config(migrations, database)
    make_revision(spec_file(tmp_path, text.replace("{", "{{").replace("}", "}}"), schema), "v1", migrations, dialect="postgres")
    command.upgrade(config, "head")
    changed = regex.sub(r"(?m)^    payload:\n", "    payload:\n      review_note: {type: text, nullable: true}\n", text)
    made = make_revision(spec_file(tmp_path, changed.replace("{", "{{").replace("}", "}}"), schema, "v2.yaml"), "note",
                         migrations, dialect="postgres")
    plan = made.plans["postgres"]
    assert plan.redone and len(plan.redone) < len(plan.objects) - 3, plan.redone
    command.upgrade(config, "head")
    command.downgrade(config, "-1")
    command.upgrade(config, "head")
    command.downgrade(config, "base")
    with psycopg.connect(database, autocommit=True) as conn:
        assert gone(conn, schema) == (0, 0)


def test_a_sql_server_table_an_older_qgen_made_without_the_deferred_bit_gets_it_in_place(migrations, schema, tmp_path):
    """Revision 1 as an older qgen made it: its SQL Server queue table has no [deferred] bit.
    A revision of the same spec adds the bit in place (a change step, reverted by dropping it), and
    creates the claim index again (its filter changed); the table is never re-created. Any other
    difference in the table is still refused (test_a_table_difference_beyond_storage_is_still_refused)."""
    first = make_revision(spec_file(tmp_path, V1, schema), "v1", migrations)
    stored = first.folder / "mssql" / "create" / "02_mail_table.sql"
    text = stored.read_text()
    older = "\n".join(line for line in text.splitlines()
                      if "[deferred]" not in line and not line.lstrip().startswith("-- ")) + "\n"
    assert older != text
    stored.write_text(older)
    claim_index = next((first.folder / "mssql" / "create").glob("*_mail_claim_index.sql"))
    claim_index.write_text(claim_index.read_text().replace(" AND [deferred] = 0", ""))
    made = make_revision(spec_file(tmp_path, V1, schema, "same.yaml"), "deferred bit", migrations)
    plan = made.plans["mssql"]
    assert [c.split(" (")[0] for c in plan.changes] == [f"add column {schema}.mail.deferred"], plan.changes
    change = [step for step in plan.upgrade if "/change/" in step]
    assert [Path(step).name for step in change] == ["01_mail_deferred.sql"]
    up = (made.folder / change[0]).read_text()
    assert f"ALTER TABLE [{schema}].[mail] ADD [deferred] bit NOT NULL" in up
    assert "DROP COLUMN [deferred]" in (made.folder / change[0].replace("/change/", "/revert/")).read_text()
    assert not any(step.endswith("_table.sql") for step in plan.upgrade), "the table is altered, never re-created"
    created = [i for i, step in enumerate(plan.upgrade) if "/create/" in step and step.endswith("_claim_index.sql")]
    assert created and plan.upgrade.index(change[0]) < created[0], "the bit is there before the index that names it"
    assert made.plans["postgres"].changes == []



def freetds_url(given: str) -> str | None:
    """The given URL's server, database and login through FreeTDS (an odbc_connect= URL: SQLAlchemy's own
    FreeTDS string puts the port after a comma, which FreeTDS does not read), None without FreeTDS."""
    from urllib.parse import quote_plus

    import pyodbc
    from sqlalchemy import make_url

    if "FreeTDS" not in pyodbc.drivers():
        return None
    url = make_url(given)
    odbc = (f"DRIVER={{FreeTDS}};SERVER={url.host};PORT={url.port or 1433};DATABASE={url.database};"
            f"UID={url.username};PWD={{{url.password}}};TDS_Version=7.4")
    return "mssql+pyodbc:///?odbc_connect=" + quote_plus(odbc)


@pytest.mark.skipif(not MSSQL_URL, reason="QGEN_TEST_MSSQL_URL is not set: no SQL Server to migrate")
def test_an_upgrade_into_a_schema_owned_by_a_role_is_refused(migrations, schema, tmp_path, sql_server_url):
    """install refuses (50022) a schema owned by a database role before it creates anything; an Alembic
    upgrade runs the same batches on one connection and must stop there too, with that error, create
    nothing and stamp nothing, through either driver. The refusal's batch assigns a variable first:
    through FreeTDS pyodbc raises the THROW only on reading the next result, and run_revision read
    none: the upgrade created every object in the role's schema and was stamped as applied."""
    from tests.support.babelfish import rewriting_sqlalchemy

    engine = sql_server_engine(sql_server_url)
    role = f"{schema}_dbas"
    with engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE ROLE [{role}]")
        conn.exec_driver_sql(f"CREATE SCHEMA [{schema}] AUTHORIZATION [{role}]")
    make_revision(spec_file(tmp_path, V1, schema), "v1", migrations, dialect="mssql")
    urls = {"Microsoft's driver": sql_server_url, "FreeTDS": freetds_url(sql_server_url)}
    try:
        for driver, url in urls.items():
            if url is None:
                continue
            with rewriting_sqlalchemy(sql_server_url), pytest.raises(Exception, match="50022") as refused:
                command.upgrade(alembic_config(migrations, url), "head")
            assert "install refused" in str(refused.value), driver
            with engine.connect() as conn:
                made = conn.exec_driver_sql("SELECT count(*) FROM sys.objects WHERE schema_id = SCHEMA_ID(?)",
                                            (schema,)).scalar()
                assert made == 0, f"{driver}: the upgrade created {made} objects in the role's schema"
                stamped = conn.exec_driver_sql("SELECT OBJECT_ID(N'alembic_version')").scalar()
                if stamped is not None:
                    assert conn.exec_driver_sql("SELECT count(*) FROM alembic_version").scalar() == 0, driver
    finally:
        remove_sql_server_install(spec_file(tmp_path, V1, schema), sql_server_url)
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA [{schema}]")
            conn.exec_driver_sql(f"DROP ROLE [{role}]")
        engine.dispose()


def remove_sql_server_install(spec_path: Path, url: str) -> None:
    """What an install of spec_path left (even one it made in a schema not its own: kept), by its
    rendered uninstall, forced, each batch as the harness sends it."""
    import contextlib

    import pyodbc

    from qgen.client.connection import mssql_connection_string
    from qgen.dialects.mssql import MssqlDatabase

    split_batches = MssqlDatabase().split_batches
    from qgen.render.engine import render_spec
    from qgen.spec.load import load_spec
    from tests.support.babelfish import is_babelfish, rewrite

    rendering = render_spec(load_spec(spec_path), spec_path.name, "mssql")
    with contextlib.closing(pyodbc.connect(mssql_connection_string(url), autocommit=True)) as conn:
        babelfish, cursor = is_babelfish(conn), conn.cursor()
        for batch in split_batches(rendering.force_uninstall + rendering.uninstall):
            for sent in (rewrite(batch) if babelfish else [batch]):
                cursor.execute(sent)
                while cursor.nextset():
                    pass


def test_written_revision_modules_pass_a_linter(migrations, schema, tmp_path):
    """A revision module is committed in the user's repository, where linters run: the first one
    (which revises nothing) and a follow-on hold no trailing whitespace or unused import."""
    make_revision(spec_file(tmp_path, V1, schema), "v1", migrations)
    make_revision(spec_file(tmp_path, V2, schema, "v2.yaml"), "v2",
                  migrations)
    modules = sorted((migrations.parent / "migrations" / "versions").glob("*.py"))
    assert len(modules) == 2
    for module in modules:
        assert [n for n, line in enumerate(module.read_text().splitlines(), 1) if line != line.rstrip()] == [], module.name
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", "--select", "E,F,W", "--ignore", "E501",
                           *map(str, modules)], capture_output=True, text=True)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
