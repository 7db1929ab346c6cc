"""A spec of many queues installs and uninstalls on a server whose lock table is small.

PostgreSQL keeps every lock a transaction takes until it ends, in one shared table sized
max_locks_per_transaction x (max_connections + ...). uninstall.sql dropped every object of the spec
in one transaction: a 300-queue spec passed `qgen check`, installed, and its uninstall failed with
"out of shared memory" and dropped nothing on a default server. Now it checks every table first (a
statement per queue), then drops each queue in a transaction of its own: all of a queue or none of
it. The test runs on a server of its own with the smallest lock table PostgreSQL allows, where one
transaction can lock a few hundred objects and the spec has thousands: the same proportion as 300
queues on a default server, at a tenth of the install time. Run by psql, as an operator would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import psycopg
import pytest

from qgen.render.engine import render_spec
from qgen.spec.load import load_spec_text
from tests.conftest import require
from tests.support.run import run_spec

QUEUES = 24


def many_queue_spec(schema: str, queues: int) -> str:
    """Lease queues with everything that makes objects: dedupe, dead letters, an archive, an outbox."""
    lines = [f"schema: {schema}", "queues:"]
    for n in range(queues):
        lines += [f"  q{n:03d}:", "    payload:", "      n: bigint", "    dedupe: n", "    on_complete: archive",
                  "    outbox:", "      columns:", "        note: {type: text, nullable: true}"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def small_lock_table():
    from tests.support.throwaway_pg import ThrowawayPostgres, problem

    require(problem() or (None if shutil.which("psql") else "psql is not installed"))
    server = ThrowawayPostgres(max_locks_per_transaction=10, max_connections=20)
    try:
        server.start()
        yield server
    finally:
        server.stop()


def psql(url: str, script: str, *, stop_on_error: bool = True, force: bool = False) -> subprocess.CompletedProcess:
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(script)
    options = "-c client_min_messages=warning" + (" -c qgen.force_uninstall=on" if force else "")
    try:
        return subprocess.run(["psql", "-X", "-q", "-v", f"ON_ERROR_STOP={int(stop_on_error)}", "-d", url, "-f", f.name],
                              capture_output=True, text=True, env={**os.environ, "PGOPTIONS": options}, timeout=600)
    finally:
        os.unlink(f.name)


def objects(url: str, schema: str) -> tuple[int, int]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT (SELECT count(*) FROM pg_class WHERE relnamespace = to_regnamespace(%s)),"
                            " (SELECT count(*) FROM pg_proc WHERE pronamespace = to_regnamespace(%s))",
                            (schema, schema)).fetchone()


def test_a_spec_of_many_queues_uninstalls_on_a_small_lock_table_and_a_refusal_drops_nothing(small_lock_table):
    server = small_lock_table
    with psycopg.connect(server.url(), autocommit=True) as admin:
        admin.execute("CREATE DATABASE many")
        capacity = int(admin.execute("SHOW max_locks_per_transaction").fetchone()[0]) * int(
            admin.execute("SHOW max_connections").fetchone()[0])
    url = server.url("many")
    schema = "qgen_many"
    spec = run_spec(load_spec_text(many_queue_spec(schema, QUEUES), "many.yaml"))
    rendering = render_spec(spec, "many.yaml", "postgres")
    installed = psql(url, rendering.install)
    assert installed.returncode == 0, installed.stderr
    before = objects(url, schema)
    assert before[0] > capacity, "the spec has more objects than one transaction can lock here"

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'SELECT * FROM "{schema}".q017_enqueue(n => 1)')
    for stop_on_error in (True, False):  # psql without ON_ERROR_STOP goes on after an error: still nothing
        refused = psql(url, rendering.uninstall, stop_on_error=stop_on_error)
        assert "uninstall refused: these tables still hold rows: qgen_many.q017" in refused.stderr, refused.stderr
        assert "out of shared memory" not in refused.stderr
        assert objects(url, schema) == before, "a refused uninstall dropped something"

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DELETE FROM "{schema}".q017')
    done = psql(url, rendering.uninstall)
    assert done.returncode == 0, done.stderr[-2000:]
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT to_regnamespace(%s)", (schema,)).fetchone() == (None,)
        assert conn.execute("SELECT count(*) FROM pg_roles WHERE rolname LIKE %s", (schema + "%",)).fetchone() == (0,)
    again = psql(url, rendering.uninstall)  # it can run twice
    assert again.returncode == 0, again.stderr[-2000:]
