"""Regression (the test failed before the fix): uninstall.sql under psql without ON_ERROR_STOP, a producer committing late.

The check passes (no rows yet), the schema-wide revokes commit, then queue `up`'s part finds the row a
producer committed meanwhile and is refused, as designed. But psql goes on: the downstream queue that
`up`'s complete hands off to is dropped, and the last part revokes the schema from the owner role
the SECURITY DEFINER functions run as. The queue left behind, with its job, cannot be used by anyone
(not even a superuser): dequeue fails with "permission denied for schema", and complete would need
the dropped downstream table. A refused part must leave the queues it depends on and the schema's
own rights in place.
"""

from __future__ import annotations

import subprocess
import tempfile
import time

import psycopg

from qgen.render.engine import render_spec
from qgen.spec.load import load_spec_text
from tests.conftest import require
from tests.support.pg import scratch_database, server_problem
from tests.support.run import TOKEN, run_spec


def spec_text(schema: str) -> str:
    return f"""schema: {schema}
queues:
  up:
    payload:
      k: int
    lease: 5m
    on_complete: mark
    outbox:
      queue: down
  down:
    payload:
      k: int
    lease: 5m
"""


def psql_file(url: str, script: str, stop_on_error: bool) -> subprocess.Popen:
    f = tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False)
    f.write(script)
    f.close()
    return subprocess.Popen(["psql", "-X", "-q", "-v", f"ON_ERROR_STOP={int(stop_on_error)}", "-d", url, "-f", f.name],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_queue_kept_by_a_refused_uninstall_part_still_works():
    require(server_problem())
    schema = f"rv_{TOKEN}"
    spec = run_spec(load_spec_text(spec_text(schema), "review.yaml"))
    rendering = render_spec(spec, "review.yaml", "postgres")
    with scratch_database("review") as url:
        try:
            proc = psql_file(url, rendering.install, True)
            assert proc.wait(120) == 0, proc.stderr.read()
            producer = psycopg.connect(url)
            try:
                producer.execute(f'SELECT "{schema}".up_enqueue(42)')          # commits late
                uninstall = psql_file(url, rendering.uninstall, stop_on_error=False)
                with psycopg.connect(url, autocommit=True) as watch:         # until up's part waits for the producer
                    for _ in range(200):
                        if watch.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = %s::regclass",
                                         (f'"{schema}".up',)).fetchone()[0]:
                            break
                        time.sleep(0.05)
                producer.commit()
                _, err = uninstall.communicate(timeout=120)
                assert "rows were added while it ran" in err, err
            finally:
                producer.close()
            with psycopg.connect(url, autocommit=True) as conn:
                assert conn.execute(f'SELECT count(*) FROM "{schema}".up').fetchone() == (1,)   # the row is kept
                job = conn.execute(f'SELECT id, lease_token FROM "{schema}".up_dequeue()').fetchone()
                assert conn.execute(f'SELECT "{schema}".up_complete(%s, %s, NULL, 42)', (job[1], job[0])).fetchone() == (1,)
        finally:
            drop_roles(url, spec)


def drop_roles(url: str, spec) -> None:
    """The roles this test's install made (cluster-wide; the scratch database goes with its objects)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{spec.schema}" CASCADE')
        for kind in ("producer", "consumer", "admin", "owner"):
            role = getattr(spec.grants, kind)
            if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
                conn.execute(f'DROP OWNED BY "{role}"')
                conn.execute(f'DROP ROLE "{role}"')
