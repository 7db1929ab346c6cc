"""schedule.sql, rendered beside install.sql: on PostgreSQL a psql script that schedules every
queue's maintain with pg_cron. pg_cron is not installed here, so a stand-in `cron` schema with its
two functions (same signatures) records what the script asks for; the commands it recorded are then
run against the database, as pg_cron would. The SQL Server Agent script is checked by the T-SQL gate
(tests/test_tsql_rendered.py renders every file, schedule.sql included)."""

from __future__ import annotations

import shutil
import subprocess

import psycopg
import pytest

from qgen.render.engine import render_spec
from qgen.spec.model import object_name
from qgen.spec.load import load_spec
from tests.conftest import EXAMPLES, ROOT
from tests.support.pg import run_script, scratch_database
from tests.support.run import run_spec
from tests.support.scripts import failing, is_code, pg_statements, run_psql

SPEC = ROOT / "tests" / "specs" / "features_lease.yaml"

PG_CRON_STAND_IN = """
CREATE SCHEMA cron;
CREATE TABLE cron.job (jobid bigserial PRIMARY KEY, jobname text, schedule text, command text, database text);
CREATE FUNCTION cron.schedule_in_database(job_name text, schedule text, command text, database text,
                                          username text DEFAULT NULL, active boolean DEFAULT true)
RETURNS bigint LANGUAGE sql AS $$
    INSERT INTO cron.job (jobname, schedule, command, database) VALUES ($1, $2, $3, $4) RETURNING jobid
$$;
CREATE FUNCTION cron.unschedule(job_id bigint) RETURNS boolean LANGUAGE sql AS $$
    DELETE FROM cron.job WHERE jobid = $1 RETURNING true
$$;
"""


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_rendering_has_a_schedule_that_runs_each_maintain(path):
    spec = load_spec(path)
    for dialect in spec.dialects:
        schedule = render_spec(spec, path.name, dialect).files()["schedule.sql"]
        for queue in spec.queues:
            qualified = {"mssql": f"[{spec.schema}].[{object_name(spec, queue, 'maintain')}]",
                         "postgres": f'"{spec.schema}"."{object_name(spec, queue, "maintain")}"'}[dialect]
            assert qualified in schedule, f"{dialect} schedule.sql does not run {qualified}"


def test_the_pg_cron_script_schedules_every_queue_and_its_commands_run(postgres_server, tmp_path):
    psql = shutil.which("psql")
    if psql is None:
        pytest.skip("psql is not installed")
    spec = run_spec(load_spec(SPEC))  # roles of this run's own: they belong to the cluster
    rendering = render_spec(spec, SPEC.name, "postgres")
    script = tmp_path / "schedule.sql"
    script.write_text(rendering.files()["schedule.sql"], encoding="utf-8")
    with scratch_database("qgen_schedule") as url:
        run_script(url, rendering.install)
        run_script(url, PG_CRON_STAND_IN)
        database = url.rsplit("/", 1)[1]
        try:
            for _ in range(2):  # running it again replaces the jobs
                done = subprocess.run([psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", str(script)],
                                      capture_output=True, text=True, timeout=60)
                assert done.returncode == 0, done.stderr
            with psycopg.connect(url, autocommit=True) as conn:
                jobs = conn.execute("SELECT jobname, schedule, command, database FROM cron.job ORDER BY jobname").fetchall()
                assert [(name, every, db) for name, every, _, db in jobs] == [
                    (f"qgen maintain feat {queue} {database}", "5 seconds", database) for queue in sorted(spec.queues)]
                for _, _, command, _ in jobs:
                    skipped, *_ = conn.execute(command).fetchone()
                    assert skipped is False
            named = subprocess.run([psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-v", "qgen_database=elsewhere",
                                    "-d", url, "-f", str(script)], capture_output=True, text=True, timeout=60)
            assert named.returncode == 0, named.stderr
            with psycopg.connect(url) as conn:
                assert conn.execute("SELECT count(*) FROM cron.job WHERE database = 'elsewhere'").fetchone()[0] == 2
        finally:
            run_script(url, rendering.uninstall)


def schedule_statements(script: str) -> list[str]:
    return [s for s in pg_statements(script) if is_code(s)]


FEATURES = run_spec(load_spec(SPEC))
SCHEDULE = render_spec(FEATURES, SPEC.name, "postgres").files()["schedule.sql"]


def is_meta(statement: str) -> bool:
    """A psql meta-command (\\if, \\set ...), not SQL: it cannot fail as a statement does."""
    return next(line for line in statement.splitlines() if line.strip() and not line.strip().startswith("--")).startswith("\\")


@pytest.mark.parametrize("index", [i for i, s in enumerate(schedule_statements(SCHEDULE)) if not is_meta(s)])
def test_a_schedule_failing_at_any_statement_leaves_every_queue_its_job(postgres_server, index):
    """Partial failure (tests/test_partial_failure.py) for schedule.sql: statement k fails under
    psql without ON_ERROR_STOP; every queue still has exactly the job it had (the unschedules
    before the failure rolled back), and the script run again schedules every queue."""
    statements = schedule_statements(SCHEDULE)
    broken = list(statements)
    broken[index] = failing("postgres", statements[index], index)
    with scratch_database("qgen_schedule") as url:
        run_script(url, PG_CRON_STAND_IN)  # the jobs name maintain functions; they need not exist here
        run_psql(url, statements)
        with psycopg.connect(url, autocommit=True) as conn:
            before = conn.execute("SELECT jobid, jobname FROM cron.job ORDER BY jobname").fetchall()
        errors = run_psql(url, broken)
        assert "failed" in errors, errors
        with psycopg.connect(url, autocommit=True) as conn:
            after = conn.execute("SELECT jobid, jobname FROM cron.job ORDER BY jobname").fetchall()
        assert after == before, f"the schedule half replaced: {before} -> {after}"
        assert "ERROR" not in run_psql(url, statements)
        with psycopg.connect(url, autocommit=True) as conn:
            again = conn.execute("SELECT jobname FROM cron.job ORDER BY jobname").fetchall()
        assert again == [(name,) for _, name in before] and len(again) == len(FEATURES.queues)
