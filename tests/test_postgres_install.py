"""Every rendered PostgreSQL install script is accepted by the local PostgreSQL: run in a scratch
database twice (it must be idempotent), then uninstalled completely, then installed again. Each spec
is rendered with roles of this run's own (tests/support/run.py): roles belong to the cluster."""

from __future__ import annotations

import psycopg
import pytest

from qgen.render import render_spec
from qgen.spec import role_name
from qgen.specload import load_spec
from tests.conftest import COVERAGE_SPECS, EXAMPLES
from tests.support.pg import run_script, scratch_database
from tests.support.run import run_spec

HANDLER = {
    # The example's worker calls a handler the user writes; a stand-in so the install can be exercised.
    "000_flag_worker": "CREATE SCHEMA IF NOT EXISTS four; "
    "CREATE OR REPLACE PROCEDURE four.count_users_with_reputation(id bigint, reputation integer) "
    "LANGUAGE plpgsql AS $$ BEGIN NULL; END $$;",
}


def roles_of(url: str, spec) -> int:
    """How many of the spec's roles exist (this run's own: no other run creates or drops them)."""
    names = [role_name(spec, r) for r in ("producer", "consumer", "admin")]
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = ANY(%s)", (names,)).fetchone()[0]


def objects_in(url: str, schema: str) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s)"
            " + (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = %s)"
            " + (SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = %s AND t.typtype = 'c' AND t.typrelid = 0)",
            (schema, schema, schema),
        ).fetchone()[0]


@pytest.mark.parametrize("spec_path", EXAMPLES + COVERAGE_SPECS, ids=lambda p: p.stem)
def test_install_twice_uninstall_reinstall(postgres_server, spec_path):
    spec = run_spec(load_spec(spec_path))
    rendering = render_spec(spec, spec_path.name, "postgres")
    with scratch_database("qgen_install") as url:
        roles_before = roles_of(url, spec)
        assert roles_before == 0
        if spec_path.stem in HANDLER:
            run_script(url, HANDLER[spec_path.stem])
        run_script(url, rendering.install)
        installed = objects_in(url, spec.schema)
        assert roles_of(url, spec) == (3 if spec.grants.enabled else 0)
        assert installed > 0
        run_script(url, rendering.install)  # idempotent: the same objects, no error
        assert objects_in(url, spec.schema) == installed
        run_script(url, rendering.uninstall)
        with psycopg.connect(url) as conn:
            left = conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s", (spec.schema,)).fetchone()[0]
        roles_after = roles_of(url, spec)
        if spec_path.stem in HANDLER:
            assert objects_in(url, spec.schema) == 1  # only the user's own handler remains
        else:
            assert left == 0, "uninstall left the schema behind"
        run_script(url, rendering.install)
        assert objects_in(url, spec.schema) == installed
        run_script(url, rendering.uninstall)  # leave no cluster-wide roles behind
    assert roles_after == roles_before, "uninstall left the roles it created behind"
