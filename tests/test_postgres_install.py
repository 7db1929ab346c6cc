"""Every rendered PostgreSQL install script is accepted by the local PostgreSQL: run in a scratch
database twice (it must be idempotent), then uninstalled completely (twice), then installed again. Each spec
is rendered with roles of this run's own (tests/support/run.py): roles belong to the cluster."""

from __future__ import annotations

import psycopg
import pytest

from qgen import dialects
from qgen.render.engine import render_spec
from qgen.spec.model import role_name
from qgen.spec.load import load_spec
from tests.conftest import COVERAGE_SPECS, EXAMPLES, ROOT
from tests.support.pg import run_script, scratch_database, uninstalled_at_the_end
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
        run_script(url, rendering.uninstall)  # twice: what is gone stays gone, no error
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


def indexes(url: str, schema: str) -> dict[str, str]:
    """name -> definition of every index in the schema."""
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = %s", (schema,)).fetchall()
    return {name: definition.split(" USING btree ", 1)[1] for name, definition in rows}


def test_claim_and_purge_indexes(postgres_server):
    """Each claim has an index in its own order, and purge finds old rows by the time it deletes by."""
    with scratch_database("qgen_ix") as url, uninstalled_at_the_end(url) as installs:
        for name in ("features_lease", "features_delete"):
            installs.append(render_spec(run_spec(load_spec(ROOT / "tests" / "specs" / f"{name}.yaml")), name, "postgres"))
            run_script(url, installs[-1].install)
        for example in ("001_watermark", "000_flag_worker"):
            if example in HANDLER:
                run_script(url, HANDLER[example])
            installs.append(render_spec(run_spec(load_spec(ROOT / "examples" / f"{example}.yaml")), example, "postgres"))
            run_script(url, installs[-1].install)
        lease = indexes(url, "feat")  # jobs: job types, archive, dead letters; urgent: priority
        # A claim writes no indexed column (a HOT update): no index names the lease, none holds tokens.
        # A dequeue with a job type has an index in its order; one without has one in id order (the
        # primary key would hold deferred jobs too).
        assert lease["jobs_claim_ix"] == '(job_type, id) WHERE (available_at <= enqueued_at)'
        assert lease["jobs_claim_order_ix"] == '(id) WHERE (available_at <= enqueued_at)'
        # Deferred jobs (delayed, backed off) wait in the due index instead, by the time they become due.
        assert lease["jobs_claim_ix_due"] == '(available_at, id) WHERE (available_at > enqueued_at)'
        assert "jobs_lease_ix" not in lease
        # No watermark (priority order): nothing bounds where a claim starts, so the claim index holds
        # unleased rows only and a lease index the jobs in flight, as on SQL Server.
        assert lease["urgent_claim_ix"] == '(priority DESC, id) WHERE (lease_token IS NULL)'
        assert lease["urgent_lease_ix"] == '(lease_token) INCLUDE (lease_expires_at, attempts) WHERE (lease_token IS NOT NULL)'
        assert "urgent_claim_order_ix" not in lease, "no job types: the claim index is in queue order already"
        assert lease["jobs_archive_ix"] == "(completed_at)" and lease["jobs_dead_ix"] == "(dead_at)"
        delete = indexes(url, "featd")  # a delete queue with job types and priority
        assert delete["q_mail_claim_ix"] == "(job_type, priority DESC, id)"
        assert delete["q_mail_claim_order_ix"] == "(priority DESC, id)"
        # A fifo delete queue claims in primary-key order: no index besides the key.
        assert sorted(indexes(url, "ghosts")) == ["testq_control_pkey", "testq_pkey", "testq_watermark_pkey"]
        marked = indexes(url, "four")  # on_complete: mark
        assert marked["four_queue_processed_ix"] == "(processed_at) WHERE processed"
        assert marked["four_queue_claim_ix"] == "(id) WHERE ((processed = false) AND (available_at <= enqueued_at))", \
            "finished jobs leave it, and deferred ones"
        assert marked["four_queue_claim_ix_due"] == "(available_at, id) WHERE ((available_at > enqueued_at) AND (processed = false))"


@pytest.mark.parametrize("spec_path", EXAMPLES + COVERAGE_SPECS, ids=lambda p: p.stem)
def test_every_name_install_creates_is_one_qgen_check_knows(postgres_server, spec_path):
    """qgen/render/names.py checks the names it collects from the rendered scripts; what PostgreSQL then
    holds must be exactly those, or a template created a name the check never saw."""
    spec = run_spec(load_spec(spec_path))  # roles of this run's own: they belong to the cluster
    rendering = render_spec(spec, spec_path.name, "postgres")
    collected = {c.name for item in rendering.objects for c in dialects.get("postgres").created_names(item.create)
                 if c.namespace in ("relation", "routine")}
    with scratch_database("qgen_names") as url:
        if spec_path.stem in HANDLER:
            run_script(url, HANDLER[spec_path.stem])
        run_script(url, rendering.install)
        with psycopg.connect(url) as conn:
            held = {name for name, in conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s"
                " UNION SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                " WHERE n.nspname = %s", (spec.schema, spec.schema))}
        run_script(url, rendering.uninstall)
    if spec_path.stem in HANDLER:
        held.discard("count_users_with_reputation")
    assert held == collected


def test_install_run_again_over_an_older_install_takes_the_in_place_shape(postgres_server):
    """An install an earlier qgen made: complete, extend_lease and dequeue had fewer parameters, a
    lease index and a claim index filtered on lease_token, a watermark without corrected_at (nor
    due_from and due_moved_at).
    upgrade.sql, then install.sql, run over it leaves one
    version of each function (CREATE OR REPLACE alone would add a second, and calls by name would be
    ambiguous) and drops those indexes, so that a claim is a HOT update."""
    spec = run_spec(load_spec(ROOT / "examples" / "004_rainfall.yaml"))
    rendering = render_spec(spec, "004_rainfall", "postgres")
    s = '"rainfall"'
    with scratch_database("qgen_older") as url, uninstalled_at_the_end(url) as installs:
        installs.append(rendering)
        run_script(url, rendering.install)
        with psycopg.connect(url, autocommit=True) as conn:  # what the earlier version left
            for fn, args in (("dequeue", "varchar, integer, integer, uuid"), ("complete", "uuid, bigint, bigint, varchar"),
                             ("extend_lease", "uuid, integer, bigint")):
                conn.execute(f'CREATE FUNCTION {s}."rainfall_events_{fn}"({args}) RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$')
            conn.execute(f'DROP INDEX {s}."rainfall_events_claim_ix"')
            conn.execute(f'CREATE INDEX "rainfall_events_claim_ix" ON {s}."rainfall_events" ("id") '
                         'WHERE "lease_token" IS NULL AND "processed" = FALSE')
            conn.execute(f'CREATE INDEX "rainfall_events_lease_ix" ON {s}."rainfall_events" ("lease_token") '
                         'WHERE "lease_token" IS NOT NULL')
            conn.execute(f'ALTER TABLE {s}."rainfall_events_watermark" DROP COLUMN "corrected_at", '
                         'DROP COLUMN "due_from", DROP COLUMN "due_moved_at"')
        # The cleanup lives in upgrade.sql, run first; install.sql (a fresh install's) carries none of it.
        assert "pronargs" not in rendering.install and "lease_token%" not in rendering.install
        run_script(url, rendering.upgrade)
        run_script(url, rendering.install)
        with psycopg.connect(url, autocommit=True) as conn:
            versions = dict(conn.execute(
                "SELECT p.proname, count(*) FROM pg_proc p WHERE p.pronamespace = 'rainfall'::regnamespace "
                "AND p.proname IN ('rainfall_events_dequeue', 'rainfall_events_complete', 'rainfall_events_extend_lease') "
                "GROUP BY 1").fetchall())
            assert versions == {"rainfall_events_dequeue": 1, "rainfall_events_complete": 1,
                                "rainfall_events_extend_lease": 1}
            ix = indexes(url, "rainfall")
            assert "rainfall_events_lease_ix" not in ix
            assert ix["rainfall_events_claim_ix"] == "(id) WHERE ((processed = false) AND (available_at <= enqueued_at))"
            conn.execute(f'SELECT {s}."rainfall_events_enqueue"("rainfall_id" => 1)')
            assert conn.execute(f'SELECT "corrected_at" IS NOT NULL, "due_from" = \'-infinity\' '
                                f'FROM {s}."rainfall_events_watermark"').fetchone() == (True, True)
            with conn.transaction(force_rollback=True):
                conn.execute(f'SELECT * FROM {s}."rainfall_events_dequeue"("batch_size" => 1)').fetchall()
                assert conn.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables "
                                    "WHERE relid = 'rainfall.rainfall_events'::regclass").fetchone() == (1, 1)


def test_install_run_again_replaces_a_claim_index_that_holds_deferred_jobs(postgres_server):
    """An install an earlier qgen made has a claim index with delayed and backed-off jobs in it (its
    filter does not name enqueued_at): upgrade.sql then install.sql drop it and create the one that
    leaves them out, and the due index beside it."""
    spec = run_spec(load_spec(ROOT / "examples" / "000_flag_worker.yaml"))
    rendering = render_spec(spec, "000_flag_worker.yaml", "postgres")
    install = rendering.install
    with scratch_database("qgen_due_again") as url, uninstalled_at_the_end(url) as installs:
        run_script(url, HANDLER["000_flag_worker"])
        installs.append(rendering)
        run_script(url, install)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute('DROP INDEX four."four_queue_claim_ix"')
            conn.execute('DROP INDEX four."four_queue_claim_ix_due"')
            conn.execute('CREATE INDEX "four_queue_claim_ix" ON four."four_queue" ("id") WHERE "processed" = FALSE')
        run_script(url, rendering.upgrade + install)  # upgrade.sql first, as over any older install
        ix = indexes(url, "four")
        assert ix["four_queue_claim_ix"] == "(id) WHERE ((processed = false) AND (available_at <= enqueued_at))"
        assert ix["four_queue_claim_ix_due"].startswith("(available_at, id)")
