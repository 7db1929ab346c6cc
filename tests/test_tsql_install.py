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
