"""Every rendered T-SQL install script runs on a T-SQL engine (QGEN_TEST_MSSQL_URL: SQL Server, or
Babelfish in CI, tests/support/babelfish.py): in a database of its own, twice (install is idempotent:
the same objects), then uninstalled twice (what is gone stays gone; nothing but the user's own
handler is left). Without a server the tests skip, saying why. (A third install is left out: on
Babelfish an install takes seconds, and the first two already show an install over nothing and over
itself.)"""

from __future__ import annotations

import contextlib

import pytest

from qgen.render.engine import render_spec
from qgen.spec.model import object_name
from qgen.spec.load import load_spec
from tests.conftest import COVERAGE_SPECS, EXAMPLES, ROOT
from tests.support.backends import BEFORE_INSTALL, MssqlBackend
from tests.support.backends import mssql_server as server  # noqa: F401 (a fixture)
from tests.support.run import named, run_spec


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
    """An install an older qgen made (no [deferred] bit, a claim index holding deferred jobs):
    upgrade.sql adds the bit and drops that index, install.sql then creates the new ones and its
    verify passes; the jobs already queued are kept and claimed (a delayed one still not before its
    time)."""
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


# A schema a DBA made and gave to a database role (CREATE SCHEMA s AUTHORIZATION some_role): qgen's
# procedures there are owned by the role, and maintain, which runs WITH EXECUTE AS OWNER, fails on
# every call on SQL Server (a role cannot be impersonated: error 15517). Babelfish shows the owner as
# SQL Server does (sys.schemas.principal_id, sys.database_principals.type 'R'), though it runs no
# EXECUTE AS at all (B26), so the refusal, not maintain's failure, is what it can show.

ROLE_OWNED_EXAMPLE = ROOT / "examples" / "000_flag_worker.yaml"


@contextlib.contextmanager
def role_owned_schema(server: MssqlBackend):
    """A spec of 000_flag_worker.yaml under a schema of this run's own, that schema made beforehand and
    owned by a database role; the spec's rendering, the schema and the role's name. Both go afterwards
    (with anything qgen left there)."""
    schema = named("qgroleown")
    role = f"{schema}_dbas"
    spec = run_spec(load_spec(ROLE_OWNED_EXAMPLE).model_copy(update={"schema_": schema}))
    rendering = render_spec(spec, ROLE_OWNED_EXAMPLE.name, "mssql")
    server.run_script(f"CREATE ROLE [{role}];\nGO\nCREATE SCHEMA [{schema}] AUTHORIZATION [{role}];\n")
    try:
        yield spec, rendering, role
    finally:
        server.run_script(rendering.force_uninstall + rendering.uninstall)  # the schema is not qgen's: kept
        server.run_script(f"DROP SCHEMA [{schema}];\nGO\nDROP ROLE [{role}];\n")


def test_install_refuses_a_schema_owned_by_a_role_before_creating_anything(server):
    import pyodbc

    from qgen.client import error_kind
    from qgen.spec.model import role_name

    with role_owned_schema(server) as (spec, rendering, role):
        with contextlib.closing(server.connect(autocommit=True)) as conn:  # as on SQL Server
            owner = conn.cursor().execute(
                "SELECT p.[name], p.[type] FROM sys.schemas AS s INNER JOIN sys.database_principals AS p "
                "ON p.principal_id = s.principal_id WHERE s.[name] = ?", spec.schema).fetchall()
            assert [tuple(row) for row in owner] == [(role, "R")]
        with pytest.raises(pyodbc.Error) as refused:
            server.run_script(rendering.install)
        message = str(refused.value)
        assert "(50022)" in message and error_kind("mssql", refused.value) == "install_refused", message
        assert f"qgen: install refused: schema [{spec.schema}] is owned by [{role}] (DATABASE_ROLE)" in message, message
        assert "EXECUTE AS OWNER cannot impersonate" in message, message
        assert f"ALTER AUTHORIZATION ON SCHEMA::[{spec.schema}] TO [dbo];" in message, message
        assert objects_in(server, spec.schema) == 0, "install created objects in the schema before refusing"
        with contextlib.closing(server.connect(autocommit=True)) as conn:
            cursor = conn.cursor()
            for kind in ("producer", "consumer", "admin"):
                name = role_name(spec, kind)
                assert cursor.execute("SELECT DATABASE_PRINCIPAL_ID(?)", name).fetchone()[0] is None, f"role {name} created"
            assert cursor.execute("SELECT count(*) FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(?)",
                                  spec.schema).fetchone()[0] == 0, "the schema was marked as install's own"


def test_verify_names_a_maintain_owned_by_a_role(server):
    """A schema given to a role after install (ALTER AUTHORIZATION, which Babelfish cannot run), or
    installed into by a qgen that did not refuse one: verify, install's last batch and every
    revision's, names each maintain procedure, its owner and what to do (50020). Shown here with every
    object but the schema's batch installed into the role's schema, as such a qgen did."""
    import pyodbc

    with role_owned_schema(server) as (spec, rendering, role):
        server.run_script(rendering.session + "".join(item.section for item in rendering.objects
                                                      if item.obj.kind not in ("schema", "verify")))
        verify = next(item.create for item in rendering.objects if item.obj.kind == "verify")
        with pytest.raises(pyodbc.Error) as unusable:
            server.run_script(verify)
        message = str(unusable.value)
        maintain = next(item.obj.name for item in rendering.objects if item.obj.kind == "maintain")
        assert "(50020)" in message and "EXECUTE AS OWNER, which cannot impersonate its owner" in message, message
        assert f"[{spec.schema}].[{maintain}] (owned by [{role}], DATABASE_ROLE)" in message, message
        assert f"ALTER AUTHORIZATION ON SCHEMA::[{spec.schema}] TO [dbo];" in message, message
