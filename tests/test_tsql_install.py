"""Every rendered T-SQL install script runs on a T-SQL engine (QGEN_TEST_MSSQL_URL: SQL Server, or
Babelfish in CI, tests/support/babelfish.py): in a database of its own, twice (install is idempotent:
the same objects), then uninstalled twice (what is gone stays gone; nothing but the user's own
handler is left). Without a server the tests skip, saying why. (A third install is left out: on
Babelfish an install takes seconds, and the first two already show an install over nothing and over
itself.)"""

from __future__ import annotations

import contextlib

import pytest

from qgen.render import render_spec
from qgen.spec import object_name
from qgen.specload import load_spec
from tests.conftest import COVERAGE_SPECS, EXAMPLES
from tests.support.backends import BEFORE_INSTALL, MssqlBackend
from tests.support.backends import mssql_server as server  # noqa: F401 (a fixture)
from tests.support.run import run_spec


def objects_in(server: MssqlBackend, schema: str) -> int:
    """Tables, views, procedures, constraints and table types in the schema, and the indexes on its tables."""
    with contextlib.closing(server.connect(autocommit=True)) as conn:
        return conn.cursor().execute(
            "SELECT (SELECT count(*) FROM sys.objects WHERE schema_id = SCHEMA_ID(?))"
            " + (SELECT count(*) FROM sys.types WHERE is_user_defined = 1 AND schema_id = SCHEMA_ID(?))"
            " + (SELECT count(*) FROM sys.indexes AS i INNER JOIN sys.objects AS o ON o.object_id = i.object_id"
            "    WHERE o.schema_id = SCHEMA_ID(?) AND i.type > 0)",
            schema, schema, schema).fetchone()[0]


def schema_exists(server: MssqlBackend, schema: str) -> bool:
    with contextlib.closing(server.connect(autocommit=True)) as conn:
        return conn.cursor().execute("SELECT SCHEMA_ID(?)", schema).fetchone()[0] is not None


@pytest.mark.parametrize("spec_path", EXAMPLES + COVERAGE_SPECS, ids=lambda p: p.stem)
def test_install_twice_uninstall_twice(server, spec_path):
    spec = run_spec(load_spec(spec_path))
    rendering = render_spec(spec, spec_path.name, "mssql")
    handler = BEFORE_INSTALL.get((spec_path.stem, "mssql"), [])
    for script in handler:
        server.run_script(script)
    user_objects = objects_in(server, spec.schema)
    server.run_script(rendering.install)
    installed = objects_in(server, spec.schema)
    assert installed > user_objects
    server.run_script(rendering.install)  # idempotent: the same objects, no error
    assert objects_in(server, spec.schema) == installed
    server.run_script(rendering.uninstall)
    server.run_script(rendering.uninstall)  # twice: what is gone stays gone, no error
    if handler:
        assert objects_in(server, spec.schema) == user_objects, "only the user's own handler remains"
    else:
        assert not schema_exists(server, spec.schema), "uninstall left the schema behind"


def _older_shape(server: MssqlBackend, schema: str, table: str, claim_index: str, lease: bool) -> str:
    """What an older qgen installed for a fifo queue with available_at: no [deferred] column, no due
    index, a claim index that held deferred jobs too."""
    t = f"[{schema}].[{table}]"
    # SQL Server drops a column only after its default. Babelfish drops it with its default, and
    # cannot drop the default by name (it renames it, and refuses both names with error 3728).
    drop_default = "" if getattr(server, "babelfish", False) else f"ALTER TABLE {t} DROP CONSTRAINT [{table}_deferred_df];\nGO\n"
    old_index = (f"CREATE NONCLUSTERED INDEX [{claim_index}] ON {t} ([id]) INCLUDE ([available_at], [lease_token]) "
                 "WHERE [lease_token] IS NULL;" if lease else
                 f"CREATE NONCLUSTERED INDEX [{claim_index}] ON {t} ([id]) INCLUDE ([available_at]);")
    return (f"DROP INDEX [{claim_index}_due] ON {t};\nGO\nDROP INDEX [{claim_index}] ON {t};\nGO\n"
            f"{drop_default}ALTER TABLE {t} DROP COLUMN [deferred];\nGO\n"
            f"{old_index}\nGO\n")


def test_upgrade_sql_moves_an_older_install_to_the_deferred_shape(server):
    """An install an older qgen made (issue 19: no [deferred] bit, a claim index holding deferred jobs):
    upgrade.sql adds the bit and drops that index, install.sql then creates the new ones and its
    verify passes; the jobs already queued are kept and claimed (a delayed one still not before its
    time)."""
    from tests.conftest import ROOT

    path = ROOT / "tests" / "behaviour" / "specs" / "deferred.yaml"
    spec = run_spec(load_spec(path))
    rendering = render_spec(spec, path.name, "mssql")
    assert "[deferred]" in rendering.upgrade and "[deferred]" not in rendering.install.split("CREATE TABLE")[0]
    server.run_script(rendering.install)
    for name, lease in (("later", True), ("laterd", False)):
        table, claim_index = object_name(spec, name, "table"), object_name(spec, name, "claim_index")
        server.run_script(_older_shape(server, spec.schema, table, claim_index, lease))
        server.run_script(f"INSERT INTO [{spec.schema}].[{table}] ([n], [available_at]) "
                          "VALUES (1, DATEADD(hour, 1, SYSUTCDATETIME())), (2, SYSUTCDATETIME());")
    server.run_script(rendering.upgrade)
    server.run_script(rendering.install)  # its closing verify checks every index's shape
    with contextlib.closing(server.connect(autocommit=True)) as conn:
        cur = conn.cursor()
        for name in ("later", "laterd"):
            table, claim_index = object_name(spec, name, "table"), object_name(spec, name, "claim_index")
            assert cur.execute("SELECT COL_LENGTH(?, N'deferred')", f"{spec.schema}.{table}").fetchone()[0] == 1
            if not server.babelfish:  # B6: Babelfish's sys.indexes holds internal names and no filter
                filters = dict(cur.execute(
                    "SELECT [name], [filter_definition] FROM sys.indexes WHERE [object_id] = OBJECT_ID(?) AND [name] LIKE ?",
                    f"{spec.schema}.{table}", f"{claim_index}%").fetchall())
                assert "deferred" in filters[claim_index] and "deferred" in filters[f"{claim_index}_due"]
            extra = ", @at_most_once = 1" if name == "laterd" else ""
            rows = cur.execute(f"EXEC [{spec.schema}].[{object_name(spec, name, 'dequeue')}] @batch_size = 10{extra}").fetchall()
            assert [row[1] for row in rows] == [2], "the ready job; the delayed one waits for its time"
