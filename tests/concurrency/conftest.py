"""The concurrency tests run once per database, on the behavioural suite's backends
(tests/support/backends.py): PostgreSQL here, SQL Server when QGEN_TEST_MSSQL_URL is set. On
Babelfish they skip (gap B10): its locking is PostgreSQL's, so they would prove nothing about SQL
Server's; they need a real SQL Server."""

from pathlib import Path

import pytest

from tests.support.backends import babelfish_gap, backend, dialect, use_spec  # noqa: F401  (fixtures)

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        if Path(str(item.fspath)).resolve().parent == HERE:
            item.add_marker(pytest.mark.babelfish_gap(
                "B10", "many sessions at once: SQL Server's READPAST/UPDLOCK locking is what this shows"))
